//! The steering extension (`FAKE_ACP_STEERING=1`): `_session/steering` puts a message
//! into the prompt turn that is running, as claude-agent-acp (0.64 on) and codex-acp
//! (1.6 on) do. The agent advertises it at the top of its `initialize` result,
//! `_meta.steering.supported: true`; the client sends `{sessionId, prompt: [content
//! blocks], _meta: {steering: {idleBehavior: "promptRequired"}}}` and is answered
//! `{outcome: "injected"}` while a prompt runs (its answer goes on in the same prompt,
//! which settles once at the end), `{outcome: "promptRequired", reason: "noRunningTurn"}`
//! when none runs and the client opted in (the message is not taken). Sources:
//! claude-agent-acp `src/acp-agent.ts` (`STEER_METHOD`, `SteerRequest`,
//! `SteerResponse`, `parseSteerRequest`), block/buzz PR #3007, fontanierh/crab #251.
//!
//! Without the knob the method is unknown (`-32601`), as for an agent that does not
//! advertise it. The fake's answer to a steered message: the rest of its turn is
//! `steered: <text>` (slow mode stops its chunks for it; any other mode says it before
//! the result).

use serde_json::Value;

use super::json::{J, obj};
use super::server::Agent;
use super::turn::Turn;
use super::wire::errors;

pub const METHOD: &str = "_session/steering";

/// Whether this process advertises steering (`FAKE_ACP_STEERING=1`).
pub fn advertised() -> bool {
    std::env::var("FAKE_ACP_STEERING").is_ok_and(|v| !v.is_empty() && v != "0")
}

/// The `_meta` the `initialize` result carries when steering is advertised.
pub fn meta() -> J {
    obj! { "steering": obj! { "supported": true } }
}

/// The steered text: the prompt's text blocks, joined; the error of a malformed
/// request in claude-agent-acp's words.
fn text_of(params: &Value) -> Result<String, J> {
    if params["sessionId"].as_str().is_none_or(str::is_empty) {
        return Err(errors::invalid_params(
            "steer params require a non-empty sessionId",
        ));
    }
    let Some(blocks) = params["prompt"].as_array().filter(|b| !b.is_empty()) else {
        return Err(errors::invalid_params(
            "steer params require a non-empty prompt array",
        ));
    };
    match &params["_meta"]["steering"]["idleBehavior"] {
        Value::Null => {}
        Value::String(s) if s == "promptRequired" => {}
        _ => return Err(errors::invalid_params("unsupported steering idleBehavior")),
    }
    let text: Vec<&str> = blocks.iter().filter_map(|b| b["text"].as_str()).collect();
    Ok(text.join("\n"))
}

/// `_session/steering` with no prompt running.
pub fn idle(agent: &mut Agent, id: &Value, params: &Value) {
    if !advertised() {
        return agent.out.error(id, errors::method_not_found(METHOD));
    }
    if let Err(error) = text_of(params).and_then(|_| agent.live(params)) {
        return agent.out.error(id, error);
    }
    if params["_meta"]["steering"]["idleBehavior"] != "promptRequired" {
        // The legacy answer starts a turn nobody asked for; a client should opt in.
        eprintln!(
            "fake-agent: _session/steering with no prompt running and no idleBehavior \
             \"promptRequired\": the real agent would start a turn the client does not own"
        );
    }
    agent.out.result(
        id,
        obj! { "outcome": "promptRequired", "reason": "noRunningTurn" },
    );
}

impl Turn<'_> {
    /// `_session/steering` while this prompt runs: taken into the turn, or refused.
    pub(super) fn steer(&mut self, id: &Value, params: &Value) {
        if !advertised() {
            return self.agent.out.error(id, errors::method_not_found(METHOD));
        }
        if params["sessionId"].as_str() != Some(self.sid.as_str()) {
            // Another session of this process: nothing runs there.
            return idle(self.agent, id, params);
        }
        match text_of(params) {
            Ok(text) => {
                self.steered.push(text);
                self.agent.out.result(id, obj! { "outcome": "injected" });
            }
            Err(error) => self.agent.out.error(id, error),
        }
    }

    /// Answers the messages steered into the turn that it has not answered yet.
    pub(super) fn answer_steered(&mut self) -> super::turn::Step {
        let texts = std::mem::take(&mut self.steered);
        for text in texts {
            self.say(&format!("steered: {text}"))?;
        }
        Ok(())
    }

    /// Whether a steered message waits for its answer.
    pub(super) fn is_steered(&self) -> bool {
        !self.steered.is_empty()
    }
}
