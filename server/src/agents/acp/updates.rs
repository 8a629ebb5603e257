//! `session/update` notifications as events: the agent's message chunks become answer
//! text (a new message, or text after a tool call, starts a new paragraph), thought
//! chunks [`AgentEvent::Thought`], a plan (or a `plan_update`) [`AgentEvent::Plan`],
//! each tool call an [`AgentEvent::Call`] whenever what it shows changes (`calls.rs`),
//! and a `usage_update` [`AgentEvent::Context`].
//!
//! Dropped, each for a reason: `user_message_chunk` (the replay of a loaded session:
//! the file already has it), `available_commands_update`, `current_mode_update`,
//! `config_option_update`, `session_info_update` (nothing in a turn shows them yet),
//! `plan_removed` (the checklist in the file stays the record of the plan),
//! and every kind this version does not know (the protocol grows: an unknown update is
//! never an error).

use std::collections::HashMap;
use std::path::PathBuf;

use agent_client_protocol::v1::schema::{
    ContentBlock, ContentChunk, Plan, PlanEntryStatus, ToolCall, ToolCallUpdate, ToolKind,
    UsageUpdate,
};
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::calls::call_status;
pub use super::calls::{Call, first_line, kind_name};
use crate::agents::output::{Paragraphs, sanitized};
use crate::agents::{AgentEvent, ContextUsage, PlanEntry, StepStatus};

/// The state of one turn's answer: its paragraphs and the tool calls seen so far.
#[derive(Debug, Default)]
pub struct Stream {
    paragraphs: Paragraphs,
    /// The last message id of a chunk: a different one starts a new paragraph.
    message: Option<String>,
    calls: HashMap<String, Call>,
    /// Each terminal's output so far, by `terminalId` (`terminal.rs`).
    outputs: HashMap<String, String>,
    /// The session's folder: paths inside it are shown relative to it.
    cwd: PathBuf,
}

impl Stream {
    /// The stream of a session working in `cwd`.
    pub fn new(cwd: PathBuf) -> Stream {
        Stream {
            cwd,
            ..Stream::default()
        }
    }

    /// The events of one `session/update`'s `update` object.
    pub fn update(&mut self, update: Value, out: &mut Vec<AgentEvent>) {
        let kind = update.get("sessionUpdate").and_then(Value::as_str);
        match kind {
            Some("agent_message_chunk") => {
                if let Some(chunk) = typed::<ContentChunk>(update) {
                    self.chunk(chunk, out);
                }
            }
            Some("agent_thought_chunk") => {
                if let Some(ContentChunk {
                    content: ContentBlock::Text(text),
                    ..
                }) = typed::<ContentChunk>(update)
                {
                    let text = sanitized(&text.text);
                    if !text.is_empty() {
                        out.push(AgentEvent::Thought(text.into_owned()));
                    }
                }
            }
            Some("plan") => {
                if let Some(plan) = typed::<Plan>(update) {
                    self.paragraphs.block_ends();
                    out.push(AgentEvent::Plan(
                        plan.entries.into_iter().map(entry).collect(),
                    ));
                }
            }
            Some("plan_update") => {
                // A plan by id (`plan_updates.rs`): the same checklist as `plan`.
                if let Some(entries) = super::plan_updates::entries(&update) {
                    self.paragraphs.block_ends();
                    out.push(AgentEvent::Plan(entries));
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
            Some("usage_update") => {
                if let Some(usage) = typed::<UsageUpdate>(update) {
                    out.push(AgentEvent::Context(ContextUsage {
                        used: usage.used,
                        size: usage.size,
                        cost: usage
                            .cost
                            .map(|c| crate::agents::cost_words(c.amount, &first_line(&c.currency))),
                    }));
                }
            }
            other => tracing::trace!("ACP update not shown: {other:?}"),
        }
    }

    /// The answer goes on in a new section (the turn was steered): its next text
    /// starts there, as an answer's first text does.
    pub fn section_ends(&mut self) {
        self.paragraphs.section_ends();
        self.message = None;
    }

    fn chunk(&mut self, chunk: ContentChunk, out: &mut Vec<AgentEvent>) {
        let ContentBlock::Text(text) = chunk.content else {
            // Images, audio and resources in an answer have no place in the text yet.
            return;
        };
        if let Some(notice) = adapter_notice(&text.text) {
            out.push(AgentEvent::Notice(notice.to_owned()));
            return;
        }
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
        known.status = Some(call_status(call.status));
        known.raw_input = call.raw_input.clone().or(known.raw_input.take());
        known.take(
            &self.cwd,
            Some(&call.content),
            call.raw_output.as_ref(),
            Some(&call.locations),
        );
        self.report(&id, out);
    }

    fn tool_update(&mut self, update: ToolCallUpdate, out: &mut Vec<AgentEvent>) {
        let id = update.tool_call_id.to_string();
        let fields = update.fields;
        let known = self.calls.entry(id.clone()).or_default();
        known.kind = fields.kind.or(known.kind);
        known.title = fields.title.or(known.title.take());
        if let Some(status) = fields.status {
            known.status = Some(call_status(status));
        }
        known.raw_input = fields.raw_input.clone().or(known.raw_input.take());
        known.take(
            &self.cwd,
            fields.content.as_deref(),
            fields.raw_output.as_ref(),
            fields.locations.as_deref(),
        );
        self.report(&id, out);
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

    /// Shows call `id` before a question about it, when nothing showed it yet.
    pub fn show_asked(&mut self, id: &str, out: &mut Vec<AgentEvent>) {
        if self.calls.get(id).is_some_and(|c| c.reported.is_none()) {
            self.report(id, out);
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

    /// Terminal `terminal` printed: its output so far shows under the tool line of each
    /// call that embeds it.
    pub fn terminal_output(&mut self, terminal: &str, output: String, out: &mut Vec<AgentEvent>) {
        self.outputs.insert(terminal.to_owned(), output);
        let ids: Vec<String> = self
            .calls
            .iter()
            .filter(|(_, call)| call.terminals.iter().any(|t| t == terminal))
            .map(|(id, _)| id.clone())
            .collect();
        for id in ids {
            self.report(&id, out);
        }
    }

    /// Reports call `id` when what it shows changed. A call whose kind and title are
    /// not known yet (an update before its `tool_call`) waits for them.
    fn report(&mut self, id: &str, out: &mut Vec<AgentEvent>) {
        let Some(call) = self.calls.get_mut(id) else {
            return;
        };
        if call.kind.is_none() && call.title.is_none() {
            return;
        }
        if let Some(output) = call.terminals.last().and_then(|t| self.outputs.get(t)) {
            call.output = Some(output.clone());
        }
        if let Some(view) = call.view(id, &self.cwd) {
            self.paragraphs.block_ends();
            out.push(AgentEvent::Call(Box::new(view)));
        }
    }
}

/// A plan entry as the turn shows it.
fn entry(entry: agent_client_protocol::v1::schema::PlanEntry) -> PlanEntry {
    PlanEntry {
        content: sanitized(&entry.content).into_owned(),
        status: match entry.status {
            PlanEntryStatus::InProgress => StepStatus::InProgress,
            PlanEntryStatus::Completed => StepStatus::Completed,
            _ => StepStatus::Pending,
        },
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

/// A notice of the adapter's own streamed as answer text (claude-agent-acp 0.101 ends
/// an answer with "**Warning:** We're changing auto mode…"): one whole chunk that is a
/// bold `Warning:` sentence. A model streams its text in pieces, so its own warning
/// does not arrive so.
fn adapter_notice(text: &str) -> Option<&str> {
    let notice = text.trim();
    let sentence = notice.ends_with(['.', '…', ')']) && notice.len() >= 40;
    (notice.starts_with("**Warning:** ") && sentence && !notice.contains("\n\n")).then_some(notice)
}

#[cfg(test)]
mod tests;
