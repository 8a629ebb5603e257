//! Many offsets of one version of a text turned into positions at once: a table of
//! line starts built in one pass, then a binary search and a column count per offset,
//! instead of several rope lookups each (an outline of 20k messages asks for 80k).
//! The answers are exactly [`Text::byte_to_position`](super::text::Text::byte_to_position)'s:
//! the same lines (the rope's rule: `\n`, `\r` and `\r\n` break a line), the same
//! clamping and rounding.

use super::text::{
    LineCol, PositionEncoding, Text, breaks_before, floor_char_boundary, saturate, utf16_len,
};

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

/// Positions of offsets inside one part of a text (a message read out of the rope on
/// its own), from the part alone: its first position is looked up in the rope once,
/// the others counted in the part. The answers are [`Text::byte_to_position`]'s.
pub struct PartPositions<'a> {
    part: &'a str,
    base: usize,
    first: (usize, usize),
}

impl<'a> PartPositions<'a> {
    /// `part` is the text of `text` from byte `base` on, which must not fall between
    /// the `\r` and `\n` of a `\r\n`.
    pub fn new(text: &Text, part: &'a str, base: usize, enc: PositionEncoding) -> Self {
        Self::at(part, base, text.byte_to_position(base, enc))
    }

    /// [`PartPositions::new`] when the position of `base` is known (`first`).
    pub fn at(part: &'a str, base: usize, first: LineCol) -> Self {
        PartPositions {
            part,
            base,
            first: (first.line as usize, first.col as usize),
        }
    }

    /// The position of `byte`, from `base` to the part's end.
    pub fn position(&self, byte: usize, enc: PositionEncoding) -> LineCol {
        debug_assert!(byte >= self.base, "{byte} is before the part");
        let part = self.part;
        let bytes = part.as_bytes();
        let mut at = floor_char_boundary(part, byte.saturating_sub(self.base));
        if at > 0 && at < bytes.len() && bytes[at] == b'\n' && bytes[at - 1] == b'\r' {
            at -= 1;
        }
        let count = |s: &str| match enc {
            PositionEncoding::Utf8 => s.len(),
            PositionEncoding::Utf16 => utf16_len(s),
        };
        let (line, col) = match breaks_before(part, at) {
            0 => (self.first.0, self.first.1 + count(&part[..at])),
            breaks => {
                let start = memchr::memrchr2(b'\n', b'\r', &bytes[..at]).map_or(0, |i| i + 1);
                (self.first.0 + breaks, count(&part[start..at]))
            }
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
                    // A part from every char boundary at or before `byte` on (not
                    // inside a `\r\n`).
                    let bases = (0..=byte.min(flat.len())).filter(|&b| {
                        flat.is_char_boundary(b)
                            && !(flat[..b].ends_with('\r') && flat[b..].starts_with('\n'))
                    });
                    for base in bases {
                        let part = PartPositions::new(&text, &flat[base..], base, enc);
                        assert_eq!(
                            part.position(byte, enc),
                            text.byte_to_position(byte, enc),
                            "{flat:?} at {byte} in {enc:?} from {base}"
                        );
                    }
                }
            }
        }
    }
}
