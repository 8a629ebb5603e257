//! Finding line breaks 64 bytes at a time.
//!
//! Searching for each line's end on its own (memchr, or a loop) costs a call set-up and
//! a mispredicted loop exit per line, which on short Markdown lines is most of the
//! work. Instead, each 64-byte block is turned into a bit mask of its line breaks
//! (word-at-a-time arithmetic, no branches), and lines are then read off the mask,
//! each checked against the text.

/// The line breaks of `text` from some offset on, one 64-byte block at a time.
#[derive(Clone, Debug)]
pub(super) struct Breaks {
    /// Where the block described by `mask` starts.
    block: usize,
    /// Bit `i` set: `text[block + i]` is a line break not yet handed out.
    mask: u64,
}

impl Breaks {
    /// Line breaks from `start` on.
    pub(super) fn new(start: usize) -> Breaks {
        Breaks {
            // The first block to describe starts at `start`.
            block: start.wrapping_sub(64),
            mask: 0,
        }
    }

    /// The first line break at or after `from` (no earlier than any handed out
    /// before), or None when the text has none left.
    #[inline(always)]
    pub(super) fn next(&mut self, text: &[u8], from: usize) -> Option<usize> {
        loop {
            if self.mask != 0 {
                let at = self.block + self.mask.trailing_zeros() as usize;
                // Not handed out already as part of a `\r\n`, and a line break, not one
                // of the rare bytes the mask may take for one.
                if at >= from && matches!(text[at], b'\n' | b'\r') {
                    return Some(at);
                }
                self.mask &= self.mask - 1;
                continue;
            }
            let block = self.block.wrapping_add(64);
            if block >= text.len() {
                return None;
            }
            self.block = block;
            self.mask = match text.get(block..block + 64) {
                Some(chunk) => mask(chunk),
                None => {
                    let mut padded = [0; 64];
                    let tail = &text[block..];
                    padded[..tail.len()].copy_from_slice(tail);
                    mask(&padded)
                }
            };
        }
    }

    /// Marks every break before `next` as handed out.
    #[inline(always)]
    pub(super) fn consume(&mut self, next: usize) {
        let skip = next.wrapping_sub(self.block);
        self.mask = if skip < 64 {
            self.mask & (!0 << skip)
        } else {
            0
        };
    }
}

/// The line breaks (`\n` and `\r`) of a 64-byte block as bits, bit `i` for byte `i`,
/// and maybe a few more: a `\x0b` right after a `\n` (or a `\x0c` right after a
/// `\r`) is taken for one too, which is cheaper than telling them apart here.
///
/// Looking for `\r` too costs less than a pass over the text to learn whether it has
/// any.
#[inline(always)]
fn mask(chunk: &[u8]) -> u64 {
    let mut mask = 0;
    // Last word first, each shifting the ones before it up: a chain the compiler keeps
    // in scalar registers, where the multiply in `gather` is cheap.
    for word in chunk.chunks_exact(8).rev() {
        let word = u64::from_le_bytes(word.try_into().expect("8 bytes"));
        let found = equal_bytes(word, b'\n') | equal_bytes(word, b'\r');
        mask = (mask << 8) | gather(found);
    }
    mask
}

const ONES: u64 = 0x0101_0101_0101_0101;

/// The high bit of each byte of `word` that equals `byte`, and of each byte equal to
/// `byte ^ 1` that follows one: a borrow out of a matching byte turns a 1 above it
/// into `0xff`. Nothing else is set.
#[inline(always)]
fn equal_bytes(word: u64, byte: u8) -> u64 {
    let x = word ^ (u64::from(byte) * ONES);
    x.wrapping_sub(ONES) & !x & (ONES << 7)
}

/// The high bits of the 8 bytes of `high` (nothing else set) as an 8-bit number.
#[inline(always)]
fn gather(high: u64) -> u64 {
    (high >> 7).wrapping_mul(0x0102_0408_1020_4080) >> 56
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(text: &[u8]) -> Vec<usize> {
        let mut breaks = Breaks::new(0);
        let mut out = Vec::new();
        let mut from = 0;
        while let Some(at) = breaks.next(text, from) {
            out.push(at);
            from = at + 1;
            breaks.consume(from);
        }
        out
    }

    #[test]
    fn masks_hold_every_break_and_only_the_documented_extras() {
        // Every pair of neighbouring bytes, with breaks among them.
        for a in 0..=255u8 {
            for b in 0..=255u8 {
                let mut chunk = [0; 64];
                for (i, byte) in chunk.iter_mut().enumerate() {
                    *byte = if i % 2 == 0 { a } else { b };
                }
                chunk[9] = b'\n';
                chunk[40] = b'\n';
                chunk[41] = 0x0b;
                chunk[61] = b'\r';
                chunk[62] = 0x0c;
                let is_break = |i: usize| matches!(chunk[i], b'\n' | b'\r');
                let got = mask(&chunk);
                for i in 0..64 {
                    let set = got & (1 << i) != 0;
                    if is_break(i) {
                        assert!(set, "{a} {b}: break {i} missed");
                    } else if set {
                        // Only bytes one off from a break, in a run right after it.
                        let mut j = i;
                        while j > 0 && !is_break(j - 1) {
                            assert_eq!(chunk[j - 1], chunk[i], "{a} {b} at {i}");
                            j -= 1;
                        }
                        assert!(j > 0, "{a} {b}: false break {i}");
                        assert_eq!(chunk[i] ^ 1, chunk[j - 1], "{a} {b} at {i}");
                    }
                }
            }
        }
    }

    #[test]
    fn finds_every_break_across_blocks() {
        let mut text = Vec::new();
        for i in 0..300 {
            text.extend(std::iter::repeat_n(b'x', i % 70));
            text.push(if i % 7 == 0 { b'\r' } else { b'\n' });
            // Bytes the masks take for breaks at first.
            if i % 5 == 0 {
                text.extend([0x0b, 0x0b, 0x0c]);
            }
        }
        let any: Vec<usize> = (0..text.len())
            .filter(|&i| matches!(text[i], b'\n' | b'\r'))
            .collect();
        assert_eq!(all(&text), any);
        for start in [0, 1, 63, 64, 65, 200] {
            let mut breaks = Breaks::new(start);
            assert_eq!(
                breaks.next(&text, start),
                any.iter().copied().find(|&i| i >= start)
            );
        }
    }
}
