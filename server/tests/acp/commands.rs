//! The commands each real agent takes after `/`, from its recorded
//! `available_commands_update` (the recordings keep the first three of each list and
//! mark the rest `…[N more]`, which is no command): one `Commands` event per turn,
//! before the answer's text.

use chatmd::agents::{AgentCommand, AgentEvent};
use pretty_assertions::assert_eq;

use crate::replay;

/// Commands as `(name, hint)`.
type Named = Vec<(String, Option<String>)>;

/// The `Commands` events of recording `name`, as `(name, hint)` lists, and whether
/// each came before the first text.
fn commands(name: &str) -> Vec<(Named, bool)> {
    let (_, trace, _) = replay(name);
    let first_text = trace
        .events
        .iter()
        .position(|e| matches!(e, AgentEvent::Text(_)))
        .unwrap_or(usize::MAX);
    trace
        .events
        .iter()
        .enumerate()
        .filter_map(|(i, e)| match e {
            AgentEvent::Commands(list) => Some((
                list.iter()
                    .map(|AgentCommand { name, hint, .. }| (name.clone(), hint.clone()))
                    .collect(),
                i < first_text,
            )),
            _ => None,
        })
        .collect()
}

fn named(list: &[(&str, Option<&str>)]) -> Named {
    list.iter()
        .map(|(name, hint)| ((*name).to_owned(), hint.map(str::to_owned)))
        .collect()
}

#[test]
fn each_agent_tells_its_commands_before_it_answers() {
    assert_eq!(
        commands("claude-hello"),
        [(
            named(&[
                ("deep-research", None),
                ("update-config", None),
                ("verify", None)
            ]),
            true
        )]
    );
    assert_eq!(
        commands("codex-hello"),
        [(
            named(&[
                ("plan", None),
                ("mcp", Some("[reconnect]")),
                ("skills", None)
            ]),
            true
        )]
    );
    assert_eq!(
        commands("gemini-hello"),
        [(
            named(&[
                ("memory", None),
                ("memory show", None),
                ("memory refresh", None)
            ]),
            true
        )]
    );
}

#[test]
fn the_descriptions_are_the_agents_words() {
    let (_, trace, _) = replay("codex-hello");
    let Some(AgentEvent::Commands(list)) = trace
        .events
        .iter()
        .find(|e| matches!(e, AgentEvent::Commands(_)))
    else {
        panic!("no commands: {:?}", trace.events);
    };
    assert_eq!(
        list[1],
        AgentCommand {
            name: "mcp".into(),
            description: "Show the status of the MCP servers, or reconnect them.".into(),
            hint: Some("[reconnect]".into()),
        }
    );
}
