//! A whole agent turn without an editor: the adapter's command line, run by the process
//! runner, against the fake CLIs — the fault matrix of quality.md end to end.

mod fake_support;

use std::path::Path;
use std::time::Duration;

use chatmd::agents::AgentKind;
use chatmd::agents::{AgentEntry, AgentEvent, Invocation, parser_for, plan_turn};
use chatmd::runner::{Ended, RunOutcome, run};
use chatmd::team::Member;
use fake_support::Sandbox;
use pretty_assertions::assert_eq;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

fn member(workdir: &Path, agent: &str) -> Member {
    Member::new("alice", agent, workdir.to_path_buf())
}

/// The invocation for `kind` in the sandbox, with the fake's knobs in its environment.
fn invocation(
    sandbox: &Sandbox,
    kind: AgentKind,
    knobs: &[(&str, &str)],
    tweak: impl FnOnce(&mut Member),
) -> Invocation {
    let mut m = member(&sandbox.work, kind.name());
    tweak(&mut m);
    let mut inv = plan_turn(
        &AgentEntry::builtin(kind),
        &m,
        "You review code.",
        "[MESSAGE]\nme: hi",
        None,
    );
    inv.env
        .push(("PATH".into(), sandbox.bin.display().to_string()));
    // The machine may set IS_SANDBOX; the fake must see the same as a user's shell.
    inv.env.push(("IS_SANDBOX".into(), String::new()));
    for (k, v) in knobs {
        inv.env.push((k.to_string(), v.to_string()));
    }
    inv
}

/// Runs a turn to its end; returns the events and the outcome.
async fn turn(kind: AgentKind, inv: Invocation) -> (Vec<AgentEvent>, RunOutcome) {
    let (tx, mut rx) = mpsc::channel(64);
    let collect = tokio::spawn(async move {
        let mut events = Vec::new();
        while let Some(e) = rx.recv().await {
            events.push(e);
        }
        events
    });
    let outcome = run(
        inv,
        parser_for(&AgentEntry::builtin(kind)),
        tx,
        CancellationToken::new(),
    )
    .await;
    (collect.await.expect("events"), outcome)
}

fn text(events: &[AgentEvent]) -> String {
    events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::Text(t) => Some(t.as_str()),
            _ => None,
        })
        .collect()
}

fn session(events: &[AgentEvent]) -> Option<String> {
    events.iter().find_map(|e| match e {
        AgentEvent::Started { session, .. } => session.clone(),
        _ => None,
    })
}

#[tokio::test]
async fn every_cli_streams_an_answer_with_its_session() {
    for &kind in AgentKind::ALL {
        let sandbox = Sandbox::new();
        let knobs = [
            ("FAKE_AGENT_TEXT", "Three problems stand out."),
            ("FAKE_AGENT_SESSION", "11111111-2222-4333-8444-555555555555"),
        ];
        let (events, outcome) = turn(kind, invocation(&sandbox, kind, &knobs, |_| {})).await;
        assert!(
            matches!(outcome.ended, Ended::Completed),
            "{kind}: {:?} {events:?}",
            outcome.ended
        );
        assert_eq!(text(&events), "Three problems stand out.", "{kind}");
        assert_eq!(
            session(&events).as_deref(),
            Some("11111111-2222-4333-8444-555555555555"),
            "{kind}"
        );
        assert!(
            matches!(events.last(), Some(AgentEvent::Done { .. })),
            "{kind}: {events:?}"
        );
    }
}

#[tokio::test]
async fn a_cli_that_is_not_logged_in_fails_in_its_own_words() {
    let sandbox = Sandbox::new();
    let inv = invocation(
        &sandbox,
        AgentKind::Claude,
        &[("FAKE_AGENT_TRANSCRIPT", "not-logged-in")],
        |_| {},
    );
    let (_, outcome) = turn(AgentKind::Claude, inv).await;
    assert!(
        // Its words first, then how to log in.
        matches!(&outcome.ended, Ended::Failed(m) if m.starts_with("Not logged in · Please run /login. Log in with `claude /login`")),
        "{:?}",
        outcome.ended
    );
    assert_eq!(outcome.exit.expect("exited").code, Some(1));
}

#[tokio::test]
async fn a_missing_cli_names_itself_and_its_install_command() {
    let sandbox = Sandbox::new();
    let mut inv = invocation(&sandbox, AgentKind::Codex, &[], |_| {});
    inv.env.retain(|(k, _)| k != "PATH");
    inv.env
        .push(("PATH".into(), sandbox.work.display().to_string()));
    let (events, outcome) = turn(AgentKind::Codex, inv).await;
    assert!(events.is_empty());
    let Ended::SpawnFailed(error) = &outcome.ended else {
        panic!("{:?}", outcome.ended);
    };
    assert_eq!(
        error.to_string(),
        "`codex` is not installed (not found on PATH). Install it with `npm install -g @openai/codex`."
    );
}

#[tokio::test]
async fn a_crash_mid_stream_keeps_the_text_so_far() {
    let sandbox = Sandbox::new();
    let knobs = [
        ("FAKE_AGENT_TEXT", "one two three four five six"),
        ("FAKE_AGENT_CHUNKS", "6"),
        ("FAKE_AGENT_CRASH_AT", "4"),
    ];
    let (events, outcome) = turn(
        AgentKind::Gemini,
        invocation(&sandbox, AgentKind::Gemini, &knobs, |_| {}),
    )
    .await;
    // gemini's first line is `init`, so three of the six chunks (the fake cuts the
    // text evenly) made it out before the crash.
    assert_eq!(text(&events), "one two th");
    let Ended::Failed(message) = &outcome.ended else {
        panic!("{:?}", outcome.ended);
    };
    assert_eq!(message, "gemini was killed by a signal");
}

#[tokio::test]
async fn a_crash_whose_child_holds_stdout_is_the_crash_not_an_idle_timeout() {
    // The agent aborts, but a child it left holds stdout open: the turn ends when the
    // group is killed after the grace, with the agent's own end, even though no line
    // came for longer than the (short) idle timeout meanwhile.
    let sandbox = Sandbox::new();
    let pid_file = sandbox.path("grandchild.pid");
    let pid_path = pid_file.display().to_string();
    let knobs = [
        ("FAKE_AGENT_TEXT", "one two three"),
        ("FAKE_AGENT_CRASH_AT", "2"),
        ("FAKE_AGENT_GRANDCHILD", "1"),
        ("FAKE_AGENT_GRANDCHILD_PID", pid_path.as_str()),
    ];
    let inv = invocation(&sandbox, AgentKind::Claude, &knobs, |m| {
        m.idle_timeout = Some(Duration::from_millis(300));
    });
    let (_, outcome) = turn(AgentKind::Claude, inv).await;
    let Ended::Failed(message) = &outcome.ended else {
        panic!("{:?}", outcome.ended);
    };
    assert_eq!(message, "claude was killed by a signal");
    let pid: u32 = std::fs::read_to_string(&pid_file)
        .expect("pid file")
        .trim()
        .parse()
        .expect("pid");
    assert!(!alive(pid), "the grandchild {pid} survived the turn");
}

#[tokio::test]
async fn a_silent_cli_is_ended_by_the_idle_timeout_not_the_total() {
    let sandbox = Sandbox::new();
    let inv = invocation(
        &sandbox,
        AgentKind::Codex,
        &[("FAKE_AGENT_HANG", "1")],
        |m| {
            m.idle_timeout = Some(Duration::from_millis(300));
        },
    );
    assert_eq!(inv.limits.total, Duration::from_secs(3600));
    let (_, outcome) = turn(AgentKind::Codex, inv).await;
    assert!(
        matches!(outcome.ended, Ended::IdleTimeout(d) if d == Duration::from_millis(300)),
        "{:?}",
        outcome.ended
    );
    assert!(
        outcome.stats.elapsed < Duration::from_secs(20),
        "{:?}",
        outcome.stats.elapsed
    );
}

#[tokio::test]
async fn garbage_output_is_survived_and_cleaned() {
    let sandbox = Sandbox::new();
    let knobs = [
        ("FAKE_AGENT_TEXT", "clean answer"),
        ("FAKE_AGENT_GARBAGE", "1"),
    ];
    let (events, outcome) = turn(
        AgentKind::Claude,
        invocation(&sandbox, AgentKind::Claude, &knobs, |_| {}),
    )
    .await;
    assert!(
        matches!(outcome.ended, Ended::Completed),
        "{:?}",
        outcome.ended
    );
    let answer = text(&events);
    assert!(answer.contains("clean answer"), "{answer:?}");
    assert!(
        !answer.contains('\u{1b}'),
        "no escape sequences reach the chat: {answer:?}"
    );
}

#[tokio::test]
async fn a_flood_completes_with_bounded_buffers() {
    let sandbox = Sandbox::new();
    let knobs = [("FAKE_AGENT_TEXT", "end"), ("FAKE_AGENT_FLOOD_MB", "32")];
    let (events, outcome) = turn(
        AgentKind::Gemini,
        invocation(&sandbox, AgentKind::Gemini, &knobs, |_| {}),
    )
    .await;
    assert!(
        matches!(outcome.ended, Ended::Completed),
        "{:?}",
        outcome.ended
    );
    assert!(
        outcome.stats.stdout_bytes >= 32 << 20,
        "{:?}",
        outcome.stats
    );
    assert!(
        outcome.stats.peak_line_buffer < 1 << 20,
        "{:?}",
        outcome.stats
    );
    assert!(text(&events).ends_with("end"));
}

#[tokio::test]
async fn cancel_kills_a_cli_that_ignores_sigterm_and_its_grandchild() {
    let sandbox = Sandbox::new();
    let pid_file = sandbox.path("grandchild.pid");
    let pid_path = pid_file.display().to_string();
    let knobs = [
        ("FAKE_AGENT_HANG_AFTER", "1"),
        ("FAKE_AGENT_IGNORE_TERM", "1"),
        ("FAKE_AGENT_GRANDCHILD", "1"),
        ("FAKE_AGENT_GRANDCHILD_PID", pid_path.as_str()),
    ];
    let inv = invocation(&sandbox, AgentKind::Claude, &knobs, |_| {});
    let (tx, mut rx) = mpsc::channel(64);
    let cancel = CancellationToken::new();
    let running = tokio::spawn(run(
        inv,
        parser_for(&AgentEntry::builtin(AgentKind::Claude)),
        tx,
        cancel.clone(),
    ));
    // The first line (`system/init`) is printed after the grandchild started.
    let first = tokio::time::timeout(Duration::from_secs(30), rx.recv())
        .await
        .expect("a first event");
    assert!(
        matches!(first, Some(AgentEvent::Started { .. })),
        "{first:?}"
    );
    cancel.cancel();
    let outcome = tokio::time::timeout(Duration::from_secs(30), running)
        .await
        .expect("ends")
        .expect("joins");
    assert!(
        matches!(outcome.ended, Ended::Cancelled),
        "{:?}",
        outcome.ended
    );
    let pid: u32 = std::fs::read_to_string(&pid_file)
        .expect("pid file")
        .trim()
        .parse()
        .expect("pid");
    assert!(!alive(pid), "the grandchild {pid} survived the cancel");
}

/// Whether a process exists and is not a zombie.
fn alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => {
            stat.rsplit(')')
                .next()
                .and_then(|s| s.split_whitespace().next())
                != Some("Z")
        }
        Err(_) => false,
    }
}

#[tokio::test]
async fn limits_past_what_a_clock_can_tell_do_not_panic() {
    let sandbox = Sandbox::new();
    let inv = invocation(
        &sandbox,
        AgentKind::Codex,
        &[("FAKE_AGENT_TEXT", "fine")],
        |m| {
            m.idle_timeout = Some(Duration::from_secs(i64::MAX as u64));
            m.timeout = Some(Duration::MAX);
        },
    );
    let (events, outcome) = turn(AgentKind::Codex, inv).await;
    assert!(
        matches!(outcome.ended, Ended::Completed),
        "{:?}",
        outcome.ended
    );
    assert_eq!(text(&events), "fine");
}
