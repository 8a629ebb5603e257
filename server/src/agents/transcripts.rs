//! The sessions the CLIs store themselves (claude's project JSONL, codex's rollout file,
//! gemini's chat file; see `agent-clis.md`), read into one [`Transcript`] for
//! `chatmd import`: who said what, the tools the agent ran, and the session id that
//! resumes it. Each kind's reader is its session store (`<kind>/store.rs`, named by its
//! `KindSpec`); this module holds what they share and finds the kind of a file. Pure:
//! text in, transcript out.

mod builder;
mod stores;

use serde_json::Value;

use super::AgentKind;
pub(in crate::agents) use builder::Builder;
pub use stores::{StoredSession, sessions_in, state_dir};
pub(in crate::agents) use stores::{file_name, first_values, text};

/// One stored session of a CLI.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Transcript {
    pub kind: AgentKind,
    /// The CLI's own session id: what `--resume` / `exec resume` takes.
    pub session: String,
    /// The folder the CLI ran in, when the file says (each CLI resumes per folder).
    pub cwd: Option<String>,
    /// gemini's `projectHash`: the SHA-256 of the folder it ran in.
    pub project_hash: Option<String>,
    /// What the session had used by its last stored report, for a CLI that reports
    /// running totals on resume (codex's `token_count`): the first resumed turn counts
    /// its share from there.
    pub session_tokens: Option<super::Usage>,
    pub messages: Vec<TranscriptMessage>,
    pub skipped: Skipped,
}

/// A message: consecutive entries of one side joined.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TranscriptMessage {
    pub speaker: Speaker,
    pub parts: Vec<Part>,
    /// For an answer the CLI stored as an API error (claude's `isApiErrorMessage`):
    /// the error's short name.
    pub error: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Speaker {
    Human,
    Agent,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Part {
    Text(String),
    /// A tool the agent ran: its name, its input (JSON text) and its result, if stored.
    Tool {
        name: String,
        input: String,
        output: Option<String>,
    },
}

/// What the file holds besides the conversation, counted by kind.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Skipped {
    /// The CLI's bookkeeping: queue operations, token counts, turn settings, titles.
    pub bookkeeping: usize,
    /// Messages the CLI added to the model's input itself: instructions, role files,
    /// environment and session context, skill listings.
    pub context: usize,
    /// Sub-agents' messages and the model's reasoning.
    pub inner: usize,
    /// Lines that are not JSON objects.
    pub unreadable: usize,
}

impl Skipped {
    pub fn total(&self) -> usize {
        self.bookkeeping + self.context + self.inner + self.unreadable
    }
}

/// Why a file is no stored session.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TranscriptError {
    #[error(
        "not a stored session of {} (its first JSON line is none of theirs)",
        super::kinds::stored_kinds_in_words()
    )]
    UnknownShape,
    #[error("a {0} session without a session id")]
    NoSessionId(&'static str),
    /// The file names a session id its CLI never issues (it would be passed to the CLI
    /// on the member's next turn: `--permission-mode=bypassPermissions`).
    #[error("a {kind} session whose id {id:?} is not one {kind} issues (a UUID): not imported")]
    ForeignSessionId { kind: &'static str, id: String },
}

/// Whether `text` looks like a stored session of one of the CLIs: its first JSON line.
pub fn kind_of(text: &str) -> Option<AgentKind> {
    let first = text
        .lines()
        .find_map(|l| serde_json::from_str::<Value>(l.trim()).ok())?;
    super::kinds::KINDS
        .iter()
        .find(|spec| {
            spec.store
                .as_ref()
                .is_some_and(|store| (store.recognizes)(&first))
        })
        .map(|spec| spec.kind)
}

/// Reads a stored session of any of the CLIs.
pub fn read(text: &str) -> Result<Transcript, TranscriptError> {
    let kind = kind_of(text).ok_or(TranscriptError::UnknownShape)?;
    let store = super::kinds::spec_of(kind).store.as_ref();
    let transcript = (store.ok_or(TranscriptError::UnknownShape)?.read)(text)?;
    if !super::session_id::is_cli_session_id(kind, &transcript.session) {
        let id: String = transcript.session.chars().take(60).collect();
        return Err(TranscriptError::ForeignSessionId {
            kind: kind.name(),
            id,
        });
    }
    Ok(transcript)
}

/// The JSON objects of a JSONL text, with a count of the lines that are not one.
pub(in crate::agents) fn objects(text: &str, skipped: &mut Skipped) -> Vec<Value> {
    let mut out = Vec::new();
    for line in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
        match serde_json::from_str::<Value>(line) {
            Ok(value @ Value::Object(_)) => out.push(value),
            _ => skipped.unreadable += 1,
        }
    }
    out
}

/// The text of a string, or of an array of `{ "text": … }` blocks, joined by blank lines.
pub(in crate::agents) fn text_of(content: &Value) -> Option<String> {
    match content {
        Value::String(s) => Some(s.clone()),
        Value::Array(blocks) => {
            let texts: Vec<&str> = blocks
                .iter()
                .filter_map(|b| b.get("text").and_then(Value::as_str))
                .collect();
            (!texts.is_empty()).then(|| texts.join("\n\n"))
        }
        _ => None,
    }
}

/// A tool's input or output as text: strings as they are, anything else as JSON.
pub(in crate::agents) fn json_text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests;
