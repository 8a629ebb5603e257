//! The prompt one member gets for one turn: `[SYSTEM]`, `[CONTEXT]` and `[MESSAGE]`
//! (agents.md §The prompt), capped at [`PROMPT_CAP`]. Pure: everything comes in through
//! the request; only [`role_loaded_by_cli`] looks at the file system.
//!
//! ````text
//! [SYSTEM]
//! <team_instruction.md>
//!
//! <role file, when the member's CLI will not load it itself>
//!
//! <the member's instructions from chatmd.toml>
//! [CONTEXT]
//! You are @reviewer in a team chat with @me (human), @tester (codex). Mention a member (@tester) or end with [NEXT: tester] to hand over.
//! The topic: <the preamble, trimmed, when it is one line>
//! me: <an earlier message of one line>
//! tester:
//! ```
//! <a later one of several lines, quoted>
//! ```
//! [MESSAGE]
//! me: <the message this member must answer>
//! ````
//!
//! - Quoting: every text taken from the file (the topic, each earlier message, the
//!   correction's messages, an AI message that is answered) is quoted by
//!   [`quote::quoted`]: on its speaker's line when it is one line, else in a fence
//!   that none of its lines can close. So no line of it reads as this prompt's own
//!   structure or as another speaker. The human's message under `[MESSAGE]` stays as
//!   written ([`asked_entry`] says why).
//! - The roster line that opens `[CONTEXT]` tells the member who it is, who else takes
//!   part (with their agents) and how to hand over. It sits in the context, not the
//!   system part, so `system` stays exactly what the user configured (and empty when
//!   nothing is).
//! - Attachments: what the answered message's references (`#file:`, `#diff`,
//!   `#diagnostics:`) attach ends `[CONTEXT]`, each as `attached <reference> (...):`
//!   and a fenced block (`conversation/attached.rs` cuts them to their own cap first).
//! - Earlier messages: at most the front matter's `context` (default 20), the newest
//!   ones, oldest first. Messages with nothing left after cleaning (reply stubs, a bare
//!   `[DONE]`) and `SKIP` answers carry nothing and are left out.
//! - Members that answer apart (`routing: compare` or `council`): another member's
//!   answer is never given, and only a human message is answered; the roster line
//!   names only the member and the human (`routing/compare.rs`). A council's review and
//!   decision prompts are built by `council.rs`.
//! - Cleaning: routing markers and `<!-- chatmd ... -->` status comments are removed
//!   from every message (a line left blank by the removal goes too); permission blocks
//!   stay. Line breaks are normalized to `\n` throughout, so the prompt's own framing
//!   and the text agree.
//! - Resume (`since`): only messages after that index go into the context, and the
//!   roster line and the topic are left out — the agent's own session already holds
//!   them, from the turn it answered there. `system` is still built: claude does not
//!   keep its `--append-system-prompt` text with a session, so it is passed on every
//!   run; codex and gemini keep theirs, and their adapters leave it out on resume.

mod clean;
mod command;
mod council;
mod held;
mod parts;
pub(crate) mod quote;
mod role;
mod roster_line;

pub use command::slash_command;
pub use council::build_council_prompt;
pub use held::{HELD_KEY, HELD_NOTHING, holds, instructions_hash};
pub use role::role_loaded_by_cli;

use super::roster::Roster;
use super::routing::compare::{answers_apart, shown_to};
use crate::document::chat::{Chat, Message};
use crate::document::front_matter::DEFAULT_CONTEXT;
use crate::team::Member;
use parts::Parts;

/// The most a prompt may weigh, in bytes of UTF-8 (see [`Prompt::len`]).
pub const PROMPT_CAP: usize = 768 * 1024;

/// Ends a role that was cut to fit the cap, so the agent knows it saw only part of it.
pub const ROLE_SHORTENED_NOTE: &str = "[... role text shortened to fit the prompt limit]";

const SYSTEM_HEADER: &str = "[SYSTEM]\n";

/// What the topic is quoted under: with a space, so it is never a member's handle.
const TOPIC_LABEL: &str = "The topic";

/// A built prompt: the adapter puts `system` in a flag (claude's
/// `--append-system-prompt`) or inline before `body` (see [`Prompt::inline`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Prompt {
    /// The `[SYSTEM]` part's content, without its header; empty when there is none.
    pub system: String,
    /// `[CONTEXT]\n...\n[MESSAGE]\n...\n`.
    pub body: String,
}

impl Prompt {
    /// The whole prompt as one text, for agents without a system-prompt flag:
    /// `[SYSTEM]\n<system>\n` (left out when `system` is empty), then the body.
    pub fn inline(&self) -> String {
        let mut out = String::with_capacity(self.len());
        if !self.system.is_empty() {
            out.push_str(SYSTEM_HEADER);
            out.push_str(&self.system);
            out.push('\n');
        }
        out.push_str(&self.body);
        out
    }

    /// The size of [`Prompt::inline`] in bytes: the larger of the two deliveries, and
    /// what the cap applies to.
    pub fn len(&self) -> usize {
        let system = if self.system.is_empty() {
            0
        } else {
            SYSTEM_HEADER.len() + self.system.len() + 1
        };
        system + self.body.len()
    }

    /// Never true for a built prompt (the body always has its sections).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// What [`build_prompt`] needs for one turn.
pub struct PromptRequest<'a> {
    /// The chat text `chat` was parsed from.
    pub text: &'a str,
    pub chat: &'a Chat,
    pub roster: &'a Roster<'a>,
    /// The member whose turn it is.
    pub member: &'a Member,
    /// The index in `chat.messages` of the message the member must answer: the human
    /// message that addressed it, or in a chain the AI message that mentioned it (a
    /// message without text stands for the last one with text before it).
    pub message: usize,
    /// Whether the member's CLI loads its role file by itself ([`role_loaded_by_cli`]);
    /// then the role is not sent again.
    pub role_loaded_by_cli: bool,
    /// With resume: the index of the member's last message; only messages after it go
    /// into the context (and the topic is left out).
    pub since: Option<usize>,
    /// What the answered message's references attach, rendered
    /// ([`attached::render`](super::attached::render)) and already cut to its own cap:
    /// it ends `[CONTEXT]` and is never cut to make room for anything else.
    pub attached: &'a str,
    /// With resume after the user edited messages the session saw (`--on-edit tell`):
    /// the note saying how they read now ([`seen::correction`](super::seen::correction)),
    /// which opens `[CONTEXT]`; the messages after it come under [`NEW_MESSAGES`].
    /// Empty for none.
    pub correction: &'a str,
    /// With resume: the session does not hold the current instructions ([`held`]), so
    /// this prompt carries the roster line again (and the caller puts the `[SYSTEM]`
    /// text inline, [`Prompt::inline`]).
    pub instructions_again: bool,
}

/// Heads the messages a told turn is given after the correction, so they never read
/// as more of the changed ones.
pub const NEW_MESSAGES: &str = "chatmd: the messages since your last answer:";

/// Why no prompt could be built.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PromptError {
    #[error(
        "the prompt is {size} bytes even without the role and the earlier messages, over the limit of {limit} bytes; shorten the message or what it attaches (or the topic, team_instruction.md or the member's instructions) and send it again"
    )]
    TooLarge { size: usize, limit: usize },
    #[error("there is no message {index} to answer: the chat has {count} messages")]
    NoSuchMessage { index: usize, count: usize },
}

/// Builds the prompt for `req.member` to answer message `req.message`, within
/// [`PROMPT_CAP`]. Over the cap, the role is shortened first (cut at a character
/// boundary, ending with [`ROLE_SHORTENED_NOTE`]), then the oldest earlier messages
/// are dropped whole (the role gets back the room they leave); a prompt still too
/// large without either is [`PromptError::TooLarge`].
pub fn build_prompt(req: &PromptRequest) -> Result<Prompt, PromptError> {
    build_prompt_with_cap(req, PROMPT_CAP)
}

/// [`build_prompt`] with another cap, so tests can show the cutting on small inputs.
pub(crate) fn build_prompt_with_cap(
    req: &PromptRequest,
    cap: usize,
) -> Result<Prompt, PromptError> {
    Parts::gather(req)?.fit(cap)
}

/// Which messages a prompt carries: the indices in `chat.messages` of the earlier
/// messages of its `[CONTEXT]` (oldest first) and of the one under `[MESSAGE]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Given {
    pub context: Vec<usize>,
    pub asked: usize,
}

/// The messages [`build_prompt`] gives the member for `req` (before the cap drops any;
/// the message must exist). The seen record (`conversation::seen`) is made from it.
pub fn given_messages(req: &PromptRequest) -> Given {
    let (text, chat) = (req.text, req.chat);
    // An answer without text asks nothing (a member asked right after it answered
    // nothing, or skipped): the member answers the last message with text before it.
    // Where members answer apart, only the human asks (Ask after an answer: the
    // member answers the human's message before it).
    let apart = answers_apart(chat);
    let asks = |i: usize| !apart || req.roster.is_human(chat.messages[i].handle(text));
    let asked = (0..=req.message)
        .rev()
        .find(|&i| entry(text, &chat.messages[i]).is_some() && asks(i))
        .unwrap_or(req.message);
    let shown = |i: usize| shown_to(text, chat, req.roster, &req.member.handle, i);
    let limit = chat
        .front_matter
        .as_ref()
        .map_or(DEFAULT_CONTEXT, |fm| fm.context()) as usize;
    let first = req.since.map_or(0, |since| since.saturating_add(1));
    let mut context: Vec<usize> = (first.min(asked)..asked)
        .rev()
        .filter(|&i| {
            let m = &chat.messages[i];
            !m.is_skip(text) && entry(text, m).is_some() && shown(i)
        })
        .take(limit)
        .collect();
    context.reverse();
    Given { context, asked }
}

/// `message`'s text as agents get it: without routing markers and status comments.
pub fn cleaned_text(text: &str, message: &Message) -> String {
    clean::message_text(text, message)
}

/// One message as the transcript quotes it ([`quote::quoted`], without the final line
/// break), or `None` when its text is empty once cleaned.
pub(crate) fn entry(text: &str, message: &Message) -> Option<String> {
    let body = clean::message_text(text, message);
    (!body.is_empty()).then(|| {
        let mut quoted = quote::quoted(message.handle(text), &body);
        quoted.pop();
        quoted
    })
}

/// The message a member answers, under `[MESSAGE]`. The human's stays as written,
/// `me: text` over as many lines as it has: it is the last part of the prompt, so
/// nothing after it can be forged, and whatever its lines say, the human wrote them
/// (and a line such as `tester: done` in it is the human's own words). Another
/// member's (in a chain) is quoted like every transcript entry, so its lines cannot
/// pass for the human's.
fn asked_entry(text: &str, message: &Message, roster: &Roster) -> Option<String> {
    let handle = message.handle(text);
    if !roster.is_human(handle) {
        return entry(text, message);
    }
    let body = clean::message_text(text, message);
    (!body.is_empty()).then(|| format!("{handle}: {body}"))
}

/// `text` trimmed with `\n` line breaks, or `None` when nothing is left.
fn non_empty(text: &str) -> Option<String> {
    let text = text.trim();
    (!text.is_empty()).then(|| clean::unix_newlines(text))
}

#[cfg(test)]
mod tests;
