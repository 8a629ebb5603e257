//! The `seen=` warnings of an open chat (`conversation::seen`), worked out from facts
//! kept per message across edits: each message's hash and its status comment's record
//! are made once, and again only for the messages an edit re-parsed. In a long chat
//! whose answers all record what their turns saw, a keystroke then hashes only the
//! edited message, where `seen::problems` copied and hashed the whole text.

use super::kept::{Kept, SameHandles};
use super::seen_walk::{Made, Walk, Walked, walk};
use super::state::Document;
use crate::conversation::problems::Problem;
use crate::conversation::roster::Roster;
use crate::conversation::seen::{self, NextTurn, SEEN_KEY, SeenRecord};
use crate::document::chat::Message;

/// What the `seen=` check needs of one message.
#[derive(Debug)]
pub struct SeenFacts {
    /// The heading's handle as written.
    pub(super) handle: super::kept::Handle,
    /// Its hash as agents get it ([`seen::message_hash_value`]).
    pub(super) hash: u32,
    /// What its status comment says of its session, when it says anything: boxed, as
    /// most messages (the human's) have none, and a long chat keeps these for each.
    status: Option<Box<SessionFacts>>,
}

/// What a status comment says of its session.
#[derive(Debug)]
struct SessionFacts {
    /// The agent of the session it names, when it names one.
    agent: Option<Box<str>>,
    /// What it records (`seen=`), when that parses.
    record: Option<Record>,
}

impl SeenFacts {
    /// The agent of the session its status comment names, when it names one.
    fn session_agent(&self) -> Option<&str> {
        self.status.as_ref()?.agent.as_deref()
    }

    /// What its status comment records (`seen=`), when it parses.
    pub(super) fn record(&self) -> Option<&Record> {
        self.status.as_ref()?.record.as_ref()
    }
}

/// A `seen=` record with each hash as a number ([`seen::record_hash_value`]).
#[derive(Debug, Hash)]
pub(super) struct Record {
    pub(super) resumed: bool,
    pub(super) first: usize,
    pub(super) hashes: Box<[u32]>,
}

/// The facts of one document's messages, kept across edits, and the walks made over
/// them. They depend on the text alone: no key.
pub type SharedSeen = Kept<SeenFacts, (), Walked>;

/// The facts of message `m`, whose text `part` starts at byte `base`.
fn facts(part: &str, base: usize, m: &Message, handles: &mut SameHandles) -> SeenFacts {
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
    let agent = comment
        .filter(|c| c.session().is_some_and(|s| !s.is_empty()))
        .and_then(|c| c.agent())
        .map(Box::from);
    SeenFacts {
        handle: handles.get(local.handle(part)),
        hash: seen::message_hash_value(part, &local),
        status: (agent.is_some() || record.is_some())
            .then(|| Box::new(SessionFacts { agent, record })),
    }
}

/// The warnings `seen::problems` finds in `doc`'s chat read with `roster`, in the same
/// order, from the kept facts (made where missing) and the status comments of the
/// answers warned about.
pub fn problems(doc: &Document, roster: &Roster) -> Vec<Problem> {
    let chat = &*doc.chat;
    let mut buf = String::new();
    let mut handles = SameHandles::default();
    let mut make = |m: &Message| {
        let range = m.range();
        let part = doc.part(range.clone(), &mut buf);
        facts(&part, range.start, m, &mut handles)
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
                    && f.session_agent() == Some(member.agent.as_str())
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
        let (memory, found) = walked.kept(handle, agent, since, facts).unwrap_or_else(|| {
            let memory = walk(facts, handle, since);
            let found = memory.first_changed(facts);
            (memory, found)
        });
        walks.push(Walk {
            handle: handle.to_string(),
            agent: agent.to_string(),
            since,
            memory,
            found,
        });
        let Some(index) = found else {
            continue;
        };
        let header = chat.messages[index].header();
        out.push(seen::warning(handle, header, status_range, status));
    }
    *walked = Walked::made(facts.len(), walks);
    out
}

#[cfg(test)]
#[path = "seen_kept_tests.rs"]
mod tests;
