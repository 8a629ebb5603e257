use super::*;
use pretty_assertions::assert_eq;

/// Terminals whose news arrive on the returned receiver.
fn woken_terminals() -> (Terminals, std::sync::mpsc::Receiver<()>) {
    let (wake, wakeups) = std::sync::mpsc::channel();
    let mut terminals = Terminals::default();
    terminals.set_waker(Arc::new(move || {
        let _ = wake.send(());
    }));
    (terminals, wakeups)
}

fn text(bytes: Vec<u8>) -> String {
    String::from_utf8(bytes).expect("utf-8")
}

#[test]
fn a_command_runs_its_output_is_capped_and_its_exit_answers_the_wait() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (mut terminals, wakeups) = woken_terminals();
    let created = terminals.request(
        RequestId::Number(1),
        "terminal/create",
        &json!({"command": "sh", "args": ["-c", "printf 'héllo\\n'; pwd; printf \"$X\"; exit 3"],
                "env": [{"name": "X", "value": "x"}], "outputByteLimit": 8}),
        dir.path(),
    );
    assert_eq!(
        text(created),
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"terminalId\":\"term-1\"}}\n"
    );
    let of = json!({"terminalId": "term-1"});
    // Answered at the exit, or at once when the command ended already (a loaded
    // machine may run it before the wait comes).
    let mut answered = terminals.request(
        RequestId::Number(2),
        "terminal/wait_for_exit",
        &of,
        dir.path(),
    );
    while answered.is_empty() {
        wakeups.recv().expect("news");
        answered = terminals.news().1;
    }
    assert_eq!(
        text(answered),
        "{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"exitCode\":3,\"signal\":null}}\n"
    );
    // The last 8 bytes of `héllo\n<dir>\nx`, cut at a character boundary.
    let folder = dir.path().display().to_string();
    let whole = format!("héllo\n{folder}\nx");
    let mut cut = whole.len() - 8;
    while !whole.is_char_boundary(cut) {
        cut += 1;
    }
    let output = terminals.request(RequestId::Number(3), "terminal/output", &of, dir.path());
    assert_eq!(
        serde_json::from_slice::<Value>(&output).expect("JSON")["result"],
        json!({"output": &whole[cut..], "truncated": true,
               "exitStatus": {"exitCode": 3, "signal": null}})
    );
    let released = terminals.request(RequestId::Number(4), "terminal/release", &of, dir.path());
    assert_eq!(
        text(released),
        "{\"jsonrpc\":\"2.0\",\"id\":4,\"result\":{}}\n"
    );
    let gone = terminals.request(RequestId::Number(5), "terminal/output", &of, dir.path());
    assert!(text(gone).contains("\"message\":\"Invalid params\",\"data\":\"no terminal term-1\""));
}

#[test]
fn a_kill_stops_the_whole_group() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (mut terminals, wakeups) = woken_terminals();
    // The background `sleep` holds the output pipe: the exit is known (the output
    // whole) only once it is gone too, so an answer within the test's time means
    // the whole group was killed.
    let script = "sleep 60 & wait";
    terminals.request(
        RequestId::Number(1),
        "terminal/create",
        &json!({"command": "sh", "args": ["-c", script]}),
        dir.path(),
    );
    let of = json!({"terminalId": "term-1"});
    terminals.request(
        RequestId::Number(2),
        "terminal/wait_for_exit",
        &of,
        dir.path(),
    );
    terminals.request(RequestId::Number(3), "terminal/kill", &of, dir.path());
    let mut answered = Vec::new();
    while answered.is_empty() {
        wakeups.recv().expect("news");
        answered = terminals.news().1;
    }
    assert_eq!(
        text(answered),
        "{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"exitCode\":null,\"signal\":\"SIGKILL\"}}\n"
    );
}

#[test]
fn a_cancelled_turns_commands_are_gone_once_it_ends() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (mut terminals, _wakeups) = woken_terminals();
    for (n, command) in ["sleep 60", "sleep 60 & wait"].into_iter().enumerate() {
        terminals.request(
            RequestId::Number(n as i64),
            "terminal/create",
            &json!({"command": "sh", "args": ["-c", command]}),
            dir.path(),
        );
    }
    let procs: Vec<_> = terminals
        .running
        .iter()
        .map(|t| std::path::PathBuf::from(format!("/proc/{}", t.group)))
        .collect();
    assert!(procs.iter().all(|p| p.exists()), "the commands run");
    terminals.kill_all();
    terminals.reap_killed(std::time::Duration::from_secs(10));
    // Reaped, not only signalled: not even a zombie is left.
    let left: Vec<_> = procs.iter().filter(|p| p.exists()).collect();
    assert!(left.is_empty(), "still there: {left:?}");
}
