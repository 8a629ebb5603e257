//! The process runner against real child processes: the fault matrix of quality.md
//! (missing CLI, exits, crashes, hangs, timeouts, garbage, stdin); kill paths are in
//! runner_kill.rs, floods in runner_flood.rs.

#[path = "runner/support.rs"]
mod support;

use std::time::Duration;

use chatmd::agents::{AgentEvent, Stdin};
use chatmd::runner::{self, Ended, RunError};
use pretty_assertions::assert_eq;
use support::*;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

#[tokio::test]
async fn a_missing_cli_is_named_with_its_install_command_and_nothing_is_spawned() {
    let empty = tempfile::tempdir().unwrap();
    let agent = Agent::new("true");
    let mut invocation = agent.invocation();
    invocation.program = "codex".into();
    invocation.install_hint = Some("npm install -g @openai/codex".into());
    invocation.env = vec![("PATH".into(), empty.path().to_string_lossy().into())];
    let state = agent.file("codex-home");
    invocation.create_dirs = vec![state.clone()];

    let (outcome, events) = run_to_end(invocation, TestParser::boxed(), quick()).await;

    assert!(
        matches!(
            outcome.ended,
            Ended::SpawnFailed(RunError::NotInstalled { .. })
        ),
        "{:?}",
        outcome.ended
    );
    assert_eq!(
        outcome.ended.to_string(),
        "`codex` is not installed (not found on PATH). Install it with `npm install -g @openai/codex`."
    );
    assert!(outcome.exit.is_none());
    assert!(events.is_empty());
    assert!(!state.exists(), "a missing CLI must not create its folders");
}

#[tokio::test]
async fn the_invocations_path_finds_the_program_and_its_env_and_folders_are_set() {
    let agent = Agent::new("echo \"$CHATMD_GREETING from ${PWD##*/}\"");
    let bin = agent.file("bin");
    std::fs::create_dir(&bin).unwrap();
    std::fs::rename(&agent.path, bin.join("my-agent")).unwrap();
    let mut invocation = agent.invocation();
    invocation.program = "my-agent".into();
    invocation.env = vec![
        ("PATH".into(), bin.to_string_lossy().into()),
        ("CHATMD_GREETING".into(), "hello".into()),
    ];
    let work = agent.file("work");
    invocation.create_dirs = vec![work.join("state")];
    invocation.cwd = work.clone();

    let (outcome, events) = run_to_end(invocation, TestParser::quiet(), quick()).await;

    assert!(outcome.is_success(), "{:?}", outcome.ended);
    assert_eq!(texts(&events), vec!["hello from work"]);
    assert!(work.join("state").is_dir());
}

#[tokio::test]
async fn a_missing_working_folder_is_a_clear_error() {
    let agent = Agent::new("true");
    let mut invocation = agent.invocation();
    invocation.cwd = agent.file("gone");
    let (outcome, _) = run_to_end(invocation, TestParser::boxed(), quick()).await;
    assert!(matches!(
        outcome.ended,
        Ended::SpawnFailed(RunError::MissingCwd { .. })
    ));
    assert!(outcome.ended.to_string().contains("gone` does not exist"));
}

#[tokio::test]
async fn a_non_zero_exit_carries_the_code_and_the_stderr_tail() {
    let agent = Agent::new(
        "echo partial answer\nfor i in $(seq 1 200); do echo \"noise $i\" >&2; done\necho 'Error: invalid API key' >&2\nexit 3",
    );
    let (outcome, events) = run_to_end(agent.invocation(), TestParser::quiet(), quick()).await;

    assert_eq!(texts(&events), vec!["partial answer"]);
    let exit = outcome.exit.unwrap();
    assert_eq!(exit.code, Some(3));
    assert!(
        exit.stderr_tail
            .ends_with("noise 200\nError: invalid API key")
    );
    assert_eq!(exit.stderr_tail.lines().count(), 50, "the tail is bounded");
    let Ended::Failed(message) = outcome.ended else {
        panic!("{:?}", outcome.ended)
    };
    assert_eq!(
        message,
        "`/bin/sh` exited with code 3: Error: invalid API key"
    );
}

#[tokio::test]
async fn the_parsers_own_failure_message_wins() {
    let agent = Agent::new("echo thinking\necho 'auth failed' >&2\nexit 1");
    let (outcome, events) = run_to_end(agent.invocation(), TestParser::boxed(), quick()).await;
    let expected = "agent failed with Some(1): auth failed";
    assert!(matches!(&outcome.ended, Ended::Failed(m) if m == expected));
    assert_eq!(
        events.last(),
        Some(&AgentEvent::Failed {
            message: expected.into()
        })
    );
}

#[tokio::test]
async fn a_crash_mid_stream_keeps_the_text_so_far_then_fails() {
    let agent = Agent::new("echo one\necho two\nkill -SEGV $$\necho never");
    let (outcome, events) = run_to_end(agent.invocation(), TestParser::quiet(), quick()).await;
    assert_eq!(texts(&events), vec!["one", "two"]);
    assert_eq!(outcome.exit.unwrap().code, None);
    let Ended::Failed(message) = outcome.ended else {
        panic!("{:?}", outcome.ended)
    };
    assert!(message.ends_with("was killed by SIGSEGV"), "{message}");
}

#[tokio::test]
async fn an_exit_without_the_completion_event_is_a_failure() {
    let agent = Agent::new("echo half an answer");
    let mut invocation = agent.invocation();
    invocation.limits.has_completion_event = true;
    let (outcome, _) = run_to_end(invocation, TestParser::quiet(), quick()).await;
    assert!(
        matches!(&outcome.ended, Ended::Failed(m) if m.ends_with("exited without finishing its answer")),
        "{:?}",
        outcome.ended
    );
}

#[tokio::test]
async fn a_silent_hang_ends_at_the_idle_timeout_not_the_total() {
    let agent = Agent::new("sleep 1000 &\necho $! > sleeper.pid\nwait");
    let mut invocation = agent.invocation();
    invocation.limits.idle = Some(Duration::from_millis(300));
    invocation.limits.total = Duration::from_secs(60);
    let (outcome, events) = run_to_end(invocation, TestParser::boxed(), quick()).await;

    assert!(
        matches!(outcome.ended, Ended::IdleTimeout(d) if d == Duration::from_millis(300)),
        "{:?}",
        outcome.ended
    );
    assert!(outcome.stats.elapsed >= Duration::from_millis(300));
    assert!(
        outcome.stats.elapsed < Duration::from_secs(10),
        "{outcome:?}"
    );
    assert!(events.is_empty());
    assert!(!is_running(read_pid(&agent.file("sleeper.pid"))));
}

#[tokio::test]
async fn output_resets_the_idle_timer_and_the_total_timeout_still_applies() {
    let agent = Agent::new("while :; do echo tick; sleep 0.05; done");
    let mut invocation = agent.invocation();
    invocation.limits.idle = Some(Duration::from_millis(400));
    invocation.limits.total = Duration::from_millis(1500);
    let (outcome, events) = run_to_end(invocation, TestParser::boxed(), quick()).await;

    assert!(
        matches!(outcome.ended, Ended::TotalTimeout(d) if d == Duration::from_millis(1500)),
        "{:?}",
        outcome.ended
    );
    assert!(texts(&events).len() > 5, "{}", events.len());
    assert!(texts(&events).iter().all(|t| t == "tick"));
}

#[tokio::test]
async fn a_flooding_child_cannot_starve_the_total_timeout() {
    let agent = Agent::new("exec yes flood");
    let mut invocation = agent.invocation();
    invocation.limits.total = Duration::from_millis(500);
    let counting = CountingParser {
        expected: "flood".into(),
        lines: Default::default(),
        wrong: Default::default(),
    };
    let wrong = counting.wrong.clone();
    let (outcome, _) = run_to_end(invocation, Box::new(counting), quick()).await;
    assert!(
        matches!(outcome.ended, Ended::TotalTimeout(_)),
        "{:?}",
        outcome.ended
    );
    assert!(outcome.stats.lines > 1000, "{:?}", outcome.stats);
    assert_eq!(wrong.load(std::sync::atomic::Ordering::Relaxed), 0);
}

#[tokio::test]
async fn invalid_utf8_ansi_and_non_json_reach_the_parser_lossily_decoded() {
    let agent = Agent::new(
        r#"printf 'ok \377\376 end\r\n\033[31mred\033[0m\n{"not json\n\000nul\n'
printf 'no newline at the end \303'"#,
    );
    let (outcome, events) = run_to_end(agent.invocation(), TestParser::quiet(), quick()).await;
    assert!(outcome.is_success(), "{:?}", outcome.ended);
    assert_eq!(
        texts(&events),
        vec![
            "ok \u{fffd}\u{fffd} end",
            "\u{1b}[31mred\u{1b}[0m",
            "{\"not json",
            "\0nul",
            "no newline at the end \u{fffd}",
        ]
    );
}

#[tokio::test]
async fn a_completion_event_then_a_prompt_exit_is_not_delayed() {
    let agent = Agent::new("echo answer\necho DONE\nexit 0");
    let (outcome, events) = run_to_end(agent.invocation(), TestParser::boxed(), quick()).await;
    assert!(outcome.is_success());
    assert_eq!(events, vec![AgentEvent::Text("answer".into()), done()]);
    assert_eq!(outcome.exit.unwrap().code, Some(0));
}

#[tokio::test]
async fn a_failure_event_ends_the_turn_with_the_agents_message() {
    let agent = Agent::new("echo partial\necho 'FAIL: rate limited'\nexec sleep 1000");
    let (outcome, events) = run_to_end(agent.invocation(), TestParser::boxed(), quick()).await;
    assert!(matches!(&outcome.ended, Ended::Failed(m) if m == "rate limited"));
    assert_eq!(texts(&events), vec!["partial"]);
}

#[tokio::test]
async fn a_child_that_never_reads_a_large_prompt_does_not_deadlock() {
    let agent = Agent::new("echo not reading\nexit 0");
    let mut invocation = agent.invocation();
    invocation.stdin = Stdin::Prompt("x".repeat(1024 * 1024));
    let (outcome, events) = run_to_end(invocation, TestParser::boxed(), quick()).await;
    assert!(outcome.is_success(), "{:?}", outcome.ended);
    assert_eq!(texts(&events), vec!["not reading"]);
}

#[tokio::test]
async fn a_hung_child_that_never_reads_its_prompt_is_still_ended() {
    let agent = Agent::new("echo not reading\necho DONE\nexec sleep 1000");
    let mut invocation = agent.invocation();
    invocation.stdin = Stdin::Prompt("y".repeat(1024 * 1024));
    let (outcome, _) = run_to_end(invocation, TestParser::boxed(), quick()).await;
    assert!(outcome.is_success(), "{:?}", outcome.ended);
}

#[tokio::test]
async fn the_prompt_reaches_stdin_exactly() {
    let agent = Agent::new("cat > received.txt\necho got it\ncat received.txt");
    let prompt = format!(
        "[SYSTEM]\nBe brief.\n[MESSAGE]\nme: héllo ✓ — {}\n\nlast line without newline",
        "z".repeat(300 * 1024)
    );
    let mut invocation = agent.invocation();
    invocation.stdin = Stdin::Prompt(prompt.clone());
    let (outcome, events) = run_to_end(invocation, TestParser::boxed(), quick()).await;
    assert!(outcome.is_success(), "{:?}", outcome.ended);
    assert_eq!(
        std::fs::read_to_string(agent.file("received.txt")).unwrap(),
        prompt
    );
    let echoed = texts(&events);
    assert_eq!(echoed[0], "got it");
    assert_eq!(echoed[1..].join("\n"), prompt);
}

#[tokio::test]
async fn a_slow_receiver_gets_every_event_in_order() {
    let agent = Agent::new("seq 1 2000");
    let (events, mut received) = mpsc::channel(1);
    let turn = tokio::spawn(runner::run_with(
        agent.invocation(),
        TestParser::quiet(),
        events,
        CancellationToken::new(),
        quick(),
    ));
    let mut seen = Vec::new();
    while let Some(event) = tokio::time::timeout(GUARD, received.recv()).await.unwrap() {
        tokio::task::yield_now().await;
        seen.push(event);
    }
    let outcome = turn.await.unwrap();
    assert!(outcome.is_success());
    let expected: Vec<String> = (1..=2000).map(|n| n.to_string()).collect();
    assert_eq!(texts(&seen), expected);
}

#[tokio::test]
async fn a_dropped_receiver_does_not_stop_the_turn() {
    let agent = Agent::new("seq 1 1000\necho DONE");
    let (events, received) = mpsc::channel(1);
    drop(received);
    let outcome = tokio::time::timeout(
        GUARD,
        runner::run(
            agent.invocation(),
            TestParser::boxed(),
            events,
            CancellationToken::new(),
        ),
    )
    .await
    .unwrap();
    assert!(outcome.is_success());
    assert_eq!(outcome.stats.lines, 1001);
}

#[test]
fn a_turn_can_run_on_any_worker_thread() {
    fn assert_send<T: Send>(_: &T) {}
    let (events, _) = mpsc::channel(1);
    let agent = Agent::new("true");
    let turn = runner::run(
        agent.invocation(),
        TestParser::boxed(),
        events,
        CancellationToken::new(),
    );
    assert_send(&turn);
}
