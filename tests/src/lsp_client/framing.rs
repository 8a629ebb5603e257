//! LSP base-protocol framing: `Content-Length` headers around JSON bodies.
//! Written by hand (no codec crate) so the tests exercise the server's codec, not ours.

use std::io;

use tokio::io::{AsyncRead, AsyncReadExt};

/// Headers larger than this are a framing error, not a slow sender.
const MAX_HEADER_BYTES: usize = 8 * 1024;

/// Frames a message body: `Content-Length` counts bytes, not characters.
pub fn encode_frame(body: &[u8]) -> Vec<u8> {
    let header = format!("Content-Length: {}\r\n\r\n", body.len());
    let mut frame = Vec::with_capacity(header.len() + body.len());
    frame.extend_from_slice(header.as_bytes());
    frame.extend_from_slice(body);
    frame
}

/// Reads one frame's body from a blocking stream (a server's stdout on a thread of its
/// own); `None` at the end of the stream or on a header without a length. A header
/// other than `Content-Length` fails the test: stdout carries only the protocol.
pub fn read_body(reader: &mut impl io::BufRead) -> Option<Vec<u8>> {
    let mut length = None;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).ok()? == 0 {
            return None;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        let (name, value) = line.split_once(": ")?;
        assert_eq!(name, "Content-Length", "only protocol on stdout");
        length = value.parse::<usize>().ok();
    }
    let mut body = vec![0; length?];
    reader.read_exact(&mut body).ok()?;
    Some(body)
}

/// Reads framed message bodies from a byte stream, however the bytes are split across reads.
pub struct FrameReader<R> {
    reader: R,
    buf: Vec<u8>,
}

impl<R: AsyncRead + Unpin> FrameReader<R> {
    pub fn new(reader: R) -> Self {
        Self {
            reader,
            buf: Vec::with_capacity(64 * 1024),
        }
    }

    /// The next body, `None` at a clean end of stream (between frames).
    ///
    /// Not cancel-safe in the sense of keeping a half-read frame's position for a different
    /// reader, but bytes already read stay in the buffer, so calling it again continues.
    pub async fn read_frame(&mut self) -> io::Result<Option<Vec<u8>>> {
        let header_end = loop {
            if let Some(pos) = find(&self.buf, b"\r\n\r\n") {
                break pos + 4;
            }
            if self.buf.len() > MAX_HEADER_BYTES {
                return Err(invalid(format!(
                    "no end of headers within {MAX_HEADER_BYTES} bytes: {}",
                    preview(&self.buf)
                )));
            }
            if self.fill().await? == 0 {
                return if self.buf.is_empty() {
                    Ok(None)
                } else {
                    Err(io::Error::new(
                        io::ErrorKind::UnexpectedEof,
                        format!("stream ended inside headers: {}", preview(&self.buf)),
                    ))
                };
            }
        };
        let length = parse_content_length(&self.buf[..header_end - 4])?;
        let frame_end = header_end + length;
        self.buf.reserve(frame_end.saturating_sub(self.buf.len()));
        while self.buf.len() < frame_end {
            if self.fill().await? == 0 {
                return Err(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    format!(
                        "stream ended inside a body: got {} of {length} bytes",
                        self.buf.len() - header_end
                    ),
                ));
            }
        }
        let body = self.buf[header_end..frame_end].to_vec();
        self.buf.drain(..frame_end);
        Ok(Some(body))
    }

    async fn fill(&mut self) -> io::Result<usize> {
        let mut chunk = [0u8; 16 * 1024];
        let n = self.reader.read(&mut chunk).await?;
        self.buf.extend_from_slice(&chunk[..n]);
        Ok(n)
    }
}

/// Parses the header block (without the blank line). Names are case-insensitive; only
/// `Content-Length` matters, `Content-Type` is allowed, anything else is an error so a
/// server that writes stray bytes (e.g. logs on stdout) is caught.
fn parse_content_length(headers: &[u8]) -> io::Result<usize> {
    let text = std::str::from_utf8(headers)
        .map_err(|_| invalid(format!("headers are not UTF-8: {}", preview(headers))))?;
    let mut length = None;
    for line in text.split("\r\n") {
        let Some((name, value)) = line.split_once(':') else {
            return Err(invalid(format!("malformed header line {line:?}")));
        };
        let value = value.trim();
        if name.eq_ignore_ascii_case("Content-Length") {
            let n = value
                .parse::<usize>()
                .map_err(|_| invalid(format!("bad Content-Length {value:?}")))?;
            length = Some(n);
        } else if !name.eq_ignore_ascii_case("Content-Type") {
            return Err(invalid(format!("unexpected header {line:?}")));
        }
    }
    length.ok_or_else(|| invalid(format!("no Content-Length in headers {text:?}")))
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

fn invalid(message: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, message)
}

/// A short, printable view of raw bytes for error messages.
pub(crate) fn preview(bytes: &[u8]) -> String {
    const LIMIT: usize = 200;
    let text = String::from_utf8_lossy(&bytes[..bytes.len().min(LIMIT)]);
    if bytes.len() > LIMIT {
        format!("{text:?}… ({} bytes)", bytes.len())
    } else {
        format!("{text:?}")
    }
}

#[cfg(test)]
mod tests {
    use tokio::io::AsyncWriteExt;

    use super::*;

    async fn frames_of(bytes: &[u8]) -> io::Result<Vec<Vec<u8>>> {
        let mut reader = FrameReader::new(bytes);
        let mut frames = Vec::new();
        while let Some(body) = reader.read_frame().await? {
            frames.push(body);
        }
        Ok(frames)
    }

    #[tokio::test]
    async fn content_length_counts_bytes() {
        let body = "{\"text\":\"é🎉日本\"}".as_bytes();
        let frame = encode_frame(body);
        assert!(frame.starts_with(format!("Content-Length: {}\r\n\r\n", body.len()).as_bytes()));
        assert_eq!(body.len(), 23);
        assert_eq!(frames_of(&frame).await.unwrap(), vec![body.to_vec()]);
    }

    #[tokio::test]
    async fn frames_survive_one_byte_reads() {
        let mut bytes = encode_frame(b"{\"a\":1}");
        bytes.extend(encode_frame("\"ünïcödé\"".as_bytes()));
        bytes.extend(encode_frame(&[b'7'; 100_000]));
        // A one-byte pipe forces every read to return a single byte.
        let (mut tx, rx) = tokio::io::duplex(1);
        let expected = bytes.clone();
        let writer = tokio::spawn(async move { tx.write_all(&expected).await.unwrap() });
        let mut reader = FrameReader::new(rx);
        let mut frames = Vec::new();
        while let Some(body) = reader.read_frame().await.unwrap() {
            frames.push(body);
        }
        writer.await.unwrap();
        assert_eq!(frames.len(), 3);
        assert_eq!(frames[0], b"{\"a\":1}");
        assert_eq!(frames[1], "\"ünïcödé\"".as_bytes());
        assert_eq!(frames[2].len(), 100_000);
    }

    #[tokio::test]
    async fn header_names_are_case_insensitive_and_content_type_is_allowed() {
        let bytes = b"content-type: application/vscode-jsonrpc; charset=utf-8\r\n\
                      content-length: 2\r\n\r\n{}";
        assert_eq!(frames_of(bytes).await.unwrap(), vec![b"{}".to_vec()]);
    }

    #[tokio::test]
    async fn framing_errors_are_reported() {
        let missing = frames_of(b"Content-Type: x\r\n\r\n{}").await.unwrap_err();
        assert!(
            missing.to_string().contains("no Content-Length"),
            "{missing}"
        );
        let stray = frames_of(b"hello world\r\n\r\n").await.unwrap_err();
        assert!(stray.to_string().contains("malformed header"), "{stray}");
        let short = frames_of(b"Content-Length: 10\r\n\r\n{}")
            .await
            .unwrap_err();
        assert_eq!(short.kind(), io::ErrorKind::UnexpectedEof);
        let cut = frames_of(b"Content-Len").await.unwrap_err();
        assert_eq!(cut.kind(), io::ErrorKind::UnexpectedEof);
    }
}
