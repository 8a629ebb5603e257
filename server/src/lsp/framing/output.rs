//! The server's side of stdout: tower-lsp-server writes its frames into a pipe, and
//! this task copies them to the client one whole frame at a time, so nothing else can
//! interleave with them. Large results (a long chat's outline and folding) do not go
//! through tower-lsp-server, which turns every result into a `serde_json::Value` tree
//! (for 20k symbols, most of the request's time and memory): their handlers serialize
//! them straight to bytes, put the bytes in [`RawResults`] and answer with a small
//! token; here the token is swapped for the bytes, in the same place among the frames,
//! so the client gets exactly what tower-lsp-server would have written. A result waits
//! until its frame comes, however many wait together: dropping one would put the token
//! itself in front of the editor.

use std::collections::HashMap;
use std::future::Future;
use std::io;
use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::Notify;

/// The name of the token's one member: no result of a standard request is an object
/// with only this member.
const TOKEN_MEMBER: &str = "chatmdRaw";

/// A frame smaller than this may carry a token; a larger one is copied through
/// without being looked at (or held whole). The guard leaves requests whose id would
/// make their token's response this large to the usual path (see [`MAX_ID_JSON`]).
const SMALL_FRAME: usize = 256;

/// The longest request id (as JSON) whose answer may be a token: the response
/// `{"jsonrpc":"2.0","result":{"chatmdRaw":<u64>},"id":<id>}` then stays under
/// [`SMALL_FRAME`].
pub const MAX_ID_JSON: usize = 128;

/// How many bytes of results may wait for their frames before the next one waits for
/// room: a result is never dropped for another (its editor would get the token), so
/// memory is bounded by making handlers wait for the writer instead.
const WAITING_BYTES: usize = 64 << 20;

/// What a handler answers instead of a large result; see [`RawResults::stash`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawToken {
    #[serde(rename = "chatmdRaw")]
    raw: u64,
}

/// Serialized results waiting for the frame that answers with their token.
#[derive(Clone)]
pub struct RawResults {
    inner: Arc<RawInner>,
}

impl Default for RawResults {
    fn default() -> Self {
        Self::with_room(WAITING_BYTES)
    }
}

struct RawInner {
    waiting: Mutex<Waiting>,
    /// Told each time a result leaves, for stashes waiting for room.
    left: Notify,
    room: usize,
}

/// Each result by its token until its frame is written (or the frame is known never
/// to come), and the bytes they hold together.
#[derive(Default)]
struct Waiting {
    next: u64,
    results: HashMap<u64, Arc<Vec<u8>>>,
    bytes: usize,
}

impl RawResults {
    /// A store that lets results of `room` bytes at most wait together (a larger
    /// single result waits alone).
    fn with_room(room: usize) -> Self {
        RawResults {
            inner: Arc::new(RawInner {
                waiting: Mutex::default(),
                left: Notify::new(),
                room,
            }),
        }
    }

    /// Keeps `json` (a serialized result) for the frame that answers with the token
    /// returned; the frame must follow (a response returned at once, or see
    /// [`Self::send`]). Waits while the results already waiting fill the room.
    pub async fn stash(&self, json: Arc<Vec<u8>>) -> RawToken {
        loop {
            let left = self.inner.left.notified();
            tokio::pin!(left);
            // Registered before the check, so a result leaving in between is not missed.
            left.as_mut().enable();
            {
                let mut waiting = lock(&self.inner.waiting);
                if waiting.bytes == 0 || waiting.bytes + json.len() <= self.inner.room {
                    let raw = waiting.next;
                    waiting.next += 1;
                    waiting.bytes += json.len();
                    waiting.results.insert(raw, json);
                    return RawToken { raw };
                }
            }
            tracing::debug!(
                bytes = json.len(),
                waiting = lock(&self.inner.waiting).bytes,
                "raw result: waiting for room"
            );
            left.await;
        }
    }

    /// Stashes `json` and awaits `queue(token)`, which queues the frame carrying the
    /// token; the result is withdrawn if that future is dropped before it ends (the
    /// frame may then never come).
    pub async fn send<F: Future<Output = ()>>(
        &self,
        json: Arc<Vec<u8>>,
        queue: impl FnOnce(RawToken) -> F,
    ) {
        let bytes = json.len();
        let token = self.stash(json).await;
        tracing::debug!(token = token.raw, bytes, "raw result stashed");
        let unsent = Unsent {
            results: self,
            token,
        };
        queue(token).await;
        std::mem::forget(unsent);
    }

    fn take(&self, token: RawToken) -> Option<Arc<Vec<u8>>> {
        let json = {
            let mut waiting = lock(&self.inner.waiting);
            let json = waiting.results.remove(&token.raw)?;
            waiting.bytes -= json.len();
            json
        };
        self.inner.left.notify_waiters();
        Some(json)
    }

    #[cfg(test)]
    fn waiting_bytes(&self) -> usize {
        lock(&self.inner.waiting).bytes
    }

    /// The parts of the frame body that replaces `body`, when `body` is a response
    /// that answers with a waiting token, or a notification whose params are one.
    fn replacement(&self, body: &[u8]) -> Option<[Part; 3]> {
        if body.len() >= SMALL_FRAME
            || memchr::memmem::find(body, TOKEN_MEMBER.as_bytes()).is_none()
        {
            return None;
        }
        if let Ok(notification) = serde_json::from_slice::<TokenNotification>(body) {
            if notification.jsonrpc != "2.0" {
                return None;
            }
            let json = self.take(notification.params)?;
            // The members in tower-lsp-server's order: jsonrpc, method, params.
            let method = serde_json::to_string(&notification.method).ok()?;
            return Some([
                Part::Bytes(
                    format!(r#"{{"jsonrpc":"2.0","method":{method},"params":"#).into_bytes(),
                ),
                Part::Shared(json),
                Part::Bytes(b"}".to_vec()),
            ]);
        }
        let response: TokenResponse = serde_json::from_slice(body).ok()?;
        if response.jsonrpc != "2.0" {
            return None;
        }
        let json = self.take(response.result)?;
        // The members in tower-lsp-server's order: jsonrpc, result, id.
        let id = serde_json::to_string(&response.id).ok()?;
        Some([
            Part::Bytes(br#"{"jsonrpc":"2.0","result":"#.to_vec()),
            Part::Shared(json),
            Part::Bytes(format!(r#","id":{id}}}"#).into_bytes()),
        ])
    }
}

/// Withdraws its token's result when dropped: the frame that was to carry it was not
/// sent.
struct Unsent<'a> {
    results: &'a RawResults,
    token: RawToken,
}

impl Drop for Unsent<'_> {
    fn drop(&mut self) {
        self.results.take(self.token);
    }
}

/// A response as tower-lsp-server writes it for a handler that answered a token.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TokenResponse {
    jsonrpc: String,
    result: RawToken,
    id: Value,
}

/// A notification as tower-lsp-server writes it for params that are a token.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TokenNotification {
    jsonrpc: String,
    method: String,
    params: RawToken,
}

enum Part {
    Bytes(Vec<u8>),
    Shared(Arc<Vec<u8>>),
}

impl Part {
    fn bytes(&self) -> &[u8] {
        match self {
            Part::Bytes(b) => b,
            Part::Shared(b) => b,
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Copies tower-lsp-server's frames from `from` to `to` until `from` ends, swapping
/// tokens for their results.
pub async fn forward<R, W>(from: R, mut to: W, raw: RawResults) -> io::Result<()>
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let mut from = BufReader::with_capacity(64 << 10, from);
    let mut line = Vec::new();
    loop {
        let mut length = None;
        loop {
            line.clear();
            if from.read_until(b'\n', &mut line).await? == 0 {
                return to.flush().await;
            }
            let text = line.trim_ascii();
            if text.is_empty() {
                break;
            }
            if let Some(value) = text
                .strip_prefix(b"Content-Length:")
                .and_then(|v| std::str::from_utf8(v).ok())
            {
                length = value.trim().parse::<usize>().ok();
            }
        }
        let Some(length) = length else {
            return Err(io::Error::other(
                "the server wrote a frame without Content-Length",
            ));
        };
        if length < SMALL_FRAME {
            let mut body = vec![0; length];
            from.read_exact(&mut body).await?;
            match raw.replacement(&body) {
                Some(parts) => {
                    let length: usize = parts.iter().map(|p| p.bytes().len()).sum();
                    to.write_all(header(length).as_bytes()).await?;
                    for part in &parts {
                        // In pieces: tokio's stdout writes through a buffer of its own
                        // as large as what it is given (up to 2 MiB), kept for good.
                        for piece in part.bytes().chunks(super::reader::AT_ONCE) {
                            to.write_all(piece).await?;
                        }
                    }
                }
                None => {
                    to.write_all(header(length).as_bytes()).await?;
                    to.write_all(&body).await?;
                }
            }
        } else {
            to.write_all(header(length).as_bytes()).await?;
            let copied = tokio::io::copy(&mut (&mut from).take(length as u64), &mut to).await?;
            if copied < length as u64 {
                return Err(io::ErrorKind::UnexpectedEof.into());
            }
        }
        to.flush().await?;
    }
}

/// The header tower-lsp-server writes before a body of `length` bytes.
fn header(length: usize) -> String {
    format!("Content-Length: {length}\r\n\r\n")
}

#[cfg(test)]
#[path = "output_tests.rs"]
mod tests;
