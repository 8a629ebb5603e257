//! Queued messages: a human message sent while the chat's members still answer carries
//! `<!-- chatmd status=queued -->` on its first line until the round ends and it is
//! delivered (the mark is taken out as it is). The file is the queue: an edited queued
//! message is delivered as it reads then, a deleted one never.

use crate::document::ByteRange;
use crate::document::chat::Chat;
use crate::document::status::{StatusComment, TurnStatus};

use super::roster::Roster;

/// Why a message cannot be queued.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum QueueError {
    #[error("there is no message of yours to send: write one under a `## @{0}` heading")]
    NoMessage(String),
    #[error(
        "your last message is already being answered (by @{0}); write your next message \
         under a new `## @{1}` heading at the end to queue it"
    )]
    Answering(String, String),
}

/// The index of the queued human message, if one is.
pub fn queued(text: &str, chat: &Chat, roster: &Roster) -> Option<usize> {
    chat.messages.iter().rposition(|m| {
        !roster.is_ai(m.handle(text))
            && m.status_comment(text)
                .is_some_and(|c| c.status() == Some(TurnStatus::Queued))
    })
}

/// The message Send queues while members answer: the last human message with text, when
/// no agent's section follows it (one that does is being answered already). `Ok(None)`:
/// it is queued already.
pub fn to_queue(text: &str, chat: &Chat, roster: &Roster) -> Result<Option<usize>, QueueError> {
    let last = chat
        .messages
        .iter()
        .rposition(|m| !roster.is_ai(m.handle(text)) && !m.is_empty(text))
        .ok_or_else(|| QueueError::NoMessage(roster.human.clone()))?;
    if let Some(after) = chat.messages[last + 1..]
        .iter()
        .find(|m| roster.is_ai(m.handle(text)))
    {
        return Err(QueueError::Answering(
            after.handle(text).to_owned(),
            roster.human.clone(),
        ));
    }
    Ok(queued(text, chat, roster)
        .is_none_or(|q| q != last)
        .then_some(last))
}

/// The edit that marks message `index` queued: its status comment, or a new one on the
/// line after its heading (with the line break the heading ends with).
pub fn mark(text: &str, chat: &Chat, index: usize) -> (ByteRange, String) {
    let message = &chat.messages[index];
    if let Some(range) = message.status_range() {
        let mut comment = message.status_comment(text).cloned().unwrap_or_default();
        comment.set_status(TurnStatus::Queued);
        return (range, comment.render());
    }
    let mut comment = StatusComment::new();
    comment.set_status(TurnStatus::Queued);
    let header = message.header();
    let rest = &text[header.end..];
    let line_break = if rest.starts_with("\r\n") {
        "\r\n"
    } else if rest.starts_with('\r') {
        "\r"
    } else {
        "\n"
    };
    if rest.is_empty() {
        // The heading is the last line, without a line break.
        return (
            header.end..header.end,
            format!("{line_break}{}", comment.render()),
        );
    }
    let at = header.end + line_break.len();
    (at..at, format!("{}{line_break}", comment.render()))
}

/// The edit that takes the queued mark out of message `index` (its whole status line,
/// line break included), or `None` when it has none.
pub fn unmark(text: &str, chat: &Chat, index: usize) -> Option<ByteRange> {
    let message = &chat.messages[index];
    let range = message.status_range()?;
    let status = message.status_comment(text)?.status();
    (status == Some(TurnStatus::Queued)).then(|| {
        let rest = &text[range.end..];
        let line_break = if rest.starts_with("\r\n") {
            2
        } else {
            usize::from(rest.starts_with(['\n', '\r']))
        };
        range.start..range.end + line_break
    })
}

#[cfg(test)]
mod tests;
