//! Splitting text into lines by the one rule every part of chatmd uses (CommonMark's,
//! and the rope's): a line ends at `\r\n`, `\n` or a lone `\r`. The chat scanner, the
//! foreign formats and streamed agent output all split here.
//!
//! The line breaks are found 64 bytes at a time ([`breaks`]): on short Markdown lines,
//! starting a search per line would cost more than the search itself.

mod breaks;

use breaks::Breaks;

use super::ByteRange;

/// Where one line lies in its text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LineBounds {
    /// The line's first byte.
    pub start: usize,
    /// Just past the line's content, before its line break.
    pub end: usize,
    /// Just past the line break: where the next line starts (`end` on a last line
    /// without one).
    pub next: usize,
}

impl LineBounds {
    /// The line's content, without its line break.
    pub fn range(&self) -> ByteRange {
        self.start..self.end
    }

    /// Whether the line ends with a line break (only the last line of a text may not).
    pub fn has_break(&self) -> bool {
        self.next > self.end
    }
}

/// The lines of a text from some offset on. A text that ends with a line break has no
/// empty line after it; an empty text has no line at all.
#[derive(Clone, Debug)]
pub struct Lines<'a> {
    text: &'a [u8],
    pos: usize,
    breaks: Breaks,
}

impl<'a> Lines<'a> {
    /// The lines of `text`.
    pub fn new(text: &'a str) -> Lines<'a> {
        Lines::from(text, 0)
    }

    /// The lines of `text` from the line that starts at byte `start`.
    pub fn from(text: &'a str, start: usize) -> Lines<'a> {
        Lines {
            text: text.as_bytes(),
            pos: start,
            breaks: Breaks::new(start),
        }
    }

    /// Where the next line starts.
    pub fn position(&self) -> usize {
        self.pos
    }
}

impl Iterator for Lines<'_> {
    type Item = LineBounds;

    #[inline(always)]
    fn next(&mut self) -> Option<LineBounds> {
        let text = self.text;
        let start = self.pos;
        if start >= text.len() {
            return None;
        }
        let (end, next) = self
            .breaks
            .next_line(text)
            .unwrap_or((text.len(), text.len()));
        self.pos = next;
        Some(LineBounds { start, end, next })
    }
}

/// The line break `text` uses, as its first line ends: `\n`, `\r\n` or a lone `\r`
/// (old Mac files); `\n` for a text without one.
pub fn line_break(text: &str) -> &'static str {
    match Lines::new(text).next().map(|l| &text[l.end..l.next]) {
        Some("\r\n") => "\r\n",
        Some("\r") => "\r",
        _ => "\n",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn contents(text: &str) -> Vec<&str> {
        Lines::new(text).map(|l| &text[l.range()]).collect()
    }

    #[test]
    fn lines_end_at_crlf_lf_or_a_lone_cr() {
        let text = "a\r\nb\rc\n\nd";
        let lines: Vec<(usize, usize, usize)> =
            Lines::new(text).map(|l| (l.start, l.end, l.next)).collect();
        assert_eq!(
            lines,
            [(0, 1, 3), (3, 4, 5), (5, 6, 7), (7, 7, 8), (8, 9, 9)]
        );
        // No empty line after a final line break, and none in an empty text.
        let ends = ["x\n", "", "\r\n\r"].map(|t| contents(t).len());
        assert_eq!(ends, [1, 0, 2]);
        let mut from_b = Lines::from(text, 3);
        assert_eq!(from_b.next().map(|l| l.range()), Some(3..4));
        assert_eq!(from_b.position(), 5);
    }

    #[test]
    fn the_line_break_is_the_first_lines() {
        let texts = ["a\r\nb\n", "a\nb\r\n", "a\rb", "a", ""];
        assert_eq!(texts.map(line_break), ["\r\n", "\n", "\r", "\n", "\n"]);
    }

    proptest! {
        // No regression files: this module keeps its files to itself.
        #![proptest_config(ProptestConfig { failure_persistence: None, ..ProptestConfig::default() })]

        #[test]
        fn lines_split_as_crlf_then_lf_or_cr(text in "[a\r\n\u{e9}]{0,30}") {
            let mut expected: Vec<&str> = text.split("\r\n").flat_map(|l| l.split(['\n', '\r'])).collect();
            if expected.last() == Some(&"") {
                expected.pop();
            }
            prop_assert_eq!(contents(&text), expected);
            for line in Lines::new(&text) {
                prop_assert!(matches!(&text[line.end..line.next], "" | "\n" | "\r" | "\r\n"));
            }
        }
    }
}
