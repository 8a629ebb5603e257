//! Columns within one line: UTF-16 and UTF-8 counts, and the rounding and clamping
//! LSP positions follow (shared by [`Text`](super::text::Text) and the code that
//! reads one line or one part of a text at a time).

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
pub(super) fn utf16_col_to_byte(content: &str, col: usize) -> usize {
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
