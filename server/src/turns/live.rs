//! One running turn as the engine tracks it: the status comment it will write, the
//! answer filtered for the chat, tool activity, and how the turn ended.

use std::time::Instant;

use super::EditorPort;
use super::section::{self, Ending};
use crate::agents::{AgentEvent, ToolStatus};
use crate::conversation::output::OutputFilter;
use crate::document::status::{StatusComment, TurnStatus};
use crate::runner::{Ended, RunOutcome};

/// One running turn, as the engine tracks it.
pub(super) struct Live {
    pub(super) member: String,
    pub(super) status: StatusComment,
    pub(super) status_dirty: bool,
    pub(super) filter: OutputFilter,
    pub(super) pending: String,
    /// Whether everything written so far ends a line (a section must end with one).
    pub(super) at_line_start: bool,
    /// The document uses CRLF line breaks: the answer is written with them too.
    pub(super) crlf: bool,
    pub(super) answer: String,
    pub(super) tools: Vec<String>,
    pub(super) ending: Ending,
    pub(super) started: Instant,
    pub(super) done: bool,
    /// The port was told how the turn ended.
    pub(super) reported: bool,
}

pub(super) fn on_event<P: EditorPort>(port: &mut P, t: &mut Live, event: AgentEvent) {
    match event {
        AgentEvent::Started { session, model } => {
            if let Some(model) = model {
                t.status.set("model", model);
            }
            if let Some(session) = session {
                t.status.set("session", session);
            }
            t.status_dirty = true;
        }
        AgentEvent::Text(piece) => {
            port.on_text(&t.member, &piece);
            t.answer.push_str(&piece);
            let safe = t.filter.push(&piece);
            t.pending.push_str(&safe);
        }
        AgentEvent::Tool { summary, status } => {
            if status != ToolStatus::Completed {
                t.tools.push(summary);
            }
        }
        AgentEvent::Usage(usage) => t.ending.usage = Some(usage),
        AgentEvent::Done { stop_reason, usage } => {
            t.ending.stop = stop_reason;
            if usage.is_some() {
                t.ending.usage = usage;
            }
        }
        AgentEvent::Failed { message } => t.ending.error = Some(message),
        AgentEvent::Notice(note) => tracing::debug!(member = t.member.as_str(), "{note}"),
        AgentEvent::SessionNotFound { message } => {
            // The turn runs again as a new session (turns/resume.rs); the status says so.
            tracing::info!(member = t.member.as_str(), "{message}");
            t.status.set("resume", "lost");
            t.status_dirty = true;
        }
    }
}

pub(super) fn on_end(t: &mut Live, outcome: &RunOutcome) {
    t.done = true;
    t.pending.push_str(&t.filter.finish());
    let written_ends_line = if t.pending.is_empty() {
        t.at_line_start
    } else {
        t.pending.ends_with('\n')
    };
    if !written_ends_line {
        t.pending.push('\n');
    }
    if !t.tools.is_empty() {
        t.pending.push_str(&tools_block(&t.tools));
    }
    t.ending.exit = outcome.exit.as_ref().and_then(|e| e.code);
    let status = match &outcome.ended {
        Ended::Completed if t.answer.trim() == "SKIP" => TurnStatus::Skipped,
        Ended::Completed => TurnStatus::Done,
        Ended::Cancelled => TurnStatus::Cancelled,
        other => {
            if t.ending.error.is_none() {
                t.ending.error = Some(other.to_string());
            }
            TurnStatus::Error
        }
    };
    if status == TurnStatus::Skipped {
        t.pending.clear();
    }
    section::finished(&mut t.status, status, t.started.elapsed(), &t.ending);
    t.status_dirty = true;
}

/// Tool activity, collapsed so it does not crowd the answer.
fn tools_block(tools: &[String]) -> String {
    let mut out = format!("\n<details><summary>Tools ({})</summary>\n\n", tools.len());
    for tool in tools {
        out.push_str("- ");
        out.push_str(&tool.replace(['\r', '\n'], " "));
        out.push('\n');
    }
    out.push_str("\n</details>\n");
    out
}
