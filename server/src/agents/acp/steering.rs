//! Steering: a message for the agent while its prompt runs, through the `_session/steering`
//! extension where the agent advertises it (`_meta.steering.supported: true` at the top of
//! its `initialize` result). claude-agent-acp (from 0.64) and codex-acp (from 1.6) ship
//! it: the request is `{sessionId, prompt: [content blocks], _meta: {steering:
//! {idleBehavior: "promptRequired"}}}` and the answer `{outcome}`: `injected` (the message
//! joined the running turn, whose answer goes on in the same `session/prompt`, settled
//! once at the end), `promptRequired` with `reason: "noRunningTurn"` (nothing ran; the
//! message was not taken: the opt-in above asks for this instead of the legacy
//! `startedNewTurn`, a turn nobody would own). Sources: claude-agent-acp
//! `src/acp-agent.ts` (`STEER_METHOD`, `SteerRequest`, `SteerResponse`); block/buzz
//! PR #3007; fontanierh/crab #251 (claude-agent-acp 0.70.0, codex-acp 1.6.2 advertise it).
//!
//! Only the advertised capability lets a message go this way: codex-acp answers an
//! unknown extension method with a bare `{}`, which must never read as delivered. So
//! anything but `outcome: "injected"` is "not taken", and the caller keeps the message.

use serde_json::{Value, json};

use super::rpc::AgentError;
use super::{AcpSession, Waiting};
use crate::agents::AgentEvent;
use crate::agents::session::Outbox;

/// The extension's method.
pub const METHOD: &str = "_session/steering";

/// Whether an `initialize` result advertises steering.
pub(super) fn advertised(result: &Value) -> bool {
    result.pointer("/_meta/steering/supported") == Some(&Value::Bool(true))
}

/// The request's params: `text` as one text block, for `session`.
fn params(session: &str, text: &str) -> Value {
    json!({
        "sessionId": session,
        "prompt": [{"type": "text", "text": text}],
        "_meta": {"steering": {"idleBehavior": "promptRequired"}},
    })
}

impl AcpSession {
    /// Sends `text` into the running prompt (true), or reports at once that it was not
    /// taken (no steering, no prompt running, a cancel sent, one steering already
    /// waiting) and writes nothing (false).
    pub(super) fn steer(&mut self, text: &str, out: &mut Outbox) -> bool {
        let running = matches!(self.waiting, Waiting::Prompt(_)) && !self.cancelled;
        let session = self.session.clone().filter(|_| running);
        let refused = match (&session, self.steering, self.steer_request) {
            (_, false, _) => Some("the agent does not advertise steering"),
            (None, true, _) => Some("no prompt is running"),
            (Some(_), true, Some(_)) => Some("a steered message is still waiting for its answer"),
            (Some(_), true, None) => None,
        };
        if let Some(why) = refused {
            out.push(AgentEvent::Steered {
                injected: false,
                outcome: why.to_owned(),
            });
            return false;
        }
        let session = session.unwrap_or_default();
        let id = self.send(METHOD, params(&session, text), out);
        self.steer_request = Some(id);
        true
    }

    /// Takes the agent's answer to the steering request `id`; false when `id` is not it.
    pub(super) fn steer_answered(
        &mut self,
        id: i64,
        outcome: &Result<Value, AgentError>,
        out: &mut Outbox,
    ) -> bool {
        if self.steer_request != Some(id) {
            return false;
        }
        self.steer_request = None;
        let said = match outcome {
            Ok(result) => result
                .get("outcome")
                .and_then(Value::as_str)
                .unwrap_or("no outcome")
                .to_owned(),
            Err(error) => format!("refused: {}", error.message),
        };
        let injected = said == "injected";
        if injected {
            self.stream.section_ends();
        }
        out.push(AgentEvent::Steered {
            injected,
            outcome: said,
        });
        true
    }
}

#[cfg(test)]
mod tests;
