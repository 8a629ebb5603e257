use super::*;
use pretty_assertions::assert_eq;
use tower_lsp_server::jsonrpc::{Id, Response};
use tower_lsp_server::ls_types::DocumentSymbolResponse;

use crate::document::text::PositionEncoding;
use crate::lsp::state::Document;
use crate::lsp::{folding, symbols, symbols_json};

/// A frame exactly as tower-lsp-server's codec writes it.
fn tower_frame(message: &impl Serialize) -> Vec<u8> {
    let body = serde_json::to_string(message).unwrap();
    format!("Content-Length: {}\r\n\r\n{body}", body.len()).into_bytes()
}

/// What `forward` writes for `input`.
async fn forwarded(input: Vec<u8>, raw: &RawResults) -> Vec<u8> {
    let mut out = Vec::new();
    forward(&input[..], &mut out, raw.clone()).await.unwrap();
    out
}

#[tokio::test]
async fn frames_without_a_token_pass_unchanged() {
    let small = tower_frame(&Response::from_ok(Id::Number(1), serde_json::json!(null)));
    let large = tower_frame(&Response::from_ok(
        Id::String("x".into()),
        serde_json::json!(vec!["é😀"; 500]),
    ));
    // Looks like a token's response, but no such token waits.
    let unknown = tower_frame(&Response::from_ok(
        Id::Number(2),
        serde_json::json!({"chatmdRaw": 99}),
    ));
    let input = [small, large, unknown].concat();
    assert_eq!(
        forwarded(input.clone(), &RawResults::default()).await,
        input
    );
}

/// The outline and folding of a chat with emoji, CJK and CRLF, in both encodings:
/// the frame written from the token is the frame tower-lsp-server wrote for the
/// result itself, byte for byte.
#[tokio::test]
async fn a_token_becomes_exactly_the_frame_of_its_result() {
    let chat = "---\r\ntitle: 漢字 😀\r\n---\r\nPreamble é\r\n\r\n## @me\r\nhi 😀 @bot 漢字\r\n```\r\ncode\r\n```\r\n\r\n## @bot\n<!-- chatmd: status=done agent=claude -->\nanswer 漢字😀\n";
    let uri = "file:///ws/a.chat.md".parse().unwrap();
    let doc = Document::new(uri, 1, chat.to_owned());
    let raw = RawResults::default();
    for enc in [PositionEncoding::Utf16, PositionEncoding::Utf8] {
        let outline = DocumentSymbolResponse::Nested(symbols::document_symbols(
            &doc,
            enc,
            crate::lsp::outline_window::Shown::DEFAULT,
        ));
        let folds = folding::folding_ranges(&doc, enc, crate::lsp::outline_window::Shown::DEFAULT);
        let cases = [
            (
                serde_json::to_value(&outline).unwrap(),
                symbols_json::document_symbols_json(&doc, enc),
            ),
            (
                serde_json::to_value(&folds).unwrap(),
                folding::folding_ranges_json(&doc, enc),
            ),
        ];
        for (id, (value, json)) in [Id::Number(7), Id::String("req-8".into())]
            .into_iter()
            .zip(cases)
        {
            let token = raw.stash(Arc::new(json)).await;
            let token = serde_json::to_value(token).unwrap();
            let input = tower_frame(&Response::from_ok(id.clone(), token));
            let want = tower_frame(&Response::from_ok(id, value));
            let got = forwarded(input, &raw).await;
            assert_eq!(
                String::from_utf8(got).unwrap(),
                String::from_utf8(want).unwrap()
            );
        }
    }
}

fn token_frame(id: i64, token: RawToken) -> Vec<u8> {
    tower_frame(&Response::from_ok(
        Id::Number(id),
        serde_json::to_value(token).unwrap(),
    ))
}

fn answer_frame(id: i64, result: &str) -> Vec<u8> {
    let body = format!(r#"{{"jsonrpc":"2.0","result":{result},"id":{id}}}"#);
    format!("Content-Length: {}\r\n\r\n{body}", body.len()).into_bytes()
}

#[tokio::test]
async fn a_token_is_used_once() {
    let raw = RawResults::default();
    let first = raw.stash(Arc::new(b"[1]".to_vec())).await;
    assert_eq!(
        forwarded(token_frame(1, first), &raw).await,
        answer_frame(1, "[1]")
    );
    // Asked for again (it cannot be), the token passes as it is.
    assert_eq!(
        forwarded(token_frame(1, first), &raw).await,
        token_frame(1, first)
    );
    assert_eq!(raw.waiting_bytes(), 0);
}

/// However many results wait together (a session of chats opened at once), each
/// frame gets its own, in whatever order the frames come.
#[tokio::test]
async fn no_waiting_result_is_dropped_for_later_ones() {
    let raw = RawResults::default();
    let mut tokens = Vec::new();
    for i in 0..500 {
        tokens.push((i, raw.stash(Arc::new(format!("[{i}]").into_bytes())).await));
    }
    tokens.reverse();
    let input: Vec<u8> = tokens
        .iter()
        .flat_map(|&(i, t)| token_frame(i, t))
        .collect();
    let want: Vec<u8> = tokens
        .iter()
        .flat_map(|&(i, _)| answer_frame(i, &format!("[{i}]")))
        .collect();
    assert_eq!(
        String::from_utf8(forwarded(input, &raw).await).unwrap(),
        String::from_utf8(want).unwrap()
    );
    assert_eq!(raw.waiting_bytes(), 0);
}

/// When the waiting results fill the room, the next one waits for a frame to take
/// one out, and is then answered like the others.
#[tokio::test]
async fn a_full_store_makes_the_next_result_wait_for_room() {
    let raw = RawResults::with_room(6);
    let first = raw.stash(Arc::new(b"[1,2]".to_vec())).await;
    let mut second = Box::pin(raw.stash(Arc::new(b"[3,4]".to_vec())));
    assert!(futures_poll_once(second.as_mut()).await.is_none());
    forwarded(token_frame(1, first), &raw).await;
    let second = second.await;
    assert_eq!(
        forwarded(token_frame(2, second), &raw).await,
        answer_frame(2, "[3,4]")
    );
}

/// A result whose frame was never queued (the sending future was dropped) leaves the
/// store, so it cannot hold room for good.
#[tokio::test]
async fn a_result_whose_frame_was_not_sent_is_withdrawn() {
    let raw = RawResults::default();
    let sending = raw.send(Arc::new(b"[1]".to_vec()), |_| std::future::pending());
    assert!(futures_poll_once(Box::pin(sending)).await.is_none());
    assert_eq!(raw.waiting_bytes(), 0);
    let mut sent = None;
    raw.send(Arc::new(b"[2]".to_vec()), |token| {
        sent = Some(token);
        std::future::ready(())
    })
    .await;
    assert_eq!(
        forwarded(token_frame(3, sent.unwrap()), &raw).await,
        answer_frame(3, "[2]")
    );
}

/// Polls `future` once: its output if it is ready at once.
async fn futures_poll_once<F: Future + Unpin>(mut future: F) -> Option<F::Output> {
    std::future::poll_fn(|cx| {
        std::task::Poll::Ready(match std::pin::Pin::new(&mut future).poll(cx) {
            std::task::Poll::Ready(out) => Some(out),
            std::task::Poll::Pending => None,
        })
    })
    .await
}

/// Diagnostics published with a token reach the client as tower-lsp-server would have
/// written them: the same frame, byte for byte.
#[tokio::test]
async fn a_notification_with_a_token_is_written_with_its_params() {
    use tower_lsp_server::jsonrpc::Request;
    use tower_lsp_server::ls_types::{
        Diagnostic, DiagnosticSeverity, Position, PublishDiagnosticsParams, Range,
    };
    let raw = RawResults::default();
    let mut diagnostic = Diagnostic::new_simple(
        Range::new(Position::new(3, 0), Position::new(3, 7)),
        "@nobody is not a member of the team: \"quoted\" 😀".into(),
    );
    diagnostic.severity = Some(DiagnosticSeverity::WARNING);
    let params = PublishDiagnosticsParams::new(
        "file:///ws/a.chat.md".parse().unwrap(),
        vec![diagnostic],
        Some(4),
    );
    let method = "textDocument/publishDiagnostics";
    let want = Request::build(method)
        .params(serde_json::to_value(&params).unwrap())
        .finish();
    let token = raw
        .stash(Arc::new(serde_json::to_vec(&params).unwrap()))
        .await;
    let sent = Request::build(method)
        .params(serde_json::to_value(token).unwrap())
        .finish();
    let got = forwarded(tower_frame(&sent), &raw).await;
    assert_eq!(
        String::from_utf8(got).unwrap(),
        String::from_utf8(tower_frame(&want)).unwrap()
    );
}
