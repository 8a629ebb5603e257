//! The `seen=` warnings of an open chat (`conversation::seen`), worked out from facts
//! kept per message across edits: each message's hash and its status comment's record
//! are made once, and again only for the messages an edit re-parsed. In a long chat
//! whose answers all record what their turns saw, a keystroke then hashes only the
//! edited message, where `seen::problems` copied and hashed the whole text.

use super::kept::Kept;
use super::state::Document;
use crate::conversation::problems::Problem;
use crate::conversation::roster::Roster;
use crate::conversation::seen::{self, NextTurn, SEEN_KEY, SeenRecord};
use crate::document::chat::Message;

/// What the `seen=` check needs of one message.
#[derive(Debug)]
pub struct SeenFacts {
    /// The heading's handle as written.
    handle: Box<str>,
    /// Its hash as agents get it ([`seen::message_hash_value`]).
    hash: u32,
    /// The agent of the session its status comment names, when it names one.
    session_agent: Option<Box<str>>,
    /// What its status comment records (`seen=`), when it parses.
    record: Option<Record>,
}

/// A `seen=` record with each hash as a number ([`seen::record_hash_value`]).
#[derive(Debug)]
struct Record {
    resumed: bool,
    first: usize,
    hashes: Box<[u32]>,
}

/// The facts of one document's messages, kept across edits, and the walks made over
/// them. They depend on the text alone: no key.
pub type SharedSeen = Kept<SeenFacts, (), Walked>;

/// The walks of the last warnings, each kept while no edit emptied a slot at or before
/// the answer it started at: typing after a member's latest answer changes nothing it
/// read, and its walk back over every record (a fifth of a keystroke's work in a long
/// chat whose answers all record what they saw) is not made again.
#[derive(Debug, Default)]
pub struct Walked {
    /// The first slot an edit emptied since the walks were made.
    emptied_from: Option<usize>,
    /// How many messages the chat had then (a record of more messages than the chat
    /// holds is read up to its end).
    messages: usize,
    /// Per resuming member (its handle and agent): the answer its walk started at and
    /// the first changed message the walk found.
    walks: Vec<Walk>,
}

#[derive(Debug)]
struct Walk {
    handle: String,
    agent: String,
    since: usize,
    first_changed: Option<usize>,
}

impl super::kept::Whole for Walked {
    fn spliced(&mut self, at: usize, _removed: usize, _inserted: usize) {
        self.emptied_from = Some(self.emptied_from.map_or(at, |from| from.min(at)));
    }
}

impl Walked {
    /// The first changed message of the walk from `since` for `handle` and `agent`,
    /// as kept when nothing it read changed.
    fn kept(
        &self,
        handle: &str,
        agent: &str,
        since: usize,
        messages: usize,
    ) -> Option<Option<usize>> {
        if self.messages != messages || self.emptied_from.is_some_and(|from| from <= since) {
            return None;
        }
        self.walks
            .iter()
            .find(|w| w.handle == handle && w.agent == agent && w.since == since)
            .map(|w| w.first_changed)
    }
}

/// The facts of message `m`, whose text `part` starts at byte `base`.
fn facts(part: &str, base: usize, m: &Message) -> SeenFacts {
    let local = m.in_part(base);
    let parsed = local.status_read_in(part, 0);
    let comment = parsed.as_deref().and_then(|s| s.as_ref().ok());
    let record = comment
        .and_then(|c| c.get(SEEN_KEY))
        .and_then(SeenRecord::parse)
        .map(|r| Record {
            resumed: r.resumed,
            first: r.first,
            hashes: r
                .hashes
                .iter()
                .map(|h| seen::record_hash_value(h))
                .collect(),
        });
    SeenFacts {
        handle: local.handle(part).into(),
        hash: seen::message_hash_value(part, &local),
        session_agent: comment
            .filter(|c| c.session().is_some_and(|s| !s.is_empty()))
            .and_then(|c| c.agent())
            .map(Box::from),
        record,
    }
}

/// The warnings `seen::problems` finds in `doc`'s chat read with `roster`, in the same
/// order, from the kept facts (made where missing) and the status comments of the
/// answers warned about.
pub fn problems(doc: &Document, roster: &Roster) -> Vec<Problem> {
    let chat = &*doc.chat;
    let mut buf = String::new();
    let mut make = |m: &Message| {
        let range = m.range();
        let part = doc.part(range.clone(), &mut buf);
        facts(&part, range.start, m)
    };
    doc.seen
        .with_whole((), chat.messages.len(), |kept| match kept {
            Some((slots, walked)) => {
                for (m, slot) in chat.messages.iter().zip(slots.iter_mut()) {
                    slot.get_or_insert_with(|| make(m));
                }
                warnings(doc, roster, Made(slots), walked)
            }
            None => {
                let made: Vec<_> = chat.messages.iter().map(|m| Some(make(m))).collect();
                warnings(doc, roster, Made(&made), &mut Walked::default())
            }
        })
}

/// The facts of every message, all made (read in place: a long chat has 40k).
#[derive(Clone, Copy)]
struct Made<'a>(&'a [Option<SeenFacts>]);

impl<'a> Made<'a> {
    fn len(self) -> usize {
        self.0.len()
    }

    fn get(self, index: usize) -> &'a SeenFacts {
        self.0[index]
            .as_ref()
            .expect("every message's facts are made first")
    }

    /// The facts of the messages up to `last`, from it back to the first, with their
    /// indices.
    fn back_from(self, last: usize) -> impl Iterator<Item = (usize, &'a SeenFacts)> {
        let upto = self.0.len().min(last.saturating_add(1));
        self.0[..upto]
            .iter()
            .enumerate()
            .rev()
            .filter_map(|(i, f)| Some((i, f.as_ref()?)))
    }
}

fn warnings(doc: &Document, roster: &Roster, facts: Made, walked: &mut Walked) -> Vec<Problem> {
    let chat = &*doc.chat;
    let mut out = Vec::new();
    let mut walks = Vec::new();
    for member in roster.members.iter().filter(|m| m.resume) {
        let handle = member.handle.as_str();
        // The session its next turn would continue: its latest answer naming a session
        // of its agent (`seen::resumed_session`).
        let since = facts
            .back_from(usize::MAX)
            .find(|(_, f)| {
                f.handle.eq_ignore_ascii_case(handle)
                    && f.session_agent.as_deref() == Some(member.agent.as_str())
            })
            .map(|(i, _)| i);
        let Some(since) = since else {
            continue;
        };
        let answer = &chat.messages[since];
        let Some(status_range) = answer.status_range() else {
            continue;
        };
        let line = doc.text.slice(status_range.clone());
        // Read once, not kept in the scan's store (which keeps a slot per message).
        let parsed = answer.status_read_in(&line, status_range.start);
        let Some(Ok(status)) = parsed.as_deref() else {
            continue;
        };
        if NextTurn::of(status).is_some() {
            continue;
        }
        let agent = member.agent.as_str();
        let found = walked
            .kept(handle, agent, since, facts.len())
            .unwrap_or_else(|| first_changed(facts, handle, since));
        walks.push(Walk {
            handle: handle.to_string(),
            agent: agent.to_string(),
            since,
            first_changed: found,
        });
        let Some(index) = found else {
            continue;
        };
        let header = chat.messages[index].header();
        out.push(seen::warning(handle, header, status_range, status));
    }
    *walked = Walked {
        emptied_from: None,
        messages: facts.len(),
        walks,
    };
    out
}

/// The first message the session answered at `since` saw that the file no longer
/// holds as it saw it (the first of `seen::changed`). Its memory is read from the
/// member's records latest first: a later record's hash of a message replaces an
/// earlier one's, so each index is compared once, with the latest hash recorded for
/// it; the walk ends at an answer without a record or one that began a session.
fn first_changed(facts: Made, handle: &str, since: usize) -> Option<usize> {
    let last = facts.len().checked_sub(1)?;
    let mut decided = Covered::default();
    let mut first: Option<usize> = None;
    for (_, f) in facts.back_from(since.min(last)) {
        if !f.handle.eq_ignore_ascii_case(handle) {
            continue;
        }
        let Some(record) = &f.record else {
            break;
        };
        let mut at = 0;
        while at < record.hashes.len() {
            // A run of messages the turn was given (a told turn's record skips some).
            let given = record.hashes[at..]
                .iter()
                .position(|&h| h == seen::NOT_GIVEN_VALUE)
                .map_or(record.hashes.len(), |p| at + p);
            let end = record.first.saturating_add(given);
            // Whichever record is the latest for a message the chat no longer has, the
            // message counts as changed, at the last message.
            if end > facts.len() {
                first = least(first, last);
            }
            let run = record.first.saturating_add(at).min(facts.len())..end.min(facts.len());
            for gap in decided.gaps(run.clone()) {
                let found = gap.clone().find(|&index| {
                    let hash = record.hashes[index - record.first];
                    facts.get(index).hash != hash
                });
                if let Some(index) = found {
                    first = least(first, index);
                }
            }
            decided.add(run);
            at = given + 1;
        }
        if !record.resumed {
            break;
        }
    }
    first
}

fn least(so_far: Option<usize>, index: usize) -> Option<usize> {
    Some(so_far.map_or(index, |f| f.min(index)))
}

/// Indices already compared, as disjoint ranges in order.
#[derive(Default)]
struct Covered(Vec<std::ops::Range<usize>>);

impl Covered {
    /// The parts of `range` not covered yet, in order.
    fn gaps(&self, range: std::ops::Range<usize>) -> Vec<std::ops::Range<usize>> {
        let mut out = Vec::new();
        let mut from = range.start;
        let after = self.0.partition_point(|r| r.end <= range.start);
        for r in &self.0[after..] {
            if r.start >= range.end {
                break;
            }
            if r.start > from {
                out.push(from..r.start);
            }
            from = from.max(r.end);
        }
        if from < range.end {
            out.push(from..range.end);
        }
        out
    }

    /// Covers `range` too, merging it with the ranges it touches.
    fn add(&mut self, range: std::ops::Range<usize>) {
        if range.is_empty() {
            return;
        }
        let start = self.0.partition_point(|r| r.end < range.start);
        let end = self.0.partition_point(|r| r.start <= range.end);
        let merged = self.0[start..end]
            .iter()
            .fold(range, |m, r| m.start.min(r.start)..m.end.max(r.end));
        self.0.splice(start..end, [merged]);
    }
}

#[cfg(test)]
#[path = "seen_kept_tests.rs"]
mod tests;
