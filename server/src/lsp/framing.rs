//! A guard in front of the protocol reader: malformed input must not end the server.
//!
//! tower-lsp-server reads frames with tokio-util's `FramedRead`, which ends the stream
//! after the first decode error — one bad message would stop the server for good. This
//! task reads the client's frames first ([`reader`]), checks each body the way
//! tower-lsp-server will decode it ([`message`]), and passes on only what it can
//! decode. Anything else is answered with a JSON-RPC error when it has an id (or cannot
//! tell it: JSON-RPC's null id) and dropped when it is a notification, through a
//! stand-in request the server answers with that error. It also tells when the client
//! is done (`exit`, or the end of the input), so the server stops even when handlers
//! still wait for a client that will not answer.

mod json_string;
mod message;
mod open_text;
mod output;
mod reader;
mod staged;
mod sync_peek;
mod text_param;
mod values;

use serde_json::{Value, json};
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt, DuplexStream};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use super::ext::{InvalidMessage, RawDocumentSymbol, RawFoldingRange, StandIn};
use message::Verdict;
use reader::{Frame, FrameReader};
use tower_lsp_server::ls_types::request::{DocumentSymbolRequest, FoldingRangeRequest, Request};

pub use output::{RawResults, RawToken};
pub use staged::{Staged, StagedKey, StagedSyncs};

/// What the framing layer shares with the server's handlers: the large results it
/// writes for them and the large document syncs it decoded for them.
#[derive(Default, Clone)]
pub struct Bypass {
    pub raw: RawResults,
    pub staged: StagedSyncs,
}

/// The streams tower-lsp-server reads and writes, and the task that copies what it
/// writes to the client.
pub struct Connection {
    pub input: DuplexStream,
    pub output: DuplexStream,
    /// Ends once the server's output is closed and all of it is written.
    pub written: JoinHandle<()>,
}

/// Puts the framing layer between the client's streams and tower-lsp-server: the
/// [`guard`] on the input (staging large document syncs and turning the requests that
/// have large results into their raw forms), [`output::forward`] on the output.
pub fn connect<I, O>(input: I, output: O, ended: CancellationToken, bypass: Bypass) -> Connection
where
    I: AsyncRead + Unpin + Send + 'static,
    O: AsyncWrite + Unpin + Send + 'static,
{
    let (server_output, from_server) = tokio::io::duplex(1 << 16);
    let raw = bypass.raw.clone();
    let written = tokio::spawn(async move {
        if let Err(e) = output::forward(from_server, output, raw).await {
            tracing::warn!("writing to the client failed: {e}");
        }
    });
    Connection {
        input: guard_with(input, ended, Some(bypass)),
        output: server_output,
        written,
    }
}

/// Returns a stream carrying only frames tower-lsp-server can decode, read from
/// `input`. `ended` is cancelled once `exit` went through or the input ended.
pub fn guard<R: AsyncRead + Unpin + Send + 'static>(
    input: R,
    ended: CancellationToken,
) -> DuplexStream {
    guard_with(input, ended, None)
}

/// [`guard`]; with `bypass`, large document syncs are staged and the requests with
/// large results renamed to their raw forms.
fn guard_with<R: AsyncRead + Unpin + Send + 'static>(
    input: R,
    ended: CancellationToken,
    bypass: Option<Bypass>,
) -> DuplexStream {
    let (mut writer, reader) = tokio::io::duplex(1 << 16);
    tokio::spawn(async move {
        let mut input = FrameReader::new(input);
        loop {
            let frame = match input.next().await {
                Ok(Some(frame)) => frame,
                Ok(None) => break,
                Err(e) => {
                    tracing::warn!("reading from the client failed: {e}");
                    break;
                }
            };
            // A large document sync is decoded and staged whole, uninspected.
            let frame = match (frame, &bypass) {
                (Frame::Body(body), Some(bypass)) => match bypass.staged.stage(body).await {
                    Ok(Some(stand_in)) => Frame::Body(stand_in),
                    Ok(None) => continue,
                    Err(body) => Frame::Body(body),
                },
                (frame, _) => frame,
            };
            // Only a document sync may be over the usual cap, and only staged: a body
            // that looked like one but was not is refused as if it had been skipped.
            let frame = match frame {
                Frame::Body(body) if body.len() > reader::MAX_BODY => {
                    Frame::TooLarge(body.len() as u64)
                }
                frame => frame,
            };
            let (body, exit) = match frame {
                Frame::Body(body) => match message::inspect(&body) {
                    message::Inspected {
                        verdict: Verdict::Pass { exit },
                        method,
                        has_id,
                    } => match (&bypass, method) {
                        (Some(_), Some(method)) => (bypassed(&method, has_id, body), exit),
                        _ => (body, exit),
                    },
                    message::Inspected { verdict, .. } => {
                        if matches!(&verdict, Verdict::Answer { code, .. } if *code == message::PARSE_ERROR)
                            && let Some(at) = reader::find_header_in_body(&body)
                        {
                            // The header said more than the body held: the next frame
                            // starts inside it.
                            input.unread(&body[at..]);
                        }
                        match replacement(verdict) {
                            Some(replaced) => (replaced, false),
                            None => continue,
                        }
                    }
                },
                Frame::BadHeader(why) => {
                    tracing::warn!("a malformed header from the client: {why}");
                    (stand_in(None, message::PARSE_ERROR, &why), false)
                }
                Frame::TooLarge(length) => {
                    let why = format!(
                        "a message of {length} bytes is larger than chatmd reads: {} MiB for a document's text (didOpen, didChange), {} MiB for any other message; chatmd refuses it unread",
                        reader::MAX_SYNC_BODY >> 20,
                        reader::MAX_BODY >> 20
                    );
                    tracing::warn!("{why}");
                    (stand_in(None, message::INVALID_REQUEST, &why), false)
                }
            };
            let header = format!("Content-Length: {}\r\n\r\n", body.len());
            if writer.write_all(header.as_bytes()).await.is_err()
                || writer.write_all(&body).await.is_err()
            {
                break;
            }
            if exit {
                break;
            }
        }
        ended.cancel();
        let _ = writer.shutdown().await;
    });
    reader
}

/// What goes on to tower-lsp-server for a well-formed `body` of `method`: the raw
/// form of a request with a large result, or `body` itself.
fn bypassed(method: &str, has_id: bool, body: Vec<u8>) -> Vec<u8> {
    if !has_id {
        return body;
    }
    let raw = match method {
        DocumentSymbolRequest::METHOD => RawDocumentSymbol::METHOD,
        FoldingRangeRequest::METHOD => RawFoldingRange::METHOD,
        _ => return body,
    };
    // The params of these requests are small; a huge body is left to the usual path.
    if body.len() > 64 << 10 {
        return body;
    }
    match serde_json::from_slice::<Value>(&body) {
        // The answer with a long id would be too large for `output` to look at: its
        // token would reach the client.
        Ok(Value::Object(request))
            if request
                .get("id")
                .is_some_and(|id| id.to_string().len() > output::MAX_ID_JSON) =>
        {
            body
        }
        Ok(Value::Object(mut request)) => {
            request.insert("method".into(), raw.into());
            Value::Object(request).to_string().into_bytes()
        }
        _ => body,
    }
}

/// What goes on instead of a body that is not passed on; `None`: nothing.
fn replacement(verdict: Verdict) -> Option<Vec<u8>> {
    match verdict {
        Verdict::Pass { .. } => None,
        Verdict::Answer { id, code, message } => {
            tracing::warn!("a malformed message from the client: {message}");
            Some(stand_in(id, code, &message))
        }
        Verdict::FailedResponse { id, message } => {
            tracing::warn!("{message}");
            let error = json!({"code": message::INTERNAL_ERROR, "message": message});
            Some(
                json!({"jsonrpc": "2.0", "id": id, "error": error})
                    .to_string()
                    .into_bytes(),
            )
        }
        Verdict::Drop(why) => {
            tracing::warn!("dropping a message from the client: {why}");
            None
        }
    }
}

/// A request the server answers with this error, for `id` (or the null id).
fn stand_in(id: Option<Value>, code: i64, message: &str) -> Vec<u8> {
    let params = StandIn {
        code,
        message: message.to_owned(),
    };
    json!({
        "jsonrpc": "2.0",
        "id": id.unwrap_or(Value::Null),
        "method": InvalidMessage::METHOD,
        "params": params,
    })
    .to_string()
    .into_bytes()
}

#[cfg(test)]
mod tests;
