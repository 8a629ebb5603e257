//! The child's stdout as lines: each capped in length (a longer one is skipped, never
//! buffered whole) and decoded lossily, so no byte an agent prints can fail the turn.

use std::borrow::Cow;

use tokio::io::{AsyncRead, AsyncReadExt};

/// How much is read from the pipe at once (a Linux pipe holds 64 KiB).
const CHUNK: usize = 64 * 1024;
/// A partial-line buffer that grew past this is released after its line, so one long
/// line does not pin its memory for the rest of the turn.
const KEEP_CAPACITY: usize = 1024 * 1024;

/// One item of output, borrowed from the reader's buffer when it can be.
#[derive(Debug, PartialEq, Eq)]
pub enum Line<'a> {
    /// A line without its `\n` (and `\r`), invalid UTF-8 replaced by U+FFFD.
    Text(Cow<'a, str>),
    /// A line longer than the cap, skipped; its length in bytes.
    TooLong(u64),
}

/// What the reader has seen; memory use is `CHUNK` plus `peak_line_buffer`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct ReaderStats {
    pub bytes: u64,
    pub lines: u64,
    pub skipped: u64,
    pub longest: usize,
    pub peak_line_buffer: usize,
}

/// Reads with [`LineReader::fill`] (the only await: cancel-safe in a `select!`) and
/// takes lines with [`LineReader::next_line`] until it returns `None`.
pub struct LineReader<R> {
    reader: R,
    chunk: Box<[u8]>,
    start: usize,
    end: usize,
    /// The start of a line that did not fit in one read.
    partial: Vec<u8>,
    /// Bytes of the over-long line being skipped, when one is.
    skipping: Option<u64>,
    max_line: usize,
    eof: bool,
    stats: ReaderStats,
}

impl<R: AsyncRead + Unpin> LineReader<R> {
    pub fn new(reader: R, max_line: usize) -> Self {
        Self {
            reader,
            chunk: vec![0; CHUNK].into_boxed_slice(),
            start: 0,
            end: 0,
            partial: Vec::new(),
            skipping: None,
            max_line,
            eof: false,
            stats: ReaderStats::default(),
        }
    }

    pub(crate) fn stats(&self) -> ReaderStats {
        self.stats
    }

    /// Reads once from the pipe. Returns `false` at end of file. Call it only after
    /// `next_line` returned `None`.
    pub async fn fill(&mut self) -> std::io::Result<bool> {
        debug_assert_eq!(self.start, self.end, "fill with unread lines");
        let read = self.reader.read(&mut self.chunk).await;
        match read {
            Ok(0) | Err(_) => {
                self.eof = true;
                read.map(|_| false)
            }
            Ok(n) => {
                self.start = 0;
                self.end = n;
                self.stats.bytes += n as u64;
                Ok(true)
            }
        }
    }

    /// The next complete line in what was read; at end of file, the last unterminated
    /// one.
    pub fn next_line(&mut self) -> Option<Line<'_>> {
        if let Some(at) = memchr::memchr(b'\n', &self.chunk[self.start..self.end]) {
            let (begin, stop) = (self.start, self.start + at);
            self.start = stop + 1;
            if let Some(skipped) = self.skipping.take() {
                return Some(self.skipped(skipped + at as u64));
            }
            let length = self.partial.len() + at;
            if length > self.max_line {
                self.release_partial();
                return Some(self.skipped(length as u64));
            }
            self.stats.lines += 1;
            self.stats.longest = self.stats.longest.max(length);
            if self.partial.is_empty() {
                return Some(Line::Text(decode(&self.chunk[begin..stop])));
            }
            self.keep_partial(begin, stop);
            let line = decode(&self.partial).into_owned();
            self.release_partial();
            return Some(Line::Text(Cow::Owned(line)));
        }
        let (start, end) = (self.start, self.end);
        self.start = 0;
        self.end = 0;
        let rest = end - start;
        if let Some(skipped) = self.skipping.as_mut() {
            *skipped += rest as u64;
        } else if self.partial.len() + rest > self.max_line {
            self.skipping = Some((self.partial.len() + rest) as u64);
            self.release_partial();
        } else if rest > 0 {
            self.keep_partial(start, end);
        }
        if self.eof {
            if let Some(skipped) = self.skipping.take() {
                return Some(self.skipped(skipped));
            }
            if !self.partial.is_empty() {
                let line = decode(&self.partial).into_owned();
                self.stats.lines += 1;
                self.stats.longest = self.stats.longest.max(self.partial.len());
                self.release_partial();
                return Some(Line::Text(Cow::Owned(line)));
            }
        }
        None
    }

    /// Throws away what was read and not yet taken (output after the turn ended).
    pub(crate) fn discard(&mut self) {
        self.start = 0;
        self.end = 0;
        self.skipping = None;
        self.release_partial();
    }

    fn skipped(&mut self, bytes: u64) -> Line<'static> {
        self.stats.skipped += 1;
        Line::TooLong(bytes)
    }

    /// Appends `chunk[start..end]` to `partial`, growing it no further than the cap
    /// (`Vec`'s doubling could otherwise reserve up to twice the cap).
    fn keep_partial(&mut self, start: usize, end: usize) {
        let needed = self.partial.len() + (end - start);
        if needed > self.partial.capacity() {
            let target = (self.partial.capacity() * 2).clamp(needed, self.max_line.max(needed));
            self.partial.reserve_exact(target - self.partial.len());
        }
        self.partial.extend_from_slice(&self.chunk[start..end]);
        self.stats.peak_line_buffer = self.stats.peak_line_buffer.max(self.partial.capacity());
    }

    fn release_partial(&mut self) {
        if self.partial.capacity() > KEEP_CAPACITY {
            self.partial = Vec::new();
        } else {
            self.partial.clear();
        }
    }
}

fn decode(bytes: &[u8]) -> Cow<'_, str> {
    String::from_utf8_lossy(bytes.strip_suffix(b"\r").unwrap_or(bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Feeds `input` through a reader with a small cap, one `chunk`-sized read at a time.
    async fn lines_of(input: &[u8], max_line: usize) -> (Vec<Line<'static>>, ReaderStats) {
        let mut reader = LineReader::new(input, max_line);
        let mut out = Vec::new();
        loop {
            while let Some(line) = reader.next_line() {
                out.push(owned(line));
            }
            if !reader.fill().await.unwrap() {
                while let Some(line) = reader.next_line() {
                    out.push(owned(line));
                }
                return (out, reader.stats());
            }
        }
    }

    fn owned(line: Line<'_>) -> Line<'static> {
        match line {
            Line::Text(text) => Line::Text(Cow::Owned(text.into_owned())),
            Line::TooLong(bytes) => Line::TooLong(bytes),
        }
    }

    fn text(s: &str) -> Line<'static> {
        Line::Text(Cow::Owned(s.to_string()))
    }

    #[tokio::test]
    async fn splits_lines_strips_cr_and_keeps_the_unterminated_last_one() {
        let (lines, stats) = lines_of(b"one\r\ntwo\n\nthree", 100).await;
        assert_eq!(
            lines,
            vec![text("one"), text("two"), text(""), text("three")]
        );
        assert_eq!(stats.lines, 4);
        assert_eq!(stats.bytes, 15);
    }

    #[tokio::test]
    async fn invalid_utf8_is_replaced_not_fatal() {
        let (lines, _) = lines_of(b"ok \xff\xfe end\n\x1b[31mred\x1b[0m\n", 100).await;
        assert_eq!(
            lines,
            vec![text("ok \u{fffd}\u{fffd} end"), text("\x1b[31mred\x1b[0m")]
        );
    }

    #[tokio::test]
    async fn a_line_over_the_cap_is_skipped_and_the_next_ones_kept() {
        let mut input = b"short\n".to_vec();
        input.extend(std::iter::repeat_n(b'x', 3 * CHUNK + 17));
        input.extend_from_slice(b"\nafter\n");
        input.extend(std::iter::repeat_n(b'y', 40));
        let (lines, stats) = lines_of(&input, CHUNK).await;
        assert_eq!(
            lines,
            vec![
                text("short"),
                Line::TooLong(3 * CHUNK as u64 + 17),
                text("after"),
                text(&"y".repeat(40)),
            ]
        );
        assert_eq!(stats.skipped, 1);
        assert!(stats.peak_line_buffer <= CHUNK, "{stats:?}");
    }

    #[tokio::test]
    async fn a_line_spanning_reads_is_joined_within_the_cap() {
        let long = "z".repeat(2 * CHUNK + 5);
        let input = format!("{long}\nend\n");
        let (lines, stats) = lines_of(input.as_bytes(), 4 * CHUNK).await;
        assert_eq!(lines, vec![text(&long), text("end")]);
        assert_eq!(stats.longest, long.len());
        assert!(stats.peak_line_buffer <= 4 * CHUNK, "{stats:?}");
    }

    #[tokio::test]
    async fn an_unterminated_line_over_the_cap_is_skipped_at_eof() {
        let input = vec![b'q'; 10];
        let (lines, _) = lines_of(&input, 4).await;
        assert_eq!(lines, vec![Line::TooLong(10)]);
    }
}
