//! The chat model: a `.chat.md` text split into front matter, preamble and messages,
//! with status comments, mentions, markers, permission blocks and code blocks, all as
//! byte ranges into the text. Parsing is one pass of the line scanner.

use super::ByteRange;
use super::front_matter::{self, FrontMatter};
use super::inline::{self, Marker, MarkerKind, Mention};
use super::permission::{self, PermissionBlock};
use super::scanner::{LineKind, Scanner};
use super::status::{StatusComment, StatusError};

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

    fn shift(&mut self, delta: isize) {
        let s = |r: &mut ByteRange| {
            r.start = r.start.wrapping_add_signed(delta);
            r.end = r.end.wrapping_add_signed(delta);
        };
        s(&mut self.range);
        s(&mut self.header);
        s(&mut self.handle);
        s(&mut self.body);
        if let Some(st) = &mut self.status {
            s(&mut st.range);
        }
        for m in &mut self.mentions {
            s(&mut m.range);
            s(&mut m.handle);
        }
        for m in &mut self.markers {
            s(&mut m.range);
            if let MarkerKind::Next(h) = &mut m.kind {
                s(h);
            }
        }
        for p in &mut self.permissions {
            s(&mut p.range);
            s(&mut p.id);
            s(&mut p.text);
            for o in &mut p.options {
                s(&mut o.label);
            }
        }
        for c in &mut self.code_blocks {
            s(&mut c.range);
            s(&mut c.opening);
        }
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
    full_reparse_before: usize,
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

    /// Re-parses after `edit` changed the text, re-scanning only from the message
    /// before the edit to the first unchanged message heading after it. `fetch`
    /// returns a slice of the NEW text; `new_len` is its length. The result equals
    /// `Chat::parse` of the new text.
    pub fn reparse(
        &mut self,
        edit: &super::text::Edit,
        new_len: usize,
        fetch: impl Fn(ByteRange) -> String,
    ) {
        let delta = edit.delta();
        // Edits that can change the front matter (or create one) re-parse everything.
        if edit.start <= self.full_reparse_before {
            *self = Chat::parse(&fetch(0..new_len));
            return;
        }
        // Restart at the last message whose heading line lies wholly before the edit:
        // it is still a heading, and the scanner's state after it is known to be clean.
        let keep = self
            .messages
            .partition_point(|m| header_line_end(m) < edit.start);
        let (restart, in_preamble) = match keep.checked_sub(1) {
            Some(i) => (self.messages[i].range.start, false),
            None => (self.body_start(), true),
        };
        let keep_before = keep.saturating_sub(1);
        // The first old message that starts after the edit is where the new scan can
        // rejoin the old one.
        let resume = self
            .messages
            .partition_point(|m| m.range.start < edit.old_end);
        let old_starts: Vec<usize> = self.messages[resume..]
            .iter()
            .map(|m| m.range.start)
            .collect();
        let mut window = (edit.new_end - restart).max(1 << 16) * 2;
        loop {
            let end = (restart + window).min(new_len);
            let text = fetch(restart..end);
            // A window that does not reach the end may cut the last line; scan whole lines.
            let usable = if end == new_len {
                text.len()
            } else {
                text.rfind('\n').map_or(0, |i| i + 1)
            };
            let slice = &text[..usable];
            let mut rejoin = None;
            let result = scan(slice, restart, 0, |pos| {
                if pos < edit.new_end {
                    return false;
                }
                let old = pos as isize - delta;
                if old >= 0 && old_starts.binary_search(&(old as usize)).is_ok() {
                    rejoin = Some(old as usize);
                    return true;
                }
                false
            });
            if rejoin.is_none() && end < new_len {
                window *= 2;
                continue;
            }
            let mut tail: Vec<Message> = match rejoin {
                Some(old) => {
                    let from = self.messages.partition_point(|m| m.range.start < old);
                    self.messages.drain(from..).collect()
                }
                None => Vec::new(),
            };
            for m in &mut tail {
                m.shift(delta);
            }
            self.messages.truncate(keep_before);
            if in_preamble {
                self.messages.clear();
                self.preamble.end = result.first_header.unwrap_or(restart + usable);
                self.preamble_code_blocks = result.preamble_code_blocks;
            }
            let mut new = result.messages;
            // The last re-scanned message runs up to the rejoin point or the end.
            if let Some(last) = new.last_mut() {
                last.range.end = tail.first().map_or(new_len, |m| m.range.start);
                last.body.end = last.range.end.max(last.body.start);
            } else if in_preamble {
                self.preamble.end = tail.first().map_or(new_len, |m| m.range.start);
            }
            self.messages.extend(new);
            self.messages.extend(tail);
            self.len = new_len;
            return;
        }
    }
}

/// Whether the first line is a front matter opener (`---`), closed or not: while it is
/// unclosed, typing the closing line anywhere turns the top into front matter.
fn opens_front_matter(text: &str) -> bool {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let first = text.split(['\n', '\r']).next().unwrap_or("");
    first.trim_end_matches([' ', '\t']) == "---"
}

fn header_line_end(m: &Message) -> usize {
    // The heading's line break is part of the heading line for this purpose.
    m.header.end + 2
}

struct Scan {
    first_header: Option<usize>,
    preamble_code_blocks: Vec<CodeBlock>,
    messages: Vec<Message>,
}

/// Scans `text` (which starts at absolute offset `base`) from the relative offset
/// `from`. `stop` is asked at every message heading (absolute offset) and ends the
/// scan before that heading when it returns true.
fn scan(text: &str, base: usize, from: usize, mut stop: impl FnMut(usize) -> bool) -> Scan {
    let bytes = text.as_bytes();
    let mut out = Scan {
        first_header: None,
        preamble_code_blocks: Vec::new(),
        messages: Vec::new(),
    };
    let mut open_code: Option<CodeBlock> = None;
    let mut expect_status = false;
    let mut permission: Option<PermissionBlock> = None;
    let mut end_of_scan = text.len();
    let scanner = Scanner::new(text, from);
    for line in scanner {
        if let LineKind::Heading { level: 2, content } = line.kind {
            let at = line.start + content;
            let handle_len = if bytes.get(at) == Some(&b'@') {
                inline::handle_len(&bytes[at + 1..line.end])
            } else {
                0
            };
            if handle_len > 0 {
                if stop(base + line.start) {
                    end_of_scan = line.start;
                    break;
                }
                finish_message(&mut out, &mut open_code, &mut permission, base + line.start);
                out.first_header.get_or_insert(base + line.start);
                out.messages.push(Message {
                    range: base + line.start..base + text.len(),
                    header: base + line.start..base + line.end,
                    handle: base + at + 1..base + at + 1 + handle_len,
                    status: None,
                    body: base + line.next..base + text.len(),
                    mentions: Vec::new(),
                    markers: Vec::new(),
                    permissions: Vec::new(),
                    code_blocks: Vec::new(),
                });
                expect_status = true;
                continue;
            }
        }
        let in_message = !out.messages.is_empty();
        let line_text = &text[line.start..line.end];
        if expect_status {
            expect_status = false;
            if line_text.starts_with("<!-- chatmd") {
                let msg = out.messages.last_mut().expect("in a message");
                msg.status = Some(StatusLine {
                    range: base + line.start..base + line.end,
                    comment: StatusComment::parse(line_text),
                });
                msg.body.start = base + line.next;
                continue;
            }
        }
        match line.kind {
            LineKind::FenceOpen => {
                finish_permission(&mut out, &mut permission);
                open_code = Some(CodeBlock {
                    range: base + line.start..base + text.len(),
                    opening: base + line.start..base + line.end,
                    closed: false,
                });
            }
            LineKind::FenceClose => {
                if let Some(mut block) = open_code.take() {
                    block.range.end = base + line.end;
                    block.closed = true;
                    push_code_block(&mut out, block);
                }
            }
            LineKind::FencedCode | LineKind::IndentedCode | LineKind::Html | LineKind::Blank => {
                finish_permission(&mut out, &mut permission);
            }
            LineKind::Text
            | LineKind::Quote
            | LineKind::Heading { .. }
            | LineKind::NestedHeading => {
                if !in_message {
                    continue;
                }
                if let Some(block) = &mut permission {
                    if permission::extend(block, line_text, base + line.start) {
                        continue;
                    }
                    finish_permission(&mut out, &mut permission);
                }
                if line_text.starts_with(permission::PREFIX) {
                    permission = permission::parse_first_line(line_text, base + line.start);
                    if permission.is_some() {
                        continue;
                    }
                }
                if memchr::memchr3(b'@', b'[', b'`', line_text.as_bytes()).is_some() {
                    let msg = out.messages.last_mut().expect("in a message");
                    inline::scan_line(
                        line_text,
                        base + line.start,
                        &mut msg.mentions,
                        &mut msg.markers,
                    );
                }
            }
        }
    }
    finish_message(
        &mut out,
        &mut open_code,
        &mut permission,
        base + end_of_scan,
    );
    if let Some(last) = out.messages.last_mut() {
        last.range.end = base + end_of_scan;
        last.body.end = last.range.end.max(last.body.start);
    }
    out
}

fn finish_permission(out: &mut Scan, permission: &mut Option<PermissionBlock>) {
    if let Some(block) = permission.take()
        && let Some(msg) = out.messages.last_mut()
    {
        msg.permissions.push(block);
    }
}

fn push_code_block(out: &mut Scan, block: CodeBlock) {
    match out.messages.last_mut() {
        Some(msg) => msg.code_blocks.push(block),
        None => out.preamble_code_blocks.push(block),
    }
}

/// Closes the current message at `end` (absolute): its range, body and any block
/// still open in it.
fn finish_message(
    out: &mut Scan,
    open_code: &mut Option<CodeBlock>,
    permission: &mut Option<PermissionBlock>,
    end: usize,
) {
    finish_permission(out, permission);
    if let Some(mut block) = open_code.take() {
        block.range.end = end;
        push_code_block(out, block);
    }
    if let Some(last) = out.messages.last_mut() {
        last.range.end = end;
        last.body.end = end.max(last.body.start);
    }
}

#[cfg(test)]
mod tests;
