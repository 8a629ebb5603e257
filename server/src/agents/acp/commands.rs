//! `available_commands_update`: the commands the agent takes after `/`, whole each
//! time (every real agent sends the list once per session, right after it is set up:
//! `availableCommands: [{name, description, input?: {hint}}]`). The editor offers them
//! as completion after `/` in a message to the member.
//!
//! The list is the agent's text: each entry is cleaned of control characters and cut
//! to a size, and the list to a length (claude's is about 6 KB; an agent that sends
//! megabytes must not make the editor hold them).

use serde_json::Value;

use crate::agents::output::sanitized;
use crate::agents::{AgentCommand, AgentEvent};

/// The most commands kept of one list.
const MAX_COMMANDS: usize = 500;
/// The most bytes kept of a name, a description or a hint.
const MAX_TEXT: usize = 2000;

/// The `Commands` event of one `available_commands_update` (its `update` object);
/// `None` when it has no list.
pub fn commands(update: &Value) -> Option<AgentEvent> {
    let list = update.get("availableCommands")?.as_array()?;
    let commands = list.iter().filter_map(command).take(MAX_COMMANDS).collect();
    Some(AgentEvent::Commands(commands))
}

/// One entry; one without a usable name is left out.
fn command(entry: &Value) -> Option<AgentCommand> {
    let name = clean(entry.get("name")?.as_str()?);
    let name = name.trim().trim_start_matches('/').to_owned();
    if name.is_empty() {
        return None;
    }
    let description = entry
        .get("description")
        .and_then(Value::as_str)
        .map(clean)
        .unwrap_or_default();
    let hint = entry
        .pointer("/input/hint")
        .and_then(Value::as_str)
        .map(clean)
        .filter(|hint| !hint.trim().is_empty());
    Some(AgentCommand {
        name,
        description,
        hint,
    })
}

/// `text` without control characters (line breaks kept), cut at a character to
/// [`MAX_TEXT`] bytes.
fn clean(text: &str) -> String {
    let text = sanitized(text);
    let mut end = text.len().min(MAX_TEXT);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text[..end].to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    fn command(name: &str, description: &str, hint: Option<&str>) -> AgentCommand {
        AgentCommand {
            name: name.into(),
            description: description.into(),
            hint: hint.map(Into::into),
        }
    }

    #[test]
    fn each_agents_list_reads_with_its_hints() {
        // codex-acp's shape: `input` null or `{hint}`; gemini's: no `input` at all.
        let codex = json!({"sessionUpdate": "available_commands_update", "availableCommands": [
            {"name": "plan", "description": "Turn plan mode on.", "input": null},
            {"name": "mcp", "description": "Show the status of the MCP servers, or reconnect them.",
             "input": {"hint": "[reconnect]"}},
        ]});
        assert_eq!(
            commands(&codex),
            Some(AgentEvent::Commands(vec![
                command("plan", "Turn plan mode on.", None),
                command(
                    "mcp",
                    "Show the status of the MCP servers, or reconnect them.",
                    Some("[reconnect]")
                ),
            ]))
        );
        let gemini = json!({"sessionUpdate": "available_commands_update", "availableCommands": [
            {"name": "memory show", "description": "Shows the current memory contents."},
        ]});
        assert_eq!(
            commands(&gemini),
            Some(AgentEvent::Commands(vec![command(
                "memory show",
                "Shows the current memory contents.",
                None
            )]))
        );
    }

    #[test]
    fn entries_without_a_name_are_left_out_and_text_is_cleaned_and_cut() {
        let long = "é".repeat(MAX_TEXT);
        let update = json!({"availableCommands": [
            {"description": "no name"},
            {"name": "  ", "description": "blank"},
            {"name": "/review\u{1b}[31m", "description": long, "input": {"hint": ""}},
        ]});
        let Some(AgentEvent::Commands(list)) = commands(&update) else {
            panic!("a list");
        };
        assert_eq!(list.len(), 1);
        assert_eq!(list[0].name, "review");
        assert_eq!(list[0].description.len(), MAX_TEXT);
        assert_eq!(list[0].hint, None);
        assert_eq!(
            commands(&json!({"sessionUpdate": "available_commands_update"})),
            None
        );
    }
}
