//! What a resuming member's session remembers of an open chat, as its answers' `seen=`
//! records say, and which message it saw that now reads otherwise: the walk back over
//! the member's records (`seen_kept` keeps each message's facts), kept across the edits
//! that leave what it read as it was.

use super::seen_kept::{Record, SeenFacts};
use crate::conversation::seen;

/// The walks of the last warnings, each kept while the edits since left what it read as
/// it was: typing anywhere but in the records a member's walk read (its answers' status
/// comments) changes nothing the walk found, and its walk back over every record (a
/// fifth of a keystroke's work in a long chat whose answers all record what they saw)
/// is not made again; the messages' hashes are compared with what it found.
#[derive(Debug, Default)]
pub struct Walked {
    /// The slots edits emptied since the walks were made. `None` when an edit changed
    /// how many messages there are (every index after it moved), or when too many
    /// edits came to keep them.
    emptied: Option<Vec<std::ops::Range<usize>>>,
    /// How many messages the chat had then (a record of more messages than the chat
    /// holds is read up to its end).
    messages: usize,
    /// Per resuming member (its handle and agent): the answer its walk started at and
    /// what the walk found.
    walks: Vec<Walk>,
}

/// How many edits' slots are kept between two warnings before every walk is made anew.
const EMPTIED_KEPT: usize = 64;

#[derive(Debug)]
pub(super) struct Walk {
    pub(super) handle: String,
    pub(super) agent: String,
    pub(super) since: usize,
    pub(super) memory: Memory,
    /// The first message it saw that then read otherwise.
    pub(super) found: Option<usize>,
}

/// What a member's session remembers of the chat, as its records say, latest first.
#[derive(Debug, Default)]
pub(super) struct Memory {
    /// The messages a record holds a hash of, as disjoint ranges in order.
    covered: Vec<std::ops::Range<usize>>,
    /// The latest recorded hash of each of them, range after range.
    hashes: Vec<u32>,
    /// A record holds a message past the chat's end.
    beyond: bool,
    /// The member's messages the walk read, in order, each with a fingerprint of its
    /// record (`None` too: the walk stopped there).
    read: Vec<(usize, u64)>,
    /// The message the walk stopped at (0 when it read back to the first): a message of
    /// the member's from there to where it started would be read now.
    reached: usize,
}

impl super::kept::Whole for Walked {
    fn spliced(&mut self, at: usize, removed: usize, inserted: usize) {
        let kept = self
            .emptied
            .as_mut()
            .filter(|e| removed == inserted && e.len() < EMPTIED_KEPT);
        match kept {
            Some(emptied) => emptied.push(at..at + inserted),
            None => self.emptied = None,
        }
    }
}

impl Walked {
    /// The walks just made over a chat of `messages` messages.
    pub(super) fn made(messages: usize, walks: Vec<Walk>) -> Walked {
        Walked {
            emptied: Some(Vec::new()),
            messages,
            walks,
        }
    }

    /// The memory found by the walk for `handle` and `agent` from `since` (taken out),
    /// and the first message it saw that reads otherwise now, when nothing the walk read
    /// changed: the member's messages from `since` down to where it stopped, with their
    /// records.
    pub(super) fn kept(
        &mut self,
        handle: &str,
        agent: &str,
        since: usize,
        facts: Made,
    ) -> Option<(Memory, Option<usize>)> {
        if self.messages != facts.len() {
            return None;
        }
        let at = self
            .walks
            .iter()
            .position(|w| w.handle == handle && w.agent == agent && w.since == since)?;
        let walk = &self.walks[at];
        let read = &walk.memory.read;
        let reached = walk.memory.reached;
        let emptied = self.emptied.as_ref()?;
        for range in emptied {
            for index in range.clone() {
                let now = facts.get(index);
                let was = read
                    .binary_search_by_key(&index, |&(at, _)| at)
                    .ok()
                    .map(|i| read[i].1);
                let is_member = now.handle.eq_ignore_ascii_case(handle);
                let same = match was {
                    Some(print) => is_member && fingerprint(now.record()) == print,
                    // A message of the member's the walk would now read.
                    None => !(is_member && reached <= index && index <= since),
                };
                if !same {
                    return None;
                }
            }
        }
        let previous = walk.found;
        let memory = std::mem::take(&mut self.walks[at].memory);
        let found = memory.refound(facts, previous, emptied);
        Some((memory, found))
    }
}

fn fingerprint(record: Option<&Record>) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    record.hash(&mut hasher);
    hasher.finish()
}

/// The facts of every message, all made (read in place: a long chat has 40k).
#[derive(Clone, Copy)]
pub(super) struct Made<'a>(pub(super) &'a [Option<SeenFacts>]);

impl<'a> Made<'a> {
    pub(super) fn len(self) -> usize {
        self.0.len()
    }

    pub(super) fn get(self, index: usize) -> &'a SeenFacts {
        self.0[index]
            .as_ref()
            .expect("every message's facts are made first")
    }

    /// The facts of the messages up to `last`, from it back to the first, with their
    /// indices.
    pub(super) fn back_from(self, last: usize) -> impl Iterator<Item = (usize, &'a SeenFacts)> {
        let upto = self.0.len().min(last.saturating_add(1));
        self.0[..upto]
            .iter()
            .enumerate()
            .rev()
            .filter_map(|(i, f)| Some((i, f.as_ref()?)))
    }
}

/// What the session answered at `since` remembers of the chat. Its memory is read
/// from the member's records latest first: a later record's hash of a message replaces
/// an earlier one's, so each index keeps the latest hash recorded for it; the walk ends
/// at an answer without a record or one that began a session.
pub(super) fn walk(facts: Made, handle: &str, since: usize) -> Memory {
    let Some(last) = facts.len().checked_sub(1) else {
        return Memory::default();
    };
    let mut decided = Covered::default();
    let mut latest = vec![0u32; facts.len()];
    let mut beyond = false;
    let mut read = Vec::new();
    let mut reached = 0;
    for (i, f) in facts.back_from(since.min(last)) {
        if !f.handle.eq_ignore_ascii_case(handle) {
            continue;
        }
        read.push((i, fingerprint(f.record())));
        let Some(record) = f.record() else {
            reached = i;
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
            // message counts as changed, at the last message (a run of none holds none).
            beyond |= given > at && end > facts.len();
            let run = record.first.saturating_add(at).min(facts.len())..end.min(facts.len());
            for gap in decided.gaps(run.clone()) {
                for index in gap {
                    latest[index] = record.hashes[index - record.first];
                }
            }
            decided.add(run);
            at = given + 1;
        }
        if !record.resumed {
            reached = i;
            break;
        }
    }
    read.reverse();
    let hashes = decided
        .0
        .iter()
        .flat_map(|r| latest[r.clone()].iter().copied())
        .collect();
    Memory {
        covered: decided.0,
        hashes,
        beyond,
        read,
        reached,
    }
}

impl Memory {
    /// The first message the session saw that the file no longer holds as it saw it
    /// (the first of `seen::changed`).
    pub(super) fn first_changed(&self, facts: Made) -> Option<usize> {
        let last = facts.len().checked_sub(1)?;
        let first = self.beyond.then_some(last);
        let mut offset = 0;
        for range in &self.covered {
            let recorded = &self.hashes[offset..offset + range.len()];
            offset += range.len();
            let changed = range
                .clone()
                .zip(recorded)
                .position(|(index, &hash)| facts.get(index).hash != hash);
            if let Some(at) = changed {
                // The ranges are in order: the first one found is the least.
                return least(first, range.start + at);
            }
        }
        first
    }

    /// [`Memory::first_changed`] after edits that emptied only the slots `emptied`, from
    /// what it was before them (`previous`): the others read as they did, so only the
    /// emptied ones are compared again (a key costs a few messages, not every one).
    fn refound(
        &self,
        facts: Made,
        previous: Option<usize>,
        emptied: &[std::ops::Range<usize>],
    ) -> Option<usize> {
        // The first changed one was edited: the next one may be anywhere after it.
        if previous.is_some_and(|p| emptied.iter().any(|r| r.contains(&p))) {
            return self.first_changed(facts);
        }
        let mut first = previous;
        for range in emptied {
            let changed = (range.start..range.end.min(facts.len())).find(|&index| {
                self.recorded(index)
                    .is_some_and(|h| facts.get(index).hash != h)
            });
            if let Some(index) = changed {
                first = least(first, index);
            }
        }
        first
    }

    /// The hash recorded of message `index`, when a record holds one.
    fn recorded(&self, index: usize) -> Option<u32> {
        let mut offset = 0;
        for range in &self.covered {
            if range.contains(&index) {
                return Some(self.hashes[offset + index - range.start]);
            }
            if range.start > index {
                break;
            }
            offset += range.len();
        }
        None
    }
}

fn least(so_far: Option<usize>, index: usize) -> Option<usize> {
    Some(so_far.map_or(index, |f| f.min(index)))
}

/// Indices already compared, as disjoint ranges in order.
#[derive(Default)]
pub(super) struct Covered(Vec<std::ops::Range<usize>>);

impl Covered {
    /// The parts of `range` not covered yet, in order.
    pub(super) fn gaps(&self, range: std::ops::Range<usize>) -> Vec<std::ops::Range<usize>> {
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
    pub(super) fn add(&mut self, range: std::ops::Range<usize>) {
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
#[path = "seen_walk_tests.rs"]
mod tests;
