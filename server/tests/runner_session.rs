//! The runner with two-way sessions: a permission request answered through the agent's
//! stdin, which stays open while the session lives; cancel as a command (the agent's
//! own way when the session has one, else the process is stopped); and the headless
//! sessions, whose stdin is closed after the prompt whatever the caller sends.

#[path = "runner/support.rs"]
mod support;

use std::time::Duration;

use chatmd::agents::{
    AgentEvent, ExitInfo, Headless, Invocation, Outbox, PermissionKind, PermissionOption,
    PermissionOutcome, PermissionRequest, RequestId, Session, SessionCommand, Stdin,
};
use chatmd::runner::{self, Caller, Ended, RunOutcome, Settings};
use pretty_assertions::assert_eq;
use support::*;
use tokio::sync::mpsc::{self, Receiver, Sender};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

/// An agent that answers every line on stdin by printing it back, and keeps a copy in
/// `received.txt`; it ends at the end of its stdin.
const ECHO: &str = r#"while IFS= read -r line; do
  printf '%s\n' "$line" >> received.txt
  printf '%s\n' "$line"
done"#;

/// A two-way session over [`ECHO`]: what it writes comes back as the agent's words.
/// `prompt <text>` makes the agent ask permission `7`; `answer 7 <option>` is the
/// answer; `input <text>` more input; `cancel` (when `cooperative`) the protocol's own
/// cancel, which the agent acknowledges by ending its turn `cancelled`.
struct Loopback {
    cooperative: bool,
}

fn request() -> Box<PermissionRequest> {
    let option = PermissionOption::new;
    Box::new(PermissionRequest {
        id: RequestId("7".into()),
        summary: "Bash: touch tool-wrote.txt".into(),
        tool: Some("call-1".into()),
        options: vec![
            option("allow", "Allow", PermissionKind::AllowOnce),
            option("reject", "Reject", PermissionKind::RejectOnce),
        ],
        kind: "execute".into(),
        title: "touch tool-wrote.txt".into(),
        plan: None,
    })
}

fn done(stop_reason: &str) -> AgentEvent {
    AgentEvent::Done {
        stop_reason: Some(stop_reason.into()),
        usage: None,
    }
}

impl Session for Loopback {
    fn start(&mut self, prompt: Option<String>, out: &mut Outbox) {
        out.write(format!("prompt {}\n", prompt.unwrap_or_default()).into_bytes());
    }

    fn line(&mut self, line: &str, out: &mut Outbox) {
        if line.starts_with("prompt ") {
            out.push(AgentEvent::Permission(request()));
        } else if let Some(option) = line.strip_prefix("answer 7 ") {
            out.push(AgentEvent::Text(format!("{option}ed")));
            out.push(done("end_turn"));
        } else if let Some(text) = line.strip_prefix("input ") {
            out.push(AgentEvent::Text(text.into()));
        } else if line == "cancel" {
            out.push(done("cancelled"));
        }
    }

    fn command(&mut self, command: SessionCommand, out: &mut Outbox) -> bool {
        let bytes = match command {
            SessionCommand::Answer {
                request,
                outcome: PermissionOutcome::Selected(option),
            } => format!("answer {request} {option}\n"),
            SessionCommand::Answer { .. } | SessionCommand::File { .. } => return false,
            SessionCommand::Input(text) => format!("input {text}\n"),
            SessionCommand::Cancel if self.cooperative => "cancel\n".into(),
            SessionCommand::Cancel => return false,
        };
        out.write(bytes.into_bytes());
        true
    }

    fn finish(&mut self, exit: &ExitInfo, out: &mut Outbox) {
        out.push(AgentEvent::Failed {
            message: format!("the agent left with {:?}", exit.code),
        });
    }
}

fn loopback(cooperative: bool) -> Box<dyn Session> {
    Box::new(Loopback { cooperative })
}

/// [`ECHO`] with a prompt for the session, ending at its completion event.
fn echo_agent() -> (Agent, Invocation) {
    let agent = Agent::new(ECHO);
    let mut invocation = agent.invocation();
    invocation.stdin = Stdin::Prompt("do it".into());
    invocation.limits.has_completion_event = true;
    (agent, invocation)
}

/// Starts a turn of `session` on a task of its own; returns it with the other ends of
/// its event and command channels.
fn start(
    invocation: Invocation,
    session: Box<dyn Session>,
    cancel: CancellationToken,
    settings: Settings,
) -> (
    JoinHandle<RunOutcome>,
    Receiver<AgentEvent>,
    Sender<SessionCommand>,
) {
    let (events, received) = mpsc::channel(16);
    let (commands, mut orders) = mpsc::channel(16);
    let turn = tokio::spawn(async move {
        let caller = Caller {
            events,
            commands: &mut orders,
            cancel,
        };
        runner::run_session(invocation, session, caller, settings).await
    });
    (turn, received, commands)
}

/// Waits for a turn started by [`start`]; fails the test after `GUARD`.
async fn finished(turn: JoinHandle<RunOutcome>) -> RunOutcome {
    let outcome = tokio::time::timeout(GUARD, turn).await;
    outcome.expect("the turn did not end").unwrap()
}

/// Runs a turn to its end; `respond` sees each event as it comes and may send
/// commands, and `cancel` is the turn's token.
async fn drive(
    invocation: Invocation,
    session: Box<dyn Session>,
    cancel: CancellationToken,
    mut respond: impl FnMut(&AgentEvent) -> Vec<SessionCommand> + Send + 'static,
) -> (RunOutcome, Vec<AgentEvent>) {
    let (turn, mut received, commands) = start(invocation, session, cancel, quick());
    let driver = tokio::spawn(async move {
        let mut all = Vec::new();
        while let Some(event) = received.recv().await {
            for command in respond(&event) {
                commands.send(command).await.unwrap();
            }
            all.push(event);
        }
        all
    });
    let outcome = finished(turn).await;
    (outcome, driver.await.unwrap())
}

fn is_permission(event: &AgentEvent) -> bool {
    matches!(event, AgentEvent::Permission(_))
}

/// Sends `commands` when the agent asks permission.
fn on_permission(
    commands: Vec<SessionCommand>,
) -> impl FnMut(&AgentEvent) -> Vec<SessionCommand> + Send + 'static {
    move |event| match is_permission(event) {
        true => commands.clone(),
        false => Vec::new(),
    }
}

fn answer(option: &str) -> SessionCommand {
    SessionCommand::Answer {
        request: RequestId("7".into()),
        outcome: PermissionOutcome::Selected(option.into()),
    }
}

/// The turn was cancelled and its agent stopped by a signal, nothing left running.
fn assert_stopped(outcome: RunOutcome, agent: &Agent) {
    assert!(
        matches!(outcome.ended, Ended::Cancelled),
        "{:?}",
        outcome.ended
    );
    assert_eq!(outcome.exit.unwrap().code, None, "stopped by a signal");
    assert!(!is_running(read_pid(&agent.file("agent.pid"))));
}

#[tokio::test]
async fn a_permission_request_is_answered_through_stdin_which_stays_open_until_the_end() {
    let (agent, invocation) = echo_agent();
    let commands = vec![SessionCommand::Input("also this".into()), answer("allow")];
    let (outcome, events) = drive(
        invocation,
        loopback(true),
        CancellationToken::new(),
        on_permission(commands),
    )
    .await;

    assert!(outcome.is_success(), "{:?} {events:?}", outcome.ended);
    assert_eq!(
        events,
        vec![
            AgentEvent::Permission(request()),
            AgentEvent::Text("also this".into()),
            AgentEvent::Text("allowed".into()),
            done("end_turn"),
        ]
    );
    // Everything the session wrote reached the agent, in order: stdin was still open
    // after the prompt. The agent then ended by itself at the end of its stdin, which
    // the runner closed when the session ended the turn.
    assert_eq!(
        std::fs::read_to_string(agent.file("received.txt")).unwrap(),
        "prompt do it\ninput also this\nanswer 7 allow\n"
    );
    assert_eq!(outcome.exit.unwrap().code, Some(0));
}

#[tokio::test]
async fn the_idle_timer_does_not_run_while_the_user_decides() {
    let (_agent, mut invocation) = echo_agent();
    invocation.limits.idle = Some(Duration::from_millis(200));
    let cancel = CancellationToken::new();
    let (turn, mut received, commands) =
        start(invocation, loopback(true), cancel, Settings::default());
    let first = tokio::time::timeout(GUARD, received.recv()).await.unwrap();
    assert!(first.as_ref().is_some_and(is_permission), "{first:?}");
    // The user takes longer than the idle limit to answer.
    tokio::time::sleep(Duration::from_millis(600)).await;
    commands.send(answer("reject")).await.unwrap();
    let outcome = finished(turn).await;
    assert!(outcome.is_success(), "{:?}", outcome.ended);
    assert_eq!(
        received.recv().await,
        Some(AgentEvent::Text("rejected".into()))
    );
}

#[tokio::test]
async fn a_cancel_ends_a_two_way_turn_the_agents_own_way_by_command_or_token() {
    for by_token in [false, true] {
        let (agent, invocation) = echo_agent();
        let cancel = CancellationToken::new();
        let token = cancel.clone();
        let (outcome, events) = drive(invocation, loopback(true), cancel, move |event| {
            match (is_permission(event), by_token) {
                (true, false) => return vec![SessionCommand::Cancel],
                (true, true) => token.cancel(),
                (false, _) => {}
            }
            Vec::new()
        })
        .await;
        assert!(
            matches!(outcome.ended, Ended::Cancelled),
            "{:?}",
            outcome.ended
        );
        assert_eq!(
            events,
            vec![AgentEvent::Permission(request()), done("cancelled")]
        );
        assert_eq!(
            std::fs::read_to_string(agent.file("received.txt")).unwrap(),
            "prompt do it\ncancel\n"
        );
        // Not killed: it ended at the end of its stdin.
        assert_eq!(outcome.exit.unwrap().code, Some(0), "by token: {by_token}");
    }
}

#[tokio::test]
async fn an_agent_that_ignores_its_protocols_cancel_is_stopped_after_the_grace() {
    let agent = Agent::new(
        r#"echo $$ > agent.pid
IFS= read -r line
echo "$line"
IFS= read -r line
exec sleep 1000"#,
    );
    let mut invocation = agent.invocation();
    invocation.stdin = Stdin::Prompt("do it".into());
    invocation.limits.has_completion_event = true;
    let cancel = on_permission(vec![SessionCommand::Cancel]);
    let (outcome, events) =
        drive(invocation, loopback(true), CancellationToken::new(), cancel).await;
    assert_eq!(events, vec![AgentEvent::Permission(request())]);
    assert!(outcome.stats.elapsed >= quick().grace);
    assert_stopped(outcome, &agent);
}

#[tokio::test]
async fn a_cancel_command_stops_a_headless_agent_at_once() {
    let agent = Agent::new("echo $$ > agent.pid\necho started\nexec sleep 1000");
    let session = Box::new(Headless::new(TestParser::boxed()));
    let started = AgentEvent::Text("started".into());
    let cancel = move |event: &AgentEvent| match *event == started {
        true => vec![SessionCommand::Cancel],
        false => Vec::new(),
    };
    let (outcome, events) = drive(
        agent.invocation(),
        session,
        CancellationToken::new(),
        cancel,
    )
    .await;
    assert_eq!(texts(&events), vec!["started"]);
    assert!(outcome.stats.elapsed < Duration::from_secs(10));
    assert_stopped(outcome, &agent);
}

#[tokio::test]
async fn a_headless_agents_stdin_is_closed_after_the_prompt_while_commands_may_still_come() {
    // `cat` ends only at the end of its stdin.
    let agent = Agent::new("cat > received.txt\necho DONE");
    let mut invocation = agent.invocation();
    invocation.stdin = Stdin::Prompt("[MESSAGE]\nme: hi".into());
    let session = Box::new(Headless::new(TestParser::boxed()));
    let cancel = CancellationToken::new();
    let (turn, mut received, commands) = start(invocation, session, cancel, quick());
    // A command a headless session cannot take changes nothing.
    commands.send(answer("allow")).await.unwrap();
    let outcome = finished(turn).await;
    assert!(outcome.is_success(), "{:?}", outcome.ended);
    assert_eq!(received.recv().await, Some(support::done()));
    assert_eq!(
        std::fs::read_to_string(agent.file("received.txt")).unwrap(),
        "[MESSAGE]\nme: hi"
    );
    drop(commands);
}
