//! `session/update` notifications as events: the agent's message chunks become answer
//! text (a new message, or text after a tool call, starts a new paragraph), and tool
//! calls one line each, named like the headless adapters' (`Execute: cargo test`) and
//! updated in place by their `toolCallId`.
//!
//! Dropped, each for a reason: `agent_thought_chunk` (thoughts are not the answer),
//! `user_message_chunk` (the replay of a loaded session: the file already has it),
//! `plan`, `available_commands_update`, `current_mode_update`,
//! `config_option_update`, `session_info_update` (nothing in a turn shows them yet),
//! `usage_update` (context-window occupancy and cost, not the turn's token counts
//! that [`Usage`](crate::agents::Usage) holds; those come with the prompt's result),
//! and every kind this version does not know (the protocol grows: an unknown update is
//! never an error).

use std::collections::HashMap;

use agent_client_protocol::v1::schema::{
    ContentBlock, ContentChunk, ToolCall, ToolCallContent, ToolCallStatus, ToolCallUpdate, ToolKind,
};
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::agents::output::{Paragraphs, push_quote, sanitized};
use crate::agents::tools::error_line;
use crate::agents::{AgentEvent, ToolStatus};

/// The state of one turn's answer: its paragraphs and the tool calls seen so far.
#[derive(Debug, Default)]
pub struct Stream {
    paragraphs: Paragraphs,
    /// The last message id of a chunk: a different one starts a new paragraph.
    message: Option<String>,
    calls: HashMap<String, Call>,
}

/// What is known of one tool call: updates carry only what changed.
#[derive(Debug, Default, Clone)]
pub struct Call {
    pub kind: Option<ToolKind>,
    pub title: Option<String>,
    /// What was last reported, so a repeat is not reported again.
    reported: Option<(String, ToolStatus)>,
}

impl Stream {
    /// The events of one `session/update`'s `update` object.
    pub fn update(&mut self, update: Value, out: &mut Vec<AgentEvent>) {
        let kind = update.get("sessionUpdate").and_then(Value::as_str);
        match kind {
            Some("agent_message_chunk") => {
                if let Some(chunk) = typed::<ContentChunk>(update) {
                    self.chunk(chunk, out);
                }
            }
            Some("tool_call") => {
                if let Some(call) = typed::<ToolCall>(update) {
                    self.tool_call(call, out);
                }
            }
            Some("tool_call_update") => {
                if let Some(update) = typed::<ToolCallUpdate>(update) {
                    self.tool_update(update, out);
                }
            }
            Some("available_commands_update") => out.extend(super::commands::commands(&update)),
            other => tracing::trace!("ACP update not shown: {other:?}"),
        }
    }

    fn chunk(&mut self, chunk: ContentChunk, out: &mut Vec<AgentEvent>) {
        let ContentBlock::Text(text) = chunk.content else {
            // Images, audio and resources in an answer have no place in the text yet.
            return;
        };
        if let Some(id) = chunk.message_id.map(|id| id.to_string()) {
            if self.message.as_ref().is_some_and(|last| *last != id) {
                self.paragraphs.block_ends();
            }
            self.message = Some(id);
        }
        out.extend(self.paragraphs.text(&text.text));
    }

    fn tool_call(&mut self, call: ToolCall, out: &mut Vec<AgentEvent>) {
        let id = call.tool_call_id.to_string();
        let known = self.calls.entry(id.clone()).or_default();
        known.kind = Some(call.kind);
        known.title = Some(call.title);
        let detail = detail(&call.content, call.raw_output.as_ref());
        self.report(&id, tool_status(call.status), detail, out);
    }

    fn tool_update(&mut self, update: ToolCallUpdate, out: &mut Vec<AgentEvent>) {
        let id = update.tool_call_id.to_string();
        let fields = update.fields;
        let known = self.calls.entry(id.clone()).or_default();
        let renamed = fields.title.is_some() || fields.kind.is_some();
        known.kind = fields.kind.or(known.kind);
        known.title = fields.title.or(known.title.take());
        let status = match (fields.status, &known.reported) {
            (Some(status), _) => tool_status(status),
            // A new title for a call still running (claude names the command once its
            // input has streamed in).
            (None, Some((_, ToolStatus::Started))) if renamed => ToolStatus::Started,
            _ => return,
        };
        let content = fields.content.unwrap_or_default();
        let detail = detail(&content, fields.raw_output.as_ref());
        self.report(&id, status, detail, out);
    }

    /// Remembers a call's kind and title from a permission request (gemini's request
    /// is the first the client hears of a call).
    pub fn asked_about(&mut self, id: &str, kind: Option<ToolKind>, title: Option<&str>) {
        let known = self.calls.entry(id.to_owned()).or_default();
        known.kind = kind.or(known.kind);
        if let Some(title) = title {
            known.title = Some(title.to_owned());
        }
    }

    /// What is known of call `id`.
    pub fn call(&self, id: &str) -> Option<&Call> {
        self.calls.get(id)
    }

    /// Text after a tool call or a question to the user starts a new paragraph.
    pub fn block_ends(&mut self) {
        self.paragraphs.block_ends();
    }

    fn report(
        &mut self,
        id: &str,
        status: ToolStatus,
        detail: Option<String>,
        out: &mut Vec<AgentEvent>,
    ) {
        let Some(call) = self.calls.get_mut(id) else {
            return;
        };
        let summary = summary(call.kind, call.title.as_deref());
        let now = (summary.clone(), status);
        if call.reported.as_ref() == Some(&now) {
            return;
        }
        call.reported = Some(now);
        self.paragraphs.block_ends();
        let failed = status == ToolStatus::Failed;
        out.push(AgentEvent::Tool {
            id: Some(id.to_owned()),
            summary,
            status,
            detail: detail.filter(|_| failed),
        });
    }
}

/// `update` read as `T`; an update of a known kind that does not read is left out
/// (with a debug line), never the whole turn.
fn typed<T: DeserializeOwned>(update: Value) -> Option<T> {
    match serde_json::from_value(update) {
        Ok(value) => Some(value),
        Err(error) => {
            tracing::debug!("ACP update left out: {error}");
            None
        }
    }
}

fn tool_status(status: ToolCallStatus) -> ToolStatus {
    match status {
        ToolCallStatus::Completed => ToolStatus::Completed,
        ToolCallStatus::Failed => ToolStatus::Failed,
        _ => ToolStatus::Started,
    }
}

/// The first line of a tool's text output (not a code fence's: claude-agent-acp
/// fences it), else of its raw output, for a failure.
fn detail(content: &[ToolCallContent], raw_output: Option<&Value>) -> Option<String> {
    let text = content.iter().find_map(|item| match item {
        ToolCallContent::Content(content) => match &content.content {
            ContentBlock::Text(text) => Some(text.text.as_str()),
            _ => None,
        },
        _ => None,
    });
    let text = text.or_else(|| raw_output.and_then(Value::as_str))?;
    let unfenced: Vec<&str> = text
        .lines()
        .filter(|line| !line.trim_start().starts_with("```"))
        .collect();
    error_line(&unfenced.join("\n"))
}

/// The kind's name as the tool list shows it (`Execute`); `None` for `other`.
pub fn kind_label(kind: ToolKind) -> Option<&'static str> {
    Some(match kind {
        ToolKind::Read => "Read",
        ToolKind::Edit => "Edit",
        ToolKind::Delete => "Delete",
        ToolKind::Move => "Move",
        ToolKind::Search => "Search",
        ToolKind::Execute => "Execute",
        ToolKind::Think => "Think",
        ToolKind::Fetch => "Fetch",
        ToolKind::SwitchMode => "Switch mode",
        _ => return None,
    })
}

/// The protocol's name of a kind (`execute`, `switch_mode`), as permission summaries
/// show it.
pub fn kind_name(kind: ToolKind) -> &'static str {
    match kind {
        ToolKind::Read => "read",
        ToolKind::Edit => "edit",
        ToolKind::Delete => "delete",
        ToolKind::Move => "move",
        ToolKind::Search => "search",
        ToolKind::Execute => "execute",
        ToolKind::Think => "think",
        ToolKind::Fetch => "fetch",
        ToolKind::SwitchMode => "switch_mode",
        _ => "other",
    }
}

/// A call's line in the tool list: `Execute: touch x`, the title alone for a call of
/// kind `other`, the kind alone (or `tool`) without a title.
pub fn summary(kind: Option<ToolKind>, title: Option<&str>) -> String {
    let label = kind.and_then(kind_label);
    let title = title.map(first_line).filter(|t| !t.is_empty());
    match (label, title) {
        (Some(label), Some(title)) => {
            let mut summary = format!("{label}: ");
            push_quote(&mut summary, &title);
            summary
        }
        (None, Some(title)) => {
            let mut summary = String::new();
            push_quote(&mut summary, &title);
            summary
        }
        (Some(label), None) => label.to_owned(),
        (None, None) => "tool".to_owned(),
    }
}

/// The first line of `text`, clean and trimmed.
pub fn first_line(text: &str) -> String {
    sanitized(text)
        .lines()
        .next()
        .unwrap_or("")
        .trim()
        .to_owned()
}
