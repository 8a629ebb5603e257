//! The chat model: a `.chat.md` text split into front matter, preamble and messages,
//! with status comments, mentions, markers, permission blocks and code blocks, all as
//! byte ranges into the text. Parsing is one pass of the line scanner.

use super::ByteRange;
use super::front_matter::{self, FrontMatter};
use super::inline::{Marker, MarkerKind, Mention};
use super::permission::PermissionBlock;
use super::status::{StatusComment, StatusError};

mod incremental;
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

/// The status comment line of a message, parsed.
#[derive(Clone, Debug, PartialEq)]
pub struct StatusLine {
    /// The line, without its line break.
    pub range: ByteRange,
    pub comment: Result<StatusComment, StatusError>,
}

/// One message: a `## @handle` heading and everything up to the next one.
#[derive(Clone, Debug, PartialEq)]
pub struct Message {
    /// From the heading's first byte to the next message's heading (or the end).
    pub range: ByteRange,
    /// The heading line, without its line break.
    pub header: ByteRange,
    /// The handle on the heading, without the `@`.
    pub handle: ByteRange,
    pub status: Option<StatusLine>,
    /// Everything after the heading line and the status line.
    pub body: ByteRange,
    pub mentions: Vec<Mention>,
    pub markers: Vec<Marker>,
    pub permissions: Vec<PermissionBlock>,
    pub code_blocks: Vec<CodeBlock>,
}

impl Message {
    pub fn handle<'t>(&self, text: &'t str) -> &'t str {
        &text[self.handle.clone()]
    }

    pub fn body<'t>(&self, text: &'t str) -> &'t str {
        &text[self.body.clone()]
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
        self.markers.iter().any(|m| m.kind == MarkerKind::Done)
    }

    /// The handle named by the message's last `[NEXT: x]` marker.
    pub fn next_marker<'t>(&self, text: &'t str) -> Option<&'t str> {
        self.markers.iter().rev().find_map(|m| match &m.kind {
            MarkerKind::Next(h) => Some(&text[h.clone()]),
            MarkerKind::Done => None,
        })
    }

    /// The status comment, when it parsed.
    pub fn status_comment(&self) -> Option<&StatusComment> {
        self.status.as_ref().and_then(|s| s.comment.as_ref().ok())
    }

    /// The first words of the message (for outlines), at most `max` chars.
    pub fn summary(&self, text: &str, max: usize) -> String {
        let line = self
            .body(text)
            .lines()
            .map(str::trim)
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
    /// Parses a whole document.
    pub fn parse(text: &str) -> Chat {
        let front_matter =
            front_matter::locate(text).map(|block| front_matter::parse(text, &block));
        let body_start = front_matter.as_ref().map_or(0, |f| f.block.range.end);
        let scan = scan(text, 0, body_start, |_| false);
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
        let i = self.messages.partition_point(|m| m.range.start <= offset);
        (i > 0 && offset <= self.messages[i - 1].range.end).then(|| i - 1)
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
        if hit(&m.handle) {
            return Some(m.handle.clone());
        }
        if let Some(mention) = m.mentions.iter().find(|x| hit(&x.handle)) {
            return Some(mention.handle.clone());
        }
        m.markers.iter().find_map(|x| match &x.kind {
            MarkerKind::Next(h) if hit(h) => Some(h.clone()),
            _ => None,
        })
    }

    /// Whether `offset` lies inside a fenced code block.
    pub fn in_code(&self, offset: usize) -> bool {
        self.code_blocks()
            .any(|b| b.range.start < offset && offset <= b.range.end)
    }

    /// Every fenced code block, in document order.
    pub fn code_blocks(&self) -> impl Iterator<Item = &CodeBlock> {
        self.preamble_code_blocks
            .iter()
            .chain(self.messages.iter().flat_map(|m| m.code_blocks.iter()))
    }

    /// Renders the document back from its parts. Parsing and rendering reproduce the
    /// text byte for byte; a status comment in canonical form is rendered from its
    /// fields, anything else exactly as written.
    pub fn render(&self, text: &str) -> String {
        let mut out = String::with_capacity(text.len());
        out.push_str(&text[..self.preamble.end]);
        for m in &self.messages {
            out.push_str(&text[m.range.start..m.header.end]);
            let mut rest = m.header.end;
            if let Some(status) = &m.status {
                out.push_str(&text[rest..status.range.start]);
                let raw = &text[status.range.clone()];
                match &status.comment {
                    Ok(c) if c.render() == raw => out.push_str(&c.render()),
                    _ => out.push_str(raw),
                }
                rest = status.range.end;
            }
            out.push_str(&text[rest..m.range.end]);
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
