//! Turns yaml-rust2 markers into byte offsets of the YAML text.
//!
//! `Marker::index` counts chars, not bytes (its docs say bytes), and drifts after a
//! block scalar with non-ASCII text; its line and column (in chars) stay right, so we
//! go through those. Line breaks are `\n`, `\r\n` and a lone `\r`, as the scanner sees them.

use yaml_rust2::scanner::Marker;

pub(super) struct Positions<'a> {
    src: &'a str,
    /// Byte offset where each line starts; line 1 starts at 0.
    line_starts: Vec<usize>,
}

impl<'a> Positions<'a> {
    pub(super) fn new(src: &'a str) -> Self {
        let bytes = src.as_bytes();
        let mut line_starts = vec![0];
        let mut i = 0;
        while i < bytes.len() {
            match bytes[i] {
                b'\n' => line_starts.push(i + 1),
                b'\r' if bytes.get(i + 1) != Some(&b'\n') => line_starts.push(i + 1),
                _ => {}
            }
            i += 1;
        }
        Positions { src, line_starts }
    }

    /// The byte offset of a marker, clamped to the end of its line (or of the text).
    pub(super) fn offset(&self, mark: &Marker) -> usize {
        let Some(&start) = self.line_starts.get(mark.line().saturating_sub(1)) else {
            return self.src.len();
        };
        let end = self.line_end(start);
        let line = &self.src[start..end];
        line.char_indices()
            .nth(mark.col())
            .map_or(end, |(i, _)| start + i)
    }

    /// Where the line holding `pos` starts.
    pub(super) fn line_start(&self, pos: usize) -> usize {
        let idx = self.line_starts.partition_point(|&s| s <= pos);
        self.line_starts[idx.saturating_sub(1)]
    }

    /// Where the line starting at `start` ends, before its line break.
    fn line_end(&self, start: usize) -> usize {
        self.src[start..]
            .find(['\n', '\r'])
            .map_or(self.src.len(), |i| start + i)
    }
}
