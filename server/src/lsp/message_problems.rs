//! The chat's own problems (`conversation::problems`: members, mentions, status
//! comments, fences, a foreign format) assembled from per-message checks kept across
//! edits, as the outline is from its pieces. A message's checks depend on its own text
//! and the team; an edit re-parses a few messages and only their checks are made again,
//! reading only their text; a change of the team (a member added, a role file changed)
//! makes them all again. What is reported once per chat (a member's missing CLI, an
//! imported answer's handle) is decided as the checks are put together, in order.

use std::num::NonZeroU16;
use std::sync::Arc;

use super::kept::Kept;
use super::state::Document;
use crate::conversation::problems::{
    Check, CliLookup, Collector, Found, message_checks, moved_range, shifted_problem,
    unclosed_fence,
};
use crate::conversation::roster::Roster;
use crate::conversation::seen::SEEN_KEY;
use crate::document::ByteRange;
use crate::document::foreign;
use crate::document::status::TurnStatus;
use crate::team::Team;

/// The team a document's checks were made with: the same team, or one equal to it (a
/// client that does not watch files gets the team read afresh for each request).
#[derive(Debug)]
pub struct TeamKey(Arc<Team>);

impl PartialEq for TeamKey {
    fn eq(&self, other: &TeamKey) -> bool {
        Arc::ptr_eq(&self.0, &other.0) || *self.0 == *other.0
    }
}

/// The checks of one document's messages, kept across edits, for one team, and what
/// each block of them adds up to.
pub type SharedChecks = Kept<MessageChecks, TeamKey, blocks::Blocks>;

/// The first `limit` problems of `doc`'s chat read with `roster` (of `team`), and how
/// many more: what `problems::check_capped` finds on the whole text.
pub fn chat_problems(
    doc: &Document,
    team: &Arc<Team>,
    roster: &Roster,
    clis: &dyn CliLookup,
    limit: usize,
) -> Found {
    let (text, chat) = (&doc.text, &*doc.chat);
    // A chatmd chat settles that it is in no foreign format at its first heading: the
    // rest of the text need not be read for that.
    let first_body = chat.messages.first().map(|m| m.body_range().start);
    let prefix = text.slice(0..first_body.unwrap_or(chat.len));
    let whole;
    let foreign_text = if first_body.is_none() || foreign::ruled_out_by(&prefix) {
        prefix.as_str()
    } else {
        whole = doc.flat();
        whole.as_str()
    };
    let mut out = Collector::new(chat, roster, clis, foreign_text, limit);
    let moved = |i: usize, made: &MessageChecks| {
        (
            made.base(),
            chat.messages[i].range().start as isize - made.base() as isize,
        )
    };
    with_walk(doc, team, roster, |walk| {
        // The handles of the blocks added so far, as bits: each is known to `out`.
        let (mut named, mut imported) = (0u64, 0u64);
        for b in 0..walk.block_count() {
            let block = walk.block(b);
            let (block_named, block_imported) = block.handle_bits();
            // Members named before are not looked up again: a chat's every heading
            // names one. The bits say so without reading the handles, mostly.
            let known = block.handles_within(named, imported)
                || out.adds_nothing(&block.named, &block.imported);
            named |= block_named;
            imported |= block_imported;
            if block.found == 0 && known {
                continue;
            }
            if out.only_counts() {
                // Where they are no longer matters: the block's sums say it all.
                out.count_more(block.found, block.worst_found);
                for handle in &block.named {
                    out.names_member(handle, || 0..0);
                }
                for handle in &block.imported {
                    out.imported_handle(handle, || 0..0);
                }
                continue;
            }
            for i in walk.messages_of(b) {
                let (made, headings) = walk.with_handles(i);
                let (base, delta) = moved(i, made);
                if let Some((handle, range)) = made.heading_names(headings) {
                    out.names_member(handle, || moved_range(&range, base, delta));
                }
                for check in made.checks() {
                    out.add_moved(check, base, delta);
                }
            }
        }
        // Unclosed fences come after every message's checks, the preamble's first.
        let mut preamble_open = chat.preamble_code_blocks.iter().filter(|b| !b.closed);
        if let Some(first) = preamble_open.next() {
            let mut buf = String::new();
            let part = doc.part(chat.preamble.clone(), &mut buf);
            for block in std::iter::once(first).chain(preamble_open) {
                out.push(unclosed_fence(&part, chat.preamble.start, block));
            }
        }
        for b in 0..walk.block_count() {
            let block = walk.block(b);
            if block.fences == 0 {
                continue;
            }
            if out.only_counts() {
                out.count_more(block.fences, block.worst_fence);
                continue;
            }
            for i in walk.messages_of(b) {
                let made = walk.message(i);
                let (base, delta) = moved(i, made);
                for fence in made.fences() {
                    out.push(shifted_problem(fence, base, delta));
                }
            }
        }
    });
    out.finish()
}

/// Takes the check that the heading names a member out of `all` when it is the first
/// and names the member as written (`handle` at `range`, in a message from `base`):
/// where it was, for [`MessageChecks::heading_names`].
fn heading_first(
    all: &mut Vec<Check>,
    handle: &str,
    range: ByteRange,
    base: usize,
) -> Option<NonZeroU16> {
    let at = NonZeroU16::new(u16::try_from(range.start - base).ok()?)?;
    match all.first() {
        Some(Check::NamesMember {
            handle: named,
            range: r,
        }) if *r == range && **named == *handle => {
            all.remove(0);
            Some(at)
        }
        _ => None,
    }
}

/// Runs `work` on the checks of every message of `doc` and their blocks, made where
/// they were not kept.
fn with_walk<R>(
    doc: &Document,
    team: &Arc<Team>,
    roster: &Roster,
    work: impl FnOnce(&mut blocks::Walk) -> R,
) -> R {
    let (text, chat) = (&doc.text, &*doc.chat);
    let mut front = None;
    let mut buf = String::new();
    let mut make = |i: usize, handles: &mut HeadingHandles| {
        let m = &chat.messages[i];
        let range = m.range();
        let part = doc.part(range.clone(), &mut buf);
        let part: &str = &part;
        let base = range.start;
        let front = front.get_or_insert_with(|| text.slice(0..chat.body_start()));
        let handle = m.handle_range();
        let handle = &part[handle.start - base..handle.end - base];
        let parsed = m.status_read_in(part, base);
        let comment = parsed.as_deref().and_then(|s| s.as_ref().ok());
        let status = comment.and_then(|c| c.status());
        let session_agent = comment
            .filter(|c| c.session().is_some_and(|s| !s.is_empty()))
            .and_then(|c| c.agent())
            .map(Box::from);
        let body = m.body_range();
        let ai = roster.is_ai(handle);
        let mut all = message_checks(part, base, m, chat, roster, front, parsed.as_deref());
        let heading_names_at = heading_first(&mut all, handle, m.handle_range(), base);
        let fences_from = u32::try_from(all.len()).unwrap_or(u32::MAX);
        all.extend(
            m.code_blocks()
                .filter(|b| !b.closed)
                .map(|b| Check::found(unclosed_fence(part, base, &b))),
        );
        MessageChecks::new(
            base,
            all.into(),
            fences_from,
            session_agent,
            handles.number(handle),
            Facts {
                ai,
                queued: !ai && status == Some(TurnStatus::Queued),
                counts: !part[body.start - base..body.end - base].trim().is_empty()
                    || matches!(status, Some(TurnStatus::Done | TurnStatus::Skipped)),
                records_seen: comment.is_some_and(|c| c.get(SEEN_KEY).is_some()),
            },
            heading_names_at,
        )
    };
    let key = TeamKey(team.clone());
    let count = chat.messages.len();
    doc.checks.with_whole(key, count, |kept| match kept {
        Some((slots, blocks)) => work(&mut blocks::Walk {
            slots,
            blocks,
            make: &mut make,
        }),
        None => {
            // A snapshot of an older version: nothing it makes is kept.
            let mut slots: Vec<Option<MessageChecks>> = (0..count).map(|_| None).collect();
            work(&mut blocks::Walk {
                slots: &mut slots,
                blocks: &mut blocks::Blocks::default(),
                make: &mut make,
            })
        }
    })
}

/// The first message the code lenses read: the lenses of the chat's messages from it on
/// are those of the whole chat. They read the message queued last, the last message
/// routing counts and, when that is the human's, the messages back to the AI member's
/// before it (round robin hands on from there), and the last section of each member
/// in `running`. Found from the kept facts, from the end, without reading the text.
pub fn lens_tail(doc: &Document, team: &Arc<Team>, roster: &Roster, running: &[String]) -> usize {
    with_walk(doc, team, roster, |walk| {
        let end = walk.len();
        let queued = walk.last_before(end, |b| b.queued, |m, _| m.facts().queued);
        let counting = walk.last_before(end, |b| b.counting, |m, _| m.facts().counts);
        let ai_before = counting.and_then(|c| walk.last_before(c, |b| b.ai, |m, _| m.facts().ai));
        let mut first = end;
        for read in [queued, counting, ai_before] {
            first = first.min(read.unwrap_or(usize::MAX));
        }
        for member in running {
            let section = walk.last_before(
                end,
                |b| b.handles.iter().any(|h| **h == **member),
                |m, handles| **m.handle(handles) == **member,
            );
            first = first.min(section.unwrap_or(usize::MAX));
        }
        first
    })
}

/// Whether a member of `roster` that resumes its sessions may have seen a message that
/// changed since: its latest answer naming a session of its agent records what that
/// turn saw (`seen=`). Without such a record the session's memory is unknown and
/// nothing is claimed (`conversation::seen`), so the whole text need not be read to
/// say so.
pub fn may_have_seen_changes(doc: &Document, team: &Arc<Team>, roster: &Roster) -> bool {
    let resuming: Vec<_> = roster.members.iter().filter(|m| m.resume).collect();
    if resuming.is_empty() {
        return false;
    }
    with_walk(doc, team, roster, |walk| {
        let end = walk.len();
        resuming.iter().any(|member| {
            let (agent, handle) = (member.agent.as_str(), member.handle.as_str());
            let latest = walk.last_before(
                end,
                |b| {
                    b.sessions
                        .iter()
                        .any(|(h, a)| &**a == agent && h.eq_ignore_ascii_case(handle))
                },
                |m, handles| {
                    m.session_agent() == Some(agent)
                        && m.handle(handles).eq_ignore_ascii_case(handle)
                },
            );
            latest.is_some_and(|i| walk.message(i).facts().records_seen)
        })
    })
}

#[path = "check_blocks.rs"]
mod blocks;
#[path = "kept_checks.rs"]
mod kept_checks;

use kept_checks::Facts;
pub use kept_checks::{HeadingHandles, MessageChecks};

#[cfg(test)]
#[path = "message_problems_tests.rs"]
mod tests;
