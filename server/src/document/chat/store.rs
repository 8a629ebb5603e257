//! What one scan of a chat found, stored once for all the messages it made: flat
//! lists of mentions, markers, permission blocks and code blocks, and per message a
//! record of where its parts are.

use super::CodeBlock;
use crate::document::ByteRange;
use crate::document::inline::{Marker, MarkerKind, Mention};
use crate::document::permission::PermissionOption;
use crate::document::status::{StatusComment, StatusError};

/// A mention as a scan stores it (16 bytes; a [`Mention`]'s two ranges are 32): where
/// its `@` is and how long the handle after it is.
#[derive(Clone, Copy, Debug)]
pub(super) struct StoredMention {
    pub(super) at: usize,
    pub(super) handle_len: u32,
}

impl StoredMention {
    pub(super) fn mention(self, delta: isize) -> Mention {
        let at = self.at.wrapping_add_signed(delta);
        let end = at + 1 + self.handle_len as usize;
        Mention {
            range: at..end,
            handle: at + 1..end,
        }
    }
}

/// A store's mentions, taken as a line's scan finds them.
#[derive(Debug, Default)]
pub(super) struct Mentions(pub(super) Vec<StoredMention>);

impl Extend<Mention> for Mentions {
    fn extend<I: IntoIterator<Item = Mention>>(&mut self, mentions: I) {
        for m in mentions {
            // A handle of 4 GiB is no member's: it is left out.
            if let Ok(handle_len) = u32::try_from(m.handle.len()) {
                self.0.push(StoredMention {
                    at: m.range.start,
                    handle_len,
                });
            }
        }
    }
}

/// A code block as a scan stores it (24 bytes, not 40): its opening line's length
/// instead of its range. An opening line of 4 GiB or more is taken as the whole block.
#[derive(Clone, Copy, Debug)]
pub(super) struct StoredCodeBlock {
    pub(super) start: usize,
    pub(super) end: usize,
    pub(super) opening_len: u32,
    pub(super) closed: bool,
}

impl StoredCodeBlock {
    pub(super) fn new(block: &CodeBlock) -> StoredCodeBlock {
        StoredCodeBlock {
            start: block.range.start,
            end: block.range.end,
            opening_len: u32::try_from(block.opening.len()).unwrap_or(u32::MAX),
            closed: block.closed,
        }
    }

    pub(super) fn block(self, delta: isize) -> CodeBlock {
        let start = self.start.wrapping_add_signed(delta);
        let end = self.end.wrapping_add_signed(delta);
        let opening_end = match self.opening_len {
            u32::MAX => end,
            len => start + len as usize,
        };
        CodeBlock {
            range: start..end,
            opening: start..opening_end,
            closed: self.closed,
        }
    }
}

/// A permission block as a scan stores it: its options are a run of the store's
/// flat list of options.
#[derive(Clone, Debug)]
pub(super) struct StoredPermission {
    pub(super) range: ByteRange,
    pub(super) id: ByteRange,
    pub(super) text: ByteRange,
    pub(super) options: std::ops::Range<usize>,
}

/// Where one message's parts are in its scan's [`Store`], with byte offsets as they
/// were when it was scanned. The message runs from its heading to the next record's
/// heading (or the end of the scan), and its items in each list are those that start
/// there (the lists are in the text's order).
///
/// Kept small (24 bytes; it was 88 with a range per part, 48 with where its items
/// start in each list, 32 with where the status line and the body start): a chat of
/// 500,000 short messages has a record for each. Its parts lie in its heading and
/// status lines, so they are counted from the heading's start in 32 bits (the scan
/// takes no line of 256 MiB or more for a heading or a status comment), and the status
/// line and the body start after the line breaks, whose lengths are kept in 2 bits.
#[derive(Clone, Debug)]
pub(super) struct Record {
    /// Where the heading line starts; the message starts there.
    pub(super) start: usize,
    /// The heading line's length, without its line break.
    pub(super) header_len: u32,
    /// Where the handle (without its `@`) starts, from `start`.
    pub(super) handle_at: u32,
    /// The status comment line's length without its line break; 0 when there is none
    /// (it is the line right after the heading).
    pub(super) status_len: u32,
    /// The handle's length (the low 28 bits), the heading line's break's length (2
    /// bits) and the status line's (2 bits).
    packed: u32,
}

const LENGTH_BITS: u32 = 28;

impl Record {
    /// A heading's record: `header_len` bytes long, then a line break of `break_len`
    /// bytes (0 to 2), its handle `handle_len` bytes long from `handle_at`. The
    /// lengths are under [`LONGEST_RECORDED_LINE`].
    pub(super) fn heading(
        start: usize,
        header_len: usize,
        break_len: usize,
        (handle_at, handle_len): (usize, usize),
    ) -> Record {
        Record {
            start,
            header_len: header_len as u32,
            handle_at: handle_at as u32,
            status_len: 0,
            packed: handle_len as u32 | (break_len as u32) << LENGTH_BITS,
        }
    }

    /// The status line after the heading: `len` bytes long, then a line break of
    /// `break_len` bytes.
    pub(super) fn set_status(&mut self, len: usize, break_len: usize) {
        self.status_len = len as u32;
        self.packed |= (break_len as u32) << (LENGTH_BITS + 2);
    }

    pub(super) fn handle_len(&self) -> u32 {
        self.packed & ((1 << LENGTH_BITS) - 1)
    }

    /// Where the status line starts (or would), from `start`.
    pub(super) fn status_at(&self) -> u32 {
        self.header_len + (self.packed >> LENGTH_BITS & 3)
    }

    /// Where the body starts, from `start`.
    pub(super) fn body_at(&self) -> u32 {
        match self.status_len {
            0 => self.status_at(),
            len => self.status_at() + len + (self.packed >> (LENGTH_BITS + 2)),
        }
    }

    /// The part of the message `len` bytes long that starts `at` bytes after its start.
    pub(super) fn part(&self, at: u32, len: u32) -> ByteRange {
        let start = self.start + at as usize;
        start..start + len as usize
    }
}

/// The longest heading or status line a scan takes as one (see [`Record`]).
pub(super) const LONGEST_RECORDED_LINE: usize = 1 << LENGTH_BITS;

/// A status comment as parsed, cached for the messages that share a store. Boxed: the
/// slots are made for every message of the store as soon as one comment is asked for
/// (the latest answer's, for the lenses), and an empty slot is 16 bytes, not 128.
pub(super) type ParsedStatus = std::sync::OnceLock<Box<Result<StatusComment, StatusError>>>;

/// What one scan found, in flat lists shared by the messages it made (and by copies
/// of them): one allocation per list and scan instead of several per message. Never
/// changed once built, except for the status comments parsed on first use: most
/// requests never look at most of them, and parsing them all would dominate a parse.
///
/// A store lives as long as any of its messages: after incremental re-parses, what a
/// scan found for messages since replaced stays in memory until the last message of
/// that scan is replaced too (at most what that scan found).
#[derive(Debug, Default)]
pub(super) struct Store {
    pub(super) records: Vec<Record>,
    pub(super) mentions: Mentions,
    pub(super) markers: Vec<Marker>,
    pub(super) permissions: Vec<StoredPermission>,
    pub(super) options: Vec<PermissionOption>,
    pub(super) code_blocks: Vec<StoredCodeBlock>,
    /// Where the last message ends.
    pub(super) end: usize,
    /// One slot per record, made when the first status comment is asked for.
    pub(super) parsed: std::sync::OnceLock<Box<[ParsedStatus]>>,
}

impl Store {
    /// The `i`th message's run of one of the lists: `list` picks the list, `at` where
    /// an item starts. A binary search for the first, then the message's few items.
    pub(super) fn run<T>(&self, i: usize, list: fn(&Store) -> &[T], at: fn(&T) -> usize) -> &[T] {
        let items = list(self);
        if items.is_empty() {
            return items;
        }
        let start = self.records[i].start;
        let end = self.records.get(i + 1).map_or(self.end, |next| next.start);
        let from = items.partition_point(|item| at(item) < start);
        let count = items[from..]
            .iter()
            .take_while(|item| at(item) < end)
            .count();
        &items[from..from + count]
    }
}

/// `range` moved by `delta` bytes.
pub(super) fn moved(range: &ByteRange, delta: isize) -> ByteRange {
    range.start.wrapping_add_signed(delta)..range.end.wrapping_add_signed(delta)
}

/// A marker moved by `delta` bytes.
pub(super) fn moved_marker(marker: &Marker, delta: isize) -> Marker {
    Marker {
        range: moved(&marker.range, delta),
        kind: match &marker.kind {
            MarkerKind::Next(handle) => MarkerKind::Next(moved(handle, delta)),
            MarkerKind::Done => MarkerKind::Done,
        },
    }
}

/// A permission option moved by `delta` bytes.
pub(super) fn moved_option(option: &PermissionOption, delta: isize) -> PermissionOption {
    PermissionOption {
        label: moved(&option.label, delta),
        checked: option.checked,
    }
}

impl Store {
    /// The `i`th message's parts moved by `delta` bytes, in a store of their own: for
    /// a message moved farther than a message's 32-bit shift reaches, or past a
    /// store's 4,294,967,295th record.
    pub(super) fn one(&self, i: usize, delta: isize) -> Store {
        let at = |at: usize| at.wrapping_add_signed(delta);
        let mut options = Vec::new();
        let permissions = self.run(i, |s| &s.permissions, |p| p.range.start);
        let permissions = permissions
            .iter()
            .map(|p| {
                let first = options.len();
                let own = &self.options[p.options.clone()];
                options.extend(own.iter().map(|o| moved_option(o, delta)));
                StoredPermission {
                    range: moved(&p.range, delta),
                    id: moved(&p.id, delta),
                    text: moved(&p.text, delta),
                    options: first..options.len(),
                }
            })
            .collect();
        let mentions = self.run(i, |s| &s.mentions.0, |m| m.at);
        let markers = self.run(i, |s| &s.markers, |m| m.range.start);
        let code_blocks = self.run(i, |s| &s.code_blocks, |c| c.start);
        Store {
            records: vec![Record {
                start: at(self.records[i].start),
                ..self.records[i].clone()
            }],
            mentions: Mentions(
                mentions
                    .iter()
                    .map(|m| StoredMention { at: at(m.at), ..*m })
                    .collect(),
            ),
            markers: markers.iter().map(|m| moved_marker(m, delta)).collect(),
            permissions,
            options,
            code_blocks: code_blocks
                .iter()
                .map(|c| StoredCodeBlock {
                    start: at(c.start),
                    end: at(c.end),
                    ..*c
                })
                .collect(),
            end: at(self.records.get(i + 1).map_or(self.end, |next| next.start)),
            parsed: std::sync::OnceLock::new(),
        }
    }
}

#[cfg(test)]
#[path = "store_tests.rs"]
mod tests;
