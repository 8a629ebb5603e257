//! The fake's steering extension (`FAKE_ACP_STEERING=1`), as claude-agent-acp and
//! codex-acp answer `_session/steering`: advertised in `initialize`'s `_meta`, `injected`
//! during a prompt (the rest of the turn answers the message), `promptRequired` when
//! idle; unknown without the knob.

use serde_json::{Value, json};

use crate::client::{Sandbox, text};

fn steer(id: u64, sid: &str, text: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "_session/steering", "params": {
        "sessionId": sid,
        "prompt": [{"type": "text", "text": text}],
        "_meta": {"steering": {"idleBehavior": "promptRequired"}}}})
}

#[test]
fn a_steered_message_joins_the_running_prompt() {
    for flavor in ["claude", "codex"] {
        let sandbox = Sandbox::new();
        let mut agent = sandbox.start(
            flavor,
            &[("FAKE_ACP_STEERING", "1"), ("FAKE_AGENT_DELAY_MS", "100")],
        );
        let init = agent.initialize();
        assert_eq!(
            init["result"]["_meta"],
            json!({"steering": {"supported": true}})
        );
        let sid = agent.new_session(&sandbox.work);
        // Idle: not taken.
        agent.send(&steer(3, &sid, "early"));
        assert_eq!(
            agent.recv(),
            json!({"jsonrpc": "2.0", "id": 3, "result": {"outcome": "promptRequired", "reason": "noRunningTurn"}})
        );
        agent.prompt(4, &sid, "MOCK-MODE=slow go");
        let mut got = Vec::new();
        while !text(&got).contains("SLOW-CHUNK-01") {
            got.push(agent.recv());
        }
        agent.send(&steer(5, &sid, "also the docs"));
        let rest = agent.until_response(4);
        let answer = rest
            .iter()
            .find(|m| m["id"] == 5)
            .unwrap_or_else(|| panic!("{flavor}: no answer to the steering: {rest:?}"));
        assert_eq!(answer["result"], json!({"outcome": "injected"}), "{flavor}");
        let said = text(&rest);
        assert!(said.ends_with("steered: also the docs"), "{flavor}: {said}");
        assert!(
            !said.contains("SLOW-CHUNK-40"),
            "{flavor}: the slow answer stopped"
        );
        assert_eq!(rest.last().unwrap()["result"]["stopReason"], "end_turn");
        let output = agent.close();
        assert_eq!(String::from_utf8_lossy(&output.stderr), "", "{flavor}");
    }
}

#[test]
fn without_the_knob_the_method_is_unknown() {
    let sandbox = Sandbox::new();
    let mut agent = sandbox.start("claude", &[]);
    let init = agent.initialize();
    assert!(init["result"].get("_meta").is_none(), "{init}");
    let sid = agent.new_session(&sandbox.work);
    agent.send(&steer(3, &sid, "x"));
    assert_eq!(agent.recv()["error"]["code"], -32601);
    agent.close();
}
