//! Tool calls as the user sees them: a one-line summary (`Bash: cargo test`), the first
//! line of a failure, and the calls of a turn remembered by id, so that the end of a
//! call is named like its start.

use std::collections::HashMap;

use serde_json::Value;

use super::json::ToolInput;
use super::output::{push_quote, quote, sanitize, sanitized};
use super::{AgentEvent, ToolStatus};

/// The input of a tool call, as JSON or as read by a parser.
pub trait ToolArguments {
    /// The first of the usual "what it acts on" parameters that is a string.
    fn argument(&self) -> Option<&str>;
}

/// The parameters [`ToolArguments::argument`] looks at, in order.
const ARGUMENT_KEYS: [&str; 9] = [
    "command",
    "file_path",
    "path",
    "absolute_path",
    "pattern",
    "url",
    "query",
    "prompt",
    "description",
];

impl ToolArguments for Value {
    fn argument(&self) -> Option<&str> {
        ARGUMENT_KEYS
            .iter()
            .find_map(|key| self.get(key).and_then(Value::as_str))
    }
}

impl ToolArguments for ToolInput<'_> {
    fn argument(&self) -> Option<&str> {
        // The same order as ARGUMENT_KEYS.
        [
            &self.command,
            &self.file_path,
            &self.path,
            &self.absolute_path,
            &self.pattern,
            &self.url,
            &self.query,
            &self.prompt,
            &self.description,
        ]
        .into_iter()
        .find_map(|value| value.get())
    }
}

/// A one-line summary of a tool call: `Bash: cargo test`. The argument shown is the
/// first of the usual "what it acts on" parameters, first line only.
pub fn tool_summary(name: &str, input: Option<&dyn ToolArguments>) -> String {
    let argument = input
        .and_then(ToolArguments::argument)
        .map(|text| text.lines().next().unwrap_or("").trim())
        .filter(|text| !text.is_empty());
    match argument {
        Some(argument) => {
            let argument = sanitized(argument);
            let mut summary = String::with_capacity(name.len() + 2 + argument.len());
            summary.push_str(name);
            summary.push_str(": ");
            push_quote(&mut summary, &argument);
            summary
        }
        None => sanitize(name),
    }
}

/// The first non-empty line of a tool's error output, clean and cut to the quote
/// limit, for the tool list (claude wraps some in `<tool_use_error>` tags).
pub fn error_line(text: &str) -> Option<String> {
    let text = sanitized(text);
    let line = text
        .lines()
        .map(|line| {
            line.replace("<tool_use_error>", "")
                .replace("</tool_use_error>", "")
        })
        .map(|line| line.trim().to_owned())
        .find(|line| !line.is_empty())?;
    Some(quote(&line))
}

/// The tool calls of one turn, id → summary: the CLIs name the tool only when a call
/// starts, and its end must be named the same way.
#[derive(Debug, Default)]
pub struct ToolCalls(HashMap<String, String>);

impl ToolCalls {
    /// The `Started` event of call `id`; its summary is kept for the end.
    pub fn started(&mut self, id: Option<&str>, summary: String) -> AgentEvent {
        let id = id.map(str::to_owned);
        if let Some(id) = &id {
            self.remember(id, &summary);
        }
        AgentEvent::Tool {
            id,
            summary,
            status: ToolStatus::Started,
            detail: None,
        }
    }

    /// The end of call `id`, named as it started (`tool` for a call never seen):
    /// failed with `detail`, or completed.
    pub fn ended(&self, id: Option<&str>, failed: bool, detail: Option<String>) -> AgentEvent {
        AgentEvent::Tool {
            id: id.map(str::to_owned),
            summary: self.summary(id).unwrap_or("tool").to_owned(),
            status: if failed {
                ToolStatus::Failed
            } else {
                ToolStatus::Completed
            },
            detail,
        }
    }

    /// The summary call `id` is known by.
    pub fn summary(&self, id: Option<&str>) -> Option<&str> {
        self.0.get(id?).map(String::as_str)
    }

    /// Keeps `summary` as the one call `id` is known by.
    pub fn remember(&mut self, id: &str, summary: &str) {
        match self.0.get_mut(id) {
            Some(known) => summary.clone_into(known),
            None => {
                self.0.insert(id.to_owned(), summary.to_owned());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agents::output::QUOTE_LIMIT;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    #[test]
    fn tool_summaries_name_the_tool_and_what_it_acts_on() {
        let input = json!({"command": "echo hello-from-tool\necho more", "description": "x"});
        assert_eq!(
            tool_summary("Bash", Some(&input)),
            "Bash: echo hello-from-tool"
        );
        let input = json!({"file_path": "/src/main.rs"});
        assert_eq!(tool_summary("Read", Some(&input)), "Read: /src/main.rs");
        assert_eq!(tool_summary("TodoWrite", Some(&json!({}))), "TodoWrite");
        assert_eq!(tool_summary("Plan", None), "Plan");
    }

    #[test]
    fn tool_errors_keep_their_first_line() {
        assert_eq!(
            error_line("\n<tool_use_error>File does not exist.</tool_use_error>\nmore"),
            Some("File does not exist.".into())
        );
        assert_eq!(error_line(" \n "), None);
        assert_eq!(
            error_line(&"x".repeat(200)).map(|l| l.chars().count()),
            Some(QUOTE_LIMIT + 1)
        );
    }

    #[test]
    fn the_end_of_a_call_is_named_like_its_start() {
        let tool =
            |id: Option<&str>, summary: &str, status, detail: Option<&str>| AgentEvent::Tool {
                id: id.map(str::to_owned),
                summary: summary.to_owned(),
                status,
                detail: detail.map(str::to_owned),
            };
        let mut calls = ToolCalls::default();
        assert_eq!(
            calls.started(Some("a"), "Bash: ls".into()),
            tool(Some("a"), "Bash: ls", ToolStatus::Started, None)
        );
        assert_eq!(
            calls.started(None, "Read: x".into()),
            tool(None, "Read: x", ToolStatus::Started, None)
        );
        assert_eq!(
            calls.ended(Some("a"), true, Some("exit 2".into())),
            tool(Some("a"), "Bash: ls", ToolStatus::Failed, Some("exit 2"))
        );
        calls.remember("a", "Bash: ls -la");
        assert_eq!(calls.summary(Some("a")), Some("Bash: ls -la"));
        assert_eq!(
            calls.ended(Some("b"), false, None),
            tool(Some("b"), "tool", ToolStatus::Completed, None)
        );
        assert_eq!(
            calls.ended(None, false, None),
            tool(None, "tool", ToolStatus::Completed, None)
        );
    }
}
