//! A document's text and the mapping between byte offsets and LSP positions
//! (line + column in UTF-8 or UTF-16 code units). The rest of the crate never touches ropey.
//!
//! Line breaks are exactly LSP's: `\n`, `\r\n` and a lone `\r` (ropey's `cr_lines` without
//! `unicode_lines`; VT, FF, NEL, U+2028 and U+2029 are ordinary characters). A `\r\n` is one
//! break, so the byte between its `\r` and `\n` has no position of its own: it maps to the
//! position of the `\r` (the end of its line), like a byte inside a multibyte char maps to the
//! start of that char. All conversions are O(log n) on the rope.

use std::fmt;
use std::ops::Range;
use std::sync::Arc;

use ropey::Rope;

use super::columns::utf16_col_to_byte;
pub use super::columns::{
    LineCol, PositionEncoding, breaks_before, byte_in_line, col_in_line, utf16_len,
};
pub(crate) use super::columns::{floor_char_boundary, saturate};
pub use super::edit::Edit;
use super::flat_text::FlatText;

/// A document's text with LSP position conversions: a rope, or as opened (one string
/// and its line starts) until the first edit.
#[derive(Clone, Debug)]
pub struct Text {
    repr: Repr,
}

#[derive(Clone, Debug)]
enum Repr {
    Flat(FlatText),
    Rope(Rope),
}

impl Default for Text {
    fn default() -> Self {
        Text::new("")
    }
}

impl Text {
    pub fn new(s: &str) -> Self {
        Self {
            repr: Repr::Rope(Rope::from_str(s)),
        }
    }

    /// The text of `s`, kept as it is (no copy) until the first edit makes it a rope.
    pub fn from_string(s: String) -> Self {
        match FlatText::new(s) {
            Ok(flat) => Self {
                repr: Repr::Flat(flat),
            },
            // Too long for the table of line starts: a rope from the start.
            Err(s) => Self::new(&s),
        }
    }

    /// [`Text::from_string`] when where its lines start is known already: `starts`,
    /// the first 0, by the rope's rule of what breaks a line.
    pub fn from_string_and_line_starts(s: String, starts: Vec<u32>) -> Self {
        match FlatText::with_starts(s, starts) {
            Ok(flat) => Self {
                repr: Repr::Flat(flat),
            },
            Err(s) => Self::from_string(s),
        }
    }

    /// Where the lines of a text as opened start (empty for a rope).
    #[cfg(test)]
    pub fn line_starts(&self) -> Vec<u32> {
        match &self.repr {
            Repr::Flat(flat) => flat.starts(),
            Repr::Rope(_) => Vec::new(),
        }
    }

    /// The whole text as one string, while it is as opened (no edit since).
    pub fn as_flat(&self) -> Option<&Arc<String>> {
        match &self.repr {
            Repr::Flat(flat) => Some(&flat.text),
            Repr::Rope(_) => None,
        }
    }

    pub fn len_bytes(&self) -> usize {
        match &self.repr {
            Repr::Flat(flat) => flat.text.len(),
            Repr::Rope(rope) => rope.len_bytes(),
        }
    }

    /// Number of lines; a text ending with a line break has one more, empty line, and the empty
    /// text has one line.
    pub fn len_lines(&self) -> usize {
        match &self.repr {
            Repr::Flat(flat) => flat.len_lines(),
            Repr::Rope(rope) => rope.len_lines(),
        }
    }

    /// The text of a byte range, clamped to the text and snapped down to char boundaries
    /// (a reversed range is swapped).
    pub fn slice(&self, r: Range<usize>) -> String {
        let mut out = String::new();
        self.slice_into(r, &mut out);
        out
    }

    /// Clears `buf` and puts the text of a byte range in it, clamped and snapped as
    /// [`Text::slice`] does: many ranges read one after another into one buffer,
    /// without the whole text as one string.
    pub fn slice_into(&self, r: Range<usize>, buf: &mut String) {
        let (start, end) = self.snap_range(r);
        buf.clear();
        // At once: grown chunk by chunk, a 1 MB message was copied twice more.
        buf.reserve(end - start);
        match &self.repr {
            Repr::Flat(flat) => buf.push_str(&flat.text[start..end]),
            Repr::Rope(rope) => {
                for chunk in rope.byte_slice(start..end).chunks() {
                    buf.push_str(chunk);
                }
            }
        }
    }

    /// The text in order, in pieces (never splitting a char or a `\r\n`): of a few
    /// hundred bytes to a few KB from a rope, the whole string as opened.
    pub fn chunks(&self) -> impl Iterator<Item = &str> + '_ {
        let (flat, rope) = match &self.repr {
            Repr::Flat(flat) => (Some(flat.text.as_str()), None),
            Repr::Rope(rope) => (None, Some(rope.chunks())),
        };
        flat.into_iter().chain(rope.into_iter().flatten())
    }

    fn byte_to_line(&self, byte: usize) -> usize {
        match &self.repr {
            Repr::Flat(flat) => flat.byte_to_line(byte),
            Repr::Rope(rope) => rope.byte_to_line(byte),
        }
    }

    fn line_to_byte(&self, line: usize) -> usize {
        match &self.repr {
            Repr::Flat(flat) => flat.line_to_byte(line),
            Repr::Rope(rope) => rope.line_to_byte(line),
        }
    }

    fn byte(&self, at: usize) -> u8 {
        match &self.repr {
            Repr::Flat(flat) => flat.text.as_bytes()[at],
            Repr::Rope(rope) => rope.byte(at),
        }
    }

    /// The rope, made from the text as opened on the first edit.
    fn rope_mut(&mut self) -> &mut Rope {
        if let Repr::Flat(flat) = &self.repr {
            self.repr = Repr::Rope(Rope::from_str(&flat.text));
        }
        match &mut self.repr {
            Repr::Rope(rope) => rope,
            Repr::Flat(_) => unreachable!("made a rope just above"),
        }
    }

    /// The LSP position of a byte offset. The offset is clamped to the text; one inside a char
    /// rounds down to the char's start, and one between the `\r` and `\n` of a `\r\n` rounds
    /// down to the `\r` (the end of its line).
    pub fn byte_to_position(&self, byte: usize, enc: PositionEncoding) -> LineCol {
        let byte = self.snap_crlf(self.snap(byte));
        let line = self.byte_to_line(byte);
        let start = self.line_to_byte(line);
        let col = match enc {
            PositionEncoding::Utf8 => byte - start,
            PositionEncoding::Utf16 => self.utf16_between(start, byte),
        };
        LineCol {
            line: saturate(line),
            col: saturate(col),
        }
    }

    /// The byte offset of an LSP position, with LSP's clamping: a line past the last line means
    /// the end of the text; a column past the end of its line means the end of that line,
    /// before its line break; a column inside a char (a UTF-16 column between the halves of a
    /// surrogate pair, a UTF-8 column inside a multibyte char) rounds down to the char's start.
    /// The result is always a char boundary and never between the `\r` and `\n` of a `\r\n`.
    pub fn position_to_byte(&self, pos: LineCol, enc: PositionEncoding) -> usize {
        let line = pos.line as usize;
        if line >= self.len_lines() {
            return self.len_bytes();
        }
        let start = self.line_to_byte(line);
        let end = self.line_end(line);
        let col = pos.col as usize;
        match enc {
            PositionEncoding::Utf8 if col >= end - start => end,
            PositionEncoding::Utf8 => self.snap(start + col),
            PositionEncoding::Utf16 => {
                let (chunk, chunk_start) = self.chunk_at(start);
                match &self.repr {
                    // The common case: the whole line is in one chunk (always, as opened).
                    _ if end - chunk_start <= chunk.len() => {
                        let content = &chunk[start - chunk_start..end - chunk_start];
                        start + utf16_col_to_byte(content, col)
                    }
                    Repr::Flat(flat) => start + utf16_col_to_byte(&flat.text[start..end], col),
                    Repr::Rope(rope) => {
                        let base = rope.char_to_utf16_cu(rope.line_to_char(line));
                        let target = base.saturating_add(col);
                        let end_cu = rope.char_to_utf16_cu(rope.byte_to_char(end));
                        if target >= end_cu {
                            end
                        } else {
                            rope.char_to_byte(rope.utf16_cu_to_char(target))
                        }
                    }
                }
            }
        }
    }

    /// The byte offset where `line` starts; the end of the text for a line past the last.
    pub fn line_start(&self, line: usize) -> usize {
        if line >= self.len_lines() {
            self.len_bytes()
        } else {
            self.line_to_byte(line)
        }
    }

    /// The byte offset where `line`'s content ends, before its line break; the end of the text
    /// for a line past the last.
    pub fn line_end(&self, line: usize) -> usize {
        if line.saturating_add(1) >= self.len_lines() {
            return self.len_bytes();
        }
        // Every line but the last ends with a break; `\r\n` is one break.
        let next = self.line_to_byte(line + 1);
        if self.byte(next - 1) == b'\n' && next >= 2 && self.byte(next - 2) == b'\r' {
            next - 2
        } else {
            next - 1
        }
    }

    /// The line a byte offset is on (clamped to the text). A line's break belongs to that line,
    /// including both bytes of a `\r\n`.
    pub fn line_of_byte(&self, byte: usize) -> usize {
        self.byte_to_line(self.snap_crlf(self.snap(byte)))
    }

    /// Applies one LSP `TextDocumentContentChangeEvent`: `None` replaces the whole text,
    /// otherwise the range's positions are converted with [`Text::position_to_byte`] (so they
    /// are clamped like any LSP position) and a reversed range is swapped.
    pub fn apply_change(
        &mut self,
        range: Option<(LineCol, LineCol)>,
        new_text: &str,
        enc: PositionEncoding,
    ) -> Edit {
        match range {
            None => {
                let old_end = self.len_bytes();
                self.repr = Repr::Rope(Rope::from_str(new_text));
                Edit {
                    start: 0,
                    old_end,
                    new_end: new_text.len(),
                }
            }
            Some((a, b)) => {
                let a = self.position_to_byte(a, enc);
                let b = self.position_to_byte(b, enc);
                self.replace(a..b, new_text)
            }
        }
    }

    /// Replaces a byte range (clamped to the text, both ends snapped down to char boundaries, a
    /// reversed range swapped) with `new_text`. Unlike positions, byte ranges may split a
    /// `\r\n`; the line structure follows the resulting text.
    pub fn replace(&mut self, bytes: Range<usize>, new_text: &str) -> Edit {
        let (start, end) = self.snap_range(bytes);
        let rope = self.rope_mut();
        let cs = rope.byte_to_char(start);
        if start < end {
            rope.remove(cs..rope.byte_to_char(end));
        }
        if !new_text.is_empty() {
            rope.insert(cs, new_text);
        }
        Edit {
            start,
            old_end: end,
            new_end: start + new_text.len(),
        }
    }

    /// The chunk holding `byte` (the last chunk for the end of the text) and where it starts.
    /// Finding it walks the tree without scanning text; chunks never split a char.
    fn chunk_at(&self, byte: usize) -> (&str, usize) {
        match &self.repr {
            Repr::Flat(flat) => (&flat.text, 0),
            Repr::Rope(rope) => {
                let (chunk, chunk_start, _, _) = rope.chunk_at_byte(byte);
                (chunk, chunk_start)
            }
        }
    }

    /// Clamps a byte offset to the text and rounds it down to a char boundary.
    fn snap(&self, byte: usize) -> usize {
        let byte = byte.min(self.len_bytes());
        let (chunk, chunk_start) = self.chunk_at(byte);
        chunk_start + floor_char_boundary(chunk, byte - chunk_start)
    }

    /// UTF-16 code units in `[from, to)` (char boundaries): a scan when both are in one chunk
    /// (the usual case for a column), otherwise two O(log n) lookups.
    fn utf16_between(&self, from: usize, to: usize) -> usize {
        let (chunk, chunk_start) = self.chunk_at(to);
        match &self.repr {
            _ if from >= chunk_start && to - chunk_start <= chunk.len() => {
                utf16_len(&chunk[from - chunk_start..to - chunk_start])
            }
            Repr::Flat(flat) => utf16_len(&flat.text[from..to]),
            Repr::Rope(rope) => {
                rope.char_to_utf16_cu(rope.byte_to_char(to))
                    - rope.char_to_utf16_cu(rope.byte_to_char(from))
            }
        }
    }

    /// Moves an offset between the `\r` and `\n` of a `\r\n` back onto the `\r`.
    fn snap_crlf(&self, byte: usize) -> usize {
        if byte > 0
            && byte < self.len_bytes()
            && self.byte(byte) == b'\n'
            && self.byte(byte - 1) == b'\r'
        {
            byte - 1
        } else {
            byte
        }
    }

    fn snap_range(&self, r: Range<usize>) -> (usize, usize) {
        let (a, b) = (self.snap(r.start), self.snap(r.end));
        (a.min(b), a.max(b))
    }
}

impl fmt::Display for Text {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.chunks().try_for_each(|chunk| f.write_str(chunk))
    }
}

impl From<&str> for Text {
    fn from(s: &str) -> Self {
        Self::new(s)
    }
}

impl PartialEq<str> for Text {
    fn eq(&self, other: &str) -> bool {
        match &self.repr {
            Repr::Flat(flat) => flat.text.as_str() == other,
            Repr::Rope(rope) => rope == other,
        }
    }
}

impl PartialEq<&str> for Text {
    fn eq(&self, other: &&str) -> bool {
        *self == **other
    }
}

impl PartialEq for Text {
    fn eq(&self, other: &Text) -> bool {
        self.len_bytes() == other.len_bytes() && self.to_string() == other.to_string()
    }
}

impl Eq for Text {}
