//! One message of a chat, as a view into its scan's [`Store`]: where its heading,
//! status comment and body are, and its mentions, markers, permission blocks and code
//! blocks, shifted to where they are now.

use std::sync::Arc;

use super::CodeBlock;
use super::store::{ParsedStatus, Record, Store, moved, moved_marker, moved_option};
use crate::document::ByteRange;
use crate::document::inline::{Marker, MarkerKind, Mention};
use crate::document::lines::Lines;
use crate::document::permission::PermissionBlock;
use crate::document::status::{StatusComment, StatusError};

/// One message: a `## @handle` heading and everything up to the next one.
///
/// The parts live in the store of the scan that found them, shared (`Arc`) by all its
/// messages. A message records only which of them it is and how far it moved since it
/// was scanned, so an edit early in a long chat shifts every later message in O(1)
/// and copying a chat for a request costs one reference count per message.
///
/// Both in 32 bits (16 bytes a message, not 24: a chat of 500,000 short messages keeps
/// 500,000): a message moved 2 GiB or more, or past its store's 4 billionth record,
/// gets a store of its own.
#[derive(Clone)]
pub struct Message {
    store: Arc<Store>,
    index: u32,
    delta: i32,
}

fn shifted(r: &ByteRange, delta: i32) -> ByteRange {
    moved(r, delta as isize)
}

impl PartialEq for Message {
    /// Messages are equal when they are equal where they are now.
    fn eq(&self, other: &Message) -> bool {
        if Arc::ptr_eq(&self.store, &other.store)
            && self.index == other.index
            && self.delta == other.delta
        {
            return true;
        }
        self.range() == other.range()
            && self.header() == other.header()
            && self.handle_range() == other.handle_range()
            && self.body_range() == other.body_range()
            && self.status_range() == other.status_range()
            && self.mentions().eq(other.mentions())
            && self.markers().eq(other.markers())
            && self.permissions().eq(other.permissions())
            && self.code_blocks().eq(other.code_blocks())
    }
}

impl std::fmt::Debug for Message {
    /// The message where it is now.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Message")
            .field("range", &self.range())
            .field("header", &self.header())
            .field("handle", &self.handle_range())
            .field("status", &self.status_range())
            .field("body", &self.body_range())
            .field("mentions", &self.mentions().collect::<Vec<_>>())
            .field("markers", &self.markers().collect::<Vec<_>>())
            .field("permissions", &self.permissions().collect::<Vec<_>>())
            .field("code_blocks", &self.code_blocks().collect::<Vec<_>>())
            .finish()
    }
}

impl Message {
    /// The `index`th message of `store`.
    pub(super) fn new(store: Arc<Store>, index: usize) -> Message {
        match u32::try_from(index) {
            Ok(index) => Message {
                store,
                index,
                delta: 0,
            },
            Err(_) => Message::alone(&store, index, 0),
        }
    }

    /// The `index`th message of `store` moved by `delta`, in a store of its own.
    fn alone(store: &Store, index: usize, delta: isize) -> Message {
        Message {
            store: Arc::new(store.one(index, delta)),
            index: 0,
            delta: 0,
        }
    }

    fn index(&self) -> usize {
        self.index as usize
    }

    fn record(&self) -> &Record {
        &self.store.records[self.index()]
    }

    /// Where the message ends, as scanned.
    fn end(&self) -> usize {
        let store = &*self.store;
        store
            .records
            .get(self.index() + 1)
            .map_or(store.end, |next| next.start)
    }

    /// Moves the message by `delta` bytes (text was inserted or removed before it).
    pub(super) fn shift(&mut self, delta: isize) {
        let total = (self.delta as isize).saturating_add(delta);
        match i32::try_from(total) {
            Ok(total) => self.delta = total,
            Err(_) => *self = Message::alone(&self.store, self.index(), total),
        }
    }

    /// The message as read in a part of the text that starts at byte `base` and holds
    /// it whole (a message read out of a rope on its own): its ranges count from there.
    pub fn in_part(&self, base: usize) -> Message {
        let mut moved = self.clone();
        moved.shift(-(base as isize));
        moved
    }

    /// From the heading's first byte to the next message's heading (or the end).
    pub fn range(&self) -> ByteRange {
        shifted(&(self.record().start..self.end()), self.delta)
    }

    /// The heading line, without its line break.
    pub fn header(&self) -> ByteRange {
        let r = self.record();
        shifted(&r.part(0, r.header_len), self.delta)
    }

    /// The handle on the heading, without the `@`.
    pub fn handle_range(&self) -> ByteRange {
        let r = self.record();
        shifted(&r.part(r.handle_at, r.handle_len()), self.delta)
    }

    /// Everything after the heading line and the status line.
    pub fn body_range(&self) -> ByteRange {
        let r = self.record();
        let start = r.start + r.body_at() as usize;
        shifted(&(start..self.end().max(start)), self.delta)
    }

    /// The status comment line (without its line break), if the message has one.
    pub fn status_range(&self) -> Option<ByteRange> {
        let r = self.record();
        (r.status_len > 0).then(|| shifted(&r.part(r.status_at(), r.status_len), self.delta))
    }

    /// The status comment as parsed (`Err` when the line is malformed). `text` is the
    /// document the message belongs to.
    pub fn status(&self, text: &str) -> Option<&Result<StatusComment, StatusError>> {
        self.status_in(text, 0)
    }

    /// [`Message::status`] from `part`, the document's text from byte `base` on, which
    /// holds at least this message (a message read out of the rope on its own).
    pub fn status_in(
        &self,
        part: &str,
        base: usize,
    ) -> Option<&Result<StatusComment, StatusError>> {
        let range = self.status_range()?;
        let store = &*self.store;
        let slots = store
            .parsed
            .get_or_init(|| store.records.iter().map(|_| ParsedStatus::new()).collect());
        Some(slots[self.index()].get_or_init(|| {
            Box::new(StatusComment::parse(
                &part[range.start - base..range.end - base],
            ))
        }))
    }

    /// [`Message::status_in`] for work that keeps what it needs of the comment itself
    /// (the per-message checks of an open chat): parsed afresh unless the store has it,
    /// and not put in the store. The store's parsed copy of every comment of a long
    /// chat stayed in memory beside what that work kept (12 MB in a chat of 20,000
    /// answers that each record what they saw).
    pub fn status_read_in(
        &self,
        part: &str,
        base: usize,
    ) -> Option<std::borrow::Cow<'_, Result<StatusComment, StatusError>>> {
        let range = self.status_range()?;
        let kept = self
            .store
            .parsed
            .get()
            .and_then(|s| s[self.index()].get())
            .map(|parsed| &**parsed);
        Some(match kept {
            Some(parsed) => std::borrow::Cow::Borrowed(parsed),
            None => std::borrow::Cow::Owned(StatusComment::parse(
                &part[range.start - base..range.end - base],
            )),
        })
    }

    /// This message's run of one of its store's lists (see [`Store::run`]).
    fn run<T>(&self, list: fn(&Store) -> &[T], at: fn(&T) -> usize) -> &[T] {
        self.store.run(self.index(), list, at)
    }

    fn marker_slice(&self) -> &[Marker] {
        self.run(|s| &s.markers, |m| m.range.start)
    }

    pub fn mentions(&self) -> impl Iterator<Item = Mention> + '_ {
        let mentions = self.run(|s| &s.mentions.0, |m| m.at);
        mentions.iter().map(|m| m.mention(self.delta as isize))
    }

    pub fn markers(&self) -> impl Iterator<Item = Marker> + '_ {
        let delta = self.delta as isize;
        self.marker_slice()
            .iter()
            .map(move |m| moved_marker(m, delta))
    }

    pub fn permissions(&self) -> impl Iterator<Item = PermissionBlock> + '_ {
        let options = &self.store.options;
        let permissions = self.run(|s| &s.permissions, |p| p.range.start);
        permissions.iter().map(|p| PermissionBlock {
            range: shifted(&p.range, self.delta),
            id: shifted(&p.id, self.delta),
            text: shifted(&p.text, self.delta),
            options: options[p.options.clone()]
                .iter()
                .map(|o| moved_option(o, self.delta as isize))
                .collect(),
        })
    }

    pub fn code_blocks(&self) -> impl Iterator<Item = CodeBlock> + '_ {
        let blocks = self.run(|s| &s.code_blocks, |c| c.start);
        blocks.iter().map(|c| c.block(self.delta as isize))
    }

    pub fn handle<'t>(&self, text: &'t str) -> &'t str {
        &text[self.handle_range()]
    }

    pub fn body<'t>(&self, text: &'t str) -> &'t str {
        &text[self.body_range()]
    }

    /// Whether the body holds nothing but white space (a reply stub).
    pub fn is_empty(&self, text: &str) -> bool {
        self.body(text).trim().is_empty()
    }

    /// A human message that is exactly `/end` ends the conversation.
    pub fn is_end_command(&self, text: &str) -> bool {
        self.body(text).trim() == "/end"
    }

    /// An agent that declines to speak answers exactly `SKIP`.
    pub fn is_skip(&self, text: &str) -> bool {
        self.body(text).trim() == "SKIP"
    }

    pub fn has_done_marker(&self) -> bool {
        self.marker_slice()
            .iter()
            .any(|m| m.kind == MarkerKind::Done)
    }

    /// The handle named by the message's last `[NEXT: x]` marker.
    pub fn next_marker<'t>(&self, text: &'t str) -> Option<&'t str> {
        self.markers()
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .find_map(|m| match m.kind {
                MarkerKind::Next(h) => Some(&text[h]),
                MarkerKind::Done => None,
            })
    }

    /// The status comment, when it parsed.
    pub fn status_comment(&self, text: &str) -> Option<&StatusComment> {
        self.status_comment_in(text, 0)
    }

    /// [`Message::status_comment`] from `part`, as [`Message::status_in`].
    pub fn status_comment_in(&self, part: &str, base: usize) -> Option<&StatusComment> {
        self.status_in(part, base).and_then(|s| s.as_ref().ok())
    }

    /// The first words of the message (for outlines), at most `max` chars.
    pub fn summary(&self, text: &str, max: usize) -> String {
        summary_of(self.body(text), max)
    }
}

/// The first words of a message's `body` (for outlines), at most `max` chars.
pub fn summary_of(body: &str, max: usize) -> String {
    let (summary, cut) = summary_parts(body, max);
    let mut out = String::with_capacity(summary.len() + '…'.len_utf8());
    out.push_str(summary);
    if cut {
        out.push('…');
    }
    out
}

/// [`summary_of`] in parts: its text, borrowed from `body`, and whether `…` follows.
pub fn summary_parts(body: &str, max: usize) -> (&str, bool) {
    let line = Lines::new(body)
        .map(|line| body[line.range()].trim())
        .find(|l| !l.is_empty() && !l.starts_with("<!--") && !l.starts_with("```"))
        .unwrap_or("");
    // The first `max` chars, and `…` when there are more (a line of a long answer
    // runs on for hundreds).
    match line.char_indices().nth(max) {
        Some((at, _)) => (&line[..at], true),
        None => (line, false),
    }
}
