use std::path::PathBuf;

use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use super::super::{AcpSession, Login};
use crate::agents::AgentEvent;
use crate::agents::session::{Outbox, Session, SessionCommand};

/// A session whose prompt runs, the agent's `initialize` result carrying `meta`; the
/// id of its `session/prompt`.
fn prompting(meta: Value) -> (AcpSession, i64) {
    let login = Login {
        kind: None,
        program: "claude-agent-acp".into(),
        methods: Vec::new(),
    };
    let mut session = AcpSession::new("claude-agent-acp", PathBuf::from("/w"), login);
    let mut out = Outbox::default();
    session.start(Some("look".into()), &mut out);
    let init = json!({"jsonrpc": "2.0", "id": 1, "result": {"protocolVersion": 1, "_meta": meta}});
    session.line(&init.to_string(), &mut out);
    let created = json!({"jsonrpc": "2.0", "id": 2, "result": {"sessionId": "s1"}});
    let mut out = Outbox::default();
    session.line(&created.to_string(), &mut out);
    let sent = sent(&out);
    let prompt = sent.last().expect("the prompt");
    assert_eq!(prompt["method"], "session/prompt");
    (session, prompt["id"].as_i64().expect("an id"))
}

fn sent(out: &Outbox) -> Vec<Value> {
    String::from_utf8_lossy(&out.input)
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON"))
        .collect()
}

#[test]
fn an_advertised_agent_gets_the_message_into_its_running_prompt() {
    let (mut session, prompt) = prompting(json!({"steering": {"supported": true}}));
    let mut out = Outbox::default();
    assert!(session.command(SessionCommand::Input("also the docs".into()), &mut out));
    let request = &sent(&out)[0];
    assert_eq!(request["method"], "_session/steering");
    assert_eq!(
        request["params"],
        json!({
            "sessionId": "s1",
            "prompt": [{"type": "text", "text": "also the docs"}],
            "_meta": {"steering": {"idleBehavior": "promptRequired"}},
        })
    );
    assert!(out.events.is_empty());
    let id = request["id"].as_i64().expect("an id");
    assert_ne!(id, prompt);
    let mut out = Outbox::default();
    let answer = json!({"jsonrpc": "2.0", "id": id, "result": {"outcome": "injected"}});
    session.line(&answer.to_string(), &mut out);
    assert_eq!(
        out.events,
        [AgentEvent::Steered {
            injected: true,
            outcome: "injected".into()
        }]
    );
    // The prompt still runs: its answer ends the turn.
    let mut out = Outbox::default();
    let done = json!({"jsonrpc": "2.0", "id": prompt, "result": {"stopReason": "end_turn"}});
    session.line(&done.to_string(), &mut out);
    assert!(
        matches!(out.events[..], [AgentEvent::Done { .. }]),
        "{:?}",
        out.events
    );
}

#[test]
fn anything_but_injected_leaves_the_message_with_the_caller() {
    for answer in [
        json!({"result": {"outcome": "promptRequired", "reason": "noRunningTurn"}}),
        json!({"result": {"outcome": "startedNewTurn"}}),
        json!({"result": {}}),
        json!({"error": {"code": -32601, "message": "Method not found"}}),
    ] {
        let (mut session, _) = prompting(json!({"steering": {"supported": true}}));
        let mut out = Outbox::default();
        session.command(SessionCommand::Input("x".into()), &mut out);
        let id = sent(&out)[0]["id"].clone();
        let mut line = answer.clone();
        line["jsonrpc"] = json!("2.0");
        line["id"] = id;
        let mut out = Outbox::default();
        session.line(&line.to_string(), &mut out);
        assert!(
            matches!(
                &out.events[..],
                [AgentEvent::Steered {
                    injected: false,
                    ..
                }]
            ),
            "{answer}: {:?}",
            out.events
        );
    }
}

#[test]
fn without_the_capability_nothing_is_sent() {
    for meta in [json!(null), json!({"steering": {"supported": false}})] {
        let (mut session, _) = prompting(meta);
        let mut out = Outbox::default();
        assert!(!session.command(SessionCommand::Input("x".into()), &mut out));
        assert!(out.input.is_empty());
        assert_eq!(
            out.events,
            [AgentEvent::Steered {
                injected: false,
                outcome: "the agent does not advertise steering".into()
            }]
        );
    }
}
