//! Many offsets of one version of a text turned into positions at once: a table of
//! line starts built in one pass, then a binary search and a column count per offset,
//! instead of several rope lookups each (an outline of 20k messages asks for 80k).
//! The answers are exactly [`Text::byte_to_position`](super::text::Text::byte_to_position)'s:
//! the same lines (the rope's rule: `\n`, `\r` and `\r\n` break a line), the same
//! clamping and rounding.

use super::text::{LineCol, PositionEncoding, floor_char_boundary, saturate, utf16_len};

/// The line starts of `text`, whose content `flat` is.
pub struct LineStarts<'a> {
    flat: &'a str,
    starts: Vec<usize>,
}

impl<'a> LineStarts<'a> {
    /// The table of `flat`, found with `memchr` (walking the rope's lines took most
    /// of the time of a long chat's first outline).
    pub fn new(flat: &'a str) -> LineStarts<'a> {
        let bytes = flat.as_bytes();
        let mut starts = vec![0];
        for at in memchr::memchr2_iter(b'\n', b'\r', bytes) {
            // `\r\n` is one break: the line starts after its `\n`.
            if bytes[at] == b'\r' && bytes.get(at + 1) == Some(&b'\n') {
                continue;
            }
            starts.push(at + 1);
        }
        LineStarts { flat, starts }
    }

    /// The position of `byte`, as [`Text::byte_to_position`] gives it.
    pub fn position(&self, byte: usize, enc: PositionEncoding) -> LineCol {
        let flat = self.flat;
        let mut byte = floor_char_boundary(flat, byte);
        let bytes = flat.as_bytes();
        if byte > 0 && byte < bytes.len() && bytes[byte] == b'\n' && bytes[byte - 1] == b'\r' {
            byte -= 1;
        }
        let line = self.starts.partition_point(|start| *start <= byte).max(1) - 1;
        let start = self.starts.get(line).copied().unwrap_or(0);
        let col = match enc {
            PositionEncoding::Utf8 => byte - start,
            PositionEncoding::Utf16 => utf16_len(&flat[start..byte]),
        };
        LineCol {
            line: saturate(line),
            col: saturate(col),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::document::text::Text;

    #[test]
    fn every_offset_lands_where_the_rope_puts_it() {
        // Every kind of line break the rope knows, multibyte and astral chars, a final
        // break and none, an empty text.
        for flat in [
            "",
            "a",
            "## @me\nhi\n",
            "one\r\ntwo\rthree\nfour\u{2028}five\u{85}six\u{b}seven\u{c}eight\u{2029}",
            "é😀x\r\n\r\n😀\n",
            "no break at the end 😀",
            "\r\r\n\n\r",
            "\r",
        ] {
            let text = Text::new(flat);
            let starts = LineStarts::new(flat);
            for byte in 0..=flat.len() + 2 {
                for enc in [PositionEncoding::Utf8, PositionEncoding::Utf16] {
                    assert_eq!(
                        starts.position(byte, enc),
                        text.byte_to_position(byte, enc),
                        "{flat:?} at {byte} in {enc:?}"
                    );
                }
            }
        }
    }
}
