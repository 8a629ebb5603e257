//! Agent output made safe to stream into a chat: a line that would start a message
//! (`## @x`) is escaped as `## \@x`, and a code fence (or HTML comment) the agent left
//! open is closed when the turn ends, so a broken answer never swallows the next message.

use crate::document::scanner::{LineKind, ScanState};

/// Filters one turn's output as it streams. Text goes in as it arrives, in pieces of
/// any size; what comes out can be inserted at once. Only the start of a line that may
/// still turn into `## @` is held back, until the line shows what it is.
#[derive(Debug, Default)]
pub struct OutputFilter {
    /// The current line's text so far (only its start is ever held back).
    line: String,
    /// How much of `line` was already emitted.
    emitted: usize,
    /// Whether the current line's start was escaped (then the rest follows as is).
    decided: bool,
    state: ScanState,
}

impl OutputFilter {
    pub fn new() -> OutputFilter {
        OutputFilter::default()
    }

    /// Takes the next piece of output; returns the text to insert now.
    pub fn push(&mut self, piece: &str) -> String {
        let mut out = String::with_capacity(piece.len() + 2);
        let mut rest = piece;
        while !rest.is_empty() {
            match rest.find('\n') {
                Some(i) => {
                    self.line.push_str(&rest[..=i]);
                    rest = &rest[i + 1..];
                    self.flush_line(&mut out, true);
                }
                None => {
                    self.line.push_str(rest);
                    rest = "";
                    self.flush_line(&mut out, false);
                }
            }
        }
        out
    }

    /// The turn is over: returns what was held back, plus a closing line when the
    /// output left a code fence or an HTML comment open.
    pub fn finish(&mut self) -> String {
        let mut out = String::new();
        let mut ends_line = true;
        if !self.line.is_empty() {
            self.decided = true;
            self.emit(&mut out);
            let line = std::mem::take(&mut self.line);
            ends_line = line.ends_with('\n');
            self.state
                .classify(line.trim_end_matches(['\r', '\n']).as_bytes());
            self.emitted = 0;
            self.decided = false;
        }
        if let Some(fence) = self.state.closing_line() {
            if !ends_line {
                out.push('\n');
            }
            out.push_str(&fence);
            out.push('\n');
        }
        self.state = ScanState::default();
        out
    }

    fn flush_line(&mut self, out: &mut String, complete: bool) {
        if !self.decided {
            let start = self.line.as_bytes();
            if complete || !could_become_heading(start) {
                self.decided = true;
            } else {
                // Still ambiguous: hold the line's start back.
                return;
            }
        }
        self.emit(out);
        if complete {
            let line = std::mem::take(&mut self.line);
            self.state
                .classify(line.trim_end_matches(['\r', '\n']).as_bytes());
            self.emitted = 0;
            self.decided = false;
        }
    }

    /// Where the `@` is when the current line would start a message here, judged by
    /// the scanner itself from the state the earlier lines left (code, quotes, lists).
    fn heading_at(&self) -> Option<usize> {
        let line = self.line.trim_end_matches(['\r', '\n']);
        let mut probe = self.state.clone();
        let LineKind::Heading { level: 2, content } = probe.classify(line.as_bytes()) else {
            return None;
        };
        let b = line.as_bytes();
        let is_message = b.get(content) == Some(&b'@')
            && b.get(content + 1)
                .is_some_and(|&c| crate::document::inline::is_handle_start(c));
        is_message.then_some(content)
    }

    /// Emits the unemitted part of the current line, escaping its start if it is a
    /// message heading outside code.
    fn emit(&mut self, out: &mut String) {
        if self.emitted == 0
            && let Some(at) = self.heading_at()
        {
            out.push_str(&self.line[..at]);
            out.push('\\');
            out.push_str(&self.line[at..]);
        } else {
            out.push_str(&self.line[self.emitted..]);
        }
        self.emitted = self.line.len();
    }
}

/// Whether `start` (a line's beginning) is still undecided: a prefix of `## @` (up to
/// three spaces of indent), so the next character tells whether it is a heading.
fn could_become_heading(start: &[u8]) -> bool {
    let spaces = start.iter().take_while(|&&b| b == b' ').count();
    if spaces > 3 {
        return false;
    }
    let rest = &start[spaces..];
    let pattern = b"## @";
    if rest.len() > pattern.len() {
        return false;
    }
    let n = rest.len();
    // `##` then one space or tab, then `@`.
    rest[..n]
        .iter()
        .zip(pattern.iter())
        .enumerate()
        .all(|(i, (&b, &p))| b == p || (i == 2 && b == b'\t'))
}

#[cfg(test)]
mod tests;
