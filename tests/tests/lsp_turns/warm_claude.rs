//! Warm headless claude members from the editor (`warmHeadless`): the member's first
//! turn starts `claude -p --input-format stream-json …` with the prompt as a message on
//! stdin and keeps the process; its next turn is one more message on the same process.
//! An edited message it saw, a changed role file, a crash while idle and a cancel each
//! make the next turn start cold (a new process resuming the session); the idle timeout
//! ends the process; shutdown and a SIGTERM of the server leave none. The fake claude
//! appends one record per message it reads to `claude.jsonl` (its pid, argv, the stdin
//! line and the prompt).

use chatmd_tests::sim_editor::{At, SimEditor};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use crate::setup::{Setup, finished, redact, send, turns_ended};
use crate::warm::{answered, ended, running};

const WARM: &str = r#"{"warmHeadless": true}"#;

/// A workspace whose claude reviewer answers `ANSWER-<n>` (a fixed text per turn is
/// enough: the records say what it was asked), each turn billed 0.01 USD.
fn reviewer(more: &[(&str, &str)]) -> Setup {
    let s = Setup::new(&[]);
    let mut knobs = vec![
        ("FAKE_AGENT_TEXT", "Looks fine."),
        ("FAKE_AGENT_COST", "0.01"),
        ("FAKE_AGENT_TOKENS", "100/3"),
        ("FAKE_AGENT_PROMPT_KNOBS", "1"),
    ];
    knobs.extend_from_slice(more);
    let record = s.path("claude.jsonl").display().to_string();
    let store = s.path("sessions").display().to_string();
    let mut toml = String::from("[members.reviewer.env]\nIS_SANDBOX = \"\"\n");
    for (k, v) in knobs.iter().copied().chain([
        ("FAKE_AGENT_RECORD", &*record),
        ("FAKE_AGENT_SESSIONS", &*store),
    ]) {
        toml.push_str(&format!("{k} = {}\n", serde_json::Value::from(v)));
    }
    s.write("team/chatmd.toml", &toml);
    s
}

async fn warm_editor(s: &Setup, extra: Value) -> SimEditor {
    let mut options: Value = serde_json::from_str(WARM).expect("json");
    for (k, v) in extra.as_object().into_iter().flatten() {
        options[k] = v.clone();
    }
    s.warm_editor(options, false).await.0
}

/// What the fake claude read, one record per message (or per run, when cold without
/// stream input).
fn records(s: &Setup) -> Vec<Value> {
    std::fs::read_to_string(s.path("claude.jsonl"))
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).expect("a record"))
        .collect()
}

/// The pid a record of the fake claude names.
fn pid_of(record: &Value) -> u32 {
    let pid = record["pid"].as_u64().expect("pid");
    u32::try_from(pid).expect("a pid fits in 32 bits")
}

fn pids(s: &Setup) -> Vec<u32> {
    let mut pids: Vec<u32> = Vec::new();
    for record in records(s) {
        let pid = pid_of(&record);
        if !pids.contains(&pid) {
            pids.push(pid);
        }
    }
    pids
}

async fn opened(s: &Setup, editor: &mut SimEditor, name: &str) -> String {
    let chat = "## @me\n@reviewer first\n";
    let rel = format!("team/{name}.chat.md");
    s.write(&rel, chat);
    let uri = s.uri(&rel);
    editor.open(&uri, chat).await;
    uri
}

fn session_of(text: &str) -> String {
    text.split(' ')
        .find_map(|f| f.strip_prefix("session="))
        .expect("a session in the status")
        .to_owned()
}

#[tokio::test]
async fn the_second_turn_is_one_message_to_the_same_process() {
    let s = reviewer(&[]);
    let mut editor = warm_editor(&s, json!({})).await;
    let uri = opened(&s, &mut editor, "w").await;
    answered(&mut editor, &uri, 1).await;
    editor.type_text(&uri, At::End, "@reviewer second\n").await;
    answered(&mut editor, &uri, 2).await;

    let records = records(&s);
    assert_eq!(records.len(), 2, "{records:#?}");
    assert_eq!(
        records[0]["pid"], records[1]["pid"],
        "one process for both turns"
    );
    let argv: Vec<&str> = records[0]["argv"]
        .as_array()
        .expect("argv")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert_eq!(&argv[1..4], ["-p", "--input-format", "stream-json"]);
    assert!(!argv.iter().any(|a| a.starts_with("--resume")), "{argv:?}");
    // The second message carries only what is new since the first answer.
    let second = "[CONTEXT]\n[MESSAGE]\nme: @reviewer second\n";
    assert_eq!(records[1]["prompt"], second);
    let line = format!(
        r#"{{"type":"user","message":{{"role":"user","content":{}}}}}"#,
        Value::from(second)
    );
    assert_eq!(records[1]["stdin"], line.as_str());
    let pid = pid_of(&records[0]);
    assert!(running(pid), "the agent stays warm");

    let text = redact(editor.text(&uri));
    let session = session_of(&text);
    // Each turn's own cost: the process reports 0.02 after the second, of which the
    // second keeps its share. No `exit=`: the process still runs.
    assert_eq!(
        text.replace(&session, "{SESSION}"),
        "## @me\n@reviewer first\n\n\
         ## @reviewer\n<!-- chatmd id=t1 agent=claude status=done seen=0:6a3ed8 started=… \
         model=claude-opus-4-8 session={SESSION} cost=\"0.01 USD\" took=… stop=end_turn \
         tokens=100/3 -->\nLooks fine.\n\n\
         ## @me\n@reviewer second\n\n\
         ## @reviewer\n<!-- chatmd id=t2 agent=claude status=done seen=+2:5394f0 started=… \
         model=claude-opus-4-8 session={SESSION} cost=\"0.01 USD\" session-cost=\"0.02 USD\" \
         took=… stop=end_turn tokens=100/3 -->\nLooks fine.\n\n\
         ## @me\n"
    );
    editor.client.shutdown().await;
    ended(pid, "after shutdown").await;
}

/// The second turn, after `between` changed something, runs in a new process that
/// resumes the session; the first process is gone.
async fn second_turn_cold(s: &Setup, editor: &mut SimEditor, uri: &str) {
    answered(editor, uri, 2).await;
    let records = records(s);
    let pids = pids(s);
    assert_eq!(pids.len(), 2, "{records:#?}");
    let last = records.last().expect("a record");
    assert!(
        last["argv"]
            .as_array()
            .expect("argv")
            .iter()
            .any(|a| a.as_str().is_some_and(|a| a.starts_with("--resume="))),
        "the cold turn resumes the session: {last}"
    );
    ended(pids[0], "the warm one ends").await;
}

#[tokio::test]
async fn an_edited_message_it_saw_starts_the_next_turn_cold() {
    let s = reviewer(&[]);
    let mut editor = warm_editor(&s, json!({})).await;
    let uri = opened(&s, &mut editor, "e").await;
    answered(&mut editor, &uri, 1).await;
    let at = editor.text(&uri).find("first").expect("the message");
    editor.replace(&uri, at..at + "first".len(), "FIRST").await;
    editor.type_text(&uri, At::End, "@reviewer second\n").await;
    second_turn_cold(&s, &mut editor, &uri).await;
    editor.client.shutdown().await;
}

#[tokio::test]
async fn a_changed_role_file_starts_the_next_turn_cold() {
    let s = reviewer(&[]);
    let mut editor = warm_editor(&s, json!({})).await;
    let uri = opened(&s, &mut editor, "r").await;
    answered(&mut editor, &uri, 1).await;
    s.write("team/reviewer/CLAUDE.md", "# Reviews SQL\n");
    editor.type_text(&uri, At::End, "@reviewer second\n").await;
    second_turn_cold(&s, &mut editor, &uri).await;
    editor.client.shutdown().await;
}

#[tokio::test]
async fn an_agent_that_crashed_while_idle_is_started_cold_next_time() {
    let s = reviewer(&[]);
    let mut editor = warm_editor(&s, json!({})).await;
    let uri = opened(&s, &mut editor, "x").await;
    answered(&mut editor, &uri, 1).await;
    let first = pids(&s)[0];
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(first as i32),
        nix::sys::signal::Signal::SIGKILL,
    )
    .expect("kill the idle agent");
    ended(first, "killed").await;
    editor.type_text(&uri, At::End, "@reviewer second\n").await;
    second_turn_cold(&s, &mut editor, &uri).await;
    editor.client.shutdown().await;
}

#[tokio::test]
async fn a_cancelled_turn_leaves_nothing_warm() {
    let s = reviewer(&[]);
    let mut editor = warm_editor(&s, json!({})).await;
    let uri = opened(&s, &mut editor, "k").await;
    answered(&mut editor, &uri, 1).await;
    // The second turn hangs after its first line (on the warm process) until cancelled.
    editor
        .type_text(
            &uri,
            At::End,
            "@reviewer wait\nfake-agent: FAKE_AGENT_HANG_AFTER=2\n",
        )
        .await;
    send(&mut editor, &uri).await;
    let first = pids(&s)[0];
    editor
        .run_until("the second message read", |_| records(&s).len() == 2)
        .await;
    let cancelled = editor.command("chatmd.cancel", json!({"uri": uri})).await;
    assert!(cancelled.is_ok(), "{cancelled:?}");
    editor
        .run_until("the cancel", |e| {
            finished(e.text(&uri)) && e.text(&uri).contains("status=cancelled")
        })
        .await;
    turns_ended(&mut editor).await;
    ended(first, "a cancelled turn's process is not kept").await;
    // The cancelled message's knob line would still be the prompt's last: this one wins.
    let third = "@reviewer third\nfake-agent: FAKE_AGENT_TEXT=Looks fine.\n";
    editor.type_text(&uri, At::End, third).await;
    answered(&mut editor, &uri, 2).await;
    let pids = pids(&s);
    assert_eq!(pids.len(), 2, "the third turn starts a new process");
    assert_eq!(records(&s).len(), 3);
    editor.client.shutdown().await;
}

#[tokio::test]
async fn the_idle_timeout_ends_the_kept_agent() {
    let s = reviewer(&[]);
    let mut editor = warm_editor(&s, json!({"warmIdleSeconds": 0.3})).await;
    let uri = opened(&s, &mut editor, "i").await;
    answered(&mut editor, &uri, 1).await;
    let first = pids(&s)[0];
    ended(first, "idle for longer than warmIdleSeconds").await;
    editor.type_text(&uri, At::End, "@reviewer second\n").await;
    second_turn_cold(&s, &mut editor, &uri).await;
    editor.client.shutdown().await;
}

#[tokio::test]
async fn without_warm_headless_each_turn_is_its_own_run() {
    let s = reviewer(&[]);
    let (mut editor, _) = s.warm_editor(json!({}), false).await;
    let uri = opened(&s, &mut editor, "n").await;
    answered(&mut editor, &uri, 1).await;
    let argv = records(&s)[0]["argv"].to_string();
    assert!(!argv.contains("--input-format"), "{argv}");
    assert!(
        editor.text(&uri).contains(" exit=0 "),
        "{}",
        editor.text(&uri)
    );
    editor.client.shutdown().await;
}

#[tokio::test]
async fn sigterm_of_the_server_leaves_no_kept_agent() {
    let s = reviewer(&[]);
    let options: Value = serde_json::from_str(WARM).expect("json");
    let (mut editor, server) = s.warm_editor(options, true).await;
    let uri = opened(&s, &mut editor, "t").await;
    answered(&mut editor, &uri, 1).await;
    let first = pids(&s)[0];
    assert!(running(first), "kept warm");
    let server = server.expect("a server process");
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(server as i32),
        nix::sys::signal::Signal::SIGTERM,
    )
    .expect("signal the server");
    ended(first, "after SIGTERM of the server").await;
    ended(server, "the server exits").await;
}
