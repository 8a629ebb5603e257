//! The child's stderr, drained concurrently (a full pipe would block the child) into a
//! bounded tail kept for error messages: never more than a fixed number of bytes.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::task::JoinHandle;

/// The last bytes of a stream, rendered as its last lines.
#[derive(Debug)]
pub(crate) struct Tail {
    bytes: VecDeque<u8>,
    max_bytes: usize,
    max_lines: usize,
    total: u64,
}

impl Tail {
    pub(crate) fn new(max_bytes: usize, max_lines: usize) -> Self {
        Self {
            bytes: VecDeque::with_capacity(max_bytes.min(8 * 1024)),
            max_bytes,
            max_lines,
            total: 0,
        }
    }

    pub(crate) fn push(&mut self, data: &[u8]) {
        self.total += data.len() as u64;
        let data = &data[data.len().saturating_sub(self.max_bytes)..];
        let excess = (self.bytes.len() + data.len()).saturating_sub(self.max_bytes);
        self.bytes.drain(..excess);
        self.bytes.extend(data);
    }

    /// How many bytes went through, kept or not.
    pub(crate) fn total(&self) -> u64 {
        self.total
    }

    /// The last `max_lines` lines, lossily decoded, without a line cut at the front
    /// and without trailing blank space.
    pub(crate) fn text(&mut self) -> String {
        let mut bytes: &[u8] = self.bytes.make_contiguous();
        if self.total > bytes.len() as u64 {
            // The front was cut off mid-line: start at the next whole line.
            if let Some(at) = memchr::memchr(b'\n', bytes) {
                bytes = &bytes[at + 1..];
            }
        }
        let text = String::from_utf8_lossy(bytes);
        let text = text.trim_end();
        let skip = text.lines().count().saturating_sub(self.max_lines);
        text.lines().skip(skip).collect::<Vec<_>>().join("\n")
    }
}

/// Reads `stderr` to its end into `tail`. The task ends at end of file or on a read
/// error; the runner aborts it if a stray process keeps the pipe open.
pub(crate) fn drain<R>(mut stderr: R, tail: Arc<Mutex<Tail>>) -> JoinHandle<()>
where
    R: AsyncRead + Unpin + Send + 'static,
{
    tokio::spawn(async move {
        let mut chunk = vec![0u8; 8 * 1024];
        loop {
            match stderr.read(&mut chunk).await {
                Ok(0) | Err(_) => return,
                Ok(n) => match tail.lock() {
                    Ok(mut tail) => tail.push(&chunk[..n]),
                    Err(_) => return,
                },
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_last_lines_within_the_byte_cap() {
        let mut tail = Tail::new(64, 3);
        for i in 0..100 {
            tail.push(format!("error line {i}\n").as_bytes());
        }
        assert_eq!(tail.text(), "error line 97\nerror line 98\nerror line 99");
        assert!(tail.bytes.len() <= 64);
        assert_eq!(tail.total(), 10 * 13 + 90 * 14);
    }

    #[test]
    fn a_huge_write_keeps_only_its_end_and_drops_the_cut_line() {
        let mut tail = Tail::new(16, 10);
        let mut data = vec![b'a'; 1000];
        data.extend_from_slice(b"\nlast words\n");
        tail.push(&data);
        assert_eq!(tail.text(), "last words");
    }

    #[test]
    fn invalid_utf8_is_replaced() {
        let mut tail = Tail::new(64, 10);
        tail.push(b"bad \xff byte\n\n");
        assert_eq!(tail.text(), "bad \u{fffd} byte");
    }
}
