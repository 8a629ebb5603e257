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

use ropey::Rope;

/// The unit of an LSP column, as negotiated in `initialize` (UTF-16 unless the client offers
/// UTF-8).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum PositionEncoding {
    Utf8,
    #[default]
    Utf16,
}

/// A zero-based line and a column in code units of a [`PositionEncoding`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Default)]
pub struct LineCol {
    pub line: u32,
    pub col: u32,
}

impl LineCol {
    pub const fn new(line: u32, col: u32) -> Self {
        Self { line, col }
    }
}

/// What a change did, in byte offsets: `[start, old_end)` of the old text became
/// `[start, new_end)` of the new text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Edit {
    pub start: usize,
    pub old_end: usize,
    pub new_end: usize,
}

impl Edit {
    /// How much longer (positive) or shorter (negative) the text got, in bytes.
    pub fn delta(&self) -> isize {
        self.new_end as isize - self.old_end as isize
    }

    /// Maps an offset of the old text to the new text. An offset is treated as sticking to the
    /// character that follows it:
    ///
    /// - `old < start`: unchanged;
    /// - `old >= old_end`: shifted by [`Edit::delta`] (`old - old_end + new_end`). This includes
    ///   `old == start` for a pure insertion, so text inserted exactly at an offset ends up
    ///   *before* it;
    /// - `start <= old < old_end` (the character after it was replaced): `new_end`, the end of
    ///   the replacement.
    pub fn map_offset(&self, old: usize) -> usize {
        if old < self.start {
            old
        } else if old >= self.old_end {
            old - self.old_end + self.new_end
        } else {
            self.new_end
        }
    }
}

/// A document's text: a rope with LSP position conversions.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Text {
    rope: Rope,
}

impl Text {
    pub fn new(s: &str) -> Self {
        Self {
            rope: Rope::from_str(s),
        }
    }

    pub fn len_bytes(&self) -> usize {
        self.rope.len_bytes()
    }

    /// Number of lines; a text ending with a line break has one more, empty line, and the empty
    /// text has one line.
    pub fn len_lines(&self) -> usize {
        self.rope.len_lines()
    }

    /// The text of a byte range, clamped to the text and snapped down to char boundaries
    /// (a reversed range is swapped).
    pub fn slice(&self, r: Range<usize>) -> String {
        let (start, end) = self.snap_range(r);
        let (cs, ce) = (self.rope.byte_to_char(start), self.rope.byte_to_char(end));
        String::from(self.rope.slice(cs..ce))
    }

    /// Clears `buf` and puts the text of a byte range in it, clamped and snapped as
    /// [`Text::slice`] does: many ranges read one after another into one buffer,
    /// without the whole text as one string.
    pub fn slice_into(&self, r: Range<usize>, buf: &mut String) {
        let (start, end) = self.snap_range(r);
        buf.clear();
        for chunk in self.rope.byte_slice(start..end).chunks() {
            buf.push_str(chunk);
        }
    }

    /// The text in order, in pieces of a few hundred bytes to a few KB (never splitting a
    /// char or a `\r\n`).
    pub fn chunks(&self) -> impl Iterator<Item = &str> + '_ {
        self.rope.chunks()
    }

    /// The LSP position of a byte offset. The offset is clamped to the text; one inside a char
    /// rounds down to the char's start, and one between the `\r` and `\n` of a `\r\n` rounds
    /// down to the `\r` (the end of its line).
    pub fn byte_to_position(&self, byte: usize, enc: PositionEncoding) -> LineCol {
        let byte = self.snap_crlf(self.snap(byte));
        let line = self.rope.byte_to_line(byte);
        let start = self.rope.line_to_byte(line);
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
        let start = self.rope.line_to_byte(line);
        let end = self.line_end(line);
        let col = pos.col as usize;
        match enc {
            PositionEncoding::Utf8 if col >= end - start => end,
            PositionEncoding::Utf8 => self.snap(start + col),
            PositionEncoding::Utf16 => {
                let (chunk, chunk_start) = self.chunk_at(start);
                if end - chunk_start <= chunk.len() {
                    // The common case: the whole line is in one chunk.
                    let content = &chunk[start - chunk_start..end - chunk_start];
                    start + utf16_col_to_byte(content, col)
                } else {
                    let base = self.rope.char_to_utf16_cu(self.rope.line_to_char(line));
                    let target = base.saturating_add(col);
                    let end_cu = self.rope.char_to_utf16_cu(self.rope.byte_to_char(end));
                    if target >= end_cu {
                        end
                    } else {
                        self.rope.char_to_byte(self.rope.utf16_cu_to_char(target))
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
            self.rope.line_to_byte(line)
        }
    }

    /// The byte offset where `line`'s content ends, before its line break; the end of the text
    /// for a line past the last.
    pub fn line_end(&self, line: usize) -> usize {
        if line.saturating_add(1) >= self.len_lines() {
            return self.len_bytes();
        }
        // Every line but the last ends with a break; `\r\n` is one break.
        let next = self.rope.line_to_byte(line + 1);
        if self.rope.byte(next - 1) == b'\n' && next >= 2 && self.rope.byte(next - 2) == b'\r' {
            next - 2
        } else {
            next - 1
        }
    }

    /// The line a byte offset is on (clamped to the text). A line's break belongs to that line,
    /// including both bytes of a `\r\n`.
    pub fn line_of_byte(&self, byte: usize) -> usize {
        self.rope.byte_to_line(self.snap_crlf(self.snap(byte)))
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
                self.rope = Rope::from_str(new_text);
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
        let cs = self.rope.byte_to_char(start);
        if start < end {
            self.rope.remove(cs..self.rope.byte_to_char(end));
        }
        if !new_text.is_empty() {
            self.rope.insert(cs, new_text);
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
        let (chunk, chunk_start, _, _) = self.rope.chunk_at_byte(byte);
        (chunk, chunk_start)
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
        if from >= chunk_start && to - chunk_start <= chunk.len() {
            utf16_len(&chunk[from - chunk_start..to - chunk_start])
        } else {
            self.rope.char_to_utf16_cu(self.rope.byte_to_char(to))
                - self.rope.char_to_utf16_cu(self.rope.byte_to_char(from))
        }
    }

    /// Moves an offset between the `\r` and `\n` of a `\r\n` back onto the `\r`.
    fn snap_crlf(&self, byte: usize) -> usize {
        if byte > 0
            && byte < self.len_bytes()
            && self.rope.byte(byte) == b'\n'
            && self.rope.byte(byte - 1) == b'\r'
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
        self.rope == *other
    }
}

impl PartialEq<&str> for Text {
    fn eq(&self, other: &&str) -> bool {
        self.rope == **other
    }
}

/// The length of `s` in UTF-16 code units.
pub fn utf16_len(s: &str) -> usize {
    // Every char starts with a non-continuation byte; chars of 4 UTF-8 bytes (lead byte
    // 0xF0..) take two UTF-16 units. Branch-free so it vectorises.
    s.bytes()
        .map(|b| usize::from((b & 0xC0) != 0x80) + usize::from(b >= 0xF0))
        .sum()
}

/// The column of a byte offset within one line's text, for when only the line is at hand.
/// `line` may include its trailing line break; the offset is clamped to the line's content
/// (before the break) and rounded down to a char boundary, as [`Text::byte_to_position`] does.
pub fn col_in_line(line: &str, byte_in_line: usize, enc: PositionEncoding) -> u32 {
    let content = strip_line_break(line);
    let byte = floor_char_boundary(content, byte_in_line);
    saturate(match enc {
        PositionEncoding::Utf8 => byte,
        PositionEncoding::Utf16 => utf16_len(&content[..byte]),
    })
}

/// The byte offset of a column within one line's text: the inverse of [`col_in_line`], with
/// the clamping of [`Text::position_to_byte`] (past the end: the end of the content, before any
/// trailing line break; inside a char: the char's start).
pub fn byte_in_line(line: &str, col: u32, enc: PositionEncoding) -> usize {
    let content = strip_line_break(line);
    let col = col as usize;
    match enc {
        PositionEncoding::Utf8 => floor_char_boundary(content, col),
        PositionEncoding::Utf16 => utf16_col_to_byte(content, col),
    }
}

/// The byte offset of a UTF-16 column in a line's content: the last char boundary whose column
/// does not exceed `col` (so past the end is the end, and inside a surrogate pair rounds down).
fn utf16_col_to_byte(content: &str, col: usize) -> usize {
    let mut units = 0;
    for (i, ch) in content.char_indices() {
        units += ch.len_utf16();
        if units > col {
            return i;
        }
    }
    content.len()
}

fn strip_line_break(line: &str) -> &str {
    line.strip_suffix("\r\n")
        .or_else(|| line.strip_suffix('\n'))
        .or_else(|| line.strip_suffix('\r'))
        .unwrap_or(line)
}

/// How many line breaks `s[..byte]` holds, by the rope's own rule of what breaks a
/// line: the line of `byte` in a piece of text that starts a line. `byte` must not
/// fall between the `\r` and `\n` of a `\r\n`.
pub fn breaks_before(s: &str, byte: usize) -> usize {
    ropey::str_utils::byte_to_line_idx(s, byte)
}

pub(crate) fn floor_char_boundary(s: &str, byte: usize) -> usize {
    let mut byte = byte.min(s.len());
    while !s.is_char_boundary(byte) {
        byte -= 1;
    }
    byte
}

/// Columns and lines beyond `u32::MAX` (a 4 GiB line) saturate rather than wrap.
pub(crate) fn saturate(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}
