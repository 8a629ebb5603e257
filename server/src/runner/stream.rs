//! The running turn: a `select!` loop over stdout, the leader's exit, the caller's
//! commands, cancel and the timers. Each stdout line and each command goes to the
//! session; what the session produced is acted on at once: its bytes written to the
//! agent's stdin, its events forwarded, and an event that ends the turn ends the loop.

use nix::sys::signal::Signal;
use tokio::sync::mpsc::Receiver;
use tokio::sync::mpsc::error::TrySendError;
use tokio::time::{Instant, sleep_until};

use crate::agents::{AgentEvent, SessionCommand};

use super::Ended;
use super::lines::Line;
use super::turn::{AFTER_KILL, Stop, Turn, after};

impl Turn<'_> {
    /// Reads and parses until something ends the turn.
    pub(super) async fn stream(&mut self) -> Stop {
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
            let drain_timer = at_or_never(drain_until);
            // After a cancel the session took: the agent's time to end by itself.
            let given_up = at_or_never(self.cancelling);
            tokio::select! {
                biased;
                () = self.cancel.cancelled(), if self.cancelling.is_none() => {
                    if !self.cancel_softly() {
                        return Stop::Cancelled;
                    }
                }
                () = given_up => return Stop::Cancelled,
                () = &mut total => return Stop::Total,
                // Silence counts only while the leader runs: once it has exited, its
                // end is known and the drain timer bounds the wait for the pipe.
                () = &mut idle_timer, if idle.is_some() && self.leader.is_none() => {
                    let Some(idle) = idle else { continue };
                    if !self.asked.is_empty() {
                        // The agent waits for the user, not the other way round.
                        self.last_output = Instant::now();
                    }
                    let due = after(self.last_output, idle);
                    if Instant::now() >= due {
                        return Stop::Idle(idle);
                    }
                    idle_timer.as_mut().reset(due);
                }
                news = next_wakeup(&mut self.wakeups) => match news {
                    None => self.wakeups = None,
                    Some(()) => {
                        // A command the agent runs through chatmd is the agent at work.
                        self.last_output = Instant::now();
                        self.session.woken(&mut self.outbox);
                    }
                },
                command = next_command(&mut self.commands) => match command {
                    None => self.commands = None,
                    Some(command) => {
                        if !self.command(command) {
                            return Stop::Cancelled;
                        }
                    }
                },
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

    /// Acts on what the session produced, then gives it every line read so far.
    /// Returns the stop when an event ended the turn.
    async fn deliver(&mut self) -> Option<Stop> {
        if let Some(stop) = self.act().await {
            return Some(stop);
        }
        while let Some(line) = self.stdout.next_line() {
            match line {
                Line::Text(text) => {
                    if let Some(recorder) = &mut self.recorder {
                        recorder.agent_wrote(&text);
                    }
                    self.session.line(&text, &mut self.outbox);
                }
                Line::TooLong(bytes) => self.outbox.push(AgentEvent::Notice(format!(
                    "skipped an output line of {bytes} bytes (over the {} byte limit)",
                    self.settings.max_line
                ))),
            }
            // Most lines give an event or none and nothing to write: no await for them.
            self.write_input();
            if !self.outbox.events.is_empty()
                && let Some(stop) = self.act().await
            {
                return Some(stop);
            }
        }
        None
    }

    /// [`Turn::flush`], and the stop it calls for: forwarding cut short by cancel or
    /// the total timeout, else the end of the turn an event announced.
    async fn act(&mut self) -> Option<Stop> {
        let (answered, stopped) = self.flush().await;
        stopped.or(answered.map(Stop::Answered))
    }

    /// Writes the session's bytes to the agent's stdin (closing it when the session
    /// says so) and forwards its events. Returns the end of the turn the first
    /// completion event stands for, and the stop that cut forwarding short, if any.
    pub(super) async fn flush(&mut self) -> (Option<Ended>, Option<Stop>) {
        self.write_input();
        if self.outbox.events.is_empty() {
            return (None, None);
        }
        // Taken out to be forwarded, then put back: one buffer for the whole turn.
        let mut events = std::mem::take(&mut self.outbox.events);
        let mut answered = None;
        let mut stopped = None;
        for event in events.drain(..) {
            let event = self.secrets.event(event);
            if answered.is_none() {
                answered = completion(&event);
            }
            if let AgentEvent::Permission(request) = &event {
                self.asked.push(request.id.clone());
            }
            if let Err(stop) = self.forward(event).await {
                stopped = Some(stop);
                break;
            }
        }
        // A cancel taken while forwarding may have produced events of its own.
        if self.outbox.events.is_empty() {
            events.clear();
            self.outbox.events = events;
        }
        (answered, stopped)
    }

    /// Hands what the session wrote for the agent to the stdin writer, and closes
    /// stdin when the session says so.
    fn write_input(&mut self) {
        if !self.outbox.input.is_empty() {
            if let Some(recorder) = &mut self.recorder {
                recorder.chatmd_wrote(&self.outbox.input);
            }
            self.input.write(std::mem::take(&mut self.outbox.input));
        }
        if std::mem::take(&mut self.outbox.close_input) {
            self.input.close();
        }
    }

    /// Sends one event, waiting for room in the channel but not past cancel or the
    /// total timeout. Nobody listening is not an error: the outcome still tells.
    async fn forward(&mut self, event: AgentEvent) -> Result<(), Stop> {
        let event = match self.events.try_send(event) {
            Ok(()) | Err(TrySendError::Closed(_)) => return Ok(()),
            Err(TrySendError::Full(event)) => event,
        };
        loop {
            let given_up = at_or_never(self.cancelling);
            tokio::select! {
                biased;
                () = self.cancel.cancelled(), if self.cancelling.is_none() => {}
                () = given_up => return Err(Stop::Cancelled),
                () = sleep_until(self.deadline) => return Err(Stop::Total),
                permit = self.events.reserve() => {
                    if let Ok(permit) = permit {
                        permit.send(event);
                    }
                    // Time spent waiting on the receiver is not the agent being silent.
                    self.last_output = Instant::now();
                    return Ok(());
                }
            }
            // Cancelled while waiting: the session may end the turn its own way.
            if !self.cancel_softly() {
                return Err(Stop::Cancelled);
            }
        }
    }

    /// Gives a command to the session; false for a cancel the session did not take
    /// (the runner then stops the process itself).
    fn command(&mut self, command: SessionCommand) -> bool {
        match command {
            SessionCommand::Cancel => self.cancelling.is_some() || self.cancel_softly(),
            command => {
                if let SessionCommand::Answer { request, .. } = &command {
                    self.asked.retain(|asked| asked != request);
                    self.last_output = Instant::now();
                }
                if !self.session.command(command, &mut self.outbox) {
                    tracing::debug!(program = %self.program, "the agent takes no commands");
                }
                true
            }
        }
    }

    /// Asks the session to end the turn its own way; false when it cannot.
    fn cancel_softly(&mut self) -> bool {
        let taken = self
            .session
            .command(SessionCommand::Cancel, &mut self.outbox);
        if taken {
            self.cancelling = Some(after(Instant::now(), self.settings.grace));
        }
        taken
    }
}

/// The session's next news, or never when it has none to tell.
async fn next_wakeup(wakeups: &mut Option<tokio::sync::mpsc::UnboundedReceiver<()>>) -> Option<()> {
    match wakeups {
        Some(wakeups) => wakeups.recv().await,
        None => std::future::pending().await,
    }
}

/// The next command, or never once the caller's sender is gone.
async fn next_command(
    commands: &mut Option<&mut Receiver<SessionCommand>>,
) -> Option<SessionCommand> {
    match commands {
        Some(commands) => commands.recv().await,
        None => std::future::pending().await,
    }
}

/// Sleeps until `at`, or forever without one.
async fn at_or_never(at: Option<Instant>) {
    match at {
        Some(at) => sleep_until(at).await,
        None => std::future::pending().await,
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
