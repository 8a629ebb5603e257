//! What waits for the user in a chat: in its latest round, a permission or plan request,
//! a failed or interrupted turn, an agent's question that hands the word to nobody, or a
//! queued message that a failed turn holds back. One rule for `chatmd status` and the
//! editor's workspace diagnostics, read from the file alone (no team, no I/O).

use crate::document::ByteRange;
use crate::document::chat::{Chat, Message};
use crate::document::front_matter::{ConversationStatus, DEFAULT_HUMAN};
use crate::document::lines::Lines;
use crate::document::permission::PermissionBlock;
use crate::document::status::TurnStatus;

/// Why a chat waits for the user.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WaitKind {
    /// An agent asks to do something and waits for the answer.
    Permission,
    /// An agent asks to leave plan mode with a plan (a `switch_mode` request).
    Plan,
    /// An agent's answer ends with a question to the user.
    Question,
    /// A turn failed (or was found interrupted): retry it or write on.
    Error,
    /// The user's queued message waits, but a failed turn holds it back.
    Queued,
}

impl WaitKind {
    /// The word `chatmd status` prints and its JSON carries.
    pub fn as_str(self) -> &'static str {
        match self {
            WaitKind::Permission => "permission",
            WaitKind::Plan => "plan",
            WaitKind::Question => "question",
            WaitKind::Error => "error",
            WaitKind::Queued => "queued",
        }
    }

    /// The diagnostic code the editor shows.
    pub fn code(self) -> &'static str {
        match self {
            WaitKind::Permission => "waiting-permission",
            WaitKind::Plan => "waiting-plan",
            WaitKind::Question => "waiting-question",
            WaitKind::Error => "waiting-error",
            WaitKind::Queued => "waiting-queued",
        }
    }
}

/// One thing in a chat that waits for the user.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Waiting {
    pub kind: WaitKind,
    /// The member it is about (the one asking, failing or holding back), without `@`.
    pub member: String,
    /// Where to land: the request block, the status comment, the question, the message.
    pub range: ByteRange,
    pub message: String,
}

/// The longest question quoted in a message.
const QUOTE_CHARS: usize = 100;

/// Everything in `chat` that waits for the user, in document order. Nothing waits in an
/// ended conversation, nor while the latest human message has not been answered yet.
pub fn waiting(text: &str, chat: &Chat) -> Vec<Waiting> {
    let front_matter = chat.front_matter.as_ref();
    if front_matter
        .and_then(|fm| fm.status.as_ref())
        .is_some_and(|s| s.value == ConversationStatus::Ended)
    {
        return Vec::new();
    }
    let human = front_matter
        .and_then(|fm| fm.human.as_ref())
        .map_or(DEFAULT_HUMAN, |h| h.value.as_str());
    let is_human = |m: &Message| m.handle(text).eq_ignore_ascii_case(human);
    let messages = &chat.messages;
    let round_start = latest_sent(text, chat).map_or(0, |i| i + 1);
    let mut found = Vec::new();
    for message in messages[round_start..].iter().filter(|m| !is_human(m)) {
        waits_of(text, message, human, &mut found);
    }
    let queued = messages[round_start..]
        .iter()
        .rfind(|m| is_human(m) && is_queued(text, m));
    if let Some(queued) = queued {
        let failed = found.iter().find(|w| w.kind == WaitKind::Error);
        found.extend(failed.map(|f| held_back(queued, &f.member)));
    }
    found
}

/// The latest human message that was sent: one with text (a reply stub has none) and
/// not queued (a queued one is not sent yet: the round before it goes on). The latest
/// round, all that [`waiting`] reads, is what follows it.
pub fn latest_sent(text: &str, chat: &Chat) -> Option<usize> {
    let human = chat
        .front_matter
        .as_ref()
        .and_then(|fm| fm.human.as_ref())
        .map_or(DEFAULT_HUMAN, |h| h.value.as_str());
    chat.messages.iter().rposition(|m| {
        m.handle(text).eq_ignore_ascii_case(human) && !m.is_empty(text) && !is_queued(text, m)
    })
}

fn is_queued(text: &str, message: &Message) -> bool {
    message
        .status_comment(text)
        .is_some_and(|c| c.status() == Some(TurnStatus::Queued))
}

/// The permission requests of an agent's section that wait for an answer, counted only
/// where chatmd's own records put them: in a turn that is still going (`waiting` or
/// `streaming`), with an id of that turn (`t3-p1` in the section whose status comment
/// says `id=t3`). A request-like block anywhere else is text an agent wrote (an answer
/// may quote one, or forge one): answering it would change nothing.
pub fn open_requests<'a>(
    text: &'a str,
    message: &'a Message,
) -> impl Iterator<Item = PermissionBlock> + 'a {
    let status = message.status_comment(text);
    let going = status.as_ref().is_some_and(|s| {
        matches!(
            s.status(),
            Some(TurnStatus::Waiting | TurnStatus::Streaming)
        )
    });
    let turn = status.as_ref().and_then(|s| s.id()).map(str::to_owned);
    message.permissions().filter(move |block| {
        let of_this_turn = turn.as_deref().is_some_and(|turn| {
            text[block.id.clone()]
                .strip_prefix(turn)
                .and_then(|rest| rest.strip_prefix("-p"))
                .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
        });
        going && of_this_turn && block.is_pending()
    })
}

/// The waits of one agent message of the latest round.
fn waits_of(text: &str, message: &Message, human: &str, found: &mut Vec<Waiting>) {
    let member = message.handle(text).to_owned();
    let status = message.status_comment(text);
    let pending: Vec<_> = open_requests(text, message).collect();
    for block in &pending {
        let asked = &text[block.text.clone()];
        let plan = asked.trim_end().ends_with("(switch_mode)");
        found.push(Waiting {
            kind: if plan {
                WaitKind::Plan
            } else {
                WaitKind::Permission
            },
            member: member.clone(),
            range: block.range.clone(),
            message: if plan {
                format!("@{member} waits for you to approve its plan: answer the request")
            } else {
                format!("@{member} waits for your answer: {asked}")
            },
        });
    }
    let turn = status.and_then(|s| s.status());
    let at_status = message.status_range().unwrap_or_else(|| message.header());
    match turn {
        Some(TurnStatus::Waiting) if pending.is_empty() => found.push(Waiting {
            kind: WaitKind::Permission,
            member: member.clone(),
            range: at_status,
            message: format!("@{member} waits for your answer to a permission request"),
        }),
        Some(TurnStatus::Error) => {
            let why = status
                .and_then(|s| s.get("error"))
                .unwrap_or("no reason given");
            let why = why.trim_end_matches('.');
            found.push(Waiting {
                kind: WaitKind::Error,
                member: member.clone(),
                range: at_status,
                message: format!(
                    "@{member}'s turn failed: {why}. Retry it, or write your next message."
                ),
            });
        }
        Some(TurnStatus::Interrupted) => found.push(Waiting {
            kind: WaitKind::Error,
            member: member.clone(),
            range: at_status,
            message: format!(
                "@{member}'s turn was interrupted before it finished. Retry it, or write your \
                 next message."
            ),
        }),
        Some(TurnStatus::Done) | None
            if pending.is_empty() && hands_to_nobody(text, message, human) =>
        {
            if let Some(question) = closing_question(text, message) {
                let quoted = shorten(text[question.clone()].trim());
                found.push(Waiting {
                    kind: WaitKind::Question,
                    member,
                    range: question,
                    message: format!(
                        "@{member} asks you: {quoted}",
                        member = message.handle(text)
                    ),
                });
            }
        }
        _ => {}
    }
}

/// A queued human message whose round holds a failed turn (of `member`): it waits for
/// the round to end, and that turn will not end without the user.
fn held_back(queued: &Message, member: &str) -> Waiting {
    Waiting {
        kind: WaitKind::Queued,
        range: queued.status_range().unwrap_or_else(|| queued.header()),
        message: format!(
            "your queued message waits for a round that cannot end: @{member}'s turn failed. \
             Send it now, or retry @{member}."
        ),
        member: member.to_owned(),
    }
}

/// Whether an answer gives the word to no other member: no `[NEXT: x]`, and no mention
/// of anyone but the user and the member itself.
fn hands_to_nobody(text: &str, message: &Message, human: &str) -> bool {
    let me = message.handle(text);
    message.next_marker(text).is_none()
        && message.mentions().all(|m| {
            let handle = &text[m.handle];
            handle.eq_ignore_ascii_case(human) || handle.eq_ignore_ascii_case(me)
        })
}

/// The answer's last line of prose, when it ends with a question mark. Code, quotes,
/// `<details>` blocks (the tool list at an answer's end) and HTML lines are not prose.
fn closing_question(text: &str, message: &Message) -> Option<ByteRange> {
    let body = message.body_range();
    let code: Vec<ByteRange> = message.code_blocks().map(|b| b.range).collect();
    let mut details = 0usize;
    let mut last_prose = None;
    for line in Lines::from(&text[..body.end], body.start) {
        let content = text[line.range()].trim();
        let lower = content.to_ascii_lowercase();
        if code
            .iter()
            .any(|c| c.start <= line.start && line.start <= c.end)
        {
            continue;
        }
        if content.starts_with('<') {
            details += lower.matches("<details").count();
            details = details.saturating_sub(lower.matches("</details").count());
            continue;
        }
        if details > 0 || content.is_empty() || content.starts_with('>') {
            continue;
        }
        last_prose = Some(line.range());
    }
    let line = last_prose?;
    let content = text[line.clone()].trim_end();
    let content = content.trim_end_matches("[DONE]").trim_end();
    let asks = content.ends_with('?') || content.ends_with('？');
    asks.then(|| {
        let start = line.start + (text[line.clone()].len() - text[line.clone()].trim_start().len());
        start..line.start + content.len()
    })
}

fn shorten(s: &str) -> String {
    let mut out: String = s.chars().take(QUOTE_CHARS).collect();
    if s.chars().count() > QUOTE_CHARS {
        out.push('…');
    }
    out
}

#[cfg(test)]
mod tests;
