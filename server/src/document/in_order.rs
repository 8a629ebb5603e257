//! Parts of a text read in order, in one pass over the rope's chunks: each part's text
//! copied into the caller's buffer, and the line its first byte is on counted on the
//! way. An outline or the folds of a long chat read 20k parts; a rope slice and two
//! line lookups per part were most of their time.

use super::text::{LineCol, PositionEncoding, Text, breaks_before};

/// A reader of parts of `text`, in order.
pub struct InOrder<'a> {
    text: &'a Text,
    chunks: Box<dyn Iterator<Item = &'a str> + 'a>,
    /// The unread rest of the current chunk, which starts at `at`.
    rest: &'a str,
    at: usize,
    /// Line breaks before `at`.
    lines: usize,
    /// The byte before `at` (0 at the start of the text).
    before: u8,
}

impl<'a> InOrder<'a> {
    pub fn new(text: &'a Text) -> Self {
        InOrder {
            text,
            chunks: Box::new(text.chunks()),
            rest: "",
            at: 0,
            lines: 0,
            before: 0,
        }
    }

    /// The text of `range` (in `buf`, cleared first, when it is read from a rope) and
    /// the position of its start, as [`Text::byte_to_position`] gives it. Ranges are
    /// char boundaries not between the `\r` and `\n` of a `\r\n`. A range that starts
    /// before the end of the previous one is read from the rope directly, as is any
    /// range when the text was not read in order.
    pub fn read<'s>(
        &'s mut self,
        range: std::ops::Range<usize>,
        buf: &'s mut String,
        enc: PositionEncoding,
    ) -> (&'s str, LineCol) {
        if range.start < self.at || range.end < range.start {
            self.text.slice_into(range.clone(), buf);
            return (buf, self.text.byte_to_position(range.start, enc));
        }
        buf.clear();
        self.pass(range.start - self.at, None);
        let start = if range.start == 0 || matches!(self.before, b'\n' | b'\r') {
            LineCol::new(super::text::saturate(self.lines), 0)
        } else {
            // A part in the middle of a line: its column is counted by the rope.
            self.text.byte_to_position(range.start, enc)
        };
        let flat = self.text.as_flat().map(|flat| flat.as_str());
        match flat.and_then(|flat| flat.get(range.clone())) {
            // As opened, the text is one string: the part is borrowed from it.
            Some(part) => {
                self.pass(range.end - range.start, None);
                (part, start)
            }
            None => {
                self.pass(range.end - range.start, Some(buf));
                (buf, start)
            }
        }
    }

    /// Moves `n` bytes on (fewer at the end of the text), counting their line breaks
    /// and copying them into `into`.
    fn pass(&mut self, mut n: usize, mut into: Option<&mut String>) {
        while n > 0 {
            if self.rest.is_empty() {
                match self.chunks.next() {
                    Some(chunk) => self.rest = chunk,
                    None => return,
                }
            }
            let mut take = n.min(self.rest.len());
            while !self.rest.is_char_boundary(take) {
                take += 1;
            }
            let (piece, rest) = self.rest.split_at(take);
            // A `\r\n` split between two pieces is one break, counted at its `\r`.
            let cr_counted = self.before == b'\r' && piece.starts_with('\n');
            self.lines += breaks_before(piece, piece.len()) - usize::from(cr_counted);
            if let Some(buf) = into.as_deref_mut() {
                buf.push_str(piece);
            }
            self.before = piece.as_bytes()[piece.len() - 1];
            self.rest = rest;
            self.at += take;
            n = n.saturating_sub(take);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_read_in_order_are_the_ropes_text_and_positions() {
        let line = "é😀 a line\r\nanother\rthird\n";
        let flat = line.repeat(400);
        for text in [Text::new(&flat), Text::from_string(flat.clone())] {
            read_in_order(&text, &flat);
        }
    }

    fn read_in_order(text: &Text, flat: &str) {
        // Every way to cut the text at line starts and in the middle of lines.
        let cuts: Vec<usize> = (0..=flat.len())
            .filter(|&b| {
                flat.is_char_boundary(b)
                    && !(flat[..b].ends_with('\r') && flat[b..].starts_with('\n'))
            })
            .collect();
        for step in [1, 7, 13, 64, 1000] {
            for enc in [PositionEncoding::Utf8, PositionEncoding::Utf16] {
                let mut reader = InOrder::new(text);
                let mut buf = String::new();
                let bounds: Vec<usize> = cuts.iter().step_by(step).copied().collect();
                for pair in bounds.windows(2) {
                    // Every other part skipped, so gaps are passed over too.
                    if pair[0] % 2 == 1 {
                        continue;
                    }
                    let (part, at) = reader.read(pair[0]..pair[1], &mut buf, enc);
                    assert_eq!(part, &flat[pair[0]..pair[1]], "{step} {pair:?}");
                    assert_eq!(at, text.byte_to_position(pair[0], enc), "{step} {pair:?}");
                }
                // Out of order: read from the rope.
                let (part, at) = reader.read(0..6, &mut buf, enc);
                assert_eq!((part, at), ("é😀", LineCol::new(0, 0)));
            }
        }
    }
}
