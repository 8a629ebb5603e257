//! Codex: `codex exec --json --skip-git-repo-check [-c developer_instructions=...] <prompt>`
//! (or `exec resume <ID> ...`), and its `--json` events turned into events.
//!
//! - The role goes in `-c developer_instructions="<TOML string>"` on the first turn. On
//!   resume it is left out: the thread keeps it, and codex ignores it there anyway.
//! - The prompt is the last argument with stdin on `/dev/null` (piped stdin would be
//!   appended to it), or `-` with the prompt on stdin when it is large.
//! - The turn ends with `turn.completed` or `turn.failed`; an `error` event alone is a
//!   notice (codex also reports reconnects that way). The answer is the `agent_message`
//!   items, which arrive whole.

use std::collections::HashMap;
use std::fmt::Write as _;

use serde_json::Value;

use super::output::{
    Ending, Paragraphs, failure, json_line, quote, readable_error, sanitize, str_at, u64_at,
};
use super::plan::{ARGUMENT_LIMIT, base, extra_args, fits_argument, inline, resume_session};
use super::registry::AgentEntry;
use super::{AgentEvent, ExitInfo, Invocation, OutputParser, Stdin, ToolStatus, Usage};
use crate::team::Member;

/// Printed on stderr whenever stdin is not a terminal; never the reason for a failure.
const STDERR_NOISE: [&str; 1] = ["Reading additional input from stdin"];

/// The command line of one codex turn.
pub fn plan(
    entry: &AgentEntry,
    member: &Member,
    system: &str,
    body: &str,
    resume: Option<&str>,
) -> Invocation {
    let resume = resume_session(member, resume);
    let mut invocation = base(entry, member, true);
    invocation.args.push("exec".to_owned());
    if let Some(session) = resume {
        invocation
            .args
            .extend(["resume".to_owned(), session.to_owned()]);
    }
    invocation
        .args
        .extend(["--json", "--skip-git-repo-check"].map(String::from));
    let mut prompt = body.to_owned();
    if resume.is_none() && !system.is_empty() {
        let setting = format!("developer_instructions={}", toml_string(system));
        if setting.len() <= ARGUMENT_LIMIT {
            invocation.args.extend(["-c".to_owned(), setting]);
        } else {
            prompt = inline(system, body);
        }
    }
    extra_args(&mut invocation, entry, member);
    if fits_argument(&prompt) {
        invocation.args.push(prompt);
    } else {
        invocation.args.push("-".to_owned());
        invocation.stdin = Stdin::Prompt(prompt);
    }
    invocation
}

/// `text` as a TOML basic string, which is how `-c key=value` reads its value (an
/// unquoted value that is not valid TOML would be taken raw, but multi-line text or
/// quotes must not depend on that fallback).
pub fn toml_string(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if c.is_control() => {
                let _ = write!(out, "\\u{:04X}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Reads codex's `--json` events.
#[derive(Debug)]
pub struct CodexParser {
    agent: String,
    finished: bool,
    paragraphs: Paragraphs,
    /// Item id → summary, to name a tool when its item completes.
    tools: HashMap<String, String>,
    last_error: Option<String>,
    stray: Option<String>,
}

impl CodexParser {
    /// A parser whose messages name the agent `agent` (the registry entry's name).
    pub fn new(agent: &str) -> CodexParser {
        CodexParser {
            agent: agent.to_owned(),
            finished: false,
            paragraphs: Paragraphs::default(),
            tools: HashMap::new(),
            last_error: None,
            stray: None,
        }
    }

    fn event(&mut self, value: &Value, out: &mut Vec<AgentEvent>) {
        match str_at(value, "/type") {
            Some("thread.started") => out.push(AgentEvent::Started {
                session: str_at(value, "/thread_id").map(str::to_owned),
                model: None,
            }),
            Some("item.started") => {
                if let Some(item) = value.get("item")
                    && let Some(summary) = self.tool_summary(item)
                {
                    out.push(AgentEvent::Tool {
                        summary,
                        status: ToolStatus::Started,
                    });
                }
            }
            Some("item.completed") => {
                if let Some(item) = value.get("item") {
                    self.item_completed(item, out);
                }
            }
            Some("error") => {
                let message = readable_error(str_at(value, "/message").unwrap_or(""));
                out.push(AgentEvent::Notice(format!("{}: {message}", self.agent)));
                self.last_error = Some(message);
            }
            Some("turn.completed") => {
                self.finished = true;
                let usage = value.get("usage").map(|usage| Usage {
                    input_tokens: u64_at(usage, "/input_tokens"),
                    output_tokens: u64_at(usage, "/output_tokens"),
                });
                out.push(AgentEvent::Done {
                    stop_reason: None,
                    usage,
                });
            }
            Some("turn.failed") => {
                self.finished = true;
                let message = str_at(value, "/error/message")
                    .map(readable_error)
                    .filter(|m| !m.is_empty())
                    .or_else(|| self.last_error.clone())
                    .unwrap_or_else(|| format!("{} reported a failed turn", self.agent));
                out.push(AgentEvent::Failed { message });
            }
            _ => {}
        }
    }

    fn item_completed(&mut self, item: &Value, out: &mut Vec<AgentEvent>) {
        match str_at(item, "/type") {
            Some("agent_message") => {
                self.paragraphs.block_ends();
                out.extend(self.paragraphs.text(str_at(item, "/text").unwrap_or("")));
            }
            Some("error") => {
                let message = readable_error(str_at(item, "/message").unwrap_or(""));
                out.push(AgentEvent::Notice(format!("{}: {message}", self.agent)));
                self.last_error = Some(message);
            }
            _ => {
                let known = str_at(item, "/id").and_then(|id| self.tools.get(id).cloned());
                if let Some(summary) = known.or_else(|| self.tool_summary(item)) {
                    out.push(AgentEvent::Tool {
                        summary,
                        status: tool_status(item),
                    });
                }
            }
        }
    }

    /// The summary of a tool item, remembered under its id; `None` for other items.
    fn tool_summary(&mut self, item: &Value) -> Option<String> {
        let summary = match str_at(item, "/type")? {
            "command_execution" => {
                let command = shell_command(str_at(item, "/command").unwrap_or(""));
                format!(
                    "Shell: {}",
                    quote(&sanitize(command.lines().next().unwrap_or("")))
                )
            }
            "file_change" => {
                let changes = item.get("changes").and_then(Value::as_array);
                let paths: Vec<&str> = changes
                    .into_iter()
                    .flatten()
                    .filter_map(|c| str_at(c, "/path"))
                    .collect();
                format!("Edit: {}", quote(&sanitize(&paths.join(", "))))
            }
            "mcp_tool_call" => format!(
                "MCP {}/{}",
                sanitize(str_at(item, "/server").unwrap_or("?")),
                sanitize(str_at(item, "/tool").unwrap_or("?"))
            ),
            "web_search" => format!(
                "Search: {}",
                quote(&sanitize(str_at(item, "/query").unwrap_or("")))
            ),
            _ => return None,
        };
        if let Some(id) = str_at(item, "/id") {
            self.tools.insert(id.to_owned(), summary.clone());
        }
        Some(summary)
    }
}

/// How a completed tool item went: its status, and for commands the exit code too.
fn tool_status(item: &Value) -> ToolStatus {
    let failed_status = matches!(str_at(item, "/status"), Some("failed" | "declined"));
    let failed_exit = item
        .get("exit_code")
        .and_then(Value::as_i64)
        .is_some_and(|c| c != 0);
    let mcp_error = item.get("error").is_some_and(|e| !e.is_null());
    if failed_status || failed_exit || mcp_error {
        ToolStatus::Failed
    } else {
        ToolStatus::Completed
    }
}

/// The command inside codex's shell wrapper (`/bin/bash -lc 'echo hi'` → `echo hi`).
fn shell_command(command: &str) -> &str {
    const WRAPPERS: [&str; 6] = [
        "/bin/bash -lc ",
        "bash -lc ",
        "/bin/zsh -lc ",
        "zsh -lc ",
        "/bin/sh -c ",
        "sh -c ",
    ];
    let Some(inner) = WRAPPERS.iter().find_map(|w| command.strip_prefix(w)) else {
        return command;
    };
    match inner.strip_prefix('\'').and_then(|i| i.strip_suffix('\'')) {
        Some(unquoted) if !unquoted.contains('\'') => unquoted,
        _ => inner,
    }
}

impl OutputParser for CodexParser {
    fn line(&mut self, line: &str) -> Vec<AgentEvent> {
        let mut out = Vec::new();
        match json_line(&self.agent, line) {
            Ok(Some(value)) if !self.finished => self.event(&value, &mut out),
            Ok(_) => {}
            Err(notice) => {
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
            own: self.last_error.as_deref(),
            stray: self.stray.as_deref(),
            noise: &STDERR_NOISE,
        };
        vec![failure(&ending, exit)]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn toml_strings_read_back_as_the_same_text() {
        let texts = [
            "plain",
            "two\nlines\r\n\ttabbed",
            "quotes \" and \\ backslashes \\\" and ''' triple",
            "controls \u{0}\u{1b}[0m\u{7f}\u{85} and unicode é 世界 🦀",
            "",
        ];
        for text in texts {
            let document = format!("developer_instructions = {}", toml_string(text));
            let table: toml::Table = toml::from_str(&document).expect(&document);
            assert_eq!(table["developer_instructions"].as_str(), Some(text));
        }
    }

    #[test]
    fn shell_wrappers_are_unwrapped() {
        assert_eq!(
            shell_command("/bin/bash -lc 'echo hello-from-tool'"),
            "echo hello-from-tool"
        );
        assert_eq!(shell_command("bash -lc \"a 'b'\""), "\"a 'b'\"");
        assert_eq!(shell_command("/bin/bash -lc 'it'\\''s'"), "'it'\\''s'");
        assert_eq!(shell_command("ls -la"), "ls -la");
    }
}
