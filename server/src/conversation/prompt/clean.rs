//! A message's text as agents see it: without routing markers and status comments,
//! which steer chatmd and would only confuse an agent reading the conversation.

use crate::document::ByteRange;
use crate::document::chat::Message;
use crate::document::lines::Lines;

/// The body of `message`, cleaned: `[DONE]` / `[NEXT: x]` markers and
/// `<!-- chatmd ... -->` lines removed (a line left blank by that goes whole), blank
/// lines around the text dropped, line breaks turned into `\n`. Everything else —
/// mentions, code, permission blocks — stays as written.
pub(super) fn message_text(text: &str, message: &Message) -> String {
    let body = message.body_range();
    let mut cuts: Vec<ByteRange> = Vec::new();
    // Markers come in document order, so one pass hands each line its own.
    let mut markers = message.markers().map(|m| m.range).peekable();
    for line in Lines::from(&text[..body.end], body.start) {
        let (start, content_end, end) = (line.start, line.end, line.next);
        let mut in_line = Vec::new();
        while let Some(marker) = markers.next_if(|m| m.start < end) {
            in_line.push(marker);
        }
        if is_status_comment(&text[start..content_end]) && !in_code(message, start) {
            cuts.push(start..end);
        } else if !in_line.is_empty() {
            let line_cuts: Vec<ByteRange> = in_line
                .into_iter()
                .map(|m| marker_cut(text, start..content_end, m))
                .collect();
            if cut(text, start..content_end, &line_cuts).trim().is_empty() {
                cuts.push(start..end);
            } else {
                cuts.extend(line_cuts);
            }
        }
    }
    let cleaned = cut(text, body, &cuts);
    unix_newlines(trim_blank_lines(&cleaned))
}

/// `text` with `\r\n` (and lone `\r`) line breaks turned into `\n`.
pub(super) fn unix_newlines(text: &str) -> String {
    if !text.contains('\r') {
        return text.to_owned();
    }
    text.replace("\r\n", "\n").replace('\r', "\n")
}

/// A status comment line as the parser recognises it, anywhere in the body (a pasted
/// or duplicated one counts too).
fn is_status_comment(line: &str) -> bool {
    line.starts_with("<!-- chatmd") && line.trim_end().ends_with("-->")
}

fn in_code(message: &Message, offset: usize) -> bool {
    message
        .code_blocks()
        .any(|b| b.range.start < offset && offset < b.range.end)
}

/// The bytes to remove for one marker in `line`: the marker, and the blanks that
/// would be left doubled (`see [NEXT: a] now` → `see now`) or dangling at the end
/// (`All good. [DONE]` → `All good.`).
fn marker_cut(text: &str, line: ByteRange, marker: ByteRange) -> ByteRange {
    let bytes = text.as_bytes();
    let blank = |b: u8| b == b' ' || b == b'\t';
    let (mut start, mut end) = (marker.start, marker.end);
    if start == line.start || blank(bytes[start - 1]) {
        while end < line.end && blank(bytes[end]) {
            end += 1;
        }
    }
    if bytes[end..line.end].iter().all(|&b| blank(b)) {
        end = line.end;
        while start > line.start && blank(bytes[start - 1]) {
            start -= 1;
        }
    }
    start..end
}

/// `text[range]` without the `cuts` (sorted by start; they may overlap).
fn cut(text: &str, range: ByteRange, cuts: &[ByteRange]) -> String {
    let mut out = String::with_capacity(range.len());
    let mut at = range.start;
    for c in cuts {
        if c.start > at {
            out.push_str(&text[at..c.start]);
        }
        at = at.max(c.end);
    }
    if at < range.end {
        out.push_str(&text[at..range.end]);
    }
    out
}

/// Drops blank lines at the start and all white space at the end, keeping the first
/// line's indentation (it may open an indented code block).
fn trim_blank_lines(text: &str) -> &str {
    let text = text.trim_end();
    let first = text.len() - text.trim_start().len();
    let line_start = text[..first].rfind('\n').map_or(0, |i| i + 1);
    &text[line_start..]
}
