//! Splits a foreign file into the text before its first marker and its messages,
//! recovering from fences and HTML blocks that a truncated answer left open.

use super::markers::{Kind, Marker, classify};
use super::{ForeignFormat, body_start, lines, may_be_marker};
use crate::document::fence::{Fence, after_indent};
use crate::document::front_matter;
use crate::document::scanner::ScanState;

/// One message of the foreign file.
pub(super) struct Block<'a> {
    pub(super) kind: Kind,
    pub(super) label: &'a str,
    /// Message text lines, blank lines at both ends removed.
    pub(super) lines: Vec<&'a str>,
}

/// A foreign file split into the text before the first marker and its messages.
pub(super) struct Parsed<'a> {
    /// The lines of its YAML, between the delimiter lines, when chatmd reads that front
    /// matter without a problem.
    pub(super) yaml: Vec<&'a str>,
    /// The whole front matter block (delimiters included) otherwise.
    pub(super) unread_front: Vec<&'a str>,
    /// Lines before the first marker, blank lines at both ends removed.
    pub(super) pre: Vec<&'a str>,
    pub(super) blocks: Vec<Block<'a>>,
    /// Byte ranges of the first lines of blocks a marker line cut short (see [`Scan`]).
    pub(super) cut: Vec<std::ops::Range<usize>>,
}

/// The marker lines of a file (by line index), and the blocks cut short by one.
pub(super) struct Scan<'a> {
    pub(super) markers: Vec<(usize, Marker<'a>)>,
    /// First lines of the code fences and HTML blocks (a `<!--` comment, a `<pre>`) that
    /// a marker line ended before their own closing line: the converter closes them at
    /// the end of their message, and the editor shows a diagnostic on each.
    pub(super) cut: Vec<usize>,
}

/// The marker lines of `lines` from line `from` on.
///
/// rusiaaman/chat.md splits at every marker line, wherever it is (its parser is one
/// regular expression over the text, blind to fences), so its cells are split the same
/// way here. The other tools' markers count where the chat's scanner does not read them
/// as code; an HTML block does not hide one (none of those tools knows HTML), it ends
/// there. A code fence that cannot be closed properly, which in a chat file means a
/// truncated answer, ends at the first marker line inside it: a fence still open at the
/// end of the text, or followed (before its closing fence) by a line that could only open
/// a new fence of its kind (```` ```rust ```` inside ```` ``` ````). Restarts are budgeted
/// so that the work stays linear in the number of lines.
pub(super) fn scan<'a>(lines: &[&'a str], from: usize, format: ForeignFormat) -> Scan<'a> {
    let mut found = Scan {
        markers: Vec::new(),
        cut: Vec::new(),
    };
    if format == ForeignFormat::PercentCells {
        // The scanner only tells which blocks a marker cuts short.
        let mut state = ScanState::default();
        let mut opened_at: Option<usize> = None;
        for (i, &line) in lines.iter().enumerate().skip(from) {
            if let Some(marker) = classify(line, format) {
                found.markers.push((i, marker));
                found.cut.extend(opened_at.take());
                state = ScanState::default();
                continue;
            }
            state.classify(line.as_bytes());
            if state.awaits_closing_line() {
                opened_at.get_or_insert(i);
            } else {
                opened_at = None;
            }
        }
        return found;
    }
    let budget = lines.len().saturating_mul(4).saturating_add(64);
    let mut spent = 0usize;
    let mut from = from;
    'scan: loop {
        let mut state = ScanState::default();
        // Where the block still open began, and the first marker line inside it.
        let mut opened_at: Option<usize> = None;
        let mut first_inside: Option<usize> = None;
        for (i, &line) in lines.iter().enumerate().skip(from) {
            spent += 1;
            let open = state.top_fence();
            let kind = state.classify(line.as_bytes());
            if may_be_marker(kind) {
                if let Some(marker) = classify(line, format) {
                    found.markers.push((i, marker));
                    if let Some(start) = opened_at.take() {
                        found.cut.push(start);
                    }
                    // The message starts afresh, as the converter renders it.
                    state = ScanState::default();
                    first_inside = None;
                    continue;
                }
            } else if state.awaits_closing_line() {
                match (first_inside, open) {
                    (Some(m), Some(open)) => {
                        if reopens(line, open) && spent + (lines.len() - m) <= budget {
                            found.cut.extend(opened_at);
                            from = m;
                            continue 'scan;
                        }
                    }
                    (Some(_), None) => {}
                    (None, _) => {
                        if classify(line, format).is_some() {
                            first_inside = Some(i);
                        }
                    }
                }
            }
            if state.awaits_closing_line() {
                opened_at.get_or_insert(i);
            } else {
                opened_at = None;
                first_inside = None;
            }
        }
        match first_inside {
            Some(m) if spent + (lines.len() - m) <= budget => {
                found.cut.extend(opened_at);
                from = m;
            }
            _ => return found,
        }
    }
}

impl<'a> Parsed<'a> {
    pub(super) fn new(text: &'a str, format: ForeignFormat) -> Self {
        let body = body_start(text);
        let mut front = 0;
        let mut starts = Vec::new();
        let lines: Vec<&str> = lines(text)
            .map(|(start, line)| {
                front += usize::from(start < body);
                starts.push(start);
                line
            })
            .collect();
        let Scan { markers, cut } = scan(&lines, front, format);
        let cut = cut
            .into_iter()
            .map(|i| starts[i]..starts[i] + lines[i].len())
            .collect();
        // The YAML between the front matter's delimiter lines, when chatmd reads it
        // without a problem: it stays front matter, with keys added. Front matter chatmd
        // cannot read (not a mapping, a syntax error, a known key of the wrong type) is
        // kept verbatim in a fenced block: a converted chat's front matter has no problems.
        let clean = front_matter::locate(text)
            .is_some_and(|block| front_matter::parse(text, &block).problems.is_empty());
        let (yaml, unread_front) = if clean {
            (lines[1..front.max(2) - 1].to_vec(), Vec::new())
        } else {
            (Vec::new(), lines[..front].to_vec())
        };
        let first = markers.first().map_or(lines.len(), |&(i, _)| i);
        let mut pre = trim_blank(&lines[front.min(first)..first]).to_vec();
        let mut blocks = Vec::with_capacity(markers.len() + 1);
        if format == ForeignFormat::LspAi && !pre.is_empty() {
            blocks.push(Block {
                kind: Kind::User,
                label: "",
                lines: std::mem::take(&mut pre),
            });
        }
        for (n, &(i, marker)) in markers.iter().enumerate() {
            let end = markers.get(n + 1).map_or(lines.len(), |&(j, _)| j);
            let mut body = Vec::with_capacity(end - i);
            if !marker.content.is_empty() {
                body.push(marker.content);
            }
            body.extend_from_slice(&lines[i + 1..end]);
            blocks.push(Block {
                kind: marker.kind,
                label: marker.label,
                lines: trim_blank(&body).to_vec(),
            });
        }
        // A trailing empty assistant (or tool_execute) cell is how chat.md asks for the
        // next answer; its parser drops it, and so does this one (it holds no text).
        if format == ForeignFormat::PercentCells
            && blocks.last().is_some_and(|b: &Block<'_>| {
                b.lines.is_empty()
                    && matches!(b.kind, Kind::Assistant | Kind::Other("tool_execute", _))
            })
        {
            blocks.pop();
        }
        Parsed {
            yaml,
            unread_front,
            pre,
            blocks,
            cut,
        }
    }
}

/// Whether `line`, inside `open`, could only be the opening fence of a new block: the
/// same character, long enough to close it, but with an info string.
fn reopens(line: &str, open: Fence) -> bool {
    let rest = &line[line.len() - after_indent(line.as_bytes()).len()..];
    Fence::open(rest.as_bytes(), 0).is_some_and(|fence| {
        fence.ch == open.ch && fence.len >= open.len && !rest[fence.len..].trim().is_empty()
    })
}

fn is_blank(line: &str) -> bool {
    line.trim().is_empty()
}

pub(super) fn trim_blank<'s, 'a>(lines: &'s [&'a str]) -> &'s [&'a str] {
    let start = lines
        .iter()
        .position(|l| !is_blank(l))
        .unwrap_or(lines.len());
    let end = lines
        .iter()
        .rposition(|l| !is_blank(l))
        .map_or(start, |i| i + 1);
    &lines[start..end]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scan_recovery_is_budgeted() {
        // Fences that are never closed (each shorter than the one before), each with a
        // marker inside: unbounded recovery would rescan to the end once per fence.
        let n = 300;
        let mut text = String::from("<|user|>\n");
        for k in 0..n {
            text.push_str(&"`".repeat(n + 3 - k));
            text.push_str("\n<|assistant|>\n");
        }
        let lines: Vec<&str> = lines(&text).map(|(_, l)| l).collect();
        let markers = scan(&lines, 0, ForeignFormat::LspAi).markers;
        // The first few fences are recovered, then the budget (about four passes) is spent
        // and the rest is read strictly, as one fenced block.
        assert!(markers.len() > 2, "{}", markers.len());
        assert!(markers.len() < 20, "{}", markers.len());
        assert_eq!(markers[0].0, 0);
    }
}
