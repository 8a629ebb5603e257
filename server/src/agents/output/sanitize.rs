//! ANSI escape sequences and control characters out of a CLI's text: the answer lands
//! in Markdown, where a stray escape or carriage return is garbage.

use std::borrow::Cow;

/// `text` without ANSI escape sequences (CSI, OSC and two-byte escapes) and without
/// control characters other than tab and line feed: the answer lands in Markdown, where
/// a stray escape or carriage return is garbage.
pub fn sanitize(text: &str) -> String {
    if is_clean(text) {
        text.to_owned()
    } else {
        strip(text)
    }
}

/// [`sanitize`], borrowing `text` when there is nothing to remove.
pub fn sanitized(text: &str) -> Cow<'_, str> {
    if is_clean(text) {
        Cow::Borrowed(text)
    } else {
        Cow::Owned(strip(text))
    }
}

/// Whether [`sanitize`] would leave `text` unchanged: no control character other than tab
/// and line feed (C0, DEL, and C1, which UTF-8 writes as `C2 80`..`C2 9F`); ESC and the
/// C1 CSI that start escape sequences are control characters too.
///
/// Every piece of answer text goes through here, so it looks at 8 bytes at a time and
/// only at the bytes of a word that may hold one (a line feed, a tab, a `C2` lead byte).
pub(super) fn is_clean(text: &str) -> bool {
    const ONES: u64 = u64::MAX / 255;
    const HIGH: u64 = ONES << 7;
    let bytes = text.as_bytes();
    let mut start = 0;
    for word in bytes.chunks_exact(8) {
        let word = u64::from_le_bytes(word.try_into().expect("8 bytes"));
        // Nonzero when some byte is below 0x20, or is DEL or 0xC2 (exact as a whole,
        // though not byte by byte).
        let below = |n: u8| word.wrapping_sub(ONES * u64::from(n)) & !word & HIGH;
        let equal = |b: u8| {
            let x = word ^ (ONES * u64::from(b));
            x.wrapping_sub(ONES) & !x & HIGH
        };
        if below(0x20) | equal(0x7f) | equal(0xc2) != 0 && !bytes_clean(bytes, start, start + 8) {
            return false;
        }
        start += 8;
    }
    bytes_clean(bytes, start, bytes.len())
}

/// [`is_clean`] for the bytes from `start` to `end` (the one after may be looked at).
fn bytes_clean(bytes: &[u8], start: usize, end: usize) -> bool {
    (start..end).all(|i| match bytes[i] {
        b'\t' | b'\n' => true,
        b if b < 0x20 || b == 0x7f => false,
        0xc2 => !matches!(bytes.get(i + 1), Some(0x80..=0x9f)),
        _ => true,
    })
}

/// The slow path of [`sanitize`], for text that has something to remove.
pub(super) fn strip(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\u{1b}' => match chars.next() {
                // CSI: parameters and intermediates, then one final byte in @..~.
                Some('[') => {
                    for c in chars.by_ref() {
                        if ('\u{40}'..='\u{7e}').contains(&c) {
                            break;
                        }
                    }
                }
                // OSC (and the other string commands): up to BEL or ESC \.
                Some(']' | 'P' | 'X' | '^' | '_') => {
                    while let Some(c) = chars.next() {
                        if c == '\u{7}' {
                            break;
                        }
                        if c == '\u{1b}' && chars.peek() == Some(&'\\') {
                            chars.next();
                            break;
                        }
                    }
                }
                // Two-byte escapes (ESC c, ESC =, ...): drop both.
                _ => {}
            },
            // C1 CSI, as some programs print it.
            '\u{9b}' => {
                for c in chars.by_ref() {
                    if ('\u{40}'..='\u{7e}').contains(&c) {
                        break;
                    }
                }
            }
            '\t' | '\n' => out.push(c),
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn sanitize_removes_escapes_and_control_characters() {
        assert_eq!(sanitize("\u{1b}[1;31mred\u{1b}[0m text"), "red text");
        assert_eq!(sanitize("\u{1b}]0;title\u{7}after"), "after");
        assert_eq!(sanitize("\u{1b}]8;;http://x\u{1b}\\link"), "link");
        assert_eq!(sanitize("a\rb\u{8}c\u{0}\td\n"), "abc\td\n");
        assert_eq!(sanitize("\u{9b}2Jclear"), "clear");
        assert_eq!(sanitize("dangling \u{1b}"), "dangling ");
        assert_eq!(sanitize("héllo · 世界"), "héllo · 世界");
    }

    #[test]
    fn the_clean_text_shortcut_changes_nothing() {
        // Every character below U+0800 (all control characters among them), alone and
        // between others: the shortcut is taken only where the full pass keeps the text.
        for c in (0..0x800).filter_map(char::from_u32) {
            // Short texts, and the character at every place in a word of longer ones.
            let long = (0..9).map(|pad| format!("{}{c} plain words é", "x".repeat(pad)));
            let short = [c.to_string(), format!("a{c}é\u{9f}b"), format!("{c}[1m·")];
            for text in short.into_iter().chain(long) {
                assert_eq!(sanitize(&text), strip(&text), "{text:?}");
                assert_eq!(sanitized(&text), strip(&text), "{text:?}");
                assert_eq!(is_clean(&text), strip(&text) == text, "{text:?}");
            }
        }
    }
}
