//! Warm members: how a member's turn runs on its agent process kept from its last turn,
//! so that it is one prompt on a live session. The processes themselves are kept by the
//! one owner of what runs (`turns/runs/kept`); this module decides which turns may use
//! one (`plan.rs`) and runs them (`run.rs`, `headless.rs`).
//!
//! ACP members are kept (their connection holds the session), and headless members
//! whose CLI reads further prompts on stdin (its kind's `further_prompts`: claude's
//! `-p --input-format stream-json`; `headless.rs`); codex and gemini start a process
//! per turn. The member's next turn
//! takes its kept process only when the plan continues that same session from a file
//! that still says what the session saw (the resume path's `seen=` rule,
//! `conversation::seen::changed`) and it was started the same way (program, arguments,
//! environment, folder, the member's settings, the instructions the session holds:
//! `held=`), or starts a new session (then on the same connection).

use super::runs::Runs;
use super::runs::kept::Wanted;

mod headless;
pub(super) mod plan;
mod run;

pub(super) use run::run_turn;

/// One member's turn as the kept processes see it: what it asks of one, and who keeps
/// them.
#[derive(Clone)]
pub struct WarmTurn {
    pub runs: Runs,
    pub wanted: Wanted,
}
