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

use serde::de::IgnoredAny;
use serde::{Deserialize, Deserializer};

use super::json::{ErrorBody, Events, I64, List, NonNull, Obj, Str, TokenCounts};
use super::output::{Paragraphs, push_quote, readable_error, sanitized};
use super::plan::{self, ARGUMENT_LIMIT, base, extra_args, inline, resume_session};
use super::reader::Turn;
use super::registry::AgentEntry;
use super::{AgentEvent, ExitInfo, Invocation, OutputParser, ToolStatus, Usage};
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
    if resume.is_some() {
        // `exec resume` refuses `--sandbox` and `-C`: rewritten into what it takes.
        let (args, cwd) = super::resume::codex_resume_args(&invocation.args);
        invocation.args = args;
        if let Some(cwd) = cwd {
            invocation.cwd = invocation.cwd.join(cwd);
        }
    }
    plan::prompt(&mut invocation, prompt, Some("-"));
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

/// One `--json` event, read by its `type` into a struct with the members that kind of
/// event has (serde skips the others without building them). Each struct has the `type`
/// member, read and dropped, so that a line that repeats it is caught.
#[derive(Debug)]
enum Line<'a> {
    ThreadStarted(ThreadStarted<'a>),
    ItemStarted(ItemLine<'a>),
    ItemCompleted(ItemLine<'a>),
    Error(ErrorLine<'a>),
    TurnCompleted(TurnCompleted),
    TurnFailed(TurnFailed<'a>),
    Other(OtherLine),
}

impl<'a> Events<'a> for Line<'a> {
    fn read<D: Deserializer<'a>>(tag: Option<&str>, d: D) -> Result<Self, D::Error> {
        Ok(match tag {
            Some("item.completed") => Line::ItemCompleted(ItemLine::deserialize(d)?),
            Some("item.started") => Line::ItemStarted(ItemLine::deserialize(d)?),
            Some("thread.started") => Line::ThreadStarted(ThreadStarted::deserialize(d)?),
            Some("error") => Line::Error(ErrorLine::deserialize(d)?),
            Some("turn.completed") => Line::TurnCompleted(TurnCompleted::deserialize(d)?),
            Some("turn.failed") => Line::TurnFailed(TurnFailed::deserialize(d)?),
            _ => Line::Other(OtherLine::deserialize(d)?),
        })
    }
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct ThreadStarted<'a> {
    #[serde(rename = "type")]
    _type: IgnoredAny,
    #[serde(borrow)]
    thread_id: Str<'a>,
}

/// `item.started`, `item.completed`
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct ItemLine<'a> {
    #[serde(rename = "type")]
    _type: IgnoredAny,
    /// Boxed: it is the largest part of any event, and a small `Line` is cheap to move.
    #[serde(borrow)]
    item: Obj<Box<Item<'a>>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct ErrorLine<'a> {
    #[serde(rename = "type")]
    _type: IgnoredAny,
    #[serde(borrow)]
    message: Str<'a>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct TurnCompleted {
    #[serde(rename = "type")]
    _type: IgnoredAny,
    usage: Obj<TokenCounts>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct TurnFailed<'a> {
    #[serde(rename = "type")]
    _type: IgnoredAny,
    #[serde(borrow)]
    error: Obj<ErrorBody<'a>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct OtherLine {
    #[serde(rename = "type")]
    _type: IgnoredAny,
}

/// A thread item: an agent message, an error, or a tool call of some kind.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Item<'a> {
    #[serde(borrow)]
    id: Str<'a>,
    #[serde(rename = "type", borrow)]
    kind: Str<'a>,
    /// `agent_message`
    #[serde(borrow)]
    text: Str<'a>,
    /// `error`
    #[serde(borrow)]
    message: Str<'a>,
    /// `command_execution`
    #[serde(borrow)]
    command: Str<'a>,
    exit_code: I64,
    /// `file_change`
    #[serde(borrow)]
    changes: List<Obj<Change<'a>>>,
    /// `mcp_tool_call`
    #[serde(borrow)]
    server: Str<'a>,
    #[serde(borrow)]
    tool: Str<'a>,
    error: NonNull,
    /// `web_search`
    #[serde(borrow)]
    query: Str<'a>,
    #[serde(borrow)]
    status: Str<'a>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Change<'a> {
    #[serde(borrow)]
    path: Str<'a>,
}

/// Reads codex's `--json` events.
#[derive(Debug)]
pub struct CodexParser {
    turn: Turn,
    paragraphs: Paragraphs,
    /// Item id → summary, to name a tool when its item completes.
    tools: HashMap<String, String>,
    last_error: Option<String>,
}

impl CodexParser {
    /// A parser whose messages name the agent `agent` (the registry entry's name).
    pub fn new(agent: &str) -> CodexParser {
        CodexParser {
            turn: Turn::new(agent),
            paragraphs: Paragraphs::default(),
            tools: HashMap::new(),
            last_error: None,
        }
    }

    fn event(&mut self, line: Line<'_>, out: &mut Vec<AgentEvent>) {
        match line {
            Line::ThreadStarted(line) => out.push(AgentEvent::Started {
                session: line.thread_id.get().map(str::to_owned),
                model: None,
            }),
            Line::ItemStarted(line) => {
                if let Some(item) = line.item.get()
                    && let Some(summary) = self.tool_summary(item)
                {
                    out.push(AgentEvent::Tool {
                        summary,
                        status: ToolStatus::Started,
                    });
                }
            }
            Line::ItemCompleted(line) => {
                if let Some(item) = line.item.into_inner() {
                    self.item_completed(*item, out);
                }
            }
            Line::Error(line) => {
                let message = readable_error(line.message.get().unwrap_or(""));
                out.push(AgentEvent::Notice(format!(
                    "{}: {message}",
                    self.turn.agent
                )));
                self.last_error = Some(message);
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
                let message = line
                    .error
                    .get()
                    .and_then(|error| error.message.get())
                    .map(readable_error)
                    .filter(|m| !m.is_empty())
                    .or_else(|| self.last_error.clone())
                    .unwrap_or_else(|| format!("{} reported a failed turn", self.turn.agent));
                out.push(AgentEvent::Failed { message });
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
                out.push(AgentEvent::Notice(format!(
                    "{}: {message}",
                    self.turn.agent
                )));
                self.last_error = Some(message);
            }
            _ => {
                let known = item.id.get().and_then(|id| self.tools.get(id).cloned());
                if let Some(summary) = known.or_else(|| self.tool_summary(&item)) {
                    out.push(AgentEvent::Tool {
                        summary,
                        status: tool_status(&item),
                    });
                }
            }
        }
    }

    /// The summary of a tool item, remembered under its id; `None` for other items.
    fn tool_summary(&mut self, item: &Item<'_>) -> Option<String> {
        let mut summary = String::new();
        match item.kind.get()? {
            "command_execution" => {
                let command = shell_command(item.command.get().unwrap_or(""));
                summary.push_str("Shell: ");
                push_quote(
                    &mut summary,
                    &sanitized(command.lines().next().unwrap_or("")),
                );
            }
            "file_change" => {
                let paths: Vec<&str> = item
                    .changes
                    .0
                    .iter()
                    .filter_map(|change| change.get()?.path.get())
                    .collect();
                summary.push_str("Edit: ");
                push_quote(&mut summary, &sanitized(&paths.join(", ")));
            }
            "mcp_tool_call" => {
                let _ = write!(
                    summary,
                    "MCP {}/{}",
                    sanitized(item.server.get().unwrap_or("?")),
                    sanitized(item.tool.get().unwrap_or("?"))
                );
            }
            "web_search" => {
                summary.push_str("Search: ");
                push_quote(&mut summary, &sanitized(item.query.get().unwrap_or("")));
            }
            _ => return None,
        }
        if let Some(id) = item.id.get() {
            match self.tools.get_mut(id) {
                Some(known) => known.clone_from(&summary),
                None => {
                    self.tools.insert(id.to_owned(), summary.clone());
                }
            }
        }
        Some(summary)
    }
}

/// How a completed tool item went: its status, and for commands the exit code too.
fn tool_status(item: &Item<'_>) -> ToolStatus {
    let failed_status = matches!(item.status.get(), Some("failed" | "declined"));
    let failed_exit = item.exit_code.0.is_some_and(|c| c != 0);
    let mcp_error = item.error.0;
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
    fn line(&mut self, line: &str, out: &mut Vec<AgentEvent>) {
        if let Some(parsed) = self.turn.read::<Line>(line, out) {
            self.event(parsed, out);
        }
    }

    fn finish(&mut self, exit: &ExitInfo, out: &mut Vec<AgentEvent>) {
        if self.turn.exited() {
            out.extend(super::resume::codex_not_found(exit));
            let own = self.last_error.as_deref();
            out.push(self.turn.failure(own, &STDERR_NOISE, exit));
        }
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
