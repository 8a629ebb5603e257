//! Gemini CLI: `gemini -p <prompt> --output-format stream-json --skip-trust`, and its
//! stream-json lines turned into events.
//!
//! - No system-prompt flag: the role is inline (`[SYSTEM]\n...`) at the top of the
//!   prompt. On resume it is left out: the session already holds the first prompt.
//! - A large prompt goes on stdin with `-p ""`: gemini reads stdin and appends the (empty)
//!   `-p` text. A small one is the `-p` value with stdin on `/dev/null`.
//! - The turn ends with `result` (`status` success or error). `error` events are
//!   non-fatal notices. Errors before the model loop (auth, bad input, config, trust)
//!   print no JSON at all, only stderr and an exit code, which become a message that
//!   says what to do.

use std::collections::HashMap;

use serde::de::IgnoredAny;
use serde::{Deserialize, Deserializer};

use super::json::{Bool, ErrorBody, Events, Obj, Str, TokenCounts, ToolInput};
use super::output::{Paragraphs, ToolArguments, readable_error, tool_summary};
use super::plan::{self, base, extra_args, flag, inline, resume_session};
use super::reader::{Turn, stderr_message};
use super::registry::AgentEntry;
use super::{AgentEvent, ExitInfo, Invocation, OutputParser, ToolStatus, Usage};
use crate::team::Member;

/// stderr lines gemini prints on ordinary runs.
const STDERR_NOISE: [&str; 3] = [
    "YOLO mode is enabled",
    "Warning: 256-color support not detected",
    "Approval mode overridden",
];

/// The command line of one gemini turn.
pub fn plan(
    entry: &AgentEntry,
    member: &Member,
    system: &str,
    body: &str,
    resume: Option<&str>,
) -> Invocation {
    let resume = resume_session(member, resume);
    let mut invocation = base(entry, member, true);
    let prompt = match resume {
        Some(_) => body.to_owned(),
        None => inline(system, body),
    };
    invocation.args.push("-p".to_owned());
    plan::prompt(&mut invocation, prompt, Some(""));
    invocation
        .args
        .extend(["--output-format", "stream-json", "--skip-trust"].map(String::from));
    flag(&mut invocation, "--resume", resume);
    extra_args(&mut invocation, entry, member);
    invocation
}

/// One stream-json line, read by its `type` into a struct with the members that kind of
/// line has (serde skips the others without building them). Each struct has the `type`
/// member, read and dropped, so that a line that repeats it is caught.
#[derive(Debug)]
enum Line<'a> {
    Message(MessageLine<'a>),
    // The others are boxed: they are rare, and a small `Line` is cheap to move.
    Init(Box<InitLine<'a>>),
    ToolUse(Box<ToolUseLine<'a>>),
    ToolResult(Box<ToolResultLine<'a>>),
    Error(Box<ErrorLine<'a>>),
    Result(Box<ResultLine<'a>>),
    Other(OtherLine),
}

impl<'a> Events<'a> for Line<'a> {
    fn read<D: Deserializer<'a>>(tag: Option<&str>, d: D) -> Result<Self, D::Error> {
        Ok(match tag {
            Some("message") => Line::Message(MessageLine::deserialize(d)?),
            Some("init") => Line::Init(Deserialize::deserialize(d)?),
            Some("tool_use") => Line::ToolUse(Deserialize::deserialize(d)?),
            Some("tool_result") => Line::ToolResult(Deserialize::deserialize(d)?),
            Some("error") => Line::Error(Deserialize::deserialize(d)?),
            Some("result") => Line::Result(Deserialize::deserialize(d)?),
            _ => Line::Other(OtherLine::deserialize(d)?),
        })
    }
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct InitLine<'a> {
    #[serde(rename = "type")]
    _type: IgnoredAny,
    #[serde(borrow)]
    session_id: Str<'a>,
    #[serde(borrow)]
    model: Str<'a>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct MessageLine<'a> {
    #[serde(rename = "type")]
    _type: IgnoredAny,
    #[serde(borrow)]
    role: Str<'a>,
    #[serde(borrow)]
    content: Str<'a>,
    delta: Bool,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct ToolUseLine<'a> {
    #[serde(rename = "type")]
    _type: IgnoredAny,
    #[serde(borrow)]
    tool_name: Str<'a>,
    #[serde(borrow)]
    tool_id: Str<'a>,
    #[serde(borrow)]
    parameters: Obj<ToolInput<'a>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct ToolResultLine<'a> {
    #[serde(rename = "type")]
    _type: IgnoredAny,
    #[serde(borrow)]
    tool_id: Str<'a>,
    #[serde(borrow)]
    status: Str<'a>,
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
struct ResultLine<'a> {
    #[serde(rename = "type")]
    _type: IgnoredAny,
    #[serde(borrow)]
    status: Str<'a>,
    #[serde(borrow)]
    error: Obj<ErrorBody<'a>>,
    stats: Obj<TokenCounts>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct OtherLine {
    #[serde(rename = "type")]
    _type: IgnoredAny,
}

/// Reads gemini's stream-json output.
#[derive(Debug)]
pub struct GeminiParser {
    turn: Turn,
    any_delta: bool,
    paragraphs: Paragraphs,
    /// Tool id → summary, to name the result when it comes back.
    tools: HashMap<String, String>,
    last_error: Option<String>,
}

impl GeminiParser {
    /// A parser whose messages name the agent `agent` (the registry entry's name).
    pub fn new(agent: &str) -> GeminiParser {
        GeminiParser {
            turn: Turn::new(agent),
            any_delta: false,
            paragraphs: Paragraphs::default(),
            tools: HashMap::new(),
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
                if let Some(id) = line.tool_id.get() {
                    self.tools.insert(id.to_owned(), summary.clone());
                }
                out.push(AgentEvent::Tool {
                    summary,
                    status: ToolStatus::Started,
                });
            }
            Line::ToolResult(line) => {
                self.paragraphs.block_ends();
                let summary = line
                    .tool_id
                    .get()
                    .and_then(|id| self.tools.get(id).cloned())
                    .unwrap_or_else(|| "tool".to_owned());
                let ok = line.status.is("success");
                out.push(AgentEvent::Tool {
                    summary,
                    status: if ok {
                        ToolStatus::Completed
                    } else {
                        ToolStatus::Failed
                    },
                });
            }
            Line::Error(line) => {
                let message = readable_error(line.message.get().unwrap_or(""));
                out.push(AgentEvent::Notice(format!(
                    "{}: {message}",
                    self.turn.agent
                )));
                self.last_error = Some(message);
            }
            Line::Result(line) => {
                self.turn.finished = true;
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
        AgentEvent::Failed { message }
    }

    /// The message for an exit before the model loop, which prints no JSON: what went
    /// wrong (from the exit code), gemini's own words, and what to do.
    fn early_exit(&self, exit: &ExitInfo) -> Option<String> {
        let (what, todo) = match exit.code? {
            41 => (
                "cannot log in",
                "Set GEMINI_API_KEY in the member's `env`, or run `gemini` once in a terminal to \
                 log in (with the member's GEMINI_CLI_HOME when it has a `home`).",
            ),
            42 => (
                "rejected its input",
                "If it is about the session to resume, that session is gone and the next turn \
                 must start a new one; otherwise check the member's `args`.",
            ),
            44 => (
                "could not start its sandbox",
                "Check the sandbox setting (GEMINI_SANDBOX or --sandbox in the member's `args`).",
            ),
            52 => (
                "found an error in its configuration",
                "Fix the settings file it names (in the member's `home`, or ~/.gemini).",
            ),
            53 => ("reached its turn limit", ""),
            54 => ("stopped on a fatal tool error", ""),
            55 => (
                "does not trust the working folder",
                "chatmd passes --skip-trust; if a wrapper program drops it, set \
                 GEMINI_CLI_TRUST_WORKSPACE=true in the member's `env`.",
            ),
            _ => return None,
        };
        let code = exit.code?;
        let stderr = stderr_message(exit, &STDERR_NOISE);
        let mut message = format!("{} {what} (exit {code})", self.turn.agent);
        if !stderr.is_empty() {
            message.push_str(": ");
            message.push_str(&stderr);
        }
        if !message.ends_with(['.', '!', '?', '…']) {
            message.push('.');
        }
        if !todo.is_empty() {
            message.push(' ');
            message.push_str(todo);
        }
        Some(message)
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
        out.extend(super::resume::gemini_not_found(exit));
        // An exit before the model loop printed no JSON; its code says what went wrong.
        let early = self.last_error.is_none().then(|| self.early_exit(exit));
        out.push(match early.flatten() {
            Some(message) => AgentEvent::Failed { message },
            None => self
                .turn
                .failure(self.last_error.as_deref(), &STDERR_NOISE, exit),
        });
    }
}
