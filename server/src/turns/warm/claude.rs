//! A headless claude member's warm turn, when no kept process serves it:
//! its process reads the prompt as a message on stdin and stays for the next one
//! (`agents/claude/stream_input.rs`), started the way `turns/resume.rs` starts any
//! headless turn (resumed, or as a new session when the session is gone).

use super::WarmTurn;
use crate::agents::claude::stream_input;
use crate::agents::{AgentEntry, Invocation};
use crate::runner::{Caller, RunOutcome};
use crate::turns::resume::{Resuming, run_keeping};

/// The turn and its fallback, reading their prompts as messages on stdin.
pub(super) fn reading_messages(
    invocation: Invocation,
    fallback: Option<Invocation>,
) -> (Invocation, Option<Invocation>) {
    (
        stream_input::reading_messages(invocation),
        fallback.map(stream_input::reading_messages),
    )
}

/// Runs the turn in a new process, kept when it is answered.
pub(super) async fn run_cold(
    warm: &WarmTurn,
    turn: (Invocation, Option<Invocation>, Option<Resuming>),
    entry: &AgentEntry,
    caller: Caller<'_>,
) -> RunOutcome {
    let (outcome, kept) = run_keeping(turn, entry, caller, true).await;
    if let Some(kept) = kept {
        warm.runs.keep(&warm.wanted, kept);
    }
    outcome
}
