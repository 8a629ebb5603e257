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
        let outline = DocumentSymbolResponse::Nested(symbols::document_symbols(&doc, enc));
        let folds = folding::folding_ranges(&doc, enc);
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
            let token = raw.stash(Arc::new(json));
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

#[tokio::test]
async fn a_token_is_used_once_and_only_the_latest_wait() {
    let raw = RawResults::default();
    let first = raw.stash(Arc::new(b"[1]".to_vec()));
    let frame = |token: RawToken| {
        tower_frame(&Response::from_ok(
            Id::Number(1),
            serde_json::to_value(token).unwrap(),
        ))
    };
    let answered =
        b"Content-Length: 37\r\n\r\n{\"jsonrpc\":\"2.0\",\"result\":[1],\"id\":1}".to_vec();
    assert_eq!(forwarded(frame(first), &raw).await, answered);
    // Asked for again (it cannot be), the token passes as it is.
    assert_eq!(forwarded(frame(first), &raw).await, frame(first));
    let old = raw.stash(Arc::new(b"[2]".to_vec()));
    for _ in 0..WAITING {
        raw.stash(Arc::new(b"[3]".to_vec()));
    }
    assert_eq!(forwarded(frame(old), &raw).await, frame(old));
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
    let token = raw.stash(Arc::new(serde_json::to_vec(&params).unwrap()));
    let sent = Request::build(method)
        .params(serde_json::to_value(token).unwrap())
        .finish();
    let got = forwarded(tower_frame(&sent), &raw).await;
    assert_eq!(
        String::from_utf8(got).unwrap(),
        String::from_utf8(tower_frame(&want)).unwrap()
    );
}
