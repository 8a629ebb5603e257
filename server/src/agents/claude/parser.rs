//! Claude's stream-json output turned into events.
//!
//! - Success is `result.is_error == false`; `subtype: "success"` also comes with errors.
//! - Text comes from the `text_delta` stream events. The whole `assistant` blocks repeat
//!   it, so their text is used only for messages that were not streamed, and
//!   `result.result` only when no text came at all; an `assistant` line with `error`
//!   (not logged in, API errors) is an error message, not an answer.
//! - Lines with a `parent_tool_use_id` come from sub-agents and are left out.

use std::collections::HashSet;

use super::lines::{
    ErrorValue, Head, Kind, Line, MessageLine, ResultLine, StreamEvent, SystemLine,
};
use crate::agents::AgentKind;
use crate::agents::json::{Obj, TokenCounts, U64, parse_line};
use crate::agents::output::{Paragraphs, sanitize};
use crate::agents::permissions::claude_denials;
use crate::agents::reader::Turn;
use crate::agents::tools::{ToolArguments, ToolCalls, error_line, tool_summary};
use crate::agents::versions::{CLAUDE_SESSION_COST_SINCE, Version};
use crate::agents::{
    AgentEvent, ExitInfo, OutputParser, Retry, RunningTotals, Usage, auth, resume,
};

/// Reads claude's stream-json output.
#[derive(Debug)]
pub struct ClaudeParser {
    turn: Turn,
    started: bool,
    /// Ids of messages whose text arrived as deltas (their `assistant` copies are skipped).
    streamed: HashSet<String>,
    any_delta: bool,
    paragraphs: Paragraphs,
    tools: ToolCalls,
    /// The text of an `assistant` line flagged as an error.
    error_text: Option<String>,
    /// That line's error was `authentication_failed` (not logged in, key refused).
    auth_error: bool,
}

/// The model as the status comment records it: without the context-window tag claude
/// adds to it on new sessions only (`claude-opus-4-8[1m]` on a new session,
/// `claude-opus-4-8` on a resumed one), so that a session's turns name one model, the
/// name its answers carry (`message.model`).
fn model_name(model: &str) -> String {
    match model.split_once('[') {
        Some((name, tag)) if tag.ends_with(']') && !name.is_empty() => name.to_owned(),
        _ => model.to_owned(),
    }
}

impl ClaudeParser {
    /// A parser whose messages name the agent `agent` (the registry entry's name).
    pub fn new(agent: &str) -> ClaudeParser {
        ClaudeParser {
            turn: Turn::new(agent),
            started: false,
            streamed: HashSet::new(),
            any_delta: false,
            paragraphs: Paragraphs::default(),
            tools: ToolCalls::default(),
            error_text: None,
            auth_error: false,
        }
    }

    /// `Started`, from the first line with a session (but not a `result`: a run that fails
    /// before it starts, on an unknown resume id, reports only that, and its session is
    /// not one to keep).
    fn start(&mut self, line: &str, out: &mut Vec<AgentEvent>) {
        // The line was read as an event, so it reads as a head too.
        let Ok(Some(head)) = parse_line::<Head>(&self.turn.agent, line) else {
            return;
        };
        if let Some(session) = head.session_id.get() {
            self.started = true;
            let init = head.subtype.is("init");
            out.push(AgentEvent::Started {
                session: Some(session.to_owned()),
                model: head.model.get().filter(|_| init).map(model_name),
            });
            let version = head.claude_code_version.get().and_then(Version::find);
            if init && version.is_some_and(|v| v >= CLAUDE_SESSION_COST_SINCE) {
                out.push(AgentEvent::RunningTotals(RunningTotals {
                    tokens: false,
                    cost: true,
                }));
            }
        }
    }

    fn event(&mut self, line: Line<'_>, out: &mut Vec<AgentEvent>) {
        // Sub-agents (the Task tool) report through the same stream; their words are
        // not this member's answer.
        if line.sub_agent() {
            return;
        }
        match line {
            Line::System(line) if line.subtype.is("api_retry") => self.retry(&line, out),
            Line::Stream(line) => {
                if let Some(event) = line.event.into_inner() {
                    self.stream_event(event, out);
                }
            }
            Line::Assistant(line) => self.assistant(*line, out),
            Line::User(line) => self.tool_results(&line, out),
            Line::Result(line) => {
                // A run whose answer came in neither deltas nor blocks still has it here.
                let success = line.is_error.0 == Some(false);
                if success && !self.paragraphs.wrote() {
                    out.extend(self.paragraphs.text(line.result.get().unwrap_or("")));
                }
                let (denials, allow) =
                    claude_denials(line.permission_denials.0.iter().filter_map(Obj::get));
                if !denials.is_empty() {
                    out.push(AgentEvent::Denied { denials, allow });
                }
                // Nothing billed (a login error, a replayed answer) is not worth a word.
                if let Some(cost) = line.total_cost_usd.0.filter(|c| *c > 0.0) {
                    out.push(AgentEvent::Cost(crate::agents::cost_words(cost, "USD")));
                }
                out.push(self.result(&line));
            }
            Line::System(_) | Line::Other(_) => {}
        }
    }

    fn stream_event(&mut self, event: StreamEvent<'_>, out: &mut Vec<AgentEvent>) {
        match event.kind {
            Kind::MessageStart => {
                if let Some(id) = event.message.get().and_then(|m| m.id.get())
                    && !self.streamed.contains(id)
                {
                    self.streamed.insert(id.to_owned());
                }
            }
            Kind::ContentBlockStart => {
                if let Some(block) = event.content_block.into_inner()
                    && block.kind == Kind::Text
                {
                    self.paragraphs.block_ends();
                    out.extend(self.paragraphs.push(block.text.0.unwrap_or_default()));
                }
            }
            Kind::ContentBlockDelta => {
                if let Some(delta) = event.delta.into_inner()
                    && delta.kind == Kind::TextDelta
                {
                    self.any_delta = true;
                    out.extend(self.paragraphs.push(delta.text.0.unwrap_or_default()));
                }
            }
            _ => {}
        }
    }

    fn assistant(&mut self, line: MessageLine<'_>, out: &mut Vec<AgentEvent>) {
        let is_error = line.error.is_set();
        if matches!(&line.error, ErrorValue::Text(kind) if kind == "authentication_failed") {
            self.auth_error = true;
        }
        let Some(message) = line.message.into_inner() else {
            return;
        };
        let streamed = match message.id.get() {
            Some(id) => self.streamed.contains(id),
            None => self.any_delta,
        };
        for block in message.content.0.into_iter().filter_map(Obj::into_inner) {
            match block.kind.get() {
                Some("text") => {
                    let text = block.text.0.unwrap_or_default();
                    if is_error {
                        self.error_text = Some(sanitize(&text));
                    } else if !streamed {
                        self.paragraphs.block_ends();
                        out.extend(self.paragraphs.push(text));
                    }
                }
                Some("tool_use") => {
                    let summary = tool_summary(
                        block.name.get().unwrap_or("tool"),
                        block.input.get().map(|input| input as &dyn ToolArguments),
                    );
                    out.push(self.tools.started(block.id.get(), summary));
                }
                _ => {}
            }
        }
    }

    fn tool_results(&mut self, line: &MessageLine<'_>, out: &mut Vec<AgentEvent>) {
        let Some(message) = line.message.get() else {
            return;
        };
        for block in message.content.0.iter().filter_map(Obj::get) {
            if !block.kind.is("tool_result") {
                continue;
            }
            // A refused call (no approval in `-p`, a path outside the workdir) is an
            // error result too; its text says why.
            let failed = block.is_error.0 == Some(true);
            let detail = failed
                .then(|| block.content.0.as_deref().and_then(error_line))
                .flatten();
            out.push(self.tools.ended(block.tool_use_id.get(), failed, detail));
        }
    }

    fn result(&mut self, line: &ResultLine<'_>) -> AgentEvent {
        self.turn.finished = true;
        if line.is_error.0 == Some(false) {
            let usage = line.usage.is_present().then(|| {
                let counts = line.usage.get();
                let count =
                    |field: fn(&TokenCounts) -> U64| counts.map_or(0, |c| field(c).or_zero());
                Usage {
                    // Anthropic counts cached prompt tokens apart; the model read them all.
                    input_tokens: count(|c| c.input_tokens)
                        + count(|c| c.cache_creation_input_tokens)
                        + count(|c| c.cache_read_input_tokens),
                    output_tokens: count(|c| c.output_tokens),
                }
            });
            return AgentEvent::Done {
                stop_reason: line.stop_reason.get().map(str::to_owned),
                usage,
            };
        }
        let own = line
            .result
            .get()
            .map(sanitize)
            .filter(|text| !text.trim().is_empty())
            .or_else(|| self.error_text.clone())
            .or_else(|| self.turn.stray.clone());
        let message = own
            .map(|text| self.with_login_hint(text.trim()))
            .unwrap_or_else(|| match line.subtype.get() {
                Some("error_max_turns") => {
                    format!("{} reached its turn limit (--max-turns)", self.turn.agent)
                }
                Some("error_max_budget_usd") => {
                    format!("{} reached its budget (--max-budget-usd)", self.turn.agent)
                }
                Some(subtype) => {
                    format!("{} ended with an error ({subtype})", self.turn.agent)
                }
                None => format!("{} ended with an error", self.turn.agent),
            });
        AgentEvent::Failed { message }
    }

    /// An `api_retry` notice: a [`Retry`], or the end of the turn when the key or
    /// login was refused (claude retries a 401 ten times over minutes).
    fn retry(&mut self, line: &SystemLine<'_>, out: &mut Vec<AgentEvent>) {
        let error = match &line.error {
            ErrorValue::Text(text) => Some(sanitize(text)),
            ErrorValue::Object(body) => body.message.get().map(sanitize),
            ErrorValue::Absent | ErrorValue::Null | ErrorValue::Other => None,
        };
        let status = line.error_status.0;
        let reason = [status.map(|s| s.to_string()), error]
            .into_iter()
            .flatten()
            .collect::<Vec<_>>()
            .join(" ");
        if status.is_some_and(auth::is_auth_status) || auth::is_auth_failure(&reason) {
            self.turn.finished = true;
            out.push(auth::failed(
                &format!("API error {reason}"),
                AgentKind::Claude,
            ));
            return;
        }
        out.push(AgentEvent::Retry(Retry {
            attempt: line.attempt.0,
            max: line.max_retries.0,
            reason,
        }));
    }

    /// A failure message, with how to log in when it is about the login.
    fn with_login_hint(&self, message: &str) -> String {
        if self.auth_error || auth::is_auth_failure(message) {
            auth::with_hint(message, AgentKind::Claude)
        } else {
            message.to_owned()
        }
    }
}

impl OutputParser for ClaudeParser {
    fn line(&mut self, line: &str, out: &mut Vec<AgentEvent>) {
        out.extend(resume::claude_not_found(line));
        if let Some(parsed) = self.turn.read::<Line>(line, out) {
            if !self.started && !matches!(parsed, Line::Result(_)) {
                self.start(line, out);
            }
            self.event(parsed, out);
        }
    }

    fn finish(&mut self, exit: &ExitInfo, out: &mut Vec<AgentEvent>) {
        if self.turn.exited() {
            let failure = self.turn.failure(self.error_text.as_deref(), &[], exit);
            out.push(match failure {
                AgentEvent::Failed { message } => AgentEvent::Failed {
                    message: self.with_login_hint(&message),
                },
                other => other,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn a_new_and_a_resumed_session_name_the_same_model() {
        let started = |model: &str| {
            let init = format!(
                r#"{{"type":"system","subtype":"init","session_id":"s1","model":"{model}","claude_code_version":"2.1.332"}}"#
            );
            let mut out = Vec::new();
            ClaudeParser::new("claude").line(&init, &mut out);
            out.into_iter().find_map(|event| match event {
                AgentEvent::Started { model, .. } => model,
                _ => None,
            })
        };
        assert_eq!(
            started("claude-opus-4-8[1m]").as_deref(),
            Some("claude-opus-4-8")
        );
        assert_eq!(
            started("claude-opus-4-8").as_deref(),
            Some("claude-opus-4-8")
        );
        assert_eq!(model_name("[1m]"), "[1m]");
        assert_eq!(model_name("odd[name"), "odd[name");
    }
}
