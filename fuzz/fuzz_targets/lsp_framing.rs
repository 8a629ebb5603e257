//! The LSP framing guard in front of tower-lsp-server's reader. Whatever bytes the client
//! sends, in whatever pieces they arrive, the guard does not panic, ends (and says so)
//! when the input ends, and passes on only frames tower-lsp-server decodes: one
//! `Content-Length` header and a body that reads as its `Message` (a request, a
//! notification or a response), since one it cannot decode ends its reader for good.
//! And reading resynchronises: among garbage, bad headers, bodies that are not JSON-RPC
//! and headers that promise more than their body holds, every well-formed request
//! (the sentinels) is passed on untouched, in order, and every framed message with a
//! usable id (an integer or a string, given once) gets a frame with that id (passed
//! on, or the stand-in request the server answers with an error). Only an `exit` that
//! went through stops it early: then it is the last frame passed on.
//!
//! Input: the first byte is the size of each read from the client (1–64 bytes, 0: all
//! at once). The rest goes to the guard as it is, and is then read as segments, each a
//! kind byte (`% 4`) and a length byte followed by that many bytes (fewer at the end),
//! with a sentinel request after each: 0 garbage as is, 1 a frame with that body, 2 the
//! body after a header with a bad `Content-Length` (`kind >> 2` picks which), 3 a frame
//! whose header says `(kind >> 2) + 1` bytes more than its body holds (it swallows what
//! follows). A segment never holds a `Content-Length:` of its own nor a sentinel's text
//! (inputs where one forms are skipped for the second part).
#![no_main]

use std::io;
use std::pin::Pin;
use std::sync::OnceLock;
use std::task::{Context, Poll};

use chatmd::lsp::framing::guard;
use libfuzzer_sys::fuzz_target;
use serde::Deserialize;
use serde_json::Value;
use tokio::io::{AsyncRead, AsyncReadExt, ReadBuf};
use tokio_util::sync::CancellationToken;
use tower_lsp_server::jsonrpc::{Request, Response};

/// What tower-lsp-server's codec decodes each body into (its `Message` is private).
#[derive(Deserialize)]
#[serde(untagged)]
#[allow(dead_code)]
enum Message {
    Response(Response),
    Request(Request),
}

const NEEDLE: &[u8] = b"content-length:";
const SENTINEL: &str = "fuzz-sentinel-";
/// Room for the last frame that says more than it holds to take its bytes from.
const PADDING: usize = 256;

fuzz_target!(|data: &[u8]| {
    let Some((&step, mut rest)) = data.split_first() else {
        return;
    };
    let step = usize::from(step % 65);
    // The bytes as they are: whatever they hold, only decodable frames come out.
    let (output, ended) = run(rest.to_vec(), step);
    assert!(ended, "the guard did not say the input ended");
    decodable(&output);

    let mut input = Vec::new();
    let mut headers = 0;
    let mut sentinels = Vec::new();
    // Ids that must be answered, in order (sentinels included).
    let mut ids: Vec<Value> = Vec::new();
    while let [kind, len, tail @ ..] = rest {
        let n = usize::from(*len).min(tail.len());
        let payload = &tail[..n];
        rest = &tail[n..];
        if contains(payload, NEEDLE) || contains(payload, SENTINEL.as_bytes()) {
            return;
        }
        match kind % 4 {
            0 => input.extend_from_slice(payload),
            1 => {
                input.extend_from_slice(format!("Content-Length: {n}\r\n\r\n").as_bytes());
                input.extend_from_slice(payload);
                headers += 1;
                if let Some(id) = usable_id(payload) {
                    ids.push(id);
                }
            }
            2 => {
                let bad = ["abc", "-5", "", "1 2", "99999999999999999999999", "0x10"];
                let value = bad[usize::from(kind >> 2) % bad.len()];
                input.extend_from_slice(format!("Content-Length: {value}\r\n\r\n").as_bytes());
                input.extend_from_slice(payload);
                headers += 1;
            }
            _ => {
                let more = usize::from(kind >> 2) + 1;
                let length = n + more;
                input.extend_from_slice(format!("Content-Length: {length}\r\n\r\n").as_bytes());
                input.extend_from_slice(payload);
                headers += 1;
            }
        }
        let body = format!(
            r#"{{"jsonrpc":"2.0","id":"{SENTINEL}{}","method":"fuzz/sentinel"}}"#,
            sentinels.len()
        );
        input.extend_from_slice(format!("Content-Length: {}\r\n\r\n", body.len()).as_bytes());
        input.extend_from_slice(body.as_bytes());
        headers += 1;
        ids.push(Value::from(format!("{SENTINEL}{}", sentinels.len())));
        sentinels.push(body.into_bytes());
    }
    // Segments that together form a header of their own are not what this checks.
    if count(&input, NEEDLE) != headers {
        return;
    }
    input.extend(std::iter::repeat_n(b'\n', PADDING));

    let (output, ended) = run(input.clone(), step);
    assert!(ended, "the guard did not say the input ended");

    let frames = decodable(&output);
    let mut passed = Vec::new();
    let mut answered = Vec::new();
    for body in &frames {
        let value: Value = serde_json::from_slice(body).expect("JSON");
        answered.push(value.get("id").cloned());
        if sentinels.contains(body) {
            passed.push(body.clone());
        }
    }
    let exited = frames.last().is_some_and(|body| {
        serde_json::from_slice::<Value>(body)
            .is_ok_and(|v| v.get("method").and_then(Value::as_str) == Some("exit"))
    });
    let numbers: Vec<usize> = passed
        .iter()
        .filter_map(|p| sentinels.iter().position(|s| s == p))
        .collect();
    let shown = String::from_utf8_lossy(&input);
    assert!(
        numbers.iter().enumerate().all(|(i, &n)| i == n),
        "sentinels passed on: {numbers:?} of {} in {shown:?}",
        sentinels.len()
    );
    assert!(
        exited || numbers.len() == sentinels.len(),
        "sentinels passed on: {numbers:?} of {} in {shown:?}",
        sentinels.len()
    );
    // Every id that must be answered, in order, among the frames' ids.
    let mut frame_ids = answered.iter().flatten();
    for id in &ids {
        if !frame_ids.any(|f| f == id) {
            assert!(
                exited,
                "no frame for id {id} (frames: {answered:?}) in {shown:?}"
            );
            break;
        }
    }
});

/// The frames of the guard's output, each checked to decode as tower-lsp-server reads it.
fn decodable(output: &[u8]) -> Vec<Vec<u8>> {
    let frames = frames(output);
    for body in &frames {
        let text = std::str::from_utf8(body).expect("a body passed on is UTF-8");
        if let Err(e) = serde_json::from_str::<Message>(text) {
            panic!("tower-lsp-server cannot decode {text:?}: {e}");
        }
    }
    frames
}

/// Runs the guard over `input`, read `step` bytes at a time: what it passed on, and
/// whether it said the input ended.
fn run(input: Vec<u8>, step: usize) -> (Vec<u8>, bool) {
    static RUNTIME: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    let runtime = RUNTIME.get_or_init(|| {
        tokio::runtime::Builder::new_current_thread()
            .build()
            .expect("a runtime")
    });
    runtime.block_on(async {
        let ended = CancellationToken::new();
        let client = Client {
            data: input,
            pos: 0,
            step: if step == 0 { usize::MAX } else { step },
        };
        let mut passed = guard(client, ended.clone());
        let mut output = Vec::new();
        passed
            .read_to_end(&mut output)
            .await
            .expect("reading the guard's output");
        (output, ended.is_cancelled())
    })
}

/// The client's side of stdin: `data`, at most `step` bytes per read.
struct Client {
    data: Vec<u8>,
    pos: usize,
    step: usize,
}

impl AsyncRead for Client {
    fn poll_read(
        mut self: Pin<&mut Self>,
        _: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let pos = self.pos;
        let n = (self.data.len() - pos).min(self.step).min(buf.remaining());
        buf.put_slice(&self.data[pos..pos + n]);
        self.pos += n;
        Poll::Ready(Ok(()))
    }
}

/// The bodies of the guard's output, which must be exactly `Content-Length: N\r\n\r\n`
/// and N bytes, frame after frame.
fn frames(mut output: &[u8]) -> Vec<Vec<u8>> {
    let mut bodies = Vec::new();
    while !output.is_empty() {
        let rest = output
            .strip_prefix(b"Content-Length: ")
            .unwrap_or_else(|| panic!("not a header: {:?}", String::from_utf8_lossy(output)));
        let end = contains_at(rest, b"\r\n\r\n").expect("a header's end");
        let length: usize = std::str::from_utf8(&rest[..end])
            .ok()
            .and_then(|n| n.parse().ok())
            .expect("a length");
        let body = &rest[end + 4..];
        assert!(body.len() >= length, "a body cut short");
        bodies.push(body[..length].to_vec());
        output = &body[length..];
    }
    bodies
}

/// The id a body must be answered with: a JSON object's `id`, an integer within i64
/// or a string, given once. (Only bodies without escapes and with one `"id"` in all
/// are counted: serde_json keeps the last of two members, and `\u0069d` is `id` too.)
fn usable_id(body: &[u8]) -> Option<Value> {
    if body.contains(&b'\\') || count(body, b"\"id\"") != 1 {
        return None;
    }
    let value: Value = serde_json::from_slice(body).ok()?;
    let id = value.as_object()?.get("id")?;
    (id.is_string() || id.is_i64()).then(|| id.clone())
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    count(haystack, needle) > 0
}

fn count(haystack: &[u8], needle: &[u8]) -> usize {
    haystack
        .windows(needle.len())
        .filter(|w| w.eq_ignore_ascii_case(needle))
        .count()
}

fn contains_at(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}
