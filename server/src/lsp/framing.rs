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

mod message;
mod reader;
mod values;

use serde_json::{Value, json};
use tokio::io::{AsyncRead, AsyncWriteExt, DuplexStream};
use tokio_util::sync::CancellationToken;

use super::ext::{InvalidMessage, StandIn};
use message::Verdict;
use reader::{Frame, FrameReader};
use tower_lsp_server::ls_types::request::Request;

/// Returns a stream carrying only frames tower-lsp-server can decode, read from
/// `input`. `ended` is cancelled once `exit` went through or the input ended.
pub fn guard<R: AsyncRead + Unpin + Send + 'static>(
    input: R,
    ended: CancellationToken,
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
            let (body, exit) = match frame {
                Frame::Body(body) => match message::check(&body) {
                    Verdict::Pass { exit } => (body, exit),
                    verdict => {
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
                        "a message of {length} bytes is larger than {} bytes; chatmd refuses it unread",
                        reader::MAX_BODY
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
