//! One turn from spawn to return: starts the process and hands its session the prompt,
//! lets `stream` run the turn until something ends it and `ending` wind the process
//! down, then accounts for the outcome with no process of the group left running.

use std::os::unix::process::ExitStatusExt;
use std::process::ExitStatus;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::process::ChildStdout;
use tokio::sync::mpsc::{Receiver, Sender};
use tokio::task::JoinHandle;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use crate::agents::{
    AgentEvent, ExitInfo, Invocation, Limits, Outbox, RequestId, Session, SessionCommand, Stdin,
};

use super::error::RunError;
use super::group::{self, AgentChild, Group, Spawned};
use super::input::Input;
use super::lines::LineReader;
use super::redact::Secrets;
use super::stderr::{self, Tail};
use super::{Ended, RunOutcome, Settings, Stats};

/// Once the group has been SIGKILLed: how long its pipes may take to close and its
/// processes to vanish. Only a process that left the group can make us wait this long.
pub(super) const AFTER_KILL: Duration = Duration::from_secs(1);

/// The caller's side of a running turn.
pub struct Caller<'a> {
    /// Where the session's events go; dropped when the turn is over.
    pub events: Sender<AgentEvent>,
    /// Commands for the session (answers to permission requests, cancel, more input);
    /// a closed channel only means that none will come. Borrowed: a turn that runs
    /// again (a lost session resumed as a new one) takes its commands from the same
    /// channel.
    pub commands: &'a mut Receiver<SessionCommand>,
    /// Cancels the turn, like [`SessionCommand::Cancel`].
    pub cancel: CancellationToken,
}

/// Why the streaming loop stopped.
pub(super) enum Stop {
    /// The session emitted `Done` or `Failed`.
    Answered(Ended),
    /// The leader exited and stdout is closed (or was given up on).
    Exited,
    Cancelled,
    Idle(Duration),
    Total,
}

pub(super) struct Turn<'a> {
    pub(super) program: String,
    pub(super) child: AgentChild,
    pub(super) group: Group,
    pub(super) stdout: LineReader<ChildStdout>,
    pub(super) stdout_open: bool,
    /// `Some` once the leader has exited; the inner `None` when its status is unknown.
    pub(super) leader: Option<Option<ExitStatus>>,
    pub(super) session: Box<dyn Session>,
    /// What the session produced that the runner has not acted on yet.
    pub(super) outbox: Outbox,
    pub(super) input: Input,
    pub(super) events: Sender<AgentEvent>,
    /// `None` once the caller's sender is gone.
    pub(super) commands: Option<&'a mut Receiver<SessionCommand>>,
    /// The session's background news (an ACP agent's terminals), if it has any.
    pub(super) wakeups: Option<tokio::sync::mpsc::UnboundedReceiver<()>>,
    pub(super) cancel: CancellationToken,
    /// Once the session took a cancel: when the agent's time to end its turn is up.
    pub(super) cancelling: Option<Instant>,
    /// Permission requests waiting for the user: the agent's silence meanwhile is not
    /// idleness.
    pub(super) asked: Vec<RequestId>,
    pub(super) limits: Limits,
    pub(super) settings: Settings,
    pub(super) deadline: Instant,
    pub(super) last_output: Instant,
    pub(super) stderr: Arc<Mutex<Tail>>,
    pub(super) stderr_task: JoinHandle<()>,
    /// Cut from every message about the turn.
    pub(super) secrets: Secrets,
    /// Where the traffic is recorded (`CHATMD_ACP_RECORD`), for two-way sessions.
    pub(super) recorder: Option<super::record::Recorder>,
}

/// Runs one turn of `session`: a headless CLI's or a two-way protocol's.
///
/// The child leads its own process group. The session writes the prompt first (the
/// invocation's `Stdin::Prompt`); its stdin stays open until the session closes it or
/// ends the turn. Its stdout is read as capped, lossily decoded lines, each given to
/// the session; its stderr is kept as a bounded tail. The caller's commands go to the
/// session as they come; whatever the session writes goes to stdin.
///
/// The turn ends on the session's `Done` or `Failed` (stdin is closed and the process
/// has a grace to exit before the group is killed), on process exit (then
/// [`Session::finish`] has the last word), on cancel (the token or
/// [`SessionCommand::Cancel`](crate::agents::SessionCommand): a session that takes it
/// has the grace to end the turn its own way, else the group gets SIGTERM, a grace,
/// SIGKILL), or on the idle or total timeout (SIGTERM, a grace, SIGKILL). The idle
/// timer does not run while a permission request waits for its answer. Whatever ends
/// it, no process of the group is left running when this returns, and a dropped future
/// kills the group too. With [`guard_agents_with`](super::guard_agents_with) the group also dies when this
/// process is killed outright.
///
/// Events go to `caller.events` as they come (a bounded channel: a slow receiver slows
/// the reading, and the child with it); a dropped receiver does not stop the turn.
/// The outcome, not the event stream, says how the turn ended: cancel and timeouts add
/// no event.
pub async fn run_session(
    invocation: Invocation,
    session: Box<dyn Session>,
    caller: Caller<'_>,
    settings: Settings,
) -> RunOutcome {
    run_session_keeping(invocation, session, caller, settings, false)
        .await
        .0
}

/// [`run_session`], and with `keep`, the process still running after an answered
/// turn (see [`Kept`](super::Kept)): its session keeps a live connection open.
pub async fn run_session_keeping(
    invocation: Invocation,
    session: Box<dyn Session>,
    caller: Caller<'_>,
    settings: Settings,
    keep: bool,
) -> (RunOutcome, Option<super::Kept>) {
    let started = Instant::now();
    let not_started = |ended| RunOutcome {
        ended,
        exit: None,
        stats: Stats {
            elapsed: started.elapsed(),
            ..Stats::default()
        },
    };
    if caller.cancel.is_cancelled() {
        return (not_started(Ended::Cancelled), None);
    }
    let spawned = super::resolve::prepare(&invocation).and_then(|path| {
        group::spawn(&path, &invocation, session.exit_grace()).map_err(|source| RunError::Spawn {
            program: invocation.program.clone(),
            source,
        })
    });
    let Spawned {
        child,
        group,
        stdin,
        stdout,
        stderr,
    } = match spawned {
        Ok(spawned) => spawned,
        Err(error) => return (not_started(Ended::SpawnFailed(error)), None),
    };
    tracing::debug!(program = %invocation.program, "agent process started");
    let prompt = match invocation.stdin {
        Stdin::Prompt(prompt) => Some(prompt),
        Stdin::Null => None,
    };
    let tail = Tail::new(settings.stderr_tail_bytes, settings.stderr_tail_lines);
    let tail = Arc::new(Mutex::new(tail));
    let now = Instant::now();
    let session_records = session.records_traffic();
    let mut session = session;
    let (wake, wakeups) = tokio::sync::mpsc::unbounded_channel();
    session.set_waker(Arc::new(move || {
        let _ = wake.send(());
    }));
    let mut turn = Turn {
        program: invocation.program,
        child,
        group,
        stdout: LineReader::new(stdout, settings.max_line),
        stdout_open: true,
        leader: None,
        session,
        outbox: Outbox::default(),
        input: Input::new(stdin),
        events: caller.events,
        commands: Some(caller.commands),
        wakeups: Some(wakeups),
        cancel: caller.cancel,
        cancelling: None,
        asked: Vec::new(),
        limits: invocation.limits,
        settings,
        deadline: after(now, invocation.limits.total),
        last_output: now,
        stderr_task: stderr::drain(stderr, Arc::clone(&tail)),
        stderr: tail,
        secrets: Secrets::of(&invocation.env),
        recorder: None,
    };
    if session_records {
        turn.recorder = super::record::Recorder::from_env(&turn.program);
    }
    turn.session.start(prompt, &mut turn.outbox);
    turn.run(started, keep).await
}

/// `at + limit`, or a century later when that is past what a clock can tell: a limit
/// of `9223372036854775807` seconds in a config must not panic.
pub(super) fn after(at: Instant, limit: Duration) -> Instant {
    at.checked_add(limit)
        .unwrap_or_else(|| at + Duration::from_secs(100 * 365 * 24 * 3600))
}

impl Turn<'_> {
    pub(super) async fn run(
        mut self,
        started: Instant,
        keep: bool,
    ) -> (RunOutcome, Option<super::Kept>) {
        let stop = self.stream().await;
        if keep && self.keepable(&stop) {
            return self.kept(started);
        }
        let ended = self.settle(stop).await;
        let _ = tokio::time::timeout(AFTER_KILL, &mut self.stderr_task).await;
        self.stderr_task.abort();
        let (stderr_tail, stderr_bytes) = match self.stderr.lock() {
            Ok(mut tail) => (self.secrets.redact(&tail.text()), tail.total()),
            Err(_) => (String::new(), 0),
        };
        let status = self.leader.flatten();
        let exit = ExitInfo {
            code: status.and_then(|status| status.code()),
            stderr_tail,
        };
        let ended = match ended {
            Some(ended) => ended,
            None => self.finish(&exit, status).await,
        };
        // A whole answer, then a failing exit of the CLI's own: something went wrong
        // after the answer (its session not saved, a quota hit), and the user is told.
        // An exit forced by the wind-down (a signal) leaves the answer done.
        let ended = match (ended, exit.code) {
            _ if self.cancelling.is_some() => Ended::Cancelled,
            (Ended::Completed, Some(code)) if code != 0 => {
                if self.session.exit_after_answer_counts() {
                    self.account(&exit, status)
                } else {
                    tracing::info!(program = %self.program, code, stderr = %exit.stderr_tail.trim(),
                        "the agent exited with a failure after its whole answer");
                    Ended::Completed
                }
            }
            (ended, _) => ended,
        };
        if self.group.kill_and_wait(Instant::now() + AFTER_KILL).await {
            self.group.disarm();
        } else {
            tracing::warn!(program = %self.program, "a process of the agent survived SIGKILL");
        }
        self.input.abort();
        let mut stats = self.stats(started);
        stats.stderr_bytes = stderr_bytes;
        let outcome = RunOutcome {
            ended,
            exit: Some(exit),
            stats,
        };
        (outcome, None)
    }

    /// What went through the process so far (its stderr counted by the caller).
    pub(super) fn stats(&self, started: Instant) -> Stats {
        let read = self.stdout.stats();
        Stats {
            stdout_bytes: read.bytes,
            lines: read.lines,
            skipped_long_lines: read.skipped,
            longest_line: read.longest,
            peak_line_buffer: read.peak_line_buffer,
            stderr_bytes: 0,
            elapsed: started.elapsed(),
        }
    }

    /// The exit as the runner tells it, when the session has nothing to say about it.
    pub(super) fn account(&self, exit: &ExitInfo, status: Option<ExitStatus>) -> Ended {
        let program = &self.program;
        let detail = match exit
            .stderr_tail
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty())
        {
            Some(line) => format!(": {}", line.trim()),
            None => String::new(),
        };
        match (exit.code, status.and_then(|status| status.signal())) {
            (Some(0), _) if !self.limits.has_completion_event => Ended::Completed,
            (Some(0), _) => Ended::Failed(format!(
                "`{program}` exited without finishing its answer{detail}"
            )),
            (Some(code), _) => {
                Ended::Failed(format!("`{program}` exited with code {code}{detail}"))
            }
            (None, Some(signal)) => {
                let name = nix::sys::signal::Signal::try_from(signal)
                    .map_or("an unknown signal", nix::sys::signal::Signal::as_str);
                Ended::Failed(format!("`{program}` was killed by {name}{detail}"))
            }
            (None, None) => Ended::Failed(format!("`{program}` ended in an unknown way{detail}")),
        }
    }
}
