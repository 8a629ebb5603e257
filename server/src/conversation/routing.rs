//! Who speaks next: the routing rules of chat-format.md (mentions in parallel,
//! round-robin, `all` with `SKIP`, `[NEXT: x]`, chains up to `max_chain`, `[DONE]`).
//! What differs between the `routing:` modes is each mode's own file, behind one
//! trait (`mode.rs`); this file holds the rules they share.

mod all;
pub mod compare;
pub mod council;
mod mentions;
mod mode;
mod round_robin;

pub use mode::{MODES, RoutingMode, mode, mode_of};

use super::roster::Roster;
use crate::document::chat::{Chat, Message};
use crate::document::status::TurnStatus;

/// What should happen after a message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Next {
    /// These members answer, in parallel, in this order (their sections are appended
    /// in this order).
    Run(Vec<String>),
    /// The conversation has ended (`status: ended`, `[DONE]` or `/end`).
    Ended,
    /// The chain of agent-to-agent hops reached `max_chain`; the human speaks next.
    ChainLimit(u32),
    /// Nobody is due to speak; the reason is for the user.
    Nobody(String),
}

/// The members who answer a human message at `index`.
pub fn after_human(text: &str, chat: &Chat, roster: &Roster, index: usize) -> Next {
    let message = &chat.messages[index];
    if ends_conversation(text, message)
        || chat.front_matter.as_ref().is_some_and(|fm| fm.is_ended())
    {
        return Next::Ended;
    }
    if let Some(why) = mode::mode_of(chat).cannot_start(chat, roster) {
        return Next::Nobody(why);
    }
    let mentioned = mentioned_members(text, message, roster, None);
    if !mentioned.is_empty() {
        return Next::Run(mentioned);
    }
    if roster.members.is_empty() {
        return Next::Nobody(format!(
            "the team in {} has no members taking part in this chat",
            roster.team.folder.display()
        ));
    }
    mode::mode_of(chat).unaddressed(text, chat, roster, index)
}

/// The members an agent's message at `index` hands the word to: `[NEXT: x]` first,
/// else the members it mentions; never itself; none once the chain is `max_chain`
/// hops long.
pub fn after_agent(text: &str, chat: &Chat, roster: &Roster, index: usize) -> Next {
    handed_on(text, chat, roster, index, true)
}

/// What Continue runs: what comes next, where the user asking lifts a chain limit
/// that was reached (the human had their turn and chose to let the agents go on).
pub fn continue_next(text: &str, chat: &Chat, roster: &Roster) -> Next {
    match next(text, chat, roster) {
        Next::ChainLimit(_) => match last_counting(text, chat) {
            Some(index) => handed_on(text, chat, roster, index, false),
            None => Next::Nobody("the chat has no message yet".to_string()),
        },
        other => other,
    }
}

fn handed_on(text: &str, chat: &Chat, roster: &Roster, index: usize, limited: bool) -> Next {
    if chat.front_matter.as_ref().is_some_and(|fm| fm.is_ended()) {
        return Next::Ended;
    }
    if let Some(next) = mode::mode_of(chat).after_answer(text, chat, roster, index) {
        return next;
    }
    let message = &chat.messages[index];
    let speaker = message.handle(text);
    let wanted: Vec<String> = match message.next_marker(text) {
        Some(next) => roster
            .members
            .iter()
            .find(|m| {
                m.handle.eq_ignore_ascii_case(next) && !m.handle.eq_ignore_ascii_case(speaker)
            })
            .map(|m| vec![m.handle.clone()])
            .unwrap_or_default(),
        None => mentioned_members(text, message, roster, Some(speaker)),
    };
    if wanted.is_empty() {
        return Next::Nobody(format!("@{speaker} did not hand the word to anyone"));
    }
    let max = chat.front_matter.as_ref().map_or(3, |fm| fm.max_chain());
    if limited && chain_length(text, chat, roster, index) >= max as usize {
        return Next::ChainLimit(max);
    }
    Next::Run(wanted)
}

/// What comes next after a round: only the round's own answers (`answers`, indices
/// of the agents' messages it wrote) may hand the word on, each to everyone it names.
/// A human message that appeared while the round ran is a draft: it is never sent by
/// the end of a round, only by the user's Send. Returns who answers next, in the order
/// of the messages, once each, and for each of them the message that asked them.
pub fn after_answers(
    text: &str,
    chat: &Chat,
    roster: &Roster,
    answers: &[usize],
) -> (Next, Vec<usize>) {
    let mut wanted: Vec<String> = Vec::new();
    let mut asked_by = Vec::new();
    let mut outcome = None;
    for &index in answers {
        match after_agent(text, chat, roster, index) {
            Next::Run(members) => {
                for member in members {
                    if !wanted.contains(&member) {
                        wanted.push(member);
                        asked_by.push(index);
                    }
                }
            }
            other => {
                // Ended beats a chain limit beats nobody, when nobody is asked.
                let rank = |n: &Next| match n {
                    Next::Ended => 3,
                    Next::ChainLimit(_) => 2,
                    _ => 1,
                };
                if outcome.as_ref().is_none_or(|o| rank(&other) > rank(o)) {
                    outcome = Some(other);
                }
            }
        }
    }
    if !wanted.is_empty() {
        return (Next::Run(wanted), asked_by);
    }
    let outcome =
        outcome.unwrap_or_else(|| Next::Nobody("no answer of the round handed the word on".into()));
    (outcome, Vec::new())
}

/// What comes next after the last message that counts (reply stubs do not).
pub fn next(text: &str, chat: &Chat, roster: &Roster) -> Next {
    let Some(index) = last_counting(text, chat) else {
        return Next::Nobody("the chat has no message yet: write one under `## @me`".to_string());
    };
    let handle = chat.messages[index].handle(text);
    if roster.is_ai(handle) {
        after_agent(text, chat, roster, index)
    } else {
        after_human(text, chat, roster, index)
    }
}

/// The index of the last message that counts: not an empty human message (a reply
/// stub), and not an agent's section left empty by a turn that is still running or
/// did not end (error, cancel): the question before it is still open. An agent that
/// finished and said nothing (or `SKIP`) has answered: after it, nobody is due, so an
/// agent that answers nothing is never asked the same question again by itself.
pub fn last_counting(text: &str, chat: &Chat) -> Option<usize> {
    chat.messages.iter().rposition(|m| {
        !m.is_empty(text)
            || m.status_comment(text)
                .is_some_and(|c| matches!(c.status(), Some(TurnStatus::Done | TurnStatus::Skipped)))
    })
}

/// The index of the last human message with text, if any.
pub fn last_human(text: &str, chat: &Chat, roster: &Roster) -> Option<usize> {
    chat.messages
        .iter()
        .rposition(|m| !roster.is_ai(m.handle(text)) && !m.is_empty(text))
}

/// How many agent messages follow the last human message with text, up to `index`.
fn chain_length(text: &str, chat: &Chat, roster: &Roster, index: usize) -> usize {
    chat.messages[..=index]
        .iter()
        .rev()
        .take_while(|m| roster.is_ai(m.handle(text)) || m.is_empty(text))
        .filter(|m| roster.is_ai(m.handle(text)))
        .count()
}

/// `[DONE]` in a human message, or a human message that is exactly `/end`.
pub fn ends_conversation(text: &str, message: &Message) -> bool {
    message.has_done_marker() || message.is_end_command(text)
}

/// The members taking part that `message` mentions, in mention order, once each,
/// without `except`.
fn mentioned_members(
    text: &str,
    message: &Message,
    roster: &Roster,
    except: Option<&str>,
) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for mention in message.mentions() {
        let name = &text[mention.handle];
        let Some(member) = roster
            .members
            .iter()
            .find(|m| m.handle.eq_ignore_ascii_case(name))
        else {
            continue;
        };
        if except.is_some_and(|e| e.eq_ignore_ascii_case(&member.handle)) {
            continue;
        }
        if !out.iter().any(|h| h.eq_ignore_ascii_case(&member.handle)) {
            out.push(member.handle.clone());
        }
    }
    out
}

#[cfg(test)]
mod tests;
