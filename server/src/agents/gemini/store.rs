//! Gemini CLI's chat file: `<GEMINI_CLI_HOME or HOME>/.gemini/tmp/<project>/chats/
//! session-<date>-<id8>.jsonl`. A header line (`sessionId`, `projectHash`), then
//! records: a message (`id`, `type` `user` | `gemini` | `info` | ..., `content`) is
//! added, or replaces the message of the same id (a tool call's result is written into
//! it later); `{"$set": {"messages": [...]}}` replaces the whole list (on resume), other
//! `$set`s update metadata.

use std::path::Path;

use serde_json::Value;

use crate::agents::kinds::SessionPlace;

use crate::agents::AgentKind;
use crate::agents::transcripts::{
    Builder, Skipped, Speaker, Transcript, TranscriptError, file_name, first_values, json_text,
    objects, text, text_of,
};

/// How the first user message that gemini writes itself begins.
const ADDED_BY_GEMINI: &str = "<session_context>";

/// Whether a first JSON line is gemini's header: `sessionId` and `projectHash`.
pub(in crate::agents) fn recognizes(first: &Value) -> bool {
    first.get("sessionId").is_some() && first.get("projectHash").is_some()
}

/// Whether a file is one of gemini's sessions (`chats/session-*.jsonl`).
pub(in crate::agents) fn is_session_file(path: &Path) -> bool {
    let in_chats = path
        .parent()
        .and_then(Path::file_name)
        .is_some_and(|p| p == "chats");
    file_name(path).starts_with("session-") && in_chats
}

/// The session id and the hash of the folder it ran in, from the header line.
pub(in crate::agents) fn peek(path: &Path) -> Option<(String, SessionPlace)> {
    let first = first_values(path)?.next()?;
    let id = text(first.get("sessionId"))?;
    Some((id, SessionPlace::Hash(text(first.get("projectHash"))?)))
}

pub(in crate::agents) fn read(text: &str) -> Result<Transcript, TranscriptError> {
    let mut skipped = Skipped::default();
    let mut session = None;
    let mut project_hash = None;
    let mut list: Vec<Value> = Vec::new();
    for line in objects(text, &mut skipped) {
        if let Some(id) = line.get("sessionId").and_then(Value::as_str) {
            session.get_or_insert_with(|| id.to_owned());
        }
        if let Some(hash) = line.get("projectHash").and_then(Value::as_str) {
            project_hash.get_or_insert_with(|| hash.to_owned());
        }
        if let Some(set) = line.get("$set") {
            match set.get("messages").and_then(Value::as_array) {
                Some(messages) => list = messages.clone(),
                None => skipped.bookkeeping += 1,
            }
        } else if let Some(id) = line.get("id").filter(|_| line.get("type").is_some()) {
            match list.iter_mut().find(|m| m.get("id") == Some(id)) {
                Some(old) => *old = line,
                None => list.push(line),
            }
        } else if line.get("projectHash").is_none() {
            skipped.bookkeeping += 1;
        }
    }
    let mut b = Builder::default();
    for message in &list {
        match message.get("type").and_then(Value::as_str) {
            Some("user") => user(message, &mut b, &mut skipped),
            Some("gemini") => answer(message, &mut b, &mut skipped),
            _ => skipped.bookkeeping += 1,
        }
    }
    let mut transcript = b.finish(AgentKind::Gemini, session, None, skipped)?;
    transcript.project_hash = project_hash;
    Ok(transcript)
}

fn user(message: &Value, b: &mut Builder, skipped: &mut Skipped) {
    let parts = match &message["content"] {
        Value::String(s) => {
            b.text(Speaker::Human, s);
            return;
        }
        Value::Array(parts) => parts,
        _ => return,
    };
    for part in parts {
        if let Some(text) = part.get("text").and_then(Value::as_str) {
            if text.starts_with(ADDED_BY_GEMINI) {
                skipped.context += 1;
            } else {
                b.text(Speaker::Human, text);
            }
        } else if let Some(response) = part.get("functionResponse") {
            let id = response.get("id").and_then(Value::as_str);
            let output = response.get("response").map_or(String::new(), |r| {
                r.get("output").map_or_else(|| json_text(r), json_text)
            });
            if !id.is_some_and(|id| b.result(id, output)) {
                skipped.inner += 1;
            }
        }
    }
}

fn answer(message: &Value, b: &mut Builder, skipped: &mut Skipped) {
    if let Some(text) = text_of(&message["content"]) {
        b.text(Speaker::Agent, &text);
    }
    if message["thoughts"]
        .as_array()
        .is_some_and(|t| !t.is_empty())
    {
        skipped.inner += 1;
    }
    for call in message["toolCalls"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or(&[])
    {
        let id = call.get("id").and_then(Value::as_str);
        b.call(
            id,
            call.get("name").and_then(Value::as_str).unwrap_or("tool"),
            call.get("args").map_or(String::new(), json_text),
        );
        let output = call["result"].as_array().and_then(|results| {
            results.iter().find_map(|r| {
                let response = r.pointer("/functionResponse/response")?;
                Some(
                    response
                        .get("output")
                        .map_or_else(|| json_text(response), json_text),
                )
            })
        });
        if let (Some(id), Some(output)) = (id, output) {
            b.result(id, output);
        }
    }
}
