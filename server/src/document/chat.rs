//! The chat model: a `.chat.md` text split into front matter, preamble and messages,
//! with status comments, mentions, markers, permission blocks and code blocks, all as
//! byte ranges into the text. Parsing is one pass of the line scanner.

use super::ByteRange;
use super::front_matter::{self, FrontMatter};
use super::inline::{Marker, MarkerKind, Mention};
use super::lines::Lines;
use super::permission::PermissionBlock;
use super::status::{StatusComment, StatusError};

mod incremental;
mod parts;
mod scan;

use scan::scan;

/// A fenced code block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CodeBlock {
    /// From the start of the opening fence line to the end of the closing fence line
    /// (without its line break), or to the end of the scanned text when unclosed.
    pub range: ByteRange,
    /// The opening fence line, without its line break.
    pub opening: ByteRange,
    pub closed: bool,
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

/// Where one message's parts are in its scan's [`Store`], with byte ranges as they
/// were when it was scanned. A message's items in each list run from its record's
/// first index to the next record's (or the end of the list), and the message itself
/// from its heading to the next record's heading (or the end of the scan).
#[derive(Clone, Debug)]
pub(super) struct Record {
    /// The heading line, without its line break; the message starts where it starts.
    pub(super) header: ByteRange,
    pub(super) handle: ByteRange,
    /// The status comment line (without its line break); empty when there is none.
    pub(super) status: ByteRange,
    pub(super) body_start: usize,
    pub(super) first_mention: usize,
    pub(super) first_marker: usize,
    pub(super) first_permission: usize,
    pub(super) first_code_block: usize,
}

/// A status comment as parsed, cached for the messages that share a store.
type ParsedStatus = std::sync::OnceLock<Result<StatusComment, StatusError>>;

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
    pub(super) mentions: Vec<Mention>,
    pub(super) markers: Vec<Marker>,
    pub(super) permissions: Vec<StoredPermission>,
    pub(super) options: Vec<super::permission::PermissionOption>,
    pub(super) code_blocks: Vec<CodeBlock>,
    /// Where the last message ends.
    pub(super) end: usize,
    /// One slot per record, made when the first status comment is asked for.
    pub(super) parsed: std::sync::OnceLock<Box<[ParsedStatus]>>,
}

impl Store {
    /// The range of the `i`th record's items in a list, given each record's first index.
    fn items(
        &self,
        i: usize,
        first: impl Fn(&Record) -> usize,
        len: usize,
    ) -> std::ops::Range<usize> {
        first(&self.records[i])..self.records.get(i + 1).map_or(len, first)
    }
}

/// One message: a `## @handle` heading and everything up to the next one.
///
/// The parts live in the store of the scan that found them, shared (`Arc`) by all its
/// messages. A message records only which of them it is and how far it moved since it
/// was scanned, so an edit early in a long chat shifts every later message in O(1)
/// and copying a chat for a request costs one reference count per message.
#[derive(Clone)]
pub struct Message {
    delta: isize,
    index: usize,
    store: std::sync::Arc<Store>,
}

fn shifted(r: &ByteRange, delta: isize) -> ByteRange {
    r.start.wrapping_add_signed(delta)..r.end.wrapping_add_signed(delta)
}

impl PartialEq for Message {
    /// Messages are equal when they are equal where they are now.
    fn eq(&self, other: &Message) -> bool {
        if std::sync::Arc::ptr_eq(&self.store, &other.store)
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
    pub(super) fn new(store: std::sync::Arc<Store>, index: usize) -> Message {
        Message {
            delta: 0,
            index,
            store,
        }
    }

    fn record(&self) -> &Record {
        &self.store.records[self.index]
    }

    /// Where the message ends, as scanned.
    fn end(&self) -> usize {
        let store = &*self.store;
        store
            .records
            .get(self.index + 1)
            .map_or(store.end, |next| next.header.start)
    }

    /// Moves the message by `delta` bytes (text was inserted or removed before it).
    pub(super) fn shift(&mut self, delta: isize) {
        self.delta += delta;
    }

    /// From the heading's first byte to the next message's heading (or the end).
    pub fn range(&self) -> ByteRange {
        shifted(&(self.record().header.start..self.end()), self.delta)
    }

    /// The heading line, without its line break.
    pub fn header(&self) -> ByteRange {
        shifted(&self.record().header, self.delta)
    }

    /// The handle on the heading, without the `@`.
    pub fn handle_range(&self) -> ByteRange {
        shifted(&self.record().handle, self.delta)
    }

    /// Everything after the heading line and the status line.
    pub fn body_range(&self) -> ByteRange {
        let start = self.record().body_start;
        shifted(&(start..self.end().max(start)), self.delta)
    }

    /// The status comment line (without its line break), if the message has one.
    pub fn status_range(&self) -> Option<ByteRange> {
        let status = &self.record().status;
        (!status.is_empty()).then(|| shifted(status, self.delta))
    }

    /// The status comment as parsed (`Err` when the line is malformed). `text` is the
    /// document the message belongs to.
    pub fn status(&self, text: &str) -> Option<&Result<StatusComment, StatusError>> {
        let range = self.status_range()?;
        let store = &*self.store;
        let slots = store
            .parsed
            .get_or_init(|| store.records.iter().map(|_| ParsedStatus::new()).collect());
        Some(slots[self.index].get_or_init(|| StatusComment::parse(&text[range])))
    }

    fn mention_slice(&self) -> &[Mention] {
        let store = &*self.store;
        &store.mentions[store.items(self.index, |r| r.first_mention, store.mentions.len())]
    }

    fn marker_slice(&self) -> &[Marker] {
        let store = &*self.store;
        &store.markers[store.items(self.index, |r| r.first_marker, store.markers.len())]
    }

    pub fn mentions(&self) -> impl Iterator<Item = Mention> + '_ {
        self.mention_slice().iter().map(|m| Mention {
            range: shifted(&m.range, self.delta),
            handle: shifted(&m.handle, self.delta),
        })
    }

    pub fn markers(&self) -> impl Iterator<Item = Marker> + '_ {
        self.marker_slice().iter().map(|m| Marker {
            range: shifted(&m.range, self.delta),
            kind: match &m.kind {
                MarkerKind::Next(h) => MarkerKind::Next(shifted(h, self.delta)),
                MarkerKind::Done => MarkerKind::Done,
            },
        })
    }

    pub fn permissions(&self) -> impl Iterator<Item = PermissionBlock> + '_ {
        let store = &*self.store;
        let items = store.items(self.index, |r| r.first_permission, store.permissions.len());
        store.permissions[items].iter().map(|p| PermissionBlock {
            range: shifted(&p.range, self.delta),
            id: shifted(&p.id, self.delta),
            text: shifted(&p.text, self.delta),
            options: store.options[p.options.clone()]
                .iter()
                .map(|o| super::permission::PermissionOption {
                    label: shifted(&o.label, self.delta),
                    checked: o.checked,
                })
                .collect(),
        })
    }

    pub fn code_blocks(&self) -> impl Iterator<Item = CodeBlock> + '_ {
        let store = &*self.store;
        let items = store.items(self.index, |r| r.first_code_block, store.code_blocks.len());
        store.code_blocks[items].iter().map(|c| CodeBlock {
            range: shifted(&c.range, self.delta),
            opening: shifted(&c.opening, self.delta),
            closed: c.closed,
        })
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
        self.status(text).and_then(|s| s.as_ref().ok())
    }

    /// The first words of the message (for outlines), at most `max` chars.
    pub fn summary(&self, text: &str, max: usize) -> String {
        let body = self.body(text);
        let line = Lines::new(body)
            .map(|line| body[line.range()].trim())
            .find(|l| !l.is_empty() && !l.starts_with("<!--") && !l.starts_with("```"))
            .unwrap_or("");
        let mut out: String = line.chars().take(max).collect();
        if line.chars().count() > max {
            out.push('…');
        }
        out
    }
}

/// A parsed `.chat.md` document.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Chat {
    pub front_matter: Option<FrontMatter>,
    /// The text between the front matter and the first message.
    pub preamble: ByteRange,
    pub preamble_code_blocks: Vec<CodeBlock>,
    pub messages: Vec<Message>,
    /// The length of the text this was parsed from.
    pub len: usize,
    /// An edit that starts before this offset may create, change or remove the front
    /// matter, so it re-parses the whole document.
    pub(super) full_reparse_before: usize,
}

impl Chat {
    /// Parses a whole document (a long one in parts, on as many threads as the
    /// machine runs at once).
    pub fn parse(text: &str) -> Chat {
        Chat::parse_on_threads(text, parts::available_threads())
    }

    /// [`Chat::parse`] on at most `threads` threads; each takes at least 1 MiB.
    pub fn parse_on_threads(text: &str, threads: usize) -> Chat {
        Chat::parse_in_parts(text, |len| parts::part_count(len, threads))
    }

    /// [`Chat::parse`], with the messages cut into `parts(their length)` parts.
    fn parse_in_parts(text: &str, parts: impl Fn(usize) -> usize) -> Chat {
        let front_matter =
            front_matter::locate(text).map(|block| front_matter::parse(text, &block));
        let body_start = front_matter.as_ref().map_or(0, |f| f.block.range.end);
        let parts = parts(text.len() - body_start);
        let scan = if parts > 1 {
            parts::scan_in_parts(text, body_start, parts)
        } else {
            scan(text, 0, body_start, |_| false)
        };
        let full_reparse_before = match &front_matter {
            Some(fm) => fm.block.range.end,
            None if opens_front_matter(text) => usize::MAX,
            None => text.find(['\n', '\r']).map_or(usize::MAX, |i| i + 1),
        };
        Chat {
            full_reparse_before,
            front_matter,
            preamble: body_start..scan.first_header.unwrap_or(text.len()),
            preamble_code_blocks: scan.preamble_code_blocks,
            messages: scan.messages,
            len: text.len(),
        }
    }

    /// Where the messages' part of the document starts (after the front matter).
    pub fn body_start(&self) -> usize {
        self.front_matter.as_ref().map_or(0, |f| f.block.range.end)
    }

    /// The index of the message that contains `offset`.
    pub fn message_at(&self, offset: usize) -> Option<usize> {
        let i = self.messages.partition_point(|m| m.range().start <= offset);
        (i > 0 && offset <= self.messages[i - 1].range().end).then(|| i - 1)
    }

    /// The `@handle` (header, mention, `[NEXT: x]` or `members:` entry) whose handle
    /// range contains `offset` (or ends right at it).
    pub fn handle_at(&self, offset: usize) -> Option<ByteRange> {
        let hit = |r: &ByteRange| r.start <= offset && offset <= r.end;
        if let Some(fm) = &self.front_matter
            && let Some(members) = &fm.members
            && let Some(m) = members.iter().find(|m| hit(&m.range))
        {
            return Some(m.range.clone());
        }
        let m = &self.messages[self.message_at(offset)?];
        if hit(&m.handle_range()) {
            return Some(m.handle_range());
        }
        if let Some(mention) = m.mentions().find(|x| hit(&x.handle)) {
            return Some(mention.handle);
        }
        m.markers().find_map(|x| match x.kind {
            MarkerKind::Next(h) if hit(&h) => Some(h),
            _ => None,
        })
    }

    /// Whether `offset` lies inside a fenced code block.
    pub fn in_code(&self, offset: usize) -> bool {
        self.code_blocks()
            .any(|b| b.range.start < offset && offset <= b.range.end)
    }

    /// Every fenced code block, in document order.
    pub fn code_blocks(&self) -> impl Iterator<Item = CodeBlock> + '_ {
        self.preamble_code_blocks
            .iter()
            .cloned()
            .chain(self.messages.iter().flat_map(|m| m.code_blocks()))
    }

    /// Renders the document back from its parts. Parsing and rendering reproduce the
    /// text byte for byte; a status comment in canonical form is rendered from its
    /// fields, anything else exactly as written.
    pub fn render(&self, text: &str) -> String {
        let mut out = String::with_capacity(text.len());
        out.push_str(&text[..self.preamble.end]);
        for m in &self.messages {
            let (range, header) = (m.range(), m.header());
            out.push_str(&text[range.start..header.end]);
            let mut rest = header.end;
            if let (Some(status), Some(comment)) = (m.status_range(), m.status(text)) {
                out.push_str(&text[rest..status.start]);
                let raw = &text[status.clone()];
                match comment {
                    Ok(c) if c.render() == raw => out.push_str(&c.render()),
                    _ => out.push_str(raw),
                }
                rest = status.end;
            }
            out.push_str(&text[rest..range.end]);
        }
        out
    }
}

/// Whether the first line is a front matter opener (`---`), closed or not: while it is
/// unclosed, typing the closing line anywhere turns the top into front matter.
fn opens_front_matter(text: &str) -> bool {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let first = text.split(['\n', '\r']).next().unwrap_or("");
    first.trim_end_matches([' ', '\t']) == "---"
}

#[cfg(test)]
mod tests;
