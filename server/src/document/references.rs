//! Context references in a human message: `#file:path`, `#file:path:40-80`, `#diff`
//! and `#diagnostics:path`, found where mentions are (docs/format.md, "only prose
//! counts"): not in code, inline or fenced, not in a quote, not in a `<details>`
//! element. Pure: what a reference names is looked up and read when it is sent.

use super::ByteRange;
use super::chat::{Message, details_after, starts_quote};
use super::scanner::{LineKind, Scanner};

/// What a reference asks to attach.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReferenceKind {
    /// `#file:path` or `#file:path:first-last`: a file of the workspace, or some of
    /// its lines (1-based, both included; `:40` is the line alone).
    File {
        path: ByteRange,
        lines: Option<LineSpan>,
    },
    /// `#diff`: the working tree's changes (`git diff`), computed on send.
    Diff,
    /// `#diagnostics:path`: the problems the editor reports for a file.
    Diagnostics { path: ByteRange },
}

/// Lines of a file as written after its path; checked against the file on send.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LineSpan {
    pub first: u64,
    pub last: u64,
}

/// One reference: its whole text (`#file:src/pay.rs:40-80`) and what it names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reference {
    pub range: ByteRange,
    pub kind: ReferenceKind,
}

impl Reference {
    /// The path it names, for `#file:` and `#diagnostics:`.
    pub fn path<'t>(&self, text: &'t str) -> Option<&'t str> {
        match &self.kind {
            ReferenceKind::File { path, .. } | ReferenceKind::Diagnostics { path } => {
                Some(&text[path.clone()])
            }
            ReferenceKind::Diff => None,
        }
    }
}

/// The references in `message`'s body, in order.
pub fn in_message(text: &str, message: &Message) -> Vec<Reference> {
    in_body(text, message.body_range())
}

/// [`in_message`] over the bytes `body` of `text` (a message's body: the scanner
/// starts there with no block open, as it does after a message's heading).
pub fn in_body(text: &str, body: ByteRange) -> Vec<Reference> {
    let mut found = Vec::new();
    // Cheap for the common message: no `#` at all.
    if !text[body.clone()].contains('#') {
        return found;
    }
    let bytes = text.as_bytes();
    let mut open_details = 0;
    for line in Scanner::new(text, body.start) {
        if line.start >= body.end {
            break;
        }
        let content = &bytes[line.start..line.end];
        match line.kind {
            LineKind::Html => open_details = details_after(open_details, content),
            LineKind::Text | LineKind::Heading { .. } if open_details == 0 => {
                scan_line(&text[line.range()], line.start, &mut found);
            }
            LineKind::NestedHeading if open_details == 0 && !starts_quote(content) => {
                scan_line(&text[line.range()], line.start, &mut found);
            }
            _ => {}
        }
    }
    found
}

fn scan_line(line: &str, base: usize, found: &mut Vec<Reference>) {
    let b = line.as_bytes();
    let mut at = 0;
    while at < b.len() {
        match b[at] {
            b'`' => {
                let run = b[at..].iter().take_while(|&&c| c == b'`').count();
                at = super::inline::closing_backticks(b, at + run, run).unwrap_or(at + run);
            }
            b'#' if at == 0 || matches!(b[at - 1], b' ' | b'\t' | b'(' | b'[') => {
                match reference_at(b, at) {
                    Some((end, kind)) => {
                        found.push(Reference {
                            range: base + at..base + end,
                            kind: shift(kind, base),
                        });
                        at = end;
                    }
                    None => at += 1,
                }
            }
            _ => at += 1,
        }
    }
}

fn shift(kind: ReferenceKind, base: usize) -> ReferenceKind {
    let moved = |r: ByteRange| base + r.start..base + r.end;
    match kind {
        ReferenceKind::File { path, lines } => ReferenceKind::File {
            path: moved(path),
            lines,
        },
        ReferenceKind::Diagnostics { path } => ReferenceKind::Diagnostics { path: moved(path) },
        ReferenceKind::Diff => ReferenceKind::Diff,
    }
}

/// The reference starting at `at` (a `#`): its end and kind, with line-relative ranges.
fn reference_at(b: &[u8], at: usize) -> Option<(usize, ReferenceKind)> {
    let rest = &b[at..];
    if let Some(after) = rest.strip_prefix(b"#diff") {
        let ends = after
            .first()
            .is_none_or(|&c| !(c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b':')));
        return ends.then_some((at + 5, ReferenceKind::Diff));
    }
    if rest.starts_with(b"#file:") {
        let start = at + 6;
        let end = path_end(b, start);
        if end == start {
            return None;
        }
        let (path_end, lines) = split_lines(b, start, end);
        if path_end == start {
            return None;
        }
        let kind = ReferenceKind::File {
            path: start..path_end,
            lines,
        };
        return Some((end, kind));
    }
    if rest.starts_with(b"#diagnostics:") {
        let start = at + 13;
        let end = path_end(b, start);
        return (end > start).then_some((end, ReferenceKind::Diagnostics { path: start..end }));
    }
    None
}

/// Where a path that starts at `start` ends: at white space, without trailing
/// punctuation that ends a sentence or closes a bracket (`see #file:a.rs.`).
fn path_end(b: &[u8], start: usize) -> usize {
    let mut end = start;
    while end < b.len() && !b[end].is_ascii_whitespace() && b[end] != b'`' {
        end += 1;
    }
    while end > start
        && matches!(
            b[end - 1],
            b'.' | b',' | b';' | b':' | b'!' | b'?' | b')' | b']' | b'"' | b'\''
        )
    {
        end -= 1;
    }
    end
}

/// Splits a trailing `:first-last` or `:line` off the path `start..end`.
fn split_lines(b: &[u8], start: usize, end: usize) -> (usize, Option<LineSpan>) {
    let Some(colon) = b[start..end].iter().rposition(|&c| c == b':') else {
        return (end, None);
    };
    let colon = start + colon;
    let spec = &b[colon + 1..end];
    let number = |digits: &[u8]| -> Option<u64> {
        if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
            return None;
        }
        std::str::from_utf8(digits).ok()?.parse().ok()
    };
    let span = match spec.iter().position(|&c| c == b'-') {
        Some(dash) => number(&spec[..dash])
            .zip(number(&spec[dash + 1..]))
            .map(|(first, last)| LineSpan { first, last }),
        None => number(spec).map(|line| LineSpan {
            first: line,
            last: line,
        }),
    };
    match span {
        Some(span) => (colon, Some(span)),
        None => (end, None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::document::chat::Chat;
    use pretty_assertions::assert_eq;

    /// Each reference of the chat's last message as `kind path lines`.
    fn found(text: &str) -> Vec<String> {
        let chat = Chat::parse(text);
        let message = chat.messages.last().expect("a message");
        in_message(text, message)
            .iter()
            .map(|r| match &r.kind {
                ReferenceKind::File { path, lines } => format!(
                    "file {} {}",
                    &text[path.clone()],
                    lines.map_or("-".to_owned(), |l| format!("{}-{}", l.first, l.last))
                ),
                ReferenceKind::Diff => format!("diff @{}", r.range.start),
                ReferenceKind::Diagnostics { path } => {
                    format!("diagnostics {}", &text[path.clone()])
                }
            })
            .collect()
    }

    #[test]
    fn every_kind_is_found_with_its_parts() {
        let text = "## @me\nsee #file:src/pay.rs and #file:src/pay.rs:40-80, #file:a.rs:7.\n\
                    also #diff (#diagnostics:src/pay.rs)\n";
        assert_eq!(
            found(text),
            [
                "file src/pay.rs -",
                "file src/pay.rs 40-80",
                "file a.rs 7-7",
                "diff @75",
                "diagnostics src/pay.rs",
            ]
        );
    }

    #[test]
    fn code_quotes_and_words_hold_no_references() {
        let text = "## @me\nuse `#file:x.rs` here\n> #file:quoted.rs\nlazy #file:lazy.rs\n\n```\n#file:code.rs\n\
                    #diff\n```\n<details>\n\n#file:folded.rs\n\n</details>\n\n    #file:indented.rs\n\n\
                    a#file:glued.rs #diffs #file: #file:ok.rs\n";
        assert_eq!(found(text), ["file ok.rs -"]);
    }

    #[test]
    fn a_colon_that_is_no_line_span_stays_in_the_path() {
        let text = "## @me\n#file:c:x.rs #file:a.rs:4-x #file:b.rs:9-2\n";
        assert_eq!(
            found(text),
            ["file c:x.rs -", "file a.rs:4-x -", "file b.rs 9-2"]
        );
    }

    #[test]
    fn ranges_are_absolute() {
        let text = "## @me\nhi #file:a.rs:1-2\n";
        let chat = Chat::parse(text);
        let refs = in_message(text, &chat.messages[0]);
        assert_eq!(refs[0].range, 10..24);
        assert_eq!(refs[0].path(text), Some("a.rs"));
    }
}
