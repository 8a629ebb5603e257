//! Tests of the output hygiene: JSON lines, quotes, API errors, paragraphs.

use super::*;
use pretty_assertions::assert_eq;
use serde_json::json;

#[test]
fn json_lines_and_everything_else() {
    assert_eq!(json_line("x", "  "), Ok(None));
    assert_eq!(
        json_line("x", r#"{"type":"a"}"#),
        Ok(Some(json!({"type": "a"})))
    );
    assert_eq!(
        json_line("claude", "\u{1b}[31mboom\u{1b}[0m"),
        Err(AgentEvent::Notice(
            "claude printed a line that is not a JSON event: boom".into()
        ))
    );
    assert!(json_line("x", "[1,2]").is_err());
    assert!(json_line("x", "{\"truncated\":").is_err());
}

#[test]
fn quotes_are_cut_on_character_boundaries() {
    let long = "é".repeat(QUOTE_LIMIT + 5);
    let quoted = quote(&long);
    assert_eq!(quoted.chars().count(), QUOTE_LIMIT + 1);
    assert!(quoted.ends_with('…'));
    assert_eq!(quote("short"), "short");
}

#[test]
fn embedded_api_errors_become_readable() {
    let codex = r#"{"type": "error", "error": {"type": "invalid_request_error", "message": "mock upstream failure"}}"#;
    assert_eq!(
        readable_error(codex),
        "invalid_request_error: mock upstream failure"
    );
    let gemini = r#"[API Error: {"type":"error","error":{"message":"mock upstream failure","code":400,"status":"INVALID_ARGUMENT"}}]"#;
    assert_eq!(
        readable_error(gemini),
        "[API Error: 400 INVALID_ARGUMENT: mock upstream failure]"
    );
    assert_eq!(readable_error(" plain {not json} "), "plain {not json}");
    assert_eq!(readable_error("} odd {"), "} odd {");
}

#[test]
fn paragraphs_separate_blocks_but_not_chunks() {
    let mut p = Paragraphs::default();
    p.block_ends();
    assert_eq!(p.text("A"), Some(AgentEvent::Text("A".into())));
    assert_eq!(p.text("b"), Some(AgentEvent::Text("b".into())));
    assert_eq!(p.text(""), None);
    p.block_ends();
    assert_eq!(p.text("\nC"), Some(AgentEvent::Text("\n\nC".into())));
    assert!(p.wrote());
}
