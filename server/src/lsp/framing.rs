//! A guard in front of the protocol reader: malformed input must not end the server.
//!
//! tower-lsp-server reads frames with tokio-util's `FramedRead`, which ends the stream
//! after the first decode error — one bad message would stop the server for good. This
//! task reads the client's frames first, passes well-formed JSON-RPC through untouched,
//! and replaces anything else (bad headers, invalid UTF-8 or JSON, oversized frames)
//! with a request the server answers with a JSON-RPC "Parse error".

use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWriteExt, BufReader, DuplexStream};

/// The method of the stand-in request; the server answers it with a parse error.
pub const INVALID_MESSAGE_METHOD: &str = "chatmd/invalidMessage";

/// Frames larger than this are refused (a 10 MB chat opened as one message fits many times).
const MAX_FRAME: usize = 512 << 20;

/// A header line longer than this is garbage, not a header.
const MAX_HEADER_LINE: usize = 8 << 10;

/// Returns a stream carrying only well-formed frames read from `input`.
pub fn guard<R: AsyncRead + Unpin + Send + 'static>(input: R) -> DuplexStream {
    let (mut writer, reader) = tokio::io::duplex(1 << 16);
    tokio::spawn(async move {
        let mut input = BufReader::new(input);
        loop {
            let frame = match read_frame(&mut input).await {
                Ok(Some(frame)) => frame,
                Ok(None) => break,
                Err(e) => {
                    tracing::warn!("malformed message from the client: {e}");
                    invalid_message()
                }
            };
            let header = format!("Content-Length: {}\r\n\r\n", frame.len());
            if writer.write_all(header.as_bytes()).await.is_err()
                || writer.write_all(&frame).await.is_err()
            {
                break;
            }
        }
        let _ = writer.shutdown().await;
    });
    reader
}

fn invalid_message() -> Vec<u8> {
    format!(r#"{{"jsonrpc":"2.0","id":null,"method":"{INVALID_MESSAGE_METHOD}"}}"#).into_bytes()
}

/// Reads one frame; `Ok(None)` at the end of the input. An `Err` means the frame was
/// consumed (or skipped) and was not valid.
async fn read_frame<R: AsyncRead + Unpin>(
    input: &mut BufReader<R>,
) -> Result<Option<Vec<u8>>, String> {
    let mut length: Option<usize> = None;
    let mut saw_header = false;
    loop {
        let mut line = Vec::new();
        let n = (&mut *input)
            .take(MAX_HEADER_LINE as u64)
            .read_until(b'\n', &mut line)
            .await
            .map_err(|e| e.to_string())?;
        if n == 0 {
            return if saw_header {
                Err("the input ended inside a header".into())
            } else {
                Ok(None)
            };
        }
        if !line.ends_with(b"\n") {
            return Err("a header line is too long".into());
        }
        let text = String::from_utf8_lossy(&line);
        let text = text.trim_end_matches(['\r', '\n']);
        if text.is_empty() {
            if !saw_header {
                continue;
            }
            break;
        }
        saw_header = true;
        if let Some((name, value)) = text.split_once(':')
            && name.trim().eq_ignore_ascii_case("content-length")
        {
            length = value.trim().parse().ok();
            if length.is_none() {
                return Err(format!("bad Content-Length `{}`", value.trim()));
            }
        }
    }
    let Some(length) = length else {
        return Err("a message without Content-Length".into());
    };
    if length > MAX_FRAME {
        // Skip the body so the next frame is read from its start.
        tokio::io::copy(
            &mut (&mut *input).take(length as u64),
            &mut tokio::io::sink(),
        )
        .await
        .map_err(|e| e.to_string())?;
        return Err(format!(
            "a message of {length} bytes is larger than {MAX_FRAME}"
        ));
    }
    let mut body = vec![0; length];
    input
        .read_exact(&mut body)
        .await
        .map_err(|e| e.to_string())?;
    if !is_jsonrpc(&body) {
        return Err("the message is not a JSON-RPC 2.0 object".into());
    }
    Ok(Some(body))
}

/// Whether the body is something tower-lsp-server can decode: a JSON object with
/// `"jsonrpc": "2.0"` and either a method, or an id with a result or an error.
fn is_jsonrpc(body: &[u8]) -> bool {
    let Ok(serde_json::Value::Object(map)) = serde_json::from_slice::<serde_json::Value>(body)
    else {
        return false;
    };
    let version_ok = map.get("jsonrpc").and_then(|v| v.as_str()) == Some("2.0");
    let is_request = map.get("method").is_some_and(|m| m.is_string());
    let is_response =
        map.contains_key("id") && (map.contains_key("result") || map.contains_key("error"));
    version_ok && (is_request || is_response)
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::AsyncWriteExt;

    async fn frames(input: &[u8]) -> Vec<String> {
        let (mut client, server) = tokio::io::duplex(1 << 16);
        client.write_all(input).await.unwrap();
        drop(client);
        let mut out = BufReader::new(guard(server));
        let mut frames = Vec::new();
        while let Ok(Some(f)) = read_frame(&mut out).await {
            frames.push(String::from_utf8(f).unwrap());
        }
        frames
    }

    #[tokio::test]
    async fn good_frames_pass_and_bad_ones_become_stand_ins() {
        let good = r#"{"jsonrpc":"2.0","method":"initialized","params":{}}"#;
        let input = format!(
            "Content-Length: {}\r\n\r\n{good}Content-Length: 5\r\n\r\nhello\r\nX-Junk\r\n\r\nContent-Length: 2\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n[]Content-Length: {}\r\n\r\n{good}",
            good.len(),
            good.len()
        );
        let stand_in = String::from_utf8(invalid_message()).unwrap();
        assert_eq!(
            frames(input.as_bytes()).await,
            [good, &stand_in, &stand_in, &stand_in, good]
        );
    }

    #[test]
    fn only_jsonrpc_objects_pass() {
        assert!(is_jsonrpc(br#"{"jsonrpc":"2.0","id":1,"method":"x"}"#));
        assert!(is_jsonrpc(br#"{"jsonrpc":"2.0","id":1,"result":null}"#));
        assert!(!is_jsonrpc(br#"{"jsonrpc":"1.0","id":1,"method":"x"}"#));
        assert!(!is_jsonrpc(br#"{"id":1}"#));
        assert!(!is_jsonrpc(b"\xff"));
    }
}
