use std::path::PathBuf;

use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use super::super::{AcpSession, Login};
use crate::agents::AgentEvent;
use crate::agents::session::{Outbox, Session};

/// A session forking `s0` (what is new: `since`; the whole prompt: `whole`), after an
/// `initialize` result with `capabilities`; what it sent next.
fn forking(capabilities: Value) -> (AcpSession, Vec<Value>) {
    let login = Login {
        kind: None,
        program: "claude-agent-acp".into(),
        methods: Vec::new(),
    };
    let mut session = AcpSession::new("claude-agent-acp", PathBuf::from("/w"), login)
        .forking("s0".into(), "since".into());
    let mut out = Outbox::default();
    session.start(Some("whole".into()), &mut out);
    let init = json!({"jsonrpc": "2.0", "id": 1, "result": {
        "protocolVersion": 1, "agentCapabilities": {"sessionCapabilities": capabilities}}});
    let mut out = Outbox::default();
    session.line(&init.to_string(), &mut out);
    (session, sent(&out))
}

fn sent(out: &Outbox) -> Vec<Value> {
    String::from_utf8_lossy(&out.input)
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON"))
        .collect()
}

fn prompt_text(sent: &[Value]) -> String {
    let prompt = sent.last().expect("the prompt");
    assert_eq!(prompt["method"], "session/prompt");
    prompt["params"]["prompt"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

#[test]
fn an_agent_that_forks_gets_session_fork_and_the_new_session_only_what_is_new() {
    let (mut session, sent_first) = forking(json!({"fork": {}, "resume": {}}));
    assert_eq!(
        sent_first,
        [json!({"jsonrpc": "2.0", "id": 2, "method": "session/fork",
            "params": {"sessionId": "s0", "cwd": "/w", "mcpServers": []}})]
    );
    let mut out = Outbox::default();
    let forked = json!({"jsonrpc": "2.0", "id": 2, "result": {"sessionId": "s1"}});
    session.line(&forked.to_string(), &mut out);
    assert_eq!(prompt_text(&sent(&out)), "since");
    assert!(
        out.events.iter().any(|e| matches!(e,
            AgentEvent::Started { session: Some(s), .. } if s == "s1")),
        "{:?}",
        out.events
    );
}

#[test]
fn without_fork_or_when_it_fails_the_turn_is_a_new_session_with_the_whole_prompt() {
    // Not offered: never resumed instead (that would mix the two chats).
    let (_, sent_first) = forking(json!({"resume": {}}));
    assert_eq!(sent_first[0]["method"], "session/new");

    let (mut session, _) = forking(json!({"fork": {}}));
    let mut out = Outbox::default();
    let refused =
        json!({"jsonrpc": "2.0", "id": 2, "error": {"code": -32603, "message": "no such session"}});
    session.line(&refused.to_string(), &mut out);
    assert_eq!(sent(&out)[0]["method"], "session/new");
    let mut next = Outbox::default();
    session.line(
        &json!({"jsonrpc": "2.0", "id": 3, "result": {"sessionId": "s2"}}).to_string(),
        &mut next,
    );
    assert_eq!(prompt_text(&sent(&next)), "whole");
}
