//! The one-pass scan that turns lines into messages: headings, status comments,
//! permission blocks, code blocks, mentions and markers, all as absolute byte ranges.
//!
//! Everything the scan finds goes into one [`Store`] of flat lists, which its messages
//! share: a parse makes a handful of allocations, not several per message. The scan
//! works on bytes: lines start and end at ASCII bytes, so no slice of a line needs a
//! UTF-8 boundary check, and it looks for `@`, `[` and backticks once per stretch of
//! text between them rather than once per line.

use std::sync::Arc;

use super::store::{
    LONGEST_RECORDED_LINE, Mentions, Record, Store, StoredCodeBlock, StoredPermission,
};
use super::{CodeBlock, Message};
use crate::document::permission::{self, PermissionBlock};
use crate::document::scanner::{LineKind, Scanner, message_at};
use crate::document::{bytes, inline};

pub(super) struct Scan {
    pub first_header: Option<usize>,
    pub preamble_code_blocks: Vec<CodeBlock>,
    pub messages: Vec<Message>,
}

/// The scan's working state.
struct Building {
    store: Store,
    preamble_code_blocks: Vec<CodeBlock>,
    open_code: Option<CodeBlock>,
    /// A permission block still taking lines; its options go to the store from
    /// `first_option` on.
    permission: Option<PermissionBlock>,
    first_option: usize,
    /// How many `<details>` elements are open in the current message.
    open_details: usize,
}

/// The prefix of a status comment line.
const STATUS_PREFIX: &[u8] = b"<!-- chatmd";

/// Scans `text` (which starts at absolute offset `base`) from the relative offset
/// `from`. `stop` is asked at every message heading (absolute offset) and ends the
/// scan before that heading when it returns true.
pub(super) fn scan(text: &str, base: usize, from: usize, stop: impl FnMut(usize) -> bool) -> Scan {
    scan_with_room(text, base, from, (text.len() - from, 0), stop)
}

/// [`scan`], with room made for what `expected` bytes of text usually hold (the part
/// of the text the scan is expected to cover before `stop` ends it), and in its list of
/// messages for `messages` of them (the parts after it join it there).
pub(super) fn scan_with_room(
    text: &str,
    base: usize,
    from: usize,
    (expected, messages): (usize, usize),
    mut stop: impl FnMut(usize) -> bool,
) -> Scan {
    let bytes = text.as_bytes();
    let mut out = Building {
        store: Store::with_room_for(&bytes[from..(from + expected).min(bytes.len())]),
        preamble_code_blocks: Vec::new(),
        open_code: None,
        permission: None,
        first_option: 0,
        open_details: 0,
    };
    let mut expect_status = false;
    let mut end_of_scan = text.len();
    // The first `@`, `[` or backtick at or after the start of the last line that was
    // looked at for mentions (or after `from`): lines before it have none.
    let mut next_special = find_special(bytes, from);
    for line in Scanner::new(text, from) {
        if let Some(content) = message_at(&bytes[line.range()], line.kind)
            && line.next - line.start < LONGEST_RECORDED_LINE
        {
            let at = line.start + content;
            let handle_len = inline::handle_len(&bytes[at + 1..line.end]);
            if stop(base + line.start) {
                end_of_scan = line.start;
                break;
            }
            out.finish_message(base + line.start);
            let store = &mut out.store;
            // Each fits: the line is shorter than LONGEST_RECORDED_LINE.
            store.records.push(Record::heading(
                base + line.start,
                line.end - line.start,
                line.next - line.end,
                (at + 1 - line.start, handle_len),
            ));
            expect_status = true;
            continue;
        }
        let line_bytes = &bytes[line.start..line.end];
        if expect_status {
            expect_status = false;
            let store = &mut out.store;
            let record = store.records.last_mut().expect("in a message");
            let at = record.body_at() as usize;
            if line_bytes.starts_with(STATUS_PREFIX)
                && at + (line.next - line.start) < LONGEST_RECORDED_LINE
            {
                // Both under 256 MiB: the status line right after the heading line.
                record.set_status(line.end - line.start, line.next - line.end);
                continue;
            }
        }
        // Anything but text only opens, closes or ends a block.
        if !matches!(
            line.kind,
            LineKind::Text | LineKind::Quote | LineKind::Heading { .. } | LineKind::NestedHeading
        ) {
            match line.kind {
                LineKind::FenceOpen => {
                    out.finish_permission();
                    out.open_code = Some(CodeBlock {
                        range: base + line.start..base + text.len(),
                        opening: base + line.start..base + line.end,
                        closed: false,
                    });
                }
                LineKind::FenceClose => {
                    if let Some(mut block) = out.open_code.take() {
                        block.range.end = base + line.end;
                        block.closed = true;
                        out.push_code_block(block);
                    }
                }
                LineKind::Html => {
                    out.finish_permission();
                    out.open_details = details_after(out.open_details, line_bytes);
                }
                _ => out.finish_permission(),
            }
            continue;
        }
        if out.store.records.is_empty() {
            continue;
        }
        let quoted = line_bytes.first() == Some(&b'>');
        if let Some(block) = &mut out.permission {
            // Only a `>` line can continue a permission block.
            if quoted
                && permission::extend_into(
                    &mut block.range,
                    &mut out.store.options,
                    &text[line.start..line.end],
                    base + line.start,
                )
            {
                continue;
            }
            out.finish_permission();
        }
        if quoted && line_bytes.starts_with(permission::PREFIX.as_bytes()) {
            out.permission =
                permission::parse_first_line(&text[line.start..line.end], base + line.start);
            if out.permission.is_some() {
                out.first_option = out.store.options.len();
                continue;
            }
        }
        // Mentions and markers count only in prose (docs/format.md): not in a block
        // quote (a quote line, lazy ones included), which holds someone else's words,
        // nor inside a `<details>` element, such as the tools block the server writes
        // at the end of an answer.
        if next_special < line.end
            && out.open_details == 0
            && line.kind != LineKind::Quote
            && !(line.kind == LineKind::NestedHeading && starts_quote(line_bytes))
        {
            if next_special < line.start {
                next_special = find_special(bytes, line.start);
            }
            if next_special < line.end {
                let store = &mut out.store;
                inline::scan_from(
                    line_bytes,
                    next_special - line.start,
                    base + line.start,
                    &mut store.mentions,
                    &mut store.markers,
                );
            }
        }
    }
    out.finish_message(base + end_of_scan);
    out.store.shrink_to_fit();
    out.store.end = base + end_of_scan;
    let store = Arc::new(out.store);
    let mut list = Vec::with_capacity(messages.max(store.records.len()));
    list.extend((0..store.records.len()).map(|i| Message::new(Arc::clone(&store), i)));
    Scan {
        first_header: store.records.first().map(|r| r.start),
        preamble_code_blocks: out.preamble_code_blocks,
        messages: list,
    }
}

/// Whether a line's first byte after its indentation is a block quote's `>`.
pub(crate) fn starts_quote(line: &[u8]) -> bool {
    line.iter().find(|&&b| b != b' ' && b != b'\t') == Some(&b'>')
}

/// How many `<details>` elements are open after an HTML line, `open` before it.
pub(crate) fn details_after(mut open: usize, line: &[u8]) -> usize {
    let tag_ends = |b: Option<&u8>| matches!(b, None | Some(b'>' | b' ' | b'\t' | b'/'));
    for (i, _) in line.iter().enumerate().filter(|&(_, &b)| b == b'<') {
        let tag = &line[i + 1..];
        if tag.len() >= 7 && tag[..7].eq_ignore_ascii_case(b"details") && tag_ends(tag.get(7)) {
            open += 1;
        } else if tag.len() >= 8
            && tag[..8].eq_ignore_ascii_case(b"/details")
            && tag_ends(tag.get(8))
        {
            open = open.saturating_sub(1);
        }
    }
    open
}

/// The offset of the first `@`, `[` or backtick at or after `from` (the text's length
/// when there is none).
fn find_special(bytes: &[u8], from: usize) -> usize {
    bytes::find_inline_start(bytes, from).unwrap_or(bytes.len())
}

/// About how many message headings `text` holds, reckoned from those in its first
/// 64 KB, with a quarter more for a text that goes on denser.
pub(super) fn reckon_headings(text: &[u8]) -> usize {
    const SAMPLE: usize = 64 << 10;
    let sample = &text[..text.len().min(SAMPLE)];
    let sampled = usize::from(sample.starts_with(b"## @"))
        + memchr::memmem::find_iter(sample, b"\n## @").count();
    (sampled * text.len() / sample.len().max(1)) * 5 / 4
}

impl Store {
    /// An empty store with room for what `part` (the text to scan) usually holds.
    ///
    /// Growing the lists from nothing copies them again and again, and on a long chat
    /// those copies (and the fresh pages they land in) cost more than the scan itself.
    /// Room for an item per `BYTES_PER_ITEM` bytes holds the lists of most chats.
    /// (Reserving much more was slower in the benchmark: larger blocks come fresh from
    /// the system each time.) The records are reckoned instead from the headings in the
    /// part's first 64 KB: a chat of 500,000 short messages grew them five times,
    /// copying 15 MB (counting every heading of 10 MB of them took 5 ms). What stays
    /// unused is never touched, and is given back at the end.
    fn with_room_for(part: &[u8]) -> Store {
        const BYTES_PER_ITEM: usize = 512;
        let items = part.len() / BYTES_PER_ITEM;
        let headings = reckon_headings(part);
        Store {
            records: Vec::with_capacity(headings.max(items)),
            mentions: Mentions(Vec::with_capacity(items)),
            markers: Vec::with_capacity(items),
            code_blocks: Vec::with_capacity(items),
            permissions: Vec::with_capacity(items / 4),
            options: Vec::with_capacity(items / 2),
            ..Store::default()
        }
    }

    fn shrink_to_fit(&mut self) {
        self.records.shrink_to_fit();
        self.mentions.0.shrink_to_fit();
        self.markers.shrink_to_fit();
        self.code_blocks.shrink_to_fit();
        self.permissions.shrink_to_fit();
        self.options.shrink_to_fit();
    }
}

impl Building {
    #[inline]
    fn finish_permission(&mut self) {
        if self.permission.is_some() {
            self.store_permission();
        }
    }

    #[cold]
    fn store_permission(&mut self) {
        if let Some(block) = self.permission.take()
            && !self.store.records.is_empty()
        {
            self.store.permissions.push(StoredPermission {
                range: block.range,
                id: block.id,
                text: block.text,
                options: self.first_option..self.store.options.len(),
            });
        }
    }

    fn push_code_block(&mut self, block: CodeBlock) {
        if self.store.records.is_empty() {
            self.preamble_code_blocks.push(block);
        } else {
            self.store.code_blocks.push(StoredCodeBlock::new(&block));
        }
    }

    /// Closes the current message at `end` (absolute): any block still open in it.
    fn finish_message(&mut self, end: usize) {
        self.finish_permission();
        self.open_details = 0;
        if let Some(mut block) = self.open_code.take() {
            block.range.end = end;
            self.push_code_block(block);
        }
    }
}
