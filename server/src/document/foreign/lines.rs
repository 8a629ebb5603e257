//! Splits a text into lines with their byte offsets: lines end at `\r\n`, `\n` or a
//! lone `\r`, found eight bytes at a time.

/// Lines of a text with the byte offset of their start. Lines end at `\r\n`, `\n` or a
/// lone `\r` (as for CommonMark and the document layer's rope), which a line excludes; a
/// final empty line (text ending in a line ending) is not yielded.
pub(super) struct Lines<'a> {
    text: &'a str,
    pos: usize,
}

impl<'a> Lines<'a> {
    pub(super) fn new(text: &'a str) -> Self {
        Lines { text, pos: 0 }
    }
}

impl<'a> Iterator for Lines<'a> {
    type Item = (usize, &'a str);

    fn next(&mut self) -> Option<Self::Item> {
        let rest = self.text.get(self.pos..)?;
        if rest.is_empty() {
            return None;
        }
        let start = self.pos;
        let bytes = rest.as_bytes();
        match find_line_end(bytes) {
            Some(i) => {
                let crlf = bytes[i] == b'\r' && bytes.get(i + 1) == Some(&b'\n');
                self.pos += i + if crlf { 2 } else { 1 };
                Some((start, &rest[..i]))
            }
            None => {
                self.pos = self.text.len();
                Some((start, rest))
            }
        }
    }
}

/// Index of the first `\n` or `\r` in `bytes`, eight bytes at a time (lines are often
/// short, and this beats a byte loop or a general-purpose search on them).
pub(super) fn find_line_end(bytes: &[u8]) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    const LF: u64 = 0x0a0a_0a0a_0a0a_0a0a;
    const CR: u64 = 0x0d0d_0d0d_0d0d_0d0d;
    // Flags the zero bytes of `x`: the lowest flag is exact (borrows only produce false
    // flags above a real zero byte), so the lowest flag of the union is the first match.
    let zeros = |x: u64| x.wrapping_sub(ONES) & !x & HIGHS;
    let mut chunks = bytes.chunks_exact(8);
    let mut offset = 0;
    for chunk in chunks.by_ref() {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        let word = u64::from_le_bytes(word);
        let found = zeros(word ^ LF) | zeros(word ^ CR);
        if found != 0 {
            return Some(offset + (found.trailing_zeros() / 8) as usize);
        }
        offset += 8;
    }
    chunks
        .remainder()
        .iter()
        .position(|&b| b == b'\n' || b == b'\r')
        .map(|i| offset + i)
}

/// Whether the first line ending of `text` is `\r\n`.
pub(super) fn uses_crlf(text: &str) -> bool {
    let bytes = text.as_bytes();
    find_line_end(bytes).is_some_and(|i| bytes[i] == b'\r' && bytes.get(i + 1) == Some(&b'\n'))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        // No regression files: this module keeps its files to itself.
        #![proptest_config(ProptestConfig { failure_persistence: None, ..ProptestConfig::default() })]

        #[test]
        fn find_line_end_matches_a_naive_search(bytes in prop::collection::vec(prop_oneof![Just(b'\n'), Just(b'\r'), Just(0x0b), Just(0x0c), Just(0x8a), Just(0x8d), any::<u8>()], 0..40)) {
            prop_assert_eq!(find_line_end(&bytes), bytes.iter().position(|&b| b == b'\n' || b == b'\r'));
        }

        #[test]
        fn lines_end_at_crlf_lf_or_cr(text in "[a\r\n\u{e9}]{0,30}") {
            let ours: Vec<&str> = Lines::new(&text).map(|(_, line)| line).collect();
            let mut expected: Vec<&str> = text.split("\r\n").flat_map(|l| l.split(['\n', '\r'])).collect();
            if expected.last() == Some(&"") {
                expected.pop();
            }
            prop_assert_eq!(ours, expected);
            for (start, line) in Lines::new(&text) {
                prop_assert_eq!(&text[start..start + line.len()], line);
            }
        }
    }
}
