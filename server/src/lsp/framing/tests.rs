use super::*;
use pretty_assertions::assert_eq;
use tokio::io::AsyncWriteExt;

/// The frames the guard passes on for `input`, as JSON, and whether it said the
/// client is done.
async fn guarded(input: &[u8]) -> (Vec<Value>, bool) {
    let (mut client, server) = tokio::io::duplex(1 << 16);
    let input = input.to_vec();
    tokio::spawn(async move { client.write_all(&input).await.unwrap() });
    let ended = CancellationToken::new();
    let mut out = FrameReader::new(guard(server, ended.clone()));
    let mut frames = Vec::new();
    while let Some(frame) = out.next().await.unwrap() {
        let Frame::Body(body) = frame else {
            panic!("the guard wrote a bad frame: {frame:?}")
        };
        frames.push(serde_json::from_slice(&body).unwrap());
    }
    (frames, ended.is_cancelled())
}

fn framed(text: &str) -> String {
    format!("Content-Length: {}\r\n\r\n{text}", text.len())
}

fn stand_in(id: Value, code: i64) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": InvalidMessage::METHOD, "params": {"code": code}})
}

/// The frames with the stand-ins' messages left out (they are for people).
fn without_messages(mut frames: Vec<Value>) -> Vec<Value> {
    for f in &mut frames {
        if let Some(params) = f.get_mut("params").and_then(Value::as_object_mut) {
            params.remove("message");
        }
    }
    frames
}

#[tokio::test]
async fn good_frames_pass_and_bad_ones_become_answers() {
    let good = r#"{"jsonrpc":"2.0","method":"initialized","params":{}}"#;
    let input = [
        framed(good),
        framed("hello"),
        "X-Junk\r\n\r\n".into(),
        "Content-Length: 2\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n[]"
            .into(),
        framed(r#"{"jsonrpc":"2.0","id":1.5,"method":"shutdown"}"#),
        framed(r#"{"jsonrpc":"2.0","id":3,"method":"$/unknown"}"#),
        framed(r#"{"jsonrpc":"2.0","method":7}"#),
        "Content-Length: abc\r\n\r\n{}".into(),
        framed(good),
    ]
    .concat();
    let (frames, ended) = guarded(input.as_bytes()).await;
    let good: Value = serde_json::from_str(good).unwrap();
    assert_eq!(
        without_messages(frames),
        [
            good.clone(),
            stand_in(Value::Null, message::PARSE_ERROR),
            stand_in(Value::Null, message::INVALID_REQUEST),
            stand_in(Value::Null, message::INVALID_REQUEST),
            stand_in(json!(3), message::METHOD_NOT_FOUND),
            stand_in(Value::Null, message::PARSE_ERROR),
            good,
        ]
    );
    assert!(ended, "the end of the input ends the client");
}

#[tokio::test]
async fn a_header_inside_a_bad_body_is_read_again() {
    // Content-Length said 10 more bytes than the body held: the next frame's header
    // is inside what was read as the body.
    let first = r#"{"jsonrpc":"2.0","method":"a"}"#;
    let second = r#"{"jsonrpc":"2.0","id":2,"method":"shutdown"}"#;
    let input = format!(
        "Content-Length: {}\r\n\r\n{first}{}",
        first.len() + 10,
        framed(second)
    );
    let (frames, _) = guarded(input.as_bytes()).await;
    assert_eq!(
        without_messages(frames),
        [
            stand_in(Value::Null, message::PARSE_ERROR),
            serde_json::from_str::<Value>(second).unwrap()
        ]
    );
}

/// Found by fuzzing: a header sent without its body has the next frame for its body,
/// header first; that frame was lost (its request never answered).
#[tokio::test]
async fn a_header_without_its_body_does_not_take_the_next_frame() {
    let request = r#"{"jsonrpc":"2.0","id":2,"method":"shutdown"}"#;
    let input = format!("Content-Length: 30\r\n\r\n{}", framed(request));
    let (frames, _) = guarded(input.as_bytes()).await;
    assert_eq!(
        without_messages(frames),
        [
            stand_in(Value::Null, message::PARSE_ERROR),
            serde_json::from_str::<Value>(request).unwrap()
        ]
    );
}

#[tokio::test]
async fn a_malformed_answer_becomes_an_error_answer() {
    let input = framed(r#"{"jsonrpc":"2.0","id":4,"error":"nope"}"#);
    let (frames, _) = guarded(input.as_bytes()).await;
    assert_eq!(frames.len(), 1);
    assert_eq!(frames[0]["id"], 4);
    assert_eq!(frames[0]["error"]["code"], message::INTERNAL_ERROR);
}

#[tokio::test]
async fn exit_ends_the_client_and_nothing_after_it_is_read() {
    let input = [
        framed(r#"{"jsonrpc":"2.0","method":"exit"}"#),
        framed(r#"{"jsonrpc":"2.0","id":1,"method":"shutdown"}"#),
    ]
    .concat();
    let (frames, ended) = guarded(input.as_bytes()).await;
    assert_eq!(frames, [json!({"jsonrpc": "2.0", "method": "exit"})]);
    assert!(ended);
}

#[tokio::test]
async fn an_oversized_message_is_refused_and_the_next_one_passes() {
    let huge = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"x","params":"{}"}}"#,
        "a".repeat(reader::MAX_BODY)
    );
    let good = r#"{"jsonrpc":"2.0","id":2,"method":"shutdown"}"#;
    let input = [framed(&huge), framed(good)].concat();
    let (frames, _) = guarded(input.as_bytes()).await;
    assert_eq!(
        without_messages(frames),
        [
            stand_in(Value::Null, message::INVALID_REQUEST),
            serde_json::from_str::<Value>(good).unwrap()
        ]
    );
}

/// An outline asked for with a short id is answered through a token; with an id too
/// long for the writer to look at its answer, the request goes the usual way.
#[test]
fn only_requests_whose_answer_the_writer_can_read_are_bypassed() {
    let request = |id: Value| {
        json!({"jsonrpc": "2.0", "id": id, "method": "textDocument/documentSymbol",
               "params": {"textDocument": {"uri": "file:///a.chat.md"}}})
    };
    let method_of = |id: Value| {
        let body = serde_json::to_vec(&request(id)).unwrap();
        let passed: Value =
            serde_json::from_slice(&bypassed("textDocument/documentSymbol", true, body)).unwrap();
        passed["method"].as_str().unwrap().to_owned()
    };
    assert_eq!(method_of(json!(7)), RawDocumentSymbol::METHOD);
    assert_eq!(method_of(json!("x".repeat(100))), RawDocumentSymbol::METHOD);
    assert_eq!(
        method_of(json!("x".repeat(200))),
        "textDocument/documentSymbol"
    );
}
