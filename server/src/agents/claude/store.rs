//! Claude Code's stored session: `<config dir>/projects/<cwd slug>/<session id>.jsonl`,
//! one JSON object a line. `user` and `assistant` lines carry the conversation (an
//! Anthropic message each, one content block per assistant line); every other type is
//! the CLI's bookkeeping (`queue-operation`, `attachment`, `last-prompt`, `mode`, ...).

use std::path::Path;

use serde_json::Value;

use crate::agents::kinds::SessionPlace;

use crate::agents::AgentKind;
use crate::agents::transcripts::{
    Builder, Skipped, Speaker, Transcript, TranscriptError, first_values, json_text, objects, text,
    text_of,
};

/// Whether a first JSON line is claude's: a conversation line with its `sessionId` and
/// `type` (gemini's header has a `sessionId` too, with its `projectHash`).
pub(in crate::agents) fn recognizes(first: &Value) -> bool {
    let has = |key: &str| first.get(key).is_some();
    has("sessionId") && has("type") && !has("projectHash")
}

/// The session id and the folder it ran in: the `cwd` of the first line that has one.
pub(in crate::agents) fn peek(path: &Path) -> Option<(String, SessionPlace)> {
    let mut session = None;
    for value in first_values(path)? {
        session = session.or_else(|| text(value.get("sessionId")));
        if let Some(cwd) = text(value.get("cwd")) {
            return Some((session?, SessionPlace::Folder(cwd)));
        }
    }
    None
}

pub(in crate::agents) fn read(text: &str) -> Result<Transcript, TranscriptError> {
    let mut skipped = Skipped::default();
    let mut b = Builder::default();
    let mut session = None;
    let mut cwd = None;
    for line in objects(text, &mut skipped) {
        let str_of = |key: &str| line.get(key).and_then(Value::as_str).map(str::to_owned);
        session = session.or_else(|| str_of("sessionId"));
        cwd = cwd.or_else(|| str_of("cwd"));
        let kind = line.get("type").and_then(Value::as_str).unwrap_or("");
        let sidechain = line.get("isSidechain").and_then(Value::as_bool) == Some(true);
        let meta = line.get("isMeta").and_then(Value::as_bool) == Some(true);
        let content = line.pointer("/message/content");
        match (kind, content) {
            ("user" | "assistant", Some(_)) if sidechain => skipped.inner += 1,
            ("user", Some(_)) if meta => skipped.context += 1,
            ("user", Some(Value::String(s))) => b.text(Speaker::Human, s),
            ("user", Some(Value::Array(blocks))) => {
                for block in blocks {
                    match block.get("type").and_then(Value::as_str) {
                        Some("tool_result") => {
                            let id = block.get("tool_use_id").and_then(Value::as_str);
                            let out = block.get("content").map_or(String::new(), |c| {
                                text_of(c).unwrap_or_else(|| json_text(c))
                            });
                            if !id.is_some_and(|id| b.result(id, out)) {
                                skipped.inner += 1;
                            }
                        }
                        Some("text") => {
                            b.text(Speaker::Human, block["text"].as_str().unwrap_or(""));
                        }
                        _ => skipped.context += 1,
                    }
                }
            }
            ("assistant", Some(Value::Array(blocks))) => {
                let api_error =
                    line.get("isApiErrorMessage").and_then(Value::as_bool) == Some(true);
                for block in blocks {
                    match block.get("type").and_then(Value::as_str) {
                        Some("text") => {
                            b.text(Speaker::Agent, block["text"].as_str().unwrap_or(""));
                        }
                        Some("tool_use") => b.call(
                            block.get("id").and_then(Value::as_str),
                            block.get("name").and_then(Value::as_str).unwrap_or("tool"),
                            block.get("input").map_or(String::new(), json_text),
                        ),
                        _ => skipped.inner += 1,
                    }
                }
                if api_error {
                    b.fail(
                        line.get("error")
                            .and_then(Value::as_str)
                            .unwrap_or("api_error"),
                    );
                }
            }
            ("attachment", _) => skipped.context += 1,
            _ => skipped.bookkeeping += 1,
        }
    }
    b.finish(AgentKind::Claude, session, cwd, skipped)
}
