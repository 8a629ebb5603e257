//! Finding the bytes the scanners look for, sixteen at a time.
//!
//! Markdown lines are short, so a search is started once per line or more: the cost
//! that matters is starting one, not its top speed. These searches compare a 16-byte
//! vector against every byte wanted and read the matches off as a bit mask (SSE2 on
//! x86-64 and NEON on aarch64, both always present, through the `wide` crate; plain
//! code elsewhere), with nothing to set up per call.

use wide::u8x16;

/// The `N` bytes of `text` from `at`, or fewer (even none) padded with zeros, a byte
/// no search looks for, at the end of the text.
#[inline(always)]
fn padded<const N: usize>(text: &[u8], at: usize) -> [u8; N] {
    let mut bytes = [0; N];
    let tail = text.get(at..).unwrap_or_default();
    let len = tail.len().min(N);
    bytes[..len].copy_from_slice(&tail[..len]);
    bytes
}

/// Bit `i` set: `text[at + i]` is a line break (`\n` or `\r`), for the 64 bytes from
/// `at` (fewer at the end of the text).
#[inline(always)]
pub(super) fn line_breaks(text: &[u8], at: usize) -> u64 {
    match text.get(at..at + 64) {
        Some(block) => line_breaks_64(block.try_into().expect("64 bytes")),
        None => line_breaks_64(&padded(text, at)),
    }
}

#[inline(always)]
fn line_breaks_64(block: &[u8; 64]) -> u64 {
    let (parts, _) = block.as_chunks::<16>();
    let breaks = |part: &[u8; 16]| {
        let v = u8x16::new(*part);
        let found = v.simd_eq(u8x16::splat(b'\n')) | v.simd_eq(u8x16::splat(b'\r'));
        u64::from(found.to_bitmask())
    };
    // Written out: as a loop, the compiler assembles the four masks in vector
    // registers, which costs more than the comparisons.
    breaks(&parts[0]) | breaks(&parts[1]) << 16 | breaks(&parts[2]) << 32 | breaks(&parts[3]) << 48
}

/// The offset of the first `@`, `[` or backtick — the bytes that may start a
/// mention, a marker or a code span — at or after `from`, if any.
#[inline]
pub fn find_inline_start(text: &[u8], from: usize) -> Option<usize> {
    find(text, from, |v| {
        v.simd_eq(u8x16::splat(b'@'))
            | v.simd_eq(u8x16::splat(b'['))
            | v.simd_eq(u8x16::splat(b'`'))
    })
}

/// The offset of the first byte at or after `from` that ends a run of a JSON string's
/// plain characters, if any: a quote, a backslash, or a control character (which JSON
/// refuses raw in a string).
#[inline]
pub fn find_string_stop(text: &[u8], from: usize) -> Option<usize> {
    find(text, from, string_stops)
}

/// Bit `i` set: byte `i` of `chunk` ends a run of a JSON string's plain characters
/// (see [`find_string_stop`]).
#[inline(always)]
pub fn string_stop_mask(chunk: [u8; 16]) -> u32 {
    string_stops(u8x16::new(chunk)).to_bitmask()
}

#[inline(always)]
fn string_stops(v: u8x16) -> u8x16 {
    v.simd_eq(u8x16::splat(b'"'))
        | v.simd_eq(u8x16::splat(b'\\'))
        | v.min(u8x16::splat(0x1f)).simd_eq(v)
}

/// The offset of the first `byte` at or after `from`, if any: memchr for the short
/// stretches of a line, where memchr's set-up costs more than its search.
#[inline]
pub fn find_byte(text: &[u8], from: usize, byte: u8) -> Option<usize> {
    find(text, from, |v| v.simd_eq(u8x16::splat(byte)))
}

/// The first byte at or after `from` that `matches` marks in its 16-byte vector.
#[inline(always)]
fn find(text: &[u8], from: usize, matches: impl Fn(u8x16) -> u8x16) -> Option<usize> {
    let mut at = from;
    while let Some(chunk) = text.get(at..at + 16) {
        let mask = matches(u8x16::new(chunk.try_into().expect("16 bytes"))).to_bitmask();
        if mask != 0 {
            return Some(at + mask.trailing_zeros() as usize);
        }
        at += 16;
    }
    // The last few bytes, without the padding after them.
    let tail = text.get(at..).filter(|tail| !tail.is_empty())?;
    let mask = matches(u8x16::new(padded(text, at))).to_bitmask() & ((1 << tail.len()) - 1);
    (mask != 0).then(|| at + mask.trailing_zeros() as usize)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_breaks_are_exact_at_every_position_and_at_the_end() {
        for len in 0..=64 {
            for at in 0..len {
                for byte in [b'\n', b'\r'] {
                    let mut text = vec![b'x'; len];
                    text[at] = byte;
                    assert_eq!(line_breaks(&text, 0), 1 << at, "{len} {at}");
                    assert_eq!(line_breaks(&text, 48), (1 << at) >> 48, "{len} {at}");
                }
            }
        }
        // Bytes near the breaks are not taken for them.
        let text: Vec<u8> = (0..=255u8).collect();
        assert_eq!(line_breaks(&text, 0), (1 << b'\n') | (1 << b'\r'));
        for block in [64, 128, 192] {
            assert_eq!(line_breaks(&text, block), 0);
        }
    }

    #[test]
    fn string_stops_are_quotes_backslashes_and_control_characters() {
        let stops: Vec<u8> = (0..=255u8)
            .filter(|&b| b == b'"' || b == b'\\' || b < 0x20)
            .collect();
        for len in 0..40 {
            for at in 0..len {
                for byte in 0..=255u8 {
                    let mut text = vec![b'a'; len];
                    text[at] = byte;
                    for from in [0, at, at + 1] {
                        let want = (from <= at && stops.contains(&byte)).then_some(at);
                        assert_eq!(find_string_stop(&text, from), want, "{len} {at} {byte}");
                    }
                }
            }
        }
    }

    #[test]
    fn inline_starts_are_found_in_every_position() {
        for len in 0..40 {
            for at in 0..len {
                for byte in [b'@', b'[', b'`'] {
                    let mut text = vec![b'a'; len];
                    text[at] = byte;
                    for from in 0..=len {
                        let want = (from <= at).then_some(at);
                        assert_eq!(find_inline_start(&text, from), want, "{len} {at} {from}");
                    }
                }
            }
        }
        let others: Vec<u8> = (0..=255u8)
            .filter(|b| !matches!(b, b'@' | b'[' | b'`'))
            .collect();
        assert_eq!(find_inline_start(&others, 0), None);
    }

    #[test]
    fn bytes_are_found_from_any_offset() {
        let text: Vec<u8> = (0..100u8).chain(0..100).collect();
        for byte in [0, 1, 15, 16, 17, 63, 99] {
            for from in 0..=text.len() {
                let want = text[from..]
                    .iter()
                    .position(|&b| b == byte)
                    .map(|i| from + i);
                assert_eq!(find_byte(&text, from, byte), want, "{byte} from {from}");
            }
        }
        assert_eq!(find_byte(&text, 0, 200), None);
    }
}
