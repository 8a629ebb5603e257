//! Frames from the client's byte stream: `Content-Length` headers and the bodies they
//! delimit. A header that delimits no body (a length that is not a number, a negative
//! one, none at all) or garbage between frames costs only itself: reading goes on at the
//! next `Content-Length:` header in the stream, even one that starts in the middle of a
//! line (after a body shorter than its header said).

use std::io;
use std::ops::Range;

use tokio::io::{AsyncRead, AsyncReadExt};

use super::sync_peek;

/// The largest body read of any message but a document sync: each byte of a message
/// costs several while tower-lsp-server decodes it, so a bigger cap would let one
/// message take hundreds of MB.
pub(super) const MAX_BODY: usize = 32 << 20;

/// The largest `didOpen` or `didChange` body read (see [`sync_peek`]): a chat of 256 MB
/// opens, with room for its escapes (each line break is two bytes in JSON, a client
/// escaping non-ASCII characters as `\uXXXX` takes more). Such a body is decoded in
/// the buffer it is read into, which becomes the document's text.
pub(super) const MAX_SYNC_BODY: usize = 384 << 20;

/// A header line longer than this is garbage, not a header.
const MAX_HEADER_LINE: usize = 8 << 10;

/// How the search for a header starts (matched without regard to case).
const NEEDLE: &[u8] = b"content-length:";

/// How much is read at once.
const CHUNK: usize = 64 << 10;

/// The most read at once (see [`FrameReader::fill`]): a pipe from the editor holds
/// 1 MiB at most (see `lsp::pipes`).
pub(super) const AT_ONCE: usize = 512 << 10;

/// A body larger than this is handed over in the buffer it was read into.
const TAKE_FROM: usize = 1 << 20;

/// One item of the stream.
#[derive(Debug, PartialEq)]
pub(super) enum Frame {
    /// A body, as its header delimited it.
    Body(Vec<u8>),
    /// A header that delimits no body, and why; what follows was skipped up to the next
    /// header.
    BadHeader(String),
    /// A body larger than [`MAX_BODY`] that is not a document sync, or larger than
    /// [`MAX_SYNC_BODY`] (its length), skipped unread.
    TooLarge(u64),
}

pub(super) struct FrameReader<R> {
    input: R,
    buf: Vec<u8>,
    /// The start of the unread bytes in `buf`.
    start: usize,
    /// After something that was not a header: skip to the next one.
    resync: bool,
    /// A body larger than [`TAKE_FROM`] is being read into room made for it.
    large_body: bool,
}

enum Line {
    /// A line of `buf`, with its `\n`.
    Text(Range<usize>),
    TooLong,
    Eof,
}

impl<R: AsyncRead + Unpin> FrameReader<R> {
    pub(super) fn new(input: R) -> Self {
        FrameReader {
            input,
            buf: Vec::new(),
            start: 0,
            resync: false,
            large_body: false,
        }
    }

    /// The next frame; `None` at the end of the input.
    pub(super) async fn next(&mut self) -> io::Result<Option<Frame>> {
        'frame: loop {
            if self.resync {
                if !self.skip_to_header().await? {
                    return Ok(None);
                }
                self.resync = false;
            }
            let mut length: Result<Option<u64>, String> = Ok(None);
            let mut in_header = false;
            loop {
                let range = match self.line().await? {
                    Line::Text(range) => range,
                    Line::TooLong => {
                        tracing::warn!("skipping a line of garbage from the client");
                        self.resync = true;
                        continue 'frame;
                    }
                    Line::Eof if in_header => {
                        return Ok(Some(Frame::BadHeader(
                            "the input ended inside a header".into(),
                        )));
                    }
                    Line::Eof => {
                        if self.start < self.buf.len() {
                            tracing::warn!("the client's input ended with garbage");
                            self.start = self.buf.len();
                        }
                        return Ok(None);
                    }
                };
                self.start = range.end;
                let line = trim_line_end(&self.buf[range.clone()]);
                if line.is_empty() {
                    if in_header {
                        break;
                    }
                    continue;
                }
                // A header may start inside this line, after a body shorter than its
                // Content-Length said: read on from there.
                if !is_length_header(line)
                    && let Some(at) = find_header_start(line)
                {
                    tracing::warn!("skipping {at} bytes of garbage from the client");
                    self.start = range.start + at;
                    continue 'frame;
                }
                match header(line) {
                    Some((name, value)) => {
                        in_header = true;
                        if name.eq_ignore_ascii_case(b"content-length") {
                            length = match (length, content_length(value)) {
                                (Ok(None), Ok(n)) => Ok(Some(n)),
                                (Ok(Some(a)), Ok(b)) if a == b => Ok(Some(a)),
                                (Ok(Some(_)), Ok(_)) => Err("two different Content-Length".into()),
                                (Err(e), _) | (_, Err(e)) => Err(e),
                            };
                        }
                    }
                    None => {
                        tracing::warn!("skipping a line of garbage from the client");
                        self.resync = true;
                        if in_header {
                            return Ok(Some(Frame::BadHeader("a header line is garbage".into())));
                        }
                        continue 'frame;
                    }
                }
            }
            let length = match length {
                Ok(Some(n)) => n,
                Ok(None) => {
                    self.resync = true;
                    return Ok(Some(Frame::BadHeader(
                        "a header without Content-Length".into(),
                    )));
                }
                Err(e) => {
                    self.resync = true;
                    return Ok(Some(Frame::BadHeader(e)));
                }
            };
            if length > MAX_BODY as u64
                && (length > MAX_SYNC_BODY as u64 || !self.starts_a_sync(length).await?)
            {
                self.skip(length).await?;
                return Ok(Some(Frame::TooLarge(length)));
            }
            let length = length as usize;
            if length > TAKE_FROM {
                // Room for the whole body at once, rather than doubling up to it.
                self.buf.drain(..self.start);
                self.start = 0;
                self.buf.reserve(length.saturating_sub(self.buf.len()));
                self.large_body = true;
            }
            while self.buf.len() - self.start < length {
                if !self.fill().await? {
                    tracing::warn!("the client's input ended inside a message");
                    self.start = self.buf.len();
                    self.large_body = false;
                    return Ok(None);
                }
            }
            let end = self.start + length;
            self.large_body = false;
            let body = if length > TAKE_FROM {
                // A large body keeps the buffer it was read into (no copy of it); the
                // bytes after it become the buffer.
                let rest = self.buf.split_off(end);
                let mut body = std::mem::replace(&mut self.buf, rest);
                body.drain(..self.start);
                self.start = 0;
                body
            } else {
                let body = self.buf[self.start..end].to_vec();
                self.start = end;
                body
            };
            return Ok(Some(Frame::Body(body)));
        }
    }

    /// Reads `bytes` again before the rest of the input: the part of a bad body from a
    /// header found inside it (the body's Content-Length said more than it held).
    pub(super) fn unread(&mut self, bytes: &[u8]) {
        self.buf
            .splice(self.start..self.start, bytes.iter().copied());
    }

    /// Whether the body of `length` bytes ahead starts as a document sync.
    async fn starts_a_sync(&mut self, length: u64) -> io::Result<bool> {
        let peek = sync_peek::PEEK.min(length as usize);
        while self.buf.len() - self.start < peek {
            if !self.fill().await? {
                return Ok(false);
            }
        }
        let prefix = &self.buf[self.start..self.start + peek];
        Ok(sync_peek::names_document_sync(prefix))
    }

    /// Reads more input after the unread bytes; false at the end of the input.
    async fn fill(&mut self) -> io::Result<bool> {
        if self.start > 0 {
            self.buf.drain(..self.start);
            self.start = 0;
        }
        if self.buf.capacity() > 16 * CHUNK && self.buf.len() < CHUNK && !self.large_body {
            // A big body is gone: do not keep its memory.
            self.buf.shrink_to(2 * CHUNK);
        }
        self.buf.reserve(CHUNK);
        // At most `AT_ONCE`: tokio's stdin reads through a buffer of its own as large
        // as the room offered (up to 2 MiB), kept for good.
        let mut at_most = (&mut self.input).take(AT_ONCE as u64);
        Ok(at_most.read_buf(&mut self.buf).await? > 0)
    }

    async fn line(&mut self) -> io::Result<Line> {
        let mut searched = 0;
        loop {
            let unread = &self.buf[self.start..];
            if let Some(i) = unread[searched..].iter().position(|&b| b == b'\n') {
                let end = self.start + searched + i + 1;
                return Ok(Line::Text(self.start..end));
            }
            if unread.len() > MAX_HEADER_LINE {
                return Ok(Line::TooLong);
            }
            searched = unread.len();
            if !self.fill().await? {
                return Ok(Line::Eof);
            }
        }
    }

    /// Skips to the next `Content-Length:` header; false at the end of the input.
    async fn skip_to_header(&mut self) -> io::Result<bool> {
        loop {
            let unread = &self.buf[self.start..];
            match find_ignore_case(unread, NEEDLE) {
                Some(at) => {
                    let from = &unread[at..];
                    match from.iter().position(|&b| b == b'\n') {
                        Some(end) if is_length_header(trim_line_end(&from[..=end])) => {
                            self.start += at;
                            return Ok(true);
                        }
                        None if from.len() <= MAX_HEADER_LINE => {
                            if !self.fill().await? {
                                return Ok(false);
                            }
                        }
                        // Not a header (a mention of one in a message's text).
                        _ => self.start += at + 1,
                    }
                }
                None => {
                    // Keep what could be the start of the needle.
                    self.start = self
                        .buf
                        .len()
                        .saturating_sub(NEEDLE.len() - 1)
                        .max(self.start);
                    if !self.fill().await? {
                        return Ok(false);
                    }
                }
            }
        }
    }

    /// Skips `length` bytes without keeping them.
    async fn skip(&mut self, mut length: u64) -> io::Result<()> {
        loop {
            let have = ((self.buf.len() - self.start) as u64).min(length);
            self.start += have as usize;
            length -= have;
            if length == 0 {
                return Ok(());
            }
            if !self.fill().await? {
                return Ok(());
            }
        }
    }
}

/// Where a `Content-Length:` header starts in a garbage line, after its first byte.
pub(super) fn find_header_start(line: &[u8]) -> Option<usize> {
    (1..line.len()).find(|&at| is_length_header(line_from(line, at)))
}

/// Where a header may start in a body that is not valid: its Content-Length said more
/// than it held, so the next frame's header is inside it — whole, or cut at the end of
/// the body (the rest is still to be read). It may start the body: a header sent
/// without its body has the next frame for a body.
pub(super) fn find_header_in_body(body: &[u8]) -> Option<usize> {
    (0..body.len()).find(|&at| {
        let rest = &body[at..];
        if rest.len() < NEEDLE.len() {
            return rest.eq_ignore_ascii_case(&NEEDLE[..rest.len()]);
        }
        if !rest[..NEEDLE.len()].eq_ignore_ascii_case(NEEDLE) {
            return false;
        }
        if rest.contains(&b'\n') {
            return is_length_header(line_from(body, at));
        }
        // Cut inside the header: so far only a length.
        rest[NEEDLE.len()..]
            .iter()
            .all(|b| b.is_ascii_digit() || b" \t\r".contains(b))
    })
}

/// The line of `bytes` that starts at `at`, without its line break.
fn line_from(bytes: &[u8], at: usize) -> &[u8] {
    let rest = &bytes[at..];
    let end = rest.iter().position(|&b| b == b'\n').unwrap_or(rest.len());
    trim_line_end(&rest[..end])
}

fn find_ignore_case(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack
        .windows(needle.len())
        .position(|w| w.eq_ignore_ascii_case(needle))
}

fn trim_line_end(line: &[u8]) -> &[u8] {
    let mut line = line;
    while let [rest @ .., b'\r' | b'\n'] = line {
        line = rest;
    }
    line
}

/// `Name: value`, with a name of token characters (RFC 7230).
fn header(line: &[u8]) -> Option<(&[u8], &[u8])> {
    let colon = line.iter().position(|&b| b == b':')?;
    let (name, value) = (&line[..colon], &line[colon + 1..]);
    let token = |b: &u8| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(b);
    let printable = |b: &u8| *b == b'\t' || (b' '..=b'~').contains(b) || *b >= 0x80;
    (!name.is_empty() && name.iter().all(token) && value.iter().all(printable))
        .then_some((name, value))
}

fn content_length(value: &[u8]) -> Result<u64, String> {
    let value = value.trim_ascii();
    let shown = || String::from_utf8_lossy(value).into_owned();
    if value.is_empty() || !value.iter().all(u8::is_ascii_digit) {
        return Err(format!("a bad Content-Length `{}`", shown()));
    }
    std::str::from_utf8(value)
        .ok()
        .and_then(|v| v.parse().ok())
        .ok_or_else(|| format!("a Content-Length too large: `{}`", shown()))
}

fn is_length_header(line: &[u8]) -> bool {
    header(line).is_some_and(|(name, value)| {
        name.eq_ignore_ascii_case(b"content-length") && content_length(value).is_ok()
    })
}

#[cfg(test)]
#[path = "reader_tests.rs"]
mod tests;
