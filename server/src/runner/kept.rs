//! A process kept running after its turn, for the next one (a warm ACP session): the
//! child, its group, its pipes and its session, between turns. While kept it is watched
//! (its stdout read and dropped so it never blocks on a full pipe, its exit noticed);
//! the next turn runs on it with [`run_kept`]; [`Kept::end`] winds it down the way a
//! turn's end does. Dropped, it is killed with its whole group like any turn's.

use std::process::ExitStatus;
use std::sync::{Arc, Mutex};

use nix::sys::signal::Signal;
use tokio::process::ChildStdout;
use tokio::task::JoinHandle;
use tokio::time::{Instant, sleep_until};

use crate::agents::{Invocation, Outbox, Session};

use super::ending::EndPlan;
use super::group::{AgentChild, Group};
use super::input::Input;
use super::lines::LineReader;
use super::redact::Secrets;
use super::stderr::Tail;
use super::turn::{AFTER_KILL, Caller, Stop, Turn, after};
use super::{Ended, RunOutcome, Settings};

/// A live agent process between two turns.
pub struct Kept {
    program: String,
    child: AgentChild,
    group: Group,
    stdout: LineReader<ChildStdout>,
    input: Input,
    session: Box<dyn Session>,
    settings: Settings,
    stderr: Arc<Mutex<Tail>>,
    stderr_task: JoinHandle<()>,
    secrets: Secrets,
    recorder: Option<super::record::Recorder>,
    /// Set once the process was seen to exit.
    exited: Option<Option<ExitStatus>>,
}

impl std::fmt::Debug for Kept {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Kept")
            .field("program", &self.program)
            .field("session", &self.session.live_session())
            .finish_non_exhaustive()
    }
}

impl Turn<'_> {
    /// Whether the turn's process may be kept: the prompt was answered (not failed,
    /// not cancelled), the process still runs and its stdout is open.
    pub(super) fn keepable(&self, stop: &Stop) -> bool {
        matches!(stop, Stop::Answered(Ended::Completed))
            && self.cancelling.is_none()
            && !self.cancel.is_cancelled()
            && self.leader.is_none()
            && self.stdout_open
            && self.session.live_session().is_some()
    }

    /// The answered turn's outcome, and its process kept running.
    pub(super) fn kept(self, started: Instant) -> (RunOutcome, Option<Kept>) {
        let stats = self.stats(started);
        let outcome = RunOutcome {
            ended: Ended::Completed,
            exit: None,
            stats,
        };
        let kept = Kept {
            program: self.program,
            child: self.child,
            group: self.group,
            stdout: self.stdout,
            input: self.input,
            session: self.session,
            settings: self.settings,
            stderr: self.stderr,
            stderr_task: self.stderr_task,
            secrets: self.secrets,
            recorder: self.recorder,
            exited: None,
        };
        (outcome, Some(kept))
    }
}

impl Kept {
    /// The session the process holds open.
    pub fn live_session(&self) -> Option<&str> {
        self.session.live_session()
    }

    /// The process group the kept process leads (its memory is the group's).
    pub fn group_id(&self) -> i32 {
        self.group.id()
    }

    /// The next turn on the process starts a new session on its connection rather
    /// than continuing the one it holds; whether the agent's protocol can.
    pub fn afresh(&mut self) -> bool {
        self.session.afresh()
    }

    /// Waits until the process exits or closes its stdout (a crash while idle),
    /// reading and dropping whatever it prints meanwhile. Cancel-safe: dropped at any
    /// point, the process is as it was.
    pub async fn watch(&mut self) {
        loop {
            if self.exited.is_some() {
                return;
            }
            tokio::select! {
                status = self.child.wait() => self.exited = Some(status.ok()),
                read = self.stdout.fill() => {
                    if !matches!(read, Ok(true)) {
                        // Stdout closed: the agent is going away.
                        self.exited = Some(None);
                    }
                    while let Some(line) = self.stdout.next_line() {
                        if let super::lines::Line::Text(text) = line {
                            tracing::trace!(program = %self.program, "idle agent wrote: {text}");
                        }
                    }
                }
            }
        }
    }

    /// Ends the process the way an answered turn's end does: stdin closed, the
    /// session's linger to exit by itself, SIGTERM, the rest of the grace, SIGKILL of
    /// the group. An agent that saves its session as it exits (no linger: the claude
    /// adapters) leaves the group with the process that writes it (Claude Code under
    /// claude-agent-acp, still flushing its session after the adapter is gone): the
    /// group has the rest of the grace to empty before it is killed.
    pub async fn end(mut self) {
        self.input.close();
        let linger = self.session.linger();
        let plan = EndPlan::new(&self.settings, self.session.as_ref(), linger);
        let mut terminated = false;
        while self.exited.is_none() {
            let wake = match plan.terminate_at {
                Some(at) if !terminated => at,
                _ => plan.deadline,
            };
            tokio::select! {
                () = self.watch() => {}
                () = sleep_until(wake) => {
                    if wake == plan.deadline {
                        break;
                    }
                    self.group.signal(Signal::SIGTERM);
                    terminated = true;
                }
            }
        }
        if plan.saving || terminated {
            self.group.wait_empty(plan.deadline).await;
        }
        if self.group.kill_and_wait(Instant::now() + AFTER_KILL).await {
            self.group.disarm();
        }
        self.input.abort();
        self.stderr_task.abort();
        tracing::debug!(program = %self.program, "warm agent process ended");
    }
}

/// Runs the next turn of `invocation` on the kept process: one prompt on its live
/// session. Ends like [`run_session_keeping`](super::run_session_keeping): with
/// `keep`, the process is handed back when the turn is answered.
pub async fn run_kept(
    mut kept: Kept,
    invocation: &Invocation,
    caller: Caller<'_>,
    keep: bool,
) -> (RunOutcome, Option<Kept>) {
    let started = Instant::now();
    let mut outbox = Outbox::default();
    if !kept.session.again(invocation, &mut outbox) {
        // Not reached: only an answered turn's session is kept. Were it to be, the turn
        // fails at once rather than waiting on an agent that was never asked.
        let message = format!("`{}` took no next prompt on its live session", kept.program);
        kept.end().await;
        let outcome = RunOutcome {
            ended: Ended::Failed(message),
            exit: None,
            stats: super::Stats::default(),
        };
        return (outcome, None);
    }
    let now = Instant::now();
    // The next turn's background work (an ACP agent's terminals) wakes this turn.
    let mut session = kept.session;
    let (wake, wakeups) = tokio::sync::mpsc::unbounded_channel();
    session.set_waker(std::sync::Arc::new(move || {
        let _ = wake.send(());
    }));
    let turn = Turn {
        program: kept.program,
        child: kept.child,
        group: kept.group,
        stdout: kept.stdout,
        stdout_open: kept.exited.is_none(),
        leader: kept.exited,
        session,
        wakeups: Some(wakeups),
        outbox,
        input: kept.input,
        events: caller.events,
        commands: Some(caller.commands),
        cancel: caller.cancel,
        cancelling: None,
        asked: Vec::new(),
        limits: invocation.limits,
        settings: kept.settings,
        deadline: after(now, invocation.limits.total),
        last_output: now,
        stderr: kept.stderr,
        stderr_task: kept.stderr_task,
        secrets: kept.secrets,
        recorder: kept.recorder,
    };
    turn.run(started, keep).await
}
