//! Gemini's stream-json output turned into events.
//!
//! - The turn ends with `result` (`status` success or error). `error` events are
//!   non-fatal notices (one about the key or login ends the turn at once). A run that
//!   ends before the model loop prints no JSON at all (see `exit`).
//! - Retries are not in the stream: gemini reports them (`Attempt 2 failed with status
//!   429. Retrying with backoff...`) on stderr only.
//! - `init` says `model:"auto"`; the routed model is named from `result.stats.models`.

use super::exit::{STDERR_NOISE, early_exit};
use super::lines::{Line, ResultLine, Stats};
use crate::agents::AgentKind;
use crate::agents::output::{Paragraphs, readable_error};
use crate::agents::reader::Turn;
use crate::agents::tools::{ToolArguments, ToolCalls, error_line, tool_summary};
use crate::agents::{AgentEvent, ExitInfo, OutputParser, Usage, auth, resume};

/// Reads gemini's stream-json output.
#[derive(Debug)]
pub struct GeminiParser {
    turn: Turn,
    any_delta: bool,
    paragraphs: Paragraphs,
    tools: ToolCalls,
    last_error: Option<String>,
}

impl GeminiParser {
    /// A parser whose messages name the agent `agent` (the registry entry's name).
    pub fn new(agent: &str) -> GeminiParser {
        GeminiParser {
            turn: Turn::new(agent),
            any_delta: false,
            paragraphs: Paragraphs::default(),
            tools: ToolCalls::default(),
            last_error: None,
        }
    }

    fn event(&mut self, line: Line<'_>, out: &mut Vec<AgentEvent>) {
        match line {
            Line::Init(line) => out.push(AgentEvent::Started {
                session: line.session_id.get().map(str::to_owned),
                model: line.model.get().map(str::to_owned),
            }),
            Line::Message(line) if line.role.is("assistant") => {
                let delta = line.delta.0 == Some(true);
                // Every assistant chunk is a delta; a whole message would repeat them,
                // so it counts only when nothing was streamed.
                if delta || !self.any_delta {
                    self.any_delta |= delta;
                    out.extend(self.paragraphs.push(line.content.0.unwrap_or_default()));
                }
            }
            Line::ToolUse(line) => {
                self.paragraphs.block_ends();
                let name = line.tool_name.get().unwrap_or("tool");
                let input = line.parameters.get().map(|p| p as &dyn ToolArguments);
                let summary = tool_summary(name, input);
                out.push(self.tools.started(line.tool_id.get(), summary));
            }
            Line::ToolResult(line) => {
                self.paragraphs.block_ends();
                let ok = line.status.is("success");
                let detail = (!ok)
                    .then(|| {
                        line.error
                            .get()
                            .and_then(|error| error.message.get())
                            .or_else(|| line.output.get())
                            .and_then(error_line)
                    })
                    .flatten();
                out.push(self.tools.ended(line.tool_id.get(), !ok, detail));
            }
            Line::Error(line) => {
                let message = readable_error(line.message.get().unwrap_or(""));
                if auth::is_auth_failure(&message) {
                    self.turn.finished = true;
                    out.push(auth::failed(&message, AgentKind::Gemini));
                    return;
                }
                out.push(AgentEvent::Notice(format!(
                    "{}: {message}",
                    self.turn.agent
                )));
                self.last_error = Some(message);
            }
            Line::Result(line) => {
                self.turn.finished = true;
                if let Some(model) = line.stats.get().and_then(Stats::answering_model) {
                    out.push(AgentEvent::Model(model));
                }
                out.push(self.result(&line));
            }
            Line::Message(_) | Line::Other(_) => {}
        }
    }

    fn result(&self, line: &ResultLine<'_>) -> AgentEvent {
        if line.status.is("success") {
            let usage = line.stats.is_present().then(|| {
                let stats = line.stats.get();
                Usage {
                    input_tokens: stats.map_or(0, |s| s.input_tokens.or_zero()),
                    output_tokens: stats.map_or(0, |s| s.output_tokens.or_zero()),
                }
            });
            return AgentEvent::Done {
                stop_reason: None,
                usage,
            };
        }
        let message = line
            .error
            .get()
            .and_then(|error| error.message.get())
            .map(readable_error)
            .filter(|m| !m.is_empty())
            .or_else(|| self.last_error.clone())
            .unwrap_or_else(|| format!("{} reported an error", self.turn.agent));
        auth::failure(message, AgentKind::Gemini)
    }
}

impl OutputParser for GeminiParser {
    fn line(&mut self, line: &str, out: &mut Vec<AgentEvent>) {
        if let Some(parsed) = self.turn.read::<Line>(line, out) {
            self.event(parsed, out);
        }
    }

    fn finish(&mut self, exit: &ExitInfo, out: &mut Vec<AgentEvent>) {
        if !self.turn.exited() {
            return;
        }
        out.extend(resume::gemini_not_found(exit));
        // An exit before the model loop printed no JSON; its code says what went wrong.
        let early = self
            .last_error
            .is_none()
            .then(|| early_exit(&self.turn.agent, exit));
        out.push(match early.flatten() {
            Some(message) => AgentEvent::Failed { message },
            None => self
                .turn
                .failure(self.last_error.as_deref(), &STDERR_NOISE, exit),
        });
    }
}
