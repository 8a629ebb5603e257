//! Turns yaml-rust2 markers into byte offsets of the YAML text.
//!
//! `Marker::index` counts chars, not bytes (its docs say bytes), and drifts after a
//! block scalar with non-ASCII text; its line and column (in chars) stay right, so we
//! go through those. Line breaks are `\n`, `\r\n` and a lone `\r`, as the scanner sees
//! them. Markers arrive almost in order, so a cursor walks from the last one: the cost
//! is the distance moved, and a long single line stays linear.

use yaml_rust2::scanner::Marker;

pub(super) struct Positions<'a> {
    src: &'a str,
    /// Byte offset where each line starts; line 1 starts at 0.
    line_starts: Vec<usize>,
    /// The last position found: (line index, column in chars, byte offset).
    cursor: (usize, usize, usize),
}

impl<'a> Positions<'a> {
    pub(super) fn new(src: &'a str) -> Self {
        let bytes = src.as_bytes();
        let mut line_starts = vec![0];
        for (i, &b) in bytes.iter().enumerate() {
            let lone_cr = b == b'\r' && bytes.get(i + 1) != Some(&b'\n');
            if b == b'\n' || lone_cr {
                line_starts.push(i + 1);
            }
        }
        Positions {
            src,
            line_starts,
            cursor: (0, 0, 0),
        }
    }

    /// The byte offset of a marker, clamped to the end of its line (or of the text).
    pub(super) fn offset(&mut self, mark: &Marker) -> usize {
        let line = mark.line().saturating_sub(1);
        let Some(&start) = self.line_starts.get(line) else {
            return self.src.len();
        };
        let (mut col, mut byte) = match self.cursor {
            (l, col, byte) if l == line => (col, byte),
            _ => (0, start),
        };
        let target = mark.col();
        if target < col {
            for c in self.src[start..byte].chars().rev() {
                if col == target {
                    break;
                }
                byte -= c.len_utf8();
                col -= 1;
            }
        } else {
            for c in self.src[byte..].chars() {
                if col == target || c == '\n' || c == '\r' {
                    break;
                }
                byte += c.len_utf8();
                col += 1;
            }
        }
        self.cursor = (line, col, byte);
        byte
    }

    /// Where the line holding `pos` starts.
    pub(super) fn line_start(&self, pos: usize) -> usize {
        let idx = self.line_starts.partition_point(|&s| s <= pos);
        self.line_starts[idx.saturating_sub(1)]
    }
}
