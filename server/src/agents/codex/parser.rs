//! Codex's `--json` events turned into events.
//!
//! - The turn ends with `turn.completed` or `turn.failed`; an `error` event alone is a
//!   notice, and `Reconnecting... 2/5 (...)` a retry. One that says the key or login
//!   was refused ends the turn at once. The answer is the `agent_message` items, which
//!   arrive whole.
//! - No event names the model; `agents::provenance` reads it from the configuration.

use super::items::{self, tool_status};
use super::lines::{Item, Line};
use crate::agents::AgentKind;
use crate::agents::output::{Paragraphs, readable_error};
use crate::agents::reader::Turn;
use crate::agents::tools::ToolCalls;
use crate::agents::{
    AgentEvent, ExitInfo, OutputParser, Retry, RunningTotals, Usage, auth, resume,
};

/// Printed on stderr whenever stdin is not a terminal; never the reason for a failure.
const STDERR_NOISE: [&str; 1] = ["Reading additional input from stdin"];

/// Reads codex's `--json` events.
#[derive(Debug, Default)]
pub struct CodexParser {
    turn: Turn,
    paragraphs: Paragraphs,
    tools: ToolCalls,
}

impl CodexParser {
    /// A parser whose messages name the agent `agent` (the registry entry's name).
    pub fn new(agent: &str) -> CodexParser {
        CodexParser {
            turn: Turn::new(agent),
            ..CodexParser::default()
        }
    }

    fn event(&mut self, line: Line<'_>, out: &mut Vec<AgentEvent>) {
        match line {
            Line::ThreadStarted(line) => {
                out.push(AgentEvent::Started {
                    session: line.thread_id.get().map(str::to_owned),
                    model: None,
                });
                // `turn.completed.usage` counts the whole thread, the resumed turns
                // before this one included (0.169 and 0.171 alike).
                out.push(AgentEvent::RunningTotals(RunningTotals {
                    tokens: true,
                    cost: false,
                }));
            }
            Line::ItemStarted(line) => {
                if let Some(item) = line.item.get()
                    && let Some(summary) = items::summary(item)
                {
                    out.push(self.tools.started(item.id.get(), summary));
                }
            }
            Line::ItemCompleted(line) => {
                if let Some(item) = line.item.into_inner() {
                    self.item_completed(*item, out);
                }
            }
            Line::Error(line) => {
                let message = readable_error(line.message.get().unwrap_or(""));
                self.error(message, out);
            }
            Line::TurnCompleted(line) => {
                self.turn.finished = true;
                let usage = line.usage.is_present().then(|| {
                    let counts = line.usage.get();
                    Usage {
                        input_tokens: counts.map_or(0, |c| c.input_tokens.or_zero()),
                        output_tokens: counts.map_or(0, |c| c.output_tokens.or_zero()),
                    }
                });
                out.push(AgentEvent::Done {
                    stop_reason: None,
                    usage,
                });
            }
            Line::TurnFailed(line) => {
                self.turn.finished = true;
                let message = self.turn.reported(&line.error, "reported a failed turn");
                out.push(auth::failure(message, AgentKind::Codex));
            }
            Line::Other(_) => {}
        }
    }

    fn item_completed(&mut self, item: Item<'_>, out: &mut Vec<AgentEvent>) {
        match item.kind.get() {
            Some("agent_message") => {
                self.paragraphs.block_ends();
                out.extend(self.paragraphs.push(item.text.0.unwrap_or_default()));
            }
            Some("error") => {
                let message = readable_error(item.message.get().unwrap_or(""));
                self.error(message, out);
            }
            _ => {
                let known = self.tools.summary(item.id.get()).map(str::to_owned);
                if let Some(summary) = known.or_else(|| self.tool_summary(&item)) {
                    let (status, detail) = tool_status(&item);
                    out.push(AgentEvent::Tool {
                        id: item.id.get().map(str::to_owned),
                        summary,
                        status,
                        detail,
                    });
                }
            }
        }
    }

    /// A non-fatal `error` (event or item): a retry when codex reconnects, the end of
    /// the turn when the key or login was refused, else a notice. The message is kept
    /// for a failure without words of its own.
    fn error(&mut self, message: String, out: &mut Vec<AgentEvent>) {
        if auth::is_auth_failure(&message) {
            self.turn.finished = true;
            out.push(auth::failed(&message, AgentKind::Codex));
            return;
        }
        match reconnect(&message) {
            Some(retry) => out.push(AgentEvent::Retry(retry)),
            None => out.push(AgentEvent::Notice(format!(
                "{}: {message}",
                self.turn.agent
            ))),
        }
        self.turn.last_error = Some(message);
    }

    /// The summary of a tool item, remembered under its id; `None` for other items.
    fn tool_summary(&mut self, item: &Item<'_>) -> Option<String> {
        let summary = items::summary(item)?;
        if let Some(id) = item.id.get() {
            self.tools.remember(id, &summary);
        }
        Some(summary)
    }
}

/// `Reconnecting... 2/5 (why)` as a retry; `None` for any other message.
pub(super) fn reconnect(message: &str) -> Option<Retry> {
    let rest = message.strip_prefix("Reconnecting...")?.trim();
    let (count, after) = rest.split_once(' ').unwrap_or((rest, ""));
    let counted = count
        .split_once('/')
        .and_then(|(attempt, max)| Some((attempt.parse::<u64>().ok()?, max.parse::<u64>().ok()?)));
    let (attempt, max, reason) = match counted {
        Some((attempt, max)) => (Some(attempt), Some(max), after.trim()),
        None => (None, None, rest),
    };
    // `2/5 (stream disconnected ...)`: the reason is the parenthesis.
    let reason = match counted.and(reason.strip_prefix('(')) {
        Some(inner) => inner.strip_suffix(')').unwrap_or(inner),
        None => reason,
    };
    Some(Retry {
        attempt,
        max,
        reason: reason.to_owned(),
    })
}

impl OutputParser for CodexParser {
    fn line(&mut self, line: &str, out: &mut Vec<AgentEvent>) {
        if let Some(parsed) = self.turn.read::<Line>(line, out) {
            self.event(parsed, out);
        }
    }

    fn finish(&mut self, exit: &ExitInfo, out: &mut Vec<AgentEvent>) {
        if self.turn.exited() {
            out.extend(resume::codex_not_found(exit));
            let own = self.turn.last_error.as_deref();
            out.push(self.turn.failure(own, &STDERR_NOISE, exit));
        }
    }
}
