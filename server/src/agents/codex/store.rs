//! Codex's rollout file: `$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl`.
//! The first line is `session_meta` (the thread id, the cwd); the conversation is in the
//! `response_item` lines (the Responses API items codex sent and received); `event_msg`,
//! `turn_context`, `world_state` and usage lines are bookkeeping that repeats it.

use std::path::Path;

use serde_json::Value;

use crate::agents::kinds::SessionPlace;

use crate::agents::Usage;

use crate::agents::AgentKind;
use crate::agents::transcripts::{
    Builder, Skipped, Speaker, Transcript, TranscriptError, file_name, first_values, json_text,
    objects, text,
};

/// How the user messages that codex writes itself begin: the AGENTS.md text, the
/// environment, older builds' user instructions.
const ADDED_BY_CODEX: [&str; 3] = [
    "# AGENTS.md instructions for ",
    "<environment_context>",
    "<user_instructions>",
];

/// Whether a first JSON line is codex's: its `session_meta`.
pub(in crate::agents) fn recognizes(first: &Value) -> bool {
    first.get("type").and_then(Value::as_str) == Some("session_meta")
}

/// Whether a file is one of codex's sessions (`rollout-*.jsonl`).
pub(in crate::agents) fn is_session_file(path: &Path) -> bool {
    file_name(path).starts_with("rollout-")
}

/// The thread id and the folder it ran in, from the first line (`session_meta`).
pub(in crate::agents) fn peek(path: &Path) -> Option<(String, SessionPlace)> {
    let first = first_values(path)?.next()?;
    let payload = first.get("payload")?;
    let id = text(payload.get("id"))?;
    Some((id, SessionPlace::Folder(text(payload.get("cwd"))?)))
}

pub(in crate::agents) fn read(text: &str) -> Result<Transcript, TranscriptError> {
    let mut skipped = Skipped::default();
    let mut b = Builder::default();
    let mut session = None;
    let mut cwd = None;
    let mut used = None;
    for line in objects(text, &mut skipped) {
        let payload = &line["payload"];
        let str_at = |key: &str| payload.get(key).and_then(Value::as_str).map(str::to_owned);
        match line.get("type").and_then(Value::as_str) {
            Some("session_meta") => {
                session = session
                    .or_else(|| str_at("id"))
                    .or_else(|| str_at("session_id"));
                cwd = cwd.or_else(|| str_at("cwd"));
                skipped.bookkeeping += 1;
            }
            Some("response_item") => item(payload, &mut b, &mut skipped),
            Some("event_msg") => {
                used = total_usage(payload).or(used);
                skipped.bookkeeping += 1;
            }
            _ => skipped.bookkeeping += 1,
        }
    }
    let mut transcript = b.finish(AgentKind::Codex, session, cwd, skipped)?;
    transcript.session_tokens = used;
    Ok(transcript)
}

/// The thread's running total of a `token_count` event, which is what `exec resume`
/// reports its next turn's usage on top of.
fn total_usage(payload: &Value) -> Option<Usage> {
    if payload.get("type").and_then(Value::as_str) != Some("token_count") {
        return None;
    }
    let total = payload.get("info")?.get("total_token_usage")?;
    Some(Usage {
        input_tokens: total.get("input_tokens")?.as_u64()?,
        output_tokens: total.get("output_tokens")?.as_u64()?,
    })
}

fn item(payload: &Value, b: &mut Builder, skipped: &mut Skipped) {
    let field = |key: &str| payload.get(key).and_then(Value::as_str);
    match field("type") {
        Some("message") => {
            let speaker = match field("role") {
                Some("user") => Speaker::Human,
                Some("assistant") => Speaker::Agent,
                _ => {
                    skipped.context += 1;
                    return;
                }
            };
            let items = payload["content"]
                .as_array()
                .map(Vec::as_slice)
                .unwrap_or(&[]);
            for text in items
                .iter()
                .filter_map(|i| i.get("text").and_then(Value::as_str))
            {
                if speaker == Speaker::Human && ADDED_BY_CODEX.iter().any(|p| text.starts_with(p)) {
                    skipped.context += 1;
                } else {
                    b.text(speaker, text);
                }
            }
        }
        Some("function_call" | "custom_tool_call" | "local_shell_call") => {
            let input = ["arguments", "input", "action"]
                .iter()
                .find_map(|k| payload.get(*k))
                .map_or(String::new(), json_text);
            b.call(field("call_id"), field("name").unwrap_or("shell"), input);
        }
        Some("function_call_output" | "custom_tool_call_output") => {
            let output = payload.get("output").map_or(String::new(), |o| {
                o.get("output").map_or_else(|| json_text(o), json_text)
            });
            if !field("call_id").is_some_and(|id| b.result(id, output)) {
                skipped.inner += 1;
            }
        }
        Some("reasoning") => skipped.inner += 1,
        _ => skipped.bookkeeping += 1,
    }
}
