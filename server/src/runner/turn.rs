//! One turn from spawn to return: a `select!` loop over stdout, the leader's exit,
//! cancel and the two timers, then a wind-down that leaves the process group empty.

use std::os::unix::process::ExitStatusExt;
use std::process::ExitStatus;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use nix::sys::signal::Signal;
use process_wrap::tokio::ChildWrapper;
use tokio::io::AsyncWriteExt;
use tokio::process::{ChildStdin, ChildStdout};
use tokio::sync::mpsc::Sender;
use tokio::sync::mpsc::error::TrySendError;
use tokio::task::JoinHandle;
use tokio::time::{Instant, sleep_until};
use tokio_util::sync::CancellationToken;

use crate::agents::{AgentEvent, ExitInfo, Invocation, Limits, OutputParser, Stdin};

use super::error::RunError;
use super::group::{self, Group, Spawned};
use super::lines::{Line, LineReader};
use super::redact::Secrets;
use super::stderr::{self, Tail};
use super::{Ended, RunOutcome, Settings, Stats};

/// Once the group has been SIGKILLed: how long its pipes may take to close and its
/// processes to vanish. Only a process that left the group can make us wait this long.
const AFTER_KILL: Duration = Duration::from_secs(1);

/// Why the streaming loop stopped.
enum Stop {
    /// The parser emitted `Done` or `Failed`.
    Answered(Ended),
    /// The leader exited and stdout is closed (or was given up on).
    Exited,
    Cancelled,
    Idle(Duration),
    Total,
}

struct Turn {
    program: String,
    child: Box<dyn ChildWrapper>,
    group: Group,
    stdout: LineReader<ChildStdout>,
    stdout_open: bool,
    /// `Some` once the leader has exited; the inner `None` when its status is unknown.
    leader: Option<Option<ExitStatus>>,
    parser: Box<dyn OutputParser>,
    events: Sender<AgentEvent>,
    cancel: CancellationToken,
    limits: Limits,
    settings: Settings,
    deadline: Instant,
    last_output: Instant,
    stderr: Arc<Mutex<Tail>>,
    stderr_task: JoinHandle<()>,
    stdin_task: Option<JoinHandle<()>>,
    /// Cut from every message about the turn.
    secrets: Secrets,
}

pub(super) async fn run(
    invocation: Invocation,
    parser: Box<dyn OutputParser>,
    events: Sender<AgentEvent>,
    cancel: CancellationToken,
    settings: Settings,
) -> RunOutcome {
    let started = Instant::now();
    let not_started = |ended| RunOutcome {
        ended,
        exit: None,
        stats: Stats {
            elapsed: started.elapsed(),
            ..Stats::default()
        },
    };
    if cancel.is_cancelled() {
        return not_started(Ended::Cancelled);
    }
    let spawned = super::resolve::prepare(&invocation).and_then(|path| {
        group::spawn(&path, &invocation).map_err(|source| RunError::Spawn {
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
        Err(error) => return not_started(Ended::SpawnFailed(error)),
    };
    tracing::debug!(program = %invocation.program, "agent process started");
    let stdin_task = match (stdin, invocation.stdin) {
        (Some(pipe), Stdin::Prompt(prompt)) => Some(tokio::spawn(write_prompt(pipe, prompt))),
        _ => None,
    };
    let secrets = Secrets::of(&invocation.env);
    let tail = Tail::new(settings.stderr_tail_bytes, settings.stderr_tail_lines);
    let tail = Arc::new(Mutex::new(tail));
    let now = Instant::now();
    let turn = Turn {
        program: invocation.program,
        child,
        group,
        stdout: LineReader::new(stdout, settings.max_line),
        stdout_open: true,
        leader: None,
        parser,
        events,
        cancel,
        limits: invocation.limits,
        settings,
        deadline: after(now, invocation.limits.total),
        last_output: now,
        stderr_task: stderr::drain(stderr, Arc::clone(&tail)),
        stderr: tail,
        stdin_task,
        secrets,
    };
    turn.run(started).await
}

/// `at + limit`, or a century later when that is past what a clock can tell: a limit
/// of `9223372036854775807` seconds in a config must not panic.
fn after(at: Instant, limit: Duration) -> Instant {
    at.checked_add(limit)
        .unwrap_or_else(|| at + Duration::from_secs(100 * 365 * 24 * 3600))
}

/// Writes the prompt, then closes the pipe. A child that exits without reading it
/// breaks the pipe, which only ends this task.
async fn write_prompt(mut pipe: ChildStdin, prompt: String) {
    if let Err(error) = pipe.write_all(prompt.as_bytes()).await
        && error.kind() != std::io::ErrorKind::BrokenPipe
    {
        tracing::debug!(%error, "writing the prompt to the agent failed");
    }
}

impl Turn {
    async fn run(mut self, started: Instant) -> RunOutcome {
        let stop = self.stream().await;
        let ended = match stop {
            Stop::Answered(ended) => {
                self.wind_down(false).await;
                Some(ended)
            }
            Stop::Cancelled => {
                self.wind_down(true).await;
                Some(Ended::Cancelled)
            }
            Stop::Idle(idle) => {
                self.wind_down(true).await;
                Some(Ended::IdleTimeout(idle))
            }
            Stop::Total => {
                self.wind_down(true).await;
                Some(Ended::TotalTimeout(self.limits.total))
            }
            Stop::Exited => {
                // The answer is over; whatever the leader left running goes with it
                // (and closes the stderr it may hold).
                self.group.kill_and_wait(Instant::now() + AFTER_KILL).await;
                None
            }
        };
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
        if self.group.kill_and_wait(Instant::now() + AFTER_KILL).await {
            self.group.disarm();
        } else {
            tracing::warn!(program = %self.program, "a process of the agent survived SIGKILL");
        }
        if let Some(task) = &self.stdin_task {
            task.abort();
        }
        let read = self.stdout.stats();
        RunOutcome {
            ended,
            exit: Some(exit),
            stats: Stats {
                stdout_bytes: read.bytes,
                lines: read.lines,
                skipped_long_lines: read.skipped,
                longest_line: read.longest,
                peak_line_buffer: read.peak_line_buffer,
                stderr_bytes,
                elapsed: started.elapsed(),
            },
        }
    }

    /// Reads and parses until something ends the turn.
    async fn stream(&mut self) -> Stop {
        let total = sleep_until(self.deadline);
        tokio::pin!(total);
        let idle = self.limits.idle;
        let idle_timer =
            sleep_until(idle.map_or(self.deadline, |idle| after(self.last_output, idle)));
        tokio::pin!(idle_timer);
        // Once the leader has exited with stdout still open: when to stop waiting for
        // its end, and whether the group was already killed to force it.
        let mut drain_until: Option<Instant> = None;
        let mut forced = false;
        loop {
            if let Some(stop) = self.deliver().await {
                return stop;
            }
            if !self.stdout_open && self.leader.is_some() {
                return Stop::Exited;
            }
            let drain_timer = async move {
                match drain_until {
                    Some(at) => sleep_until(at).await,
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                biased;
                () = self.cancel.cancelled() => return Stop::Cancelled,
                () = &mut total => return Stop::Total,
                // Silence counts only while the leader runs: once it has exited, its
                // end is known and the drain timer bounds the wait for the pipe.
                () = &mut idle_timer, if idle.is_some() && self.leader.is_none() => {
                    let Some(idle) = idle else { continue };
                    let due = after(self.last_output, idle);
                    if Instant::now() >= due {
                        return Stop::Idle(idle);
                    }
                    idle_timer.as_mut().reset(due);
                }
                status = self.child.wait(), if self.leader.is_none() => {
                    self.leader = Some(status.ok());
                    if self.stdout_open {
                        drain_until = Some(Instant::now() + self.settings.grace);
                    }
                }
                read = self.stdout.fill(), if self.stdout_open => {
                    match read {
                        Ok(true) => self.last_output = Instant::now(),
                        _ => self.stdout_open = false,
                    }
                }
                () = drain_timer => {
                    if forced {
                        return Stop::Exited;
                    }
                    // The leader is gone but a process it started holds stdout open.
                    self.group.signal(Signal::SIGKILL);
                    forced = true;
                    drain_until = Some(Instant::now() + AFTER_KILL);
                }
            }
        }
    }

    /// Gives the parser every line read so far and forwards its events. Returns the
    /// stop when an event ended the turn (all events of that line are forwarded).
    async fn deliver(&mut self) -> Option<Stop> {
        while let Some(line) = self.stdout.next_line() {
            let mut events = Vec::new();
            match line {
                Line::Text(text) => self.parser.line(&text, &mut events),
                Line::TooLong(bytes) => events.push(AgentEvent::Notice(format!(
                    "skipped an output line of {bytes} bytes (over the {} byte limit)",
                    self.settings.max_line
                ))),
            }
            let mut answered = None;
            for event in events {
                let event = self.secrets.event(event);
                if answered.is_none() {
                    answered = completion(&event);
                }
                if let Err(stop) = self.forward(event).await {
                    return Some(stop);
                }
            }
            if let Some(ended) = answered {
                return Some(Stop::Answered(ended));
            }
        }
        None
    }

    /// Sends one event, waiting for room in the channel but not past cancel or the
    /// total timeout. Nobody listening is not an error: the outcome still tells.
    async fn forward(&mut self, event: AgentEvent) -> Result<(), Stop> {
        let event = match self.events.try_send(event) {
            Ok(()) | Err(TrySendError::Closed(_)) => return Ok(()),
            Err(TrySendError::Full(event)) => event,
        };
        tokio::select! {
            biased;
            () = self.cancel.cancelled() => Err(Stop::Cancelled),
            () = sleep_until(self.deadline) => Err(Stop::Total),
            _ = self.events.send(event) => {
                // Time spent waiting on the receiver is not the agent being silent.
                self.last_output = Instant::now();
                Ok(())
            }
        }
    }

    /// Lets the leader exit by itself within the grace (after a SIGTERM to the group
    /// when `terminate`), reading and discarding its output meanwhile so it cannot block
    /// on a full pipe; then SIGKILLs the group and reaps the leader.
    async fn wind_down(&mut self, terminate: bool) {
        self.stdout.discard();
        let deadline = Instant::now() + self.settings.grace;
        if terminate {
            self.group.signal(Signal::SIGTERM);
        }
        let grace = sleep_until(deadline);
        tokio::pin!(grace);
        while self.leader.is_none() {
            tokio::select! {
                biased;
                status = self.child.wait() => self.leader = Some(status.ok()),
                read = self.stdout.fill(), if self.stdout_open => {
                    self.stdout_open = matches!(read, Ok(true));
                    self.stdout.discard();
                }
                () = &mut grace => break,
            }
        }
        if terminate && self.leader.is_some() {
            // The rest of the grace is for what the leader started (an `npx` wrapper
            // exits at once; the agent under it may need the time).
            self.group.wait_empty(deadline).await;
        }
        self.group.signal(Signal::SIGKILL);
        if self.leader.is_none() {
            let status = tokio::time::timeout(AFTER_KILL, self.child.wait()).await;
            self.leader = Some(status.ok().and_then(Result::ok));
        }
    }

    /// The process exited by itself: the parser has the last word, and when it says
    /// nothing the exit status decides.
    async fn finish(&mut self, exit: &ExitInfo, status: Option<ExitStatus>) -> Ended {
        let mut ended = None;
        let mut events = Vec::new();
        self.parser.finish(exit, &mut events);
        for event in events {
            let event = self.secrets.event(event);
            if ended.is_none() {
                ended = completion(&event);
            }
            if self.forward(event).await.is_err() {
                break;
            }
        }
        ended.unwrap_or_else(|| self.account(exit, status))
    }

    fn account(&self, exit: &ExitInfo, status: Option<ExitStatus>) -> Ended {
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
                let name = Signal::try_from(signal).map_or("an unknown signal", Signal::as_str);
                Ended::Failed(format!("`{program}` was killed by {name}{detail}"))
            }
            (None, None) => Ended::Failed(format!("`{program}` ended in an unknown way{detail}")),
        }
    }
}

/// The outcome a completion event stands for.
fn completion(event: &AgentEvent) -> Option<Ended> {
    match event {
        AgentEvent::Done { .. } => Some(Ended::Completed),
        AgentEvent::Failed { message } => Some(Ended::Failed(message.clone())),
        _ => None,
    }
}
