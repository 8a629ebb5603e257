//! Any program from the user's registry: the prompt on stdin or as the last argument,
//! the answer as plain text lines or as JSON lines read through the entry's pointers.
//!
//! - The role is inline (`[SYSTEM]\n...`) at the top of the prompt: a program has no
//!   known system flag.
//! - The turn ends when the process exits (exit 0 is success), or earlier on a line
//!   matching the entry's `done` pointer. There is no idle limit unless the member sets
//!   `idle_timeout`.

use serde_json::Value;

use super::output::{Ending, failure, json_line, sanitize, sanitized, str_at};
use super::plan::{base, extra_args, fits_argument, inline};
use super::registry::{AgentEntry, CommandOutput, CommandSpec, JsonPointers, PromptDelivery};
use super::{AgentEvent, ExitInfo, Invocation, OutputParser, Stdin};
use crate::team::Member;

/// The command line of one turn of a `command` entry. `resume` is not used: a plain
/// program has no known way to continue a session, so every turn gets the whole prompt.
pub fn plan(
    entry: &AgentEntry,
    spec: &CommandSpec,
    member: &Member,
    system: &str,
    body: &str,
) -> Invocation {
    let has_completion_event =
        matches!(&spec.output, CommandOutput::Jsonl(pointers) if pointers.done.is_some());
    let mut invocation = base(entry, member, has_completion_event);
    // A program may be slow to print anything and still be working: no idle limit
    // unless the member sets one, even with a `done` pointer.
    invocation.limits.idle = member.idle_timeout;
    extra_args(&mut invocation, entry, member);
    let prompt = inline(system, body);
    match spec.prompt {
        // One argument cannot exceed 128 KiB on Linux: a large prompt goes on stdin
        // whatever the entry says, rather than failing to start.
        PromptDelivery::Argument if fits_argument(&prompt) => invocation.args.push(prompt),
        _ => invocation.stdin = Stdin::Prompt(prompt),
    }
    invocation
}

/// Reads a `command` entry's output.
#[derive(Debug)]
pub struct CommandParser {
    agent: String,
    output: CommandOutput,
    turn: Turn,
    stray: Option<String>,
}

/// How far the turn got (apart from the output settings, which each line reads).
#[derive(Debug, Default)]
struct Turn {
    started: bool,
    finished: bool,
}

impl CommandParser {
    /// A parser for `output`, whose messages name the agent `agent`.
    pub fn new(agent: &str, output: &CommandOutput) -> CommandParser {
        CommandParser {
            agent: agent.to_owned(),
            output: output.clone(),
            turn: Turn::default(),
            stray: None,
        }
    }
}

impl Turn {
    fn json_event(&mut self, pointers: &JsonPointers, value: &Value, out: &mut Vec<AgentEvent>) {
        if !self.started
            && let Some(session) = pointers.session.as_deref().and_then(|p| str_at(value, p))
        {
            self.started = true;
            out.push(AgentEvent::Started {
                session: Some(session.to_owned()),
                model: None,
            });
        }
        if let Some(text) = str_at(value, &pointers.text) {
            let text = sanitize(text);
            if !text.is_empty() {
                out.push(AgentEvent::Text(text));
            }
        }
        let error = pointers.error.as_deref().and_then(|p| str_at(value, p));
        if let Some(message) = error
            .map(|m| sanitized(m).trim().to_owned())
            .filter(|m| !m.is_empty())
        {
            self.finished = true;
            out.push(AgentEvent::Failed { message });
            return;
        }
        if let Some(done) = pointers.done.as_deref()
            && is_done(value.pointer(done), pointers.done_value.as_deref())
        {
            self.finished = true;
            out.push(AgentEvent::Done {
                stop_reason: None,
                usage: None,
            });
        }
    }
}

/// Whether the `done` pointer's value says the turn is complete.
fn is_done(value: Option<&Value>, expected: Option<&str>) -> bool {
    let Some(value) = value else { return false };
    match expected {
        Some(expected) => match value {
            Value::String(text) => text == expected,
            // Non-strings compare as JSON: `done_value = "true"` matches `true`.
            other => serde_json::from_str::<Value>(expected).is_ok_and(|e| e == *other),
        },
        None => match value {
            Value::Null => false,
            Value::Bool(b) => *b,
            Value::Number(n) => n.as_f64() != Some(0.0),
            Value::String(s) => !s.is_empty(),
            Value::Array(_) | Value::Object(_) => true,
        },
    }
}

impl OutputParser for CommandParser {
    fn line(&mut self, line: &str) -> Vec<AgentEvent> {
        if self.turn.finished {
            return Vec::new();
        }
        let pointers = match &self.output {
            // Plain text: every line is answer text, its line break kept.
            CommandOutput::Text => {
                let mut text = sanitize(line);
                text.push('\n');
                return vec![AgentEvent::Text(text)];
            }
            CommandOutput::Jsonl(pointers) => pointers,
        };
        let mut out = Vec::new();
        match json_line(&self.agent, line) {
            Ok(Some(value)) => self.turn.json_event(pointers, &value, &mut out),
            Ok(None) => {}
            Err(notice) => {
                self.stray = Some(sanitize(line.trim()));
                out.push(notice);
            }
        }
        out
    }

    fn finish(&mut self, exit: &ExitInfo) -> Vec<AgentEvent> {
        if self.turn.finished {
            return Vec::new();
        }
        self.turn.finished = true;
        if exit.code == Some(0) {
            return vec![AgentEvent::Done {
                stop_reason: None,
                usage: None,
            }];
        }
        let ending = Ending {
            agent: &self.agent,
            own: None,
            stray: self.stray.as_deref(),
            noise: &[],
        };
        vec![failure(&ending, exit)]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    #[test]
    fn done_values_compare_as_text_or_truthiness() {
        assert!(is_done(Some(&json!("result")), Some("result")));
        assert!(!is_done(Some(&json!("delta")), Some("result")));
        assert!(is_done(Some(&json!(true)), Some("true")));
        assert!(is_done(Some(&json!(true)), None));
        for falsy in [json!(null), json!(false), json!(0), json!("")] {
            assert!(!is_done(Some(&falsy), None), "{falsy}");
        }
        assert!(!is_done(None, None));
    }

    #[test]
    fn text_lines_keep_their_breaks() {
        let mut parser = CommandParser::new("llm", &CommandOutput::Text);
        assert_eq!(
            parser.line("\u{1b}[1mhi\u{1b}[0m"),
            vec![AgentEvent::Text("hi\n".into())]
        );
        assert_eq!(parser.line(""), vec![AgentEvent::Text("\n".into())]);
        let exit = ExitInfo {
            code: Some(0),
            stderr_tail: String::new(),
        };
        assert_eq!(
            parser.finish(&exit),
            vec![AgentEvent::Done {
                stop_reason: None,
                usage: None
            }]
        );
        assert_eq!(parser.finish(&exit), vec![]);
    }
}
