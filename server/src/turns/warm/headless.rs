//! A warm turn of a headless member whose CLI reads further prompts on stdin (claude's
//! stream-json input, `agents/claude/stream_input.rs`), when no kept process serves
//! it: its process reads the prompt on stdin and stays for the next one, started the
//! way `turns/resume.rs` starts any headless turn (resumed, or as a new session when
//! the session is gone).

use super::WarmTurn;
use crate::agents::kinds::FurtherPrompts;
use crate::agents::{AgentEntry, Invocation};
use crate::runner::{Caller, RunOutcome};
use crate::turns::resume::{Resuming, run_keeping};

/// The turn and its fallback, reading their prompts on stdin.
pub(super) fn reading_prompts(
    further: &FurtherPrompts,
    invocation: Invocation,
    fallback: Option<Invocation>,
) -> (Invocation, Option<Invocation>) {
    (
        (further.reading_them)(invocation),
        fallback.map(further.reading_them),
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
