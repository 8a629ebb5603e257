//! Claude Code: `claude -p <prompt> --output-format stream-json --verbose
//! --include-partial-messages`, and its stream-json lines turned into events.
//!
//! - The role goes through `--append-system-prompt`, every turn (it is a flag of the
//!   run, not part of the saved session). A system text too large for one argument is
//!   put inline on top of the prompt instead, which then goes on stdin.
//! - The prompt follows `-p` directly, where no option of the member's `args` (some take
//!   several values, like `--allowedTools`) can swallow it; large prompts go on stdin.
//! - Success is `result.is_error == false`; `subtype: "success"` also comes with errors.
//! - Text comes from the `text_delta` stream events. The whole `assistant` blocks repeat
//!   it, so their text is used only for messages that were not streamed, and
//!   `result.result` only when no text came at all; an `assistant` line with `error`
//!   (not logged in, API errors) is an error message, not an answer.
//! - Lines with a `parent_tool_use_id` come from sub-agents and are left out.

use std::collections::{HashMap, HashSet};

use serde_json::Value;

use super::output::{
    Ending, Paragraphs, failure, json_line, sanitize, str_at, tool_summary, u64_at,
};
use super::plan::{ARGUMENT_LIMIT, base, extra_args, fits_argument, inline, resume_session};
use super::registry::AgentEntry;
use super::{AgentEvent, ExitInfo, Invocation, OutputParser, Stdin, ToolStatus, Usage};
use crate::team::Member;

/// The flags the parser depends on.
pub const PROTOCOL_ARGS: [&str; 4] = [
    "--output-format",
    "stream-json",
    "--verbose",
    "--include-partial-messages",
];

/// The command line of one claude turn.
pub fn plan(
    entry: &AgentEntry,
    member: &Member,
    system: &str,
    body: &str,
    resume: Option<&str>,
) -> Invocation {
    let resume = resume_session(member, resume);
    let mut invocation = base(entry, member, true);
    let (system_flag, prompt) = if system.len() <= ARGUMENT_LIMIT {
        (Some(system).filter(|s| !s.is_empty()), body.to_owned())
    } else {
        (None, inline(system, body))
    };
    invocation.args.push("-p".to_owned());
    if fits_argument(&prompt) {
        invocation.args.push(prompt);
    } else {
        invocation.stdin = Stdin::Prompt(prompt);
    }
    invocation.args.extend(PROTOCOL_ARGS.map(String::from));
    if let Some(session) = resume {
        invocation
            .args
            .extend(["--resume".to_owned(), session.to_owned()]);
    }
    if let Some(system) = system_flag {
        invocation
            .args
            .extend(["--append-system-prompt".to_owned(), system.to_owned()]);
    }
    extra_args(&mut invocation, entry, member);
    invocation
}

/// Reads claude's stream-json output.
#[derive(Debug)]
pub struct ClaudeParser {
    agent: String,
    started: bool,
    finished: bool,
    /// Ids of messages whose text arrived as deltas (their `assistant` copies are skipped).
    streamed: HashSet<String>,
    any_delta: bool,
    paragraphs: Paragraphs,
    /// Tool call id → summary, to name the result when it comes back.
    tools: HashMap<String, String>,
    /// The text of an `assistant` line flagged as an error.
    error_text: Option<String>,
    stray: Option<String>,
}

impl ClaudeParser {
    /// A parser whose messages name the agent `agent` (the registry entry's name).
    pub fn new(agent: &str) -> ClaudeParser {
        ClaudeParser {
            agent: agent.to_owned(),
            started: false,
            finished: false,
            streamed: HashSet::new(),
            any_delta: false,
            paragraphs: Paragraphs::default(),
            tools: HashMap::new(),
            error_text: None,
            stray: None,
        }
    }

    fn event(&mut self, value: &Value, out: &mut Vec<AgentEvent>) {
        // A run that fails before it starts (unknown resume id) reports only a `result`,
        // whose session is not one to keep.
        let result = str_at(value, "/type") == Some("result");
        if !self.started
            && !result
            && let Some(session) = str_at(value, "/session_id")
        {
            self.started = true;
            let init = value.get("subtype").and_then(Value::as_str) == Some("init");
            out.push(AgentEvent::Started {
                session: Some(session.to_owned()),
                model: str_at(value, "/model").filter(|_| init).map(str::to_owned),
            });
        }
        // Sub-agents (the Task tool) report through the same stream; their words are
        // not this member's answer.
        if value
            .get("parent_tool_use_id")
            .is_some_and(|p| !p.is_null())
        {
            return;
        }
        match value.get("type").and_then(Value::as_str) {
            Some("system") if str_at(value, "/subtype") == Some("api_retry") => {
                out.push(AgentEvent::Notice(self.retry_notice(value)));
            }
            Some("stream_event") => self.stream_event(value, out),
            Some("assistant") => self.assistant(value, out),
            Some("user") => self.tool_results(value, out),
            Some("result") => {
                // A run whose answer came in neither deltas nor blocks still has it here.
                let success = value.get("is_error").and_then(Value::as_bool) == Some(false);
                if success && !self.paragraphs.wrote() {
                    out.extend(self.paragraphs.text(str_at(value, "/result").unwrap_or("")));
                }
                out.push(self.result(value));
            }
            _ => {}
        }
    }

    fn stream_event(&mut self, value: &Value, out: &mut Vec<AgentEvent>) {
        let Some(event) = value.get("event") else {
            return;
        };
        match str_at(event, "/type") {
            Some("message_start") => {
                if let Some(id) = str_at(event, "/message/id") {
                    self.streamed.insert(id.to_owned());
                }
            }
            Some("content_block_start") if str_at(event, "/content_block/type") == Some("text") => {
                self.paragraphs.block_ends();
                let text = str_at(event, "/content_block/text").unwrap_or("");
                out.extend(self.paragraphs.text(text));
            }
            Some("content_block_delta") if str_at(event, "/delta/type") == Some("text_delta") => {
                self.any_delta = true;
                let text = str_at(event, "/delta/text").unwrap_or("");
                out.extend(self.paragraphs.text(text));
            }
            _ => {}
        }
    }

    fn assistant(&mut self, value: &Value, out: &mut Vec<AgentEvent>) {
        let is_error = value.get("error").is_some_and(|e| !e.is_null());
        let streamed = match str_at(value, "/message/id") {
            Some(id) => self.streamed.contains(id),
            None => self.any_delta,
        };
        let blocks = value.pointer("/message/content").and_then(Value::as_array);
        for block in blocks.into_iter().flatten() {
            match str_at(block, "/type") {
                Some("text") => {
                    let text = str_at(block, "/text").unwrap_or("");
                    if is_error {
                        self.error_text = Some(sanitize(text));
                    } else if !streamed {
                        self.paragraphs.block_ends();
                        out.extend(self.paragraphs.text(text));
                    }
                }
                Some("tool_use") => {
                    let summary =
                        tool_summary(str_at(block, "/name").unwrap_or("tool"), block.get("input"));
                    if let Some(id) = str_at(block, "/id") {
                        self.tools.insert(id.to_owned(), summary.clone());
                    }
                    out.push(AgentEvent::Tool {
                        summary,
                        status: ToolStatus::Started,
                    });
                }
                _ => {}
            }
        }
    }

    fn tool_results(&mut self, value: &Value, out: &mut Vec<AgentEvent>) {
        let blocks = value.pointer("/message/content").and_then(Value::as_array);
        for block in blocks.into_iter().flatten() {
            if str_at(block, "/type") != Some("tool_result") {
                continue;
            }
            let summary = str_at(block, "/tool_use_id")
                .and_then(|id| self.tools.get(id).cloned())
                .unwrap_or_else(|| "tool".to_owned());
            let failed = block.get("is_error").and_then(Value::as_bool) == Some(true);
            out.push(AgentEvent::Tool {
                summary,
                status: if failed {
                    ToolStatus::Failed
                } else {
                    ToolStatus::Completed
                },
            });
        }
    }

    fn result(&mut self, value: &Value) -> AgentEvent {
        self.finished = true;
        if value.get("is_error").and_then(Value::as_bool) == Some(false) {
            let usage = value.get("usage").map(|usage| Usage {
                // Anthropic counts cached prompt tokens apart; the model read them all.
                input_tokens: u64_at(usage, "/input_tokens")
                    + u64_at(usage, "/cache_creation_input_tokens")
                    + u64_at(usage, "/cache_read_input_tokens"),
                output_tokens: u64_at(usage, "/output_tokens"),
            });
            return AgentEvent::Done {
                stop_reason: str_at(value, "/stop_reason").map(str::to_owned),
                usage,
            };
        }
        let own = str_at(value, "/result")
            .map(sanitize)
            .filter(|text| !text.trim().is_empty())
            .or_else(|| self.error_text.clone())
            .or_else(|| self.stray.clone());
        let message = own.map(|text| text.trim().to_owned()).unwrap_or_else(|| {
            match str_at(value, "/subtype") {
                Some("error_max_turns") => {
                    format!("{} reached its turn limit (--max-turns)", self.agent)
                }
                Some("error_max_budget_usd") => {
                    format!("{} reached its budget (--max-budget-usd)", self.agent)
                }
                Some(subtype) => format!("{} ended with an error ({subtype})", self.agent),
                None => format!("{} ended with an error", self.agent),
            }
        });
        AgentEvent::Failed { message }
    }

    fn retry_notice(&self, value: &Value) -> String {
        let status = value
            .get("error_status")
            .and_then(Value::as_u64)
            .map(|s| format!(" {s}"))
            .unwrap_or_default();
        let error = match value.get("error") {
            Some(Value::String(text)) => format!(": {}", sanitize(text)),
            Some(error) => str_at(error, "/message")
                .map(|text| format!(": {}", sanitize(text)))
                .unwrap_or_default(),
            None => String::new(),
        };
        format!(
            "{} is retrying after API error{status}{error} (attempt {} of {}, next in {} ms)",
            self.agent,
            u64_at(value, "/attempt"),
            u64_at(value, "/max_retries"),
            u64_at(value, "/retry_delay_ms"),
        )
    }
}

impl OutputParser for ClaudeParser {
    fn line(&mut self, line: &str) -> Vec<AgentEvent> {
        let mut out = Vec::new();
        match json_line(&self.agent, line) {
            Ok(Some(value)) if !self.finished => self.event(&value, &mut out),
            Ok(_) => {}
            Err(notice) => {
                // Some errors come as plain stdout text ("No conversation found ...").
                self.stray = Some(sanitize(line.trim()));
                out.push(notice);
            }
        }
        out
    }

    fn finish(&mut self, exit: &ExitInfo) -> Vec<AgentEvent> {
        if self.finished {
            return Vec::new();
        }
        self.finished = true;
        let ending = Ending {
            agent: &self.agent,
            own: self.error_text.as_deref(),
            stray: self.stray.as_deref(),
            noise: &[],
        };
        vec![failure(&ending, exit)]
    }
}
