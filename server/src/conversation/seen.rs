//! What a member's session has seen, and whether the file still says it. Each answer's
//! status comment records the messages its turn was given (`seen=`); a member that
//! resumes its session carries those messages in its memory, so when the user edits,
//! deletes or reorders one of them afterwards, the file and the session disagree. This
//! module finds that, and makes the warning and the user's two answers to it: start
//! the member afresh from the file (`next=fresh`), or tell it what changed
//! (`next=tell`). Pure: no I/O.
//!
//! The record is `seen=[+]FIRST:H.H.H`: `FIRST` is the index (from 0) of the first
//! message the turn was given, each `H` the short hash of one message from there on
//! up to the message it answered, and `+` says the turn continued the session of the
//! member's answer before it (so the session remembers those records too).

use std::collections::BTreeMap;

use super::problems::{Fix, Problem};
use super::prompt::{Given, entry};
use super::resume::{LastSession, last_session};
use super::roster::Roster;
use crate::document::ByteRange;
use crate::document::chat::Chat;
use crate::document::status::StatusComment;
use crate::team::Severity;

/// The status comment key of the record.
pub const SEEN_KEY: &str = "seen";
/// The status comment key of the user's answer to a change: [`NextTurn`].
pub const NEXT_KEY: &str = "next";
/// The diagnostic code of a message a member saw in an earlier version.
pub const CODE: &str = "seen-earlier-version";

/// The messages one turn was given, as recorded in its status comment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SeenRecord {
    /// The turn continued the member's session (its earlier records still count).
    pub resumed: bool,
    /// The index in `chat.messages` of the first message given.
    pub first: usize,
    /// One hash per message from `first` on ([`message_hash`]).
    pub hashes: Vec<String>,
}

impl SeenRecord {
    /// The record of a turn given `given`, continuing a session or not. A told turn
    /// (`told`: the changed messages it was given as they read now) also holds those:
    /// the record then starts at the first of them, and the messages between that it
    /// was not given are [`NOT_GIVEN`].
    pub fn of_turn(
        text: &str,
        chat: &Chat,
        given: &Given,
        resumed: bool,
        told: &[usize],
    ) -> SeenRecord {
        let first_given = given.context.first().copied().unwrap_or(given.asked);
        let first = told.first().map_or(first_given, |&t| t.min(first_given));
        let hashes = (first..=given.asked)
            .map(|i| {
                if i >= first_given || told.contains(&i) {
                    message_hash(text, &chat.messages[i])
                } else {
                    NOT_GIVEN.to_owned()
                }
            })
            .collect();
        SeenRecord {
            resumed,
            first,
            hashes,
        }
    }

    /// Reads a `seen=` value; `None` when it is not one.
    pub fn parse(value: &str) -> Option<SeenRecord> {
        let (resumed, rest) = match value.strip_prefix('+') {
            Some(rest) => (true, rest),
            None => (false, value),
        };
        let (first, hashes) = rest.split_once(':')?;
        let hashes: Vec<String> = hashes.split('.').map(str::to_owned).collect();
        let well_formed = hashes.iter().all(|h| {
            h == NOT_GIVEN || (h.len() == HASH_DIGITS && h.bytes().all(|b| b.is_ascii_hexdigit()))
        });
        let first: usize = first.parse().ok()?;
        // Every message it names has an index: one past `usize::MAX` is no record.
        first.checked_add(hashes.len() - 1)?;
        well_formed.then_some(SeenRecord {
            resumed,
            first,
            hashes,
        })
    }

    /// The `seen=` value.
    pub fn render(&self) -> String {
        let plus = if self.resumed { "+" } else { "" };
        format!("{plus}{}:{}", self.first, self.hashes.join("."))
    }
}

/// In a record, a message between two that the turn was given, which it was not (a
/// told turn's record spans from the first corrected message).
pub const NOT_GIVEN: &str = "-";

/// Hex digits of a message hash: one accidental match in 16 million edits.
const HASH_DIGITS: usize = 6;

/// What the user chose for a member's next turn after a change it saw.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NextTurn {
    /// A new session, with the chat as the file has it now.
    Fresh,
    /// The session goes on, told first which messages changed and how they read now.
    Tell,
}

impl NextTurn {
    pub fn as_str(self) -> &'static str {
        match self {
            NextTurn::Fresh => "fresh",
            NextTurn::Tell => "tell",
        }
    }

    /// The choice written on an answer's status comment.
    pub fn of(status: &StatusComment) -> Option<NextTurn> {
        match status.get(NEXT_KEY)? {
            "fresh" => Some(NextTurn::Fresh),
            "tell" => Some(NextTurn::Tell),
            _ => None,
        }
    }
}

/// The messages the session of `last` saw that the file no longer holds as it saw them
/// (edited, deleted or moved), by index, first first. Empty when the session's answers
/// have no records (written before chatmd kept them), or nothing changed.
pub fn changed(text: &str, chat: &Chat, handle: &str, last: &LastSession) -> Vec<usize> {
    memory(text, chat, handle, last)
        .into_iter()
        .filter(|(index, hash)| {
            chat.messages
                .get(*index)
                .is_none_or(|m| message_hash(text, m) != *hash)
        })
        .map(|(index, _)| index.min(chat.messages.len().saturating_sub(1)))
        .collect()
}

/// What the session of `last` holds: the hash of each message it saw, by the index it
/// had then.
fn memory(text: &str, chat: &Chat, handle: &str, last: &LastSession) -> BTreeMap<usize, String> {
    let mut memory = BTreeMap::new();
    for m in chat.messages[..=last.since.min(chat.messages.len().saturating_sub(1))]
        .iter()
        .filter(|m| m.handle(text).eq_ignore_ascii_case(handle))
    {
        let record = m
            .status_comment(text)
            .and_then(|s| s.get(SEEN_KEY))
            .and_then(SeenRecord::parse);
        let Some(record) = record else {
            // An answer without a record (an older chatmd, or no turn ran): what its
            // session holds is unknown, so nothing before it is claimed.
            memory.clear();
            continue;
        };
        if !record.resumed {
            memory.clear();
        }
        for (i, hash) in record.hashes.into_iter().enumerate() {
            if hash != NOT_GIVEN {
                memory.insert(record.first + i, hash);
            }
        }
    }
    memory
}

/// What a told turn corrects: the messages the session saw that read otherwise now.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Told {
    /// The messages, by their index now, that the session saw in another version.
    pub edited: Vec<usize>,
    /// How many messages the session saw are gone from the file.
    pub deleted: usize,
}

/// What the session of `last` must be told: of the messages it saw, those whose text
/// changed and how many were deleted. The messages it saw, in order, are lined up with
/// the file's up to its last answer (the longest run they have in common stays put);
/// between two that stayed, a message it saw is edited when a message stands where it
/// would be now, moved when its text is elsewhere, else deleted. Only messages it saw
/// count: answers other members wrote meanwhile are new to it, not changed, and its
/// own answers are never edits (it holds what it wrote).
pub fn told(text: &str, chat: &Chat, handle: &str, last: &LastSession) -> Told {
    let memory = memory(text, chat, handle, last);
    let Some(end) = chat
        .messages
        .len()
        .checked_sub(1)
        .map(|l| l.min(last.since))
    else {
        return Told::default();
    };
    let seen: Vec<(usize, &str)> = memory.iter().map(|(&i, h)| (i, h.as_str())).collect();
    let now: Vec<(usize, String)> = (0..=end)
        .filter(|&i| !chat.messages[i].handle(text).eq_ignore_ascii_case(handle))
        .map(|i| (i, message_hash(text, &chat.messages[i])))
        .collect();
    let seen_hashes: Vec<&str> = seen.iter().map(|(_, h)| *h).collect();
    let now_hashes: Vec<&str> = now.iter().map(|(_, h)| h.as_str()).collect();
    let mut told = Told::default();
    let (mut next_seen, mut next_now, mut offset) = (0, 0, 0isize);
    let ends = [(seen.len(), now.len())];
    for &(kept_seen, kept_now) in common_run(&seen_hashes, &now_hashes).iter().chain(&ends) {
        let gap = &now[next_now..kept_now];
        for &(index, hash) in &seen[next_seen..kept_seen] {
            let there = index as isize + offset;
            let moved = || now.iter().find(|(_, h)| h == hash);
            match gap
                .iter()
                .find(|(i, _)| *i as isize == there)
                .or_else(moved)
            {
                Some(&(i, _)) => told.edited.push(i),
                None => told.deleted += 1,
            }
        }
        if let (Some(seen), Some(now)) = (seen.get(kept_seen), now.get(kept_now)) {
            offset = now.0 as isize - seen.0 as isize;
        }
        (next_seen, next_now) = (kept_seen + 1, kept_now + 1);
    }
    told.edited.sort_unstable();
    told.edited.dedup();
    told
}

/// The positions in `a` and `b` of a longest common subsequence, in order.
fn common_run(a: &[&str], b: &[&str]) -> Vec<(usize, usize)> {
    // lengths[i][j]: the longest common subsequence of a[i..] and b[j..].
    let mut lengths = vec![vec![0u32; b.len() + 1]; a.len() + 1];
    for i in (0..a.len()).rev() {
        for j in (0..b.len()).rev() {
            lengths[i][j] = if a[i] == b[j] {
                lengths[i + 1][j + 1] + 1
            } else {
                lengths[i + 1][j].max(lengths[i][j + 1])
            };
        }
    }
    let (mut i, mut j, mut out) = (0, 0, Vec::new());
    while i < a.len() && j < b.len() {
        if a[i] == b[j] {
            out.push((i, j));
            (i, j) = (i + 1, j + 1);
        } else if lengths[i + 1][j] >= lengths[i][j + 1] {
            i += 1;
        } else {
            j += 1;
        }
    }
    out
}

/// The session `handle`'s next turn would continue when it resumes, with `agent` (the
/// member's agent) as the kind that can: the latest answer with a session.
pub fn resumed_session(text: &str, chat: &Chat, handle: &str, agent: &str) -> Option<LastSession> {
    last_session(text, chat, handle, chat.messages.len(), |a| a == agent)
}

/// For each member that resumes its session, a warning on the first message its
/// session saw that has changed since, with the fixes that settle it; none once the
/// user chose (`next=` on the member's answer).
pub fn problems(text: &str, chat: &Chat, roster: &Roster) -> Vec<Problem> {
    let mut out = Vec::new();
    for member in roster.members.iter().filter(|m| m.resume) {
        let Some(last) = resumed_session(text, chat, &member.handle, &member.agent) else {
            continue;
        };
        let answer = &chat.messages[last.since];
        let (Some(status_range), Some(status)) =
            (answer.status_range(), answer.status_comment(text))
        else {
            continue;
        };
        if NextTurn::of(status).is_some() {
            continue;
        }
        let Some(&index) = changed(text, chat, &member.handle, &last).first() else {
            continue;
        };
        let header = chat.messages[index].header();
        out.push(warning(&member.handle, header, status_range, status));
    }
    out
}

/// The warning on the message whose heading is `header`, which `handle`'s session saw
/// in an earlier version; its fixes write the user's choice into the status comment
/// `status` of the member's latest answer (at `status_range`).
pub fn warning(
    handle: &str,
    header: ByteRange,
    status_range: ByteRange,
    status: &StatusComment,
) -> Problem {
    let fix = |choice: NextTurn, title: String| {
        let mut chosen = status.clone();
        chosen.set(NEXT_KEY, choice.as_str());
        Fix {
            title,
            edits: vec![(status_range.clone(), chosen.render())],
            preferred: false,
        }
    };
    Problem {
        range: header,
        severity: Severity::Warning,
        code: CODE,
        message: format!(
            "@{handle} saw an earlier version of this message: its session still holds \
                 that one. Fork from here, start @{handle} afresh from the file, or tell it \
                 what changed."
        ),
        fixes: vec![
            fix(
                NextTurn::Fresh,
                format!("Start @{handle} afresh from the file"),
            ),
            fix(NextTurn::Tell, format!("Tell @{handle} what changed")),
        ],
    }
}

/// The note a told turn's context opens with: each changed message as the file has it
/// now, quoted like any message of the transcript, and how many were deleted.
pub fn correction(text: &str, chat: &Chat, told: &Told) -> String {
    let mut out = String::new();
    if !told.edited.is_empty() {
        out.push_str(
            "chatmd: the user changed messages you saw earlier in this chat. They read now \
             (forget the earlier versions):",
        );
        for &index in &told.edited {
            out.push('\n');
            out.push_str(
                &entry(text, &chat.messages[index])
                    .unwrap_or_else(|| format!("{}: (nothing)", chat.messages[index].handle(text))),
            );
        }
    }
    if told.deleted > 0 {
        if !out.is_empty() {
            out.push('\n');
        }
        let (count, them) = match told.deleted {
            1 => ("a message".to_owned(), "it"),
            n => (format!("{n} messages"), "them"),
        };
        out.push_str(&format!(
            "chatmd: the user deleted {count} you saw earlier in this chat (forget {them})."
        ));
    }
    out
}

mod hash;

pub use hash::{NOT_GIVEN_VALUE, message_hash, message_hash_value, record_hash_value, short_hash};

#[cfg(test)]
mod tests;
