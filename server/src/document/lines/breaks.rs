//! Finding line breaks 64 bytes at a time.
//!
//! Searching for each line's end on its own (memchr, or a loop) costs a call set-up and
//! a mispredicted loop exit per line, which on short Markdown lines is most of the
//! work. Instead, each 64-byte block is turned into a bit mask of its line breaks,
//! and lines are then read off the mask.

use crate::document::bytes::line_breaks;

/// The line breaks of `text` from some offset on, one 64-byte block at a time.
#[derive(Clone, Debug)]
pub(super) struct Breaks {
    /// Where the block described by `mask` starts.
    block: usize,
    /// Bit `i` set: `text[block + i]` is a line break not yet handed out.
    mask: u64,
    /// The next block starts with the `\n` of a `\r\n` already handed out.
    skip_first: bool,
}

impl Breaks {
    /// Line breaks from `start` on.
    pub(super) fn new(start: usize) -> Breaks {
        Breaks {
            // The first block to describe starts at `start`.
            block: start.wrapping_sub(64),
            mask: 0,
            skip_first: false,
        }
    }

    /// Where the next line ends (its line break) and where the line after it starts,
    /// or None when the text has no line break left.
    #[inline(always)]
    pub(super) fn next_line(&mut self, text: &[u8]) -> Option<(usize, usize)> {
        while self.mask == 0 {
            let block = self.block.wrapping_add(64);
            if block >= text.len() {
                return None;
            }
            self.block = block;
            self.mask = line_breaks(text, block);
            if self.skip_first {
                self.skip_first = false;
                self.mask &= !1;
            }
        }
        let end = self.block + self.mask.trailing_zeros() as usize;
        self.mask &= self.mask - 1;
        let mut next = end + 1;
        if text[end] == b'\r' && text.get(next) == Some(&b'\n') {
            // A `\r\n` is one line break: its `\n` ends no line of its own.
            next += 1;
            if end + 1 - self.block < 64 {
                self.mask &= self.mask - 1;
            } else {
                self.skip_first = true;
            }
        }
        Some((end, next))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every line's (end, next) from `start` on.
    fn lines(text: &[u8], start: usize) -> Vec<(usize, usize)> {
        let mut breaks = Breaks::new(start);
        std::iter::from_fn(|| breaks.next_line(text)).collect()
    }

    /// The same, the slow and obvious way.
    fn expected(text: &[u8], start: usize) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        let mut i = start;
        while i < text.len() {
            match text[i] {
                b'\r' if text.get(i + 1) == Some(&b'\n') => {
                    out.push((i, i + 2));
                    i += 2;
                }
                b'\r' | b'\n' => {
                    out.push((i, i + 1));
                    i += 1;
                }
                _ => i += 1,
            }
        }
        out
    }

    #[test]
    fn finds_every_line_across_blocks() {
        let mut text = Vec::new();
        for i in 0..300 {
            text.extend(std::iter::repeat_n(b'x', i % 70));
            text.extend_from_slice(match i % 7 {
                0 => b"\r\n",
                1 => b"\r",
                _ => b"\n",
            });
            // Bytes next to the breaks' values.
            if i % 5 == 0 {
                text.extend([0x0b, 0x0b, 0x0c]);
            }
        }
        for start in [0, 1, 63, 64, 65, 200] {
            assert_eq!(lines(&text, start), expected(&text, start), "from {start}");
        }
    }

    #[test]
    fn a_crlf_split_between_blocks_is_one_break() {
        for at in 60..68 {
            let mut text = vec![b'x'; 140];
            text[at] = b'\r';
            text[at + 1] = b'\n';
            text[130] = b'\n';
            assert_eq!(lines(&text, 0), [(at, at + 2), (130, 131)], "at {at}");
        }
    }
}
