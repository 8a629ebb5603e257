//! The chat model: a `.chat.md` text split into front matter, preamble and messages,
//! with status comments, mentions, markers, permission blocks and code blocks, all as
//! byte ranges into the text. Parsing is one pass of the line scanner.

use super::ByteRange;
use super::front_matter::{self, FrontMatter};
use super::inline::MarkerKind;

mod incremental;
mod message;
mod parts;
mod scan;
mod store;

pub use incremental::Reparsed;
pub use message::{Message, summary_of, summary_parts};
use scan::scan;
pub(crate) use scan::{details_after, starts_quote};

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
        // The machine's threads are asked only for a chat long enough to cut: asking
        // reads the cgroup's files, a tenth of a millisecond of a short `chatmd send`.
        Chat::parse_in_parts(text, |len| match parts::part_count(len, usize::MAX) {
            1 => 1,
            _ => parts::part_count(len, parts::available_threads()),
        })
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

    /// The messages from index `from` on, as a chat of the text that starts where the
    /// first of them does (their ranges moved back by that many bytes), so that the
    /// latest messages of a long chat can be read without the text before them. The
    /// front matter is kept for its values; its ranges still count from the document's
    /// start and must not index the shorter text. No preamble.
    pub fn tail(&self, from: usize) -> Chat {
        let base = self
            .messages
            .get(from)
            .map_or(self.len, |m| m.range().start);
        let messages = self.messages[from.min(self.messages.len())..]
            .iter()
            .map(|m| {
                let mut m = m.clone();
                m.shift(-(base as isize));
                m
            })
            .collect();
        Chat {
            front_matter: self.front_matter.clone(),
            preamble: 0..0,
            preamble_code_blocks: Vec::new(),
            messages,
            len: self.len - base,
            full_reparse_before: usize::MAX,
        }
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
