//! Which instructions a member's session holds: the `[SYSTEM]` text chatmd gives it
//! (team_instruction.md, the role when its CLI does not load it, the member's
//! instructions), recorded as a short hash on each answer of a resuming member
//! (`held=`). A resumed turn whose session does not hold the current text — an
//! imported session (`held=none`: it never got any, nor the roster line), a role or
//! team_instruction.md edited since — gets it in its prompt, with the roster line,
//! once; the next turn finds it held and does not repeat it.
//!
//! The hash covers the roster line too: a member added or gone since the session got
//! it is delivered the same way. A member without any `[SYSTEM]` text gets no
//! `held=`: no record means the session holds the roster line and no text, what a new
//! session of such a member gets (and what an answer from before chatmd kept the
//! record holds, as far as anyone knows); a roster change alone does not reach such a
//! session.
//!
//! The prompt is the one way in that every CLI keeps with the session: codex and
//! gemini keep only their first run's system text on resume, and claude 2.1.332 keeps
//! its first run's `--append-system-prompt` too (agents-2026-12.md).

use super::roster_line::roster_line;
use super::{PromptRequest, non_empty};
use crate::conversation::routing::compare::answers_apart;
use crate::conversation::seen::short_hash;
use crate::document::chat::Chat;

/// The status comment key of the record.
pub const HELD_KEY: &str = "held";

/// The record of a session that holds no instructions at all (`chatmd import`).
pub const HELD_NOTHING: &str = "none";

/// The hash of the `[SYSTEM]` text `req.member` gets now (what `held=` records), or
/// `None` when it gets none.
pub fn instructions_hash(req: &PromptRequest) -> Option<String> {
    let role = if req.role_loaded_by_cli {
        None
    } else {
        req.member.role_text.as_deref().and_then(non_empty)
    };
    let system: Vec<String> = [
        req.roster.team.instruction.as_deref().and_then(non_empty),
        role,
        req.member.instructions.as_deref().and_then(non_empty),
    ]
    .into_iter()
    .flatten()
    .collect();
    if system.is_empty() {
        return None;
    }
    // The roster line is delivered with the text, so a member added or gone since
    // the session last got it is news the same way an edited text is.
    let roster = roster_line(req.roster, req.member, answers_apart(req.chat));
    let joined = system.join("\n\n");
    Some(short_hash(&[&joined, &roster]))
}

/// Whether the session that wrote the answer at `index` holds the instructions whose
/// hash is `now` ([`instructions_hash`]).
pub fn holds(text: &str, chat: &Chat, index: usize, now: Option<&str>) -> bool {
    let held = chat
        .messages
        .get(index)
        .and_then(|m| m.status_comment(text))
        .and_then(|status| status.get(HELD_KEY));
    match held {
        Some(HELD_NOTHING) => false,
        held => held == now,
    }
}
