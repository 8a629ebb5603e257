//! A warm session: the agent's process, connection and session stay open after an
//! answered prompt, and the member's next turn is one `session/prompt` on them (no
//! spawn, `initialize` or `session/resume`). Which turns may do that is decided in
//! `turns/warm`; here the session only keeps stdin open and starts the next prompt, on
//! the session it holds or (a turn that starts afresh) on a new one.

use super::updates::Stream;
use super::{AcpSession, Waiting};
use crate::agents::reader::Turn;
use crate::agents::session::Outbox;
use crate::agents::{AgentEvent, Invocation, RunningTotals, Stdin};

/// Whether a turn's process stays open for the member's next turn.
#[derive(Debug, Default)]
pub(super) struct Keeping {
    /// The runner may keep the process: stdin stays open after an answered prompt
    /// (every ACP agent exits when it closes).
    stays_open: bool,
    /// The agent offers `session/resume`: a later turn may continue this session (a
    /// session none continues, gemini's, is no use kept open).
    pub(super) resumable: bool,
    /// The next prompt goes to a new session on this connection (`session/new`), not
    /// to the one held.
    pub(super) afresh: bool,
}

impl Keeping {
    /// Whether stdin closes with the turn's end `event`: always, but after an answered
    /// prompt of a process that may be kept (the runner closes it when it is not).
    pub(super) fn closes_after(&self, event: &AgentEvent) -> bool {
        !(self.stays_open && matches!(event, AgentEvent::Done { .. }))
    }
}

impl AcpSession {
    /// The process is kept for the member's next turn when the prompt is answered:
    /// stdin stays open (every ACP agent exits when it closes).
    pub fn staying_open(mut self) -> AcpSession {
        self.warm.stays_open = true;
        self
    }

    /// The next turn's prompt on the live session: what is new since the last turn
    /// (the invocation's prompt) with its attachments. False when no session is open
    /// or the last turn is still going.
    pub(super) fn prompt_again(&mut self, invocation: &Invocation, out: &mut Outbox) -> bool {
        let Some(session) = self.session.clone() else {
            return false;
        };
        if self.waiting != Waiting::Nothing || !self.turn.finished {
            return false;
        }
        let Stdin::Prompt(prompt) = &invocation.stdin else {
            return false;
        };
        self.turn = Turn::new(&self.turn.agent);
        self.stream = Stream::new(self.cwd.clone());
        self.cancelled = false;
        self.steer_request = None;
        self.settings_changed = false;
        self.setup.attachments = invocation.session.attachments.clone();
        self.prompt = Some(prompt.clone());
        if std::mem::take(&mut self.warm.afresh) {
            // Nothing of the held session carries over: no running totals to take off
            // (the new session's cost starts from nothing).
            self.session = None;
            self.new_session(out);
            return true;
        }
        // Within one process every adapter's cost runs over the turns it answered
        // (`costs.rs`): this turn's share is the report less the last one.
        out.push(AgentEvent::RunningTotals(RunningTotals {
            tokens: false,
            cost: true,
        }));
        self.ready(session, out);
        true
    }
}
