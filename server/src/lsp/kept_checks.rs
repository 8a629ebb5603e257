//! What one message contributes to its chat's problems, kept across edits: 16 bytes,
//! as a long chat keeps one per message (500k in a chat of tiny messages). What most
//! messages lack is boxed; the rest is packed, and the heading's handle is a number
//! among the document's ([`HeadingHandles`]).

use std::num::{NonZeroU8, NonZeroU16};

use crate::conversation::problems::{Check, Problem};
use crate::document::ByteRange;
use crate::lsp::kept::Handle;

/// What one message contributes to its chat's problems, as made when it started at
/// its [`base`](Self::base), and what the code lenses look for in it.
#[derive(Debug)]
pub struct MessageChecks {
    /// Its checks and unclosed fences, the agent of a session it names, and where it
    /// started past 4 GiB: `None` when it has none of them.
    more: Option<Box<More>>,
    /// Where it started, its low 32 bits.
    base_low: u32,
    /// Where the heading's handle starts in the message, when it names a member of the
    /// team as written: the message's first check, kept here rather than in the list
    /// (most messages then keep no list at all). In 16 bits: a heading's handle lies
    /// a few bytes in; one further in stays in the list.
    heading_names_at: Option<NonZeroU16>,
    /// The heading's handle as written: its number in the document's
    /// [`HeadingHandles`] plus one, or [`IN_MORE`] when it has none (then it is in
    /// `more`). Never 0: an empty slot (`None`) takes no more room than a kept one.
    handle: NonZeroU8,
    /// [`Facts`], a bit each.
    facts: u8,
}

/// The heading's handle is in [`More`]: it has no number.
const IN_MORE: NonZeroU8 = NonZeroU8::MAX;

/// The handles a document's headings are written with, numbered as first met (the
/// first 64: a chat has a few members, and a message whose handle has no number keeps
/// it boxed). Kept as long as the checks that hold their numbers.
pub use crate::lsp::kept::SameHandles as HeadingHandles;

/// What only some messages have (see [`MessageChecks`]).
#[derive(Debug)]
struct More {
    /// Its checks, then from `fences_from` on the warnings on its unclosed code blocks
    /// (reported after every message's checks): one list.
    all: Box<[Check]>,
    fences_from: u32,
    /// The agent of the session its status comment names, when it names one.
    session_agent: Option<Box<str>>,
    /// Where it started, above the low 32 bits.
    base_high: u32,
    /// The heading's handle, when it has no number.
    handle: Option<Handle>,
}

/// What the code lenses look for in a message (see `lens_tail`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Facts {
    /// Written by an AI member of the team.
    pub(super) ai: bool,
    /// Not an AI member's, and marked queued.
    pub(super) queued: bool,
    /// Has text, or ended as done or skipped: routing counts it.
    pub(super) counts: bool,
    /// Its status comment records what the turn saw (`seen=`).
    pub(super) records_seen: bool,
}

impl Facts {
    fn bits(self) -> u8 {
        u8::from(self.ai)
            | u8::from(self.queued) << 1
            | u8::from(self.counts) << 2
            | u8::from(self.records_seen) << 3
    }

    fn from_bits(bits: u8) -> Facts {
        Facts {
            ai: bits & 1 != 0,
            queued: bits & 2 != 0,
            counts: bits & 4 != 0,
            records_seen: bits & 8 != 0,
        }
    }
}

/// A message's start as its low 32 bits and the rest.
fn split_base(base: usize) -> (u32, u32) {
    let base = base as u64;
    (base as u32, (base >> 32) as u32)
}

impl MessageChecks {
    /// The checks of a message that started at `base`: `all`, the warnings on its
    /// unclosed fences from `fences_from` on, the agent of a session it names; its
    /// heading's `handle`, its `facts`, and where its heading names a member.
    pub(super) fn new(
        base: usize,
        all: Box<[Check]>,
        fences_from: u32,
        session_agent: Option<Box<str>>,
        handle: Result<usize, Handle>,
        facts: Facts,
        heading_names_at: Option<NonZeroU16>,
    ) -> MessageChecks {
        let (base_low, base_high) = split_base(base);
        let (number, unnumbered) = match handle {
            // Under 64 (see `SameHandles::number`): no number meets `IN_MORE`.
            Ok(number) => (NonZeroU8::MIN.saturating_add(number as u8), None),
            Err(handle) => (IN_MORE, Some(handle)),
        };
        let needed = !all.is_empty() || session_agent.is_some() || base_high != 0;
        let more = (needed || unnumbered.is_some()).then(|| {
            Box::new(More {
                all,
                fences_from,
                session_agent,
                base_high,
                handle: unnumbered,
            })
        });
        MessageChecks {
            more,
            base_low,
            heading_names_at,
            handle: number,
            facts: facts.bits(),
        }
    }

    /// Where the message started when its checks were made.
    pub(super) fn base(&self) -> usize {
        let high = self.more.as_deref().map_or(0, |more| more.base_high);
        (u64::from(high) << 32 | u64::from(self.base_low)) as usize
    }

    /// The heading's handle as written, numbered in `handles`.
    pub(super) fn handle<'h>(&'h self, handles: &'h HeadingHandles) -> &'h Handle {
        match self.more.as_deref().and_then(|more| more.handle.as_ref()) {
            Some(handle) => handle,
            None => handles.numbered(usize::from(self.handle.get() - 1)),
        }
    }

    pub(super) fn facts(&self) -> Facts {
        Facts::from_bits(self.facts)
    }

    /// The member its heading names and where, when that is its first check (kept
    /// apart from [`checks`](Self::checks), which follow it).
    pub(super) fn heading_names<'h>(
        &'h self,
        handles: &'h HeadingHandles,
    ) -> Option<(&'h str, ByteRange)> {
        let at = self.base() + usize::from(self.heading_names_at?.get());
        let handle = self.handle(handles);
        Some((handle, at..at + handle.len()))
    }

    fn all(&self) -> &[Check] {
        self.more.as_deref().map_or(&[], |more| &more.all)
    }

    pub(super) fn checks(&self) -> &[Check] {
        &self.all()[..self.split()]
    }

    pub(super) fn fences(&self) -> impl Iterator<Item = &Problem> {
        self.all()[self.split()..]
            .iter()
            .filter_map(|check| match check {
                Check::Found(problem) => Some(&**problem),
                _ => None,
            })
    }

    fn split(&self) -> usize {
        self.more
            .as_deref()
            .map_or(0, |more| (more.fences_from as usize).min(more.all.len()))
    }

    /// The agent of the session its status comment names, when it names one.
    pub(super) fn session_agent(&self) -> Option<&str> {
        self.more.as_deref()?.session_agent.as_deref()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A long chat keeps one of these per message: a field added unboxed shows here.
    #[test]
    fn a_message_s_kept_checks_stay_16_bytes() {
        assert_eq!(std::mem::size_of::<Option<MessageChecks>>(), 16);
    }

    /// The first 64 handles get numbers, each its own, written as they are; the others
    /// are kept boxed with their message, and every message gives its handle back.
    #[test]
    fn headings_handles_come_back_numbered_or_boxed() {
        let mut handles = HeadingHandles::default();
        let made: Vec<_> = (0..70)
            .chain([3, 0, 69])
            .map(|n| {
                let handle = handles.number(&format!("m{n}"));
                let facts = Facts::default();
                MessageChecks::new(0, Box::new([]), 0, None, handle, facts, None)
            })
            .collect();
        let numbered = made.iter().filter(|m| m.handle != IN_MORE).count();
        assert_eq!(numbered, 64 + 2);
        let names: Vec<_> = made.iter().map(|m| &**m.handle(&handles)).collect();
        let expected: Vec<_> = (0..70).chain([3, 0, 69]).map(|n| format!("m{n}")).collect();
        assert_eq!(names, expected);
        // As written: another case is another handle.
        let mut fresh = HeadingHandles::default();
        assert_eq!((fresh.number("ann"), fresh.number("Ann")), (Ok(0), Ok(1)));
    }

    /// Every fact comes back as it was given, and a start past 4 GiB whole.
    #[test]
    fn facts_and_starts_come_back_as_they_were_given() {
        let mut handles = HeadingHandles::default();
        for bits in 0..16u8 {
            let facts = Facts::from_bits(bits);
            for base in [0, 7, u32::MAX as usize, (5usize << 32) + 3] {
                let reviewer = handles.number("reviewer");
                let made = MessageChecks::new(
                    base,
                    Box::new([]),
                    0,
                    None,
                    reviewer,
                    facts,
                    NonZeroU16::new(4),
                );
                assert_eq!((made.facts(), made.base()), (facts, base));
                assert_eq!(made.more.is_some(), base > u32::MAX as usize);
                let (handle, range) = made.heading_names(&handles).expect("names");
                assert_eq!((handle, range), ("reviewer", base + 4..base + 12));
            }
        }
    }
}
