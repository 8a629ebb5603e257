//! Agent output made safe to stream into a chat: a line that would start a message
//! (`## @x`) is escaped as `## \@x`, a line that would start a permission block (a
//! record only chatmd writes) as `> \*\*Permission\*\* `, and a code fence (or HTML
//! comment) the agent left open is closed when the turn ends, so a broken answer never
//! swallows the next message nor forges a request the user is asked to answer.
//!
//! The result depends only on the output, never on how it was cut into pieces: lines
//! end where the chat's own scanner ends them (`\n`, `\r\n`, or a lone `\r`, even when
//! a piece ends between the `\r` and the `\n`), and whether a line starts a message is
//! decided by that scanner from the line's start once no later byte can change it.

use crate::document::lines::Lines;
use crate::document::permission;
use crate::document::scanner::{LineKind, ScanState, Scanner, message_at};

/// Filters one turn's output as it streams. Text goes in as it arrives, in pieces of
/// any size; what comes out can be inserted at once. Only the start of a line that may
/// still turn into a message heading (`##`, blanks, `@`: a few bytes) is held back,
/// until the next byte shows what it is.
#[derive(Debug, Default)]
pub struct OutputFilter {
    /// The current line's text so far, without its line break (its start is all that
    /// is ever held back; the whole line is needed to advance the scanner at its end).
    line: String,
    /// How much of `line` was already emitted.
    emitted: usize,
    /// Whether the current line's start was decided (escaped or not); then the rest
    /// follows as it comes.
    decided: bool,
    /// The last byte taken was a `\r` that ended a piece: a `\n` first in the next
    /// piece belongs to the same line break.
    after_cr: bool,
    /// The scanner's state after the lines so far: code, HTML, quotes and lists decide
    /// whether a `## @x` line is a heading at all.
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
        if self.after_cr && !rest.is_empty() {
            self.after_cr = false;
            if let Some(after) = rest.strip_prefix('\n') {
                out.push('\n');
                rest = after;
            }
        }
        for line in Lines::new(rest) {
            self.line.push_str(&rest[line.range()]);
            if !line.has_break() {
                let start = self.line.as_bytes();
                if self.decided || !(may_become_heading(start) || may_become_record(start)) {
                    self.emit(&mut out);
                }
                break;
            }
            self.end_line(&mut out);
            let eol = &rest[line.end..line.next];
            out.push_str(eol);
            self.after_cr = eol == "\r" && line.next == rest.len();
        }
        out
    }

    /// The turn is over: returns what was held back, plus a closing line when the
    /// output left a code fence or an HTML comment open. The filter is then as new.
    pub fn finish(&mut self) -> String {
        let mut out = String::new();
        let ends_line = self.line.is_empty();
        if !ends_line {
            self.end_line(&mut out);
        }
        if let Some(fence) = self.state.closing_line() {
            if !ends_line {
                out.push('\n');
            }
            out.push_str(&fence);
            out.push('\n');
        }
        *self = OutputFilter::default();
        out
    }

    /// The start of the current line held back so far (for tests of the latency).
    #[cfg(test)]
    fn held_back(&self) -> &str {
        &self.line[self.emitted..]
    }

    /// The current line is complete: emits what is left of it and advances the scanner.
    fn end_line(&mut self, out: &mut String) {
        self.emit(out);
        self.state.classify(self.line.as_bytes());
        self.line.clear();
        self.emitted = 0;
        self.decided = false;
    }

    /// Emits the unemitted part of the current line, escaping its start if it is a
    /// message heading. Called once the start is decided: the line is complete, or
    /// it can no longer become a heading, or it already is one.
    fn emit(&mut self, out: &mut String) {
        if !self.decided {
            self.decided = true;
            if let Some(at) = message_after(&self.state, &self.line) {
                out.push_str(&self.line[..at]);
                out.push('\\');
                out.push_str(&self.line[at..]);
                self.emitted = self.line.len();
                return;
            }
            if record_after(&self.state, &self.line) {
                out.push_str(&permission::escape_line(&self.line));
                self.emitted = self.line.len();
                return;
            }
        }
        out.push_str(&self.line[self.emitted..]);
        self.emitted = self.line.len();
    }
}

/// Where the `@` is when `line` (or the start of one, past what decides it) starts a
/// message after the lines that left `state`: judged by the chat's scanner itself,
/// from the state the earlier lines left (code, HTML, quotes, lists).
///
/// A line's kind as a level-2 heading depends only on its first bytes (up to the
/// blanks after the `#`s), so a start that has the handle's first byte decides it.
fn message_after(state: &ScanState, line: &str) -> Option<usize> {
    let b = line.as_bytes();
    // A heading's first `#` comes after at most three spaces.
    if !b.iter().take(4).any(|&c| c == b'#') {
        return None;
    }
    message_at(b, state.clone().classify(b))
}

/// Whether `line` (or the start of one, past its first [`permission::PREFIX`].len()
/// bytes) starts a permission block after the lines that left `state`: the scanner
/// takes one from a line of text or quote (not in code, nor in an HTML block).
fn record_after(state: &ScanState, line: &str) -> bool {
    line.starts_with(permission::PREFIX) && record_kind(state.clone().classify(line.as_bytes()))
}

/// The kinds of line the chat's scanner reads a permission block from.
fn record_kind(kind: LineKind) -> bool {
    matches!(
        kind,
        LineKind::Text | LineKind::Quote | LineKind::Heading { .. } | LineKind::NestedHeading
    )
}

/// Whether `start` may still become the first line of a permission block: a proper
/// prefix of [`permission::PREFIX`] (the bytes that decide have not all come).
fn may_become_record(start: &[u8]) -> bool {
    start.len() < permission::PREFIX.len() && permission::PREFIX.as_bytes().starts_with(start)
}

/// Whether `start` (a line's beginning, without a line break) may still become a
/// message heading as more bytes arrive: it is a prefix of up to three spaces, `##`,
/// one or more spaces or tabs and `@`, and the byte that decides (the handle's first)
/// has not come yet. Every message heading starts that way: more indent is code, a tab
/// in the indent makes four columns, and `###` is another level.
fn may_become_heading(start: &[u8]) -> bool {
    let spaces = start.iter().take_while(|&&b| b == b' ').count();
    if spaces > 3 {
        return false;
    }
    match &start[spaces..] {
        [] | [b'#'] | [b'#', b'#'] => true,
        [b'#', b'#', after @ ..] => {
            let blanks = after
                .iter()
                .take_while(|&&b| b == b' ' || b == b'\t')
                .count();
            blanks > 0 && (blanks == after.len() || &after[blanks..] == b"@")
        }
        _ => false,
    }
}

/// What [`OutputFilter`] makes of `output` when it arrives in one piece, computed the
/// plain way: the chat's scanner runs over the whole output, every line it takes for
/// a message heading gets its `\` (as the chat would parse it, lone `\r` breaks
/// included), every line it would read a permission block from is escaped, and a
/// block left open is closed. The filter streams exactly this,
/// however the output is split.
pub fn filtered(output: &str) -> String {
    let mut out = String::with_capacity(output.len() + 8);
    let mut scanner = Scanner::new(output, 0);
    let mut copied = 0;
    for line in scanner.by_ref() {
        if let Some(content) = message_at(&output.as_bytes()[line.range()], line.kind) {
            let at = line.start + content;
            out.push_str(&output[copied..at]);
            out.push('\\');
            copied = at;
        } else if output[line.range()].starts_with(permission::PREFIX) && record_kind(line.kind) {
            out.push_str(&output[copied..line.start]);
            out.push_str(permission::ESCAPED_PREFIX);
            copied = line.start + permission::PREFIX.len();
        }
    }
    out.push_str(&output[copied..]);
    if let Some(fence) = scanner.state().closing_line() {
        if !output.is_empty() && !output.ends_with(['\n', '\r']) {
            out.push('\n');
        }
        out.push_str(&fence);
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod splits;
#[cfg(test)]
mod tests;
