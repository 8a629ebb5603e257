//! Any program from the user's registry: the prompt on stdin or as the last argument,
//! the answer as plain text lines or as JSON lines read through the entry's pointers.
//!
//! - The role is inline (`[SYSTEM]\n...`) at the top of the prompt: a program has no
//!   known system flag.
//! - The turn ends when the process exits (exit 0 is success), or earlier on a line
//!   matching the entry's `done` pointer. There is no idle limit unless the member sets
//!   `idle_timeout`.

use serde_json::Value;

use super::output::{sanitize, sanitized, str_at};
use super::plan::{self, TurnSpec, inline};
use super::reader;
use super::registry::{CommandOutput, CommandSpec, PromptDelivery};
use super::{AgentEvent, ExitInfo, Invocation, OutputParser, Stdin};

/// The command line of one turn of a `command` entry. `resume` is not used: a plain
/// program has no known way to continue a session, so every turn gets the whole prompt.
pub(super) fn plan(turn: &TurnSpec<'_>, spec: &CommandSpec) -> Invocation {
    let has_completion_event =
        matches!(&spec.output, CommandOutput::Jsonl(pointers) if pointers.done.is_some());
    let mut invocation = turn.base(has_completion_event);
    // A program may be slow to print anything and still be working: no idle limit
    // unless the member sets one, even with a `done` pointer.
    invocation.limits.idle = turn.member.idle_timeout;
    turn.extra_args(&mut invocation);
    let prompt = inline(turn.system, turn.body);
    match spec.prompt {
        // One argument cannot exceed 128 KiB on Linux: a large prompt goes on stdin
        // whatever the entry says, rather than failing to start.
        PromptDelivery::Argument => plan::prompt(&mut invocation, prompt, None),
        PromptDelivery::Stdin => invocation.stdin = Stdin::Prompt(prompt),
    }
    invocation
}

/// Reads a `command` entry's output.
#[derive(Debug)]
pub struct CommandParser {
    output: CommandOutput,
    turn: reader::Turn,
    /// The session was reported (JSON lines with a `session` pointer).
    started: bool,
}

impl CommandParser {
    /// A parser for `output`, whose messages name the agent `agent`.
    pub fn new(agent: &str, output: &CommandOutput) -> CommandParser {
        CommandParser {
            output: output.clone(),
            turn: reader::Turn::new(agent),
            started: false,
        }
    }

    fn json_event(&mut self, value: &Value, out: &mut Vec<AgentEvent>) {
        let CommandOutput::Jsonl(pointers) = &self.output else {
            return;
        };
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
            self.turn.finished = true;
            out.push(AgentEvent::Failed { message });
            return;
        }
        if let Some(done) = pointers.done.as_deref()
            && is_done(value.pointer(done), pointers.done_value.as_deref())
        {
            self.turn.finished = true;
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
    fn line(&mut self, line: &str, out: &mut Vec<AgentEvent>) {
        if self.turn.finished {
            return;
        }
        match &self.output {
            // Plain text: every line is answer text, its line break kept.
            CommandOutput::Text => {
                let mut text = sanitize(line);
                text.push('\n');
                out.push(AgentEvent::Text(text));
            }
            CommandOutput::Jsonl(_) => {
                if let Some(value) = self.turn.read_value(line, out) {
                    self.json_event(&value, out);
                }
            }
        }
    }

    fn finish(&mut self, exit: &ExitInfo, out: &mut Vec<AgentEvent>) {
        if !self.turn.exited() {
            return;
        }
        out.push(if exit.code == Some(0) {
            AgentEvent::Done {
                stop_reason: None,
                usage: None,
            }
        } else {
            self.turn.failure(None, &[], exit)
        });
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
        let mut out = Vec::new();
        parser.line("\u{1b}[1mhi\u{1b}[0m", &mut out);
        parser.line("", &mut out);
        assert_eq!(
            out,
            [
                AgentEvent::Text("hi\n".into()),
                AgentEvent::Text("\n".into())
            ]
        );
        let exit = ExitInfo {
            code: Some(0),
            stderr_tail: String::new(),
        };
        out.clear();
        parser.finish(&exit, &mut out);
        assert_eq!(
            out,
            [AgentEvent::Done {
                stop_reason: None,
                usage: None
            }]
        );
        parser.finish(&exit, &mut out);
        assert_eq!(out.len(), 1);
    }
}
