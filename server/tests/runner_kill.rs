//! The runner's kill paths against real process trees: cancel, timeouts, a completion
//! event with a lingering process, a dropped turn; no process of the group survives.

#[path = "runner/support.rs"]
mod support;

use std::time::Duration;

use chatmd::agents::AgentEvent;
use chatmd::runner::{self, Ended, RunOutcome};
use pretty_assertions::assert_eq;
use support::*;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

/// Starts `agent`'s turn in a task and waits for its first line, `ready`. The
/// receiver comes back too: the turn's events keep a place to go.
async fn started(
    agent: &Agent,
    cancel: CancellationToken,
    settings: runner::Settings,
) -> (JoinHandle<RunOutcome>, mpsc::Receiver<AgentEvent>) {
    let (events, mut received) = mpsc::channel(8);
    let turn = tokio::spawn(runner::run_with(
        agent.invocation(),
        TestParser::boxed(),
        events,
        cancel,
        settings,
    ));
    let first = tokio::time::timeout(GUARD, received.recv()).await.unwrap();
    assert_eq!(first, Some(AgentEvent::Text("ready".into())));
    (turn, received)
}

/// Cancels the turn and waits for its outcome, which must say `Cancelled`.
async fn cancel_and_wait(cancel: &CancellationToken, turn: JoinHandle<RunOutcome>) -> RunOutcome {
    cancel.cancel();
    let outcome = tokio::time::timeout(GUARD, turn).await.unwrap().unwrap();
    assert!(
        matches!(outcome.ended, Ended::Cancelled),
        "{:?}",
        outcome.ended
    );
    outcome
}

#[tokio::test]
async fn cancel_kills_a_child_that_ignores_sigterm_after_the_grace() {
    let agent = Agent::new("trap '' TERM\necho $$ > agent.pid\necho ready\nexec sleep 1000");
    let cancel = CancellationToken::new();
    let (turn, _received) = started(&agent, cancel.clone(), runner::Settings::default()).await;
    let cancelled_at = Instant::now();
    let outcome = cancel_and_wait(&cancel, turn).await;
    let waited = cancelled_at.elapsed();
    assert!(
        waited >= runner::Settings::default().grace,
        "killed before the grace: {waited:?}"
    );
    assert!(waited < Duration::from_secs(10), "{waited:?}");
    assert_eq!(outcome.exit.unwrap().code, None, "SIGKILLed");
    assert!(!is_running(read_pid(&agent.file("agent.pid"))));
}

#[tokio::test]
async fn cancel_before_the_start_spawns_nothing() {
    let agent = Agent::new("touch started");
    let (events, _received) = mpsc::channel(8);
    let cancel = CancellationToken::new();
    cancel.cancel();
    let outcome = runner::run(agent.invocation(), TestParser::boxed(), events, cancel).await;
    assert!(matches!(outcome.ended, Ended::Cancelled));
    assert!(outcome.exit.is_none());
    assert!(!agent.file("started").exists());
}

/// A grandchild that ignores SIGTERM and keeps nothing of ours open: only the group
/// kill can end it.
const STUBBORN_GRANDCHILD: &str =
    "(trap '' TERM; exec sleep 1000) >/dev/null 2>&1 </dev/null &\necho $! > grandchild.pid";

#[tokio::test]
async fn no_grandchild_survives_a_cancel() {
    let agent = Agent::new(&format!("{STUBBORN_GRANDCHILD}\necho ready\nwait"));
    let cancel = CancellationToken::new();
    let (turn, _received) = started(&agent, cancel.clone(), quick()).await;
    let grandchild = read_pid(&agent.file("grandchild.pid"));
    assert!(is_running(grandchild));
    cancel_and_wait(&cancel, turn).await;
    assert!(
        !is_running(grandchild),
        "the grandchild survived the cancel"
    );
}

#[tokio::test]
async fn no_grandchild_survives_a_timeout() {
    let agent = Agent::new(&format!("{STUBBORN_GRANDCHILD}\nwait"));
    let mut invocation = agent.invocation();
    invocation.limits.idle = Some(Duration::from_millis(200));
    let (outcome, _) = run_to_end(invocation, TestParser::boxed(), quick()).await;
    assert!(
        matches!(outcome.ended, Ended::IdleTimeout(_)),
        "{:?}",
        outcome.ended
    );
    assert!(!is_running(read_pid(&agent.file("grandchild.pid"))));
}

#[tokio::test]
async fn no_grandchild_survives_a_normal_exit() {
    let agent = Agent::new(&format!("{STUBBORN_GRANDCHILD}\necho answer\nexit 0"));
    let (outcome, events) = run_to_end(agent.invocation(), TestParser::boxed(), quick()).await;
    assert!(outcome.is_success(), "{:?}", outcome.ended);
    assert_eq!(outcome.exit.as_ref().unwrap().code, Some(0));
    assert_eq!(texts(&events), vec!["answer"]);
    assert!(!is_running(read_pid(&agent.file("grandchild.pid"))));
}

#[tokio::test]
async fn a_grandchild_holding_stdout_does_not_keep_the_turn_open() {
    // The background sleep inherits stdout: no end of file until it dies.
    let agent = Agent::new("sleep 1000 &\necho $! > grandchild.pid\necho answer\nexit 0");
    let (outcome, events) = run_to_end(agent.invocation(), TestParser::boxed(), quick()).await;
    assert!(outcome.is_success(), "{:?}", outcome.ended);
    assert_eq!(texts(&events), vec!["answer"]);
    assert!(outcome.stats.elapsed < Duration::from_secs(10));
    assert!(!is_running(read_pid(&agent.file("grandchild.pid"))));
}

#[tokio::test]
async fn a_completion_event_ends_the_turn_and_a_lingering_process_is_killed() {
    let agent = Agent::new(&format!(
        "{STUBBORN_GRANDCHILD}\necho $$ > agent.pid\necho answer\necho DONE\necho after the end\nexec sleep 1000"
    ));
    let (outcome, events) = run_to_end(agent.invocation(), TestParser::boxed(), quick()).await;

    assert!(outcome.is_success(), "{:?}", outcome.ended);
    assert_eq!(events, vec![AgentEvent::Text("answer".into()), done()]);
    assert!(
        outcome.stats.elapsed >= quick().grace,
        "the grace was not given"
    );
    assert_eq!(outcome.exit.unwrap().code, None, "killed after the grace");
    assert!(!is_running(read_pid(&agent.file("agent.pid"))));
    assert!(!is_running(read_pid(&agent.file("grandchild.pid"))));
}

#[tokio::test]
async fn dropping_a_running_turn_kills_its_group() {
    let agent = Agent::new(&format!("{STUBBORN_GRANDCHILD}\necho ready\nwait"));
    let (turn, _received) = started(
        &agent,
        CancellationToken::new(),
        runner::Settings::default(),
    )
    .await;
    let grandchild = read_pid(&agent.file("grandchild.pid"));
    turn.abort();
    assert!(turn.await.unwrap_err().is_cancelled());
    // The drop sent SIGKILL; the kernel finishes the job a moment later.
    let deadline = Instant::now() + GUARD;
    while is_running(grandchild) {
        assert!(
            Instant::now() < deadline,
            "the grandchild survived the drop"
        );
        tokio::task::yield_now().await;
    }
}
