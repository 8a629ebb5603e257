//! What comes in from the agent, by kind: a response to one of our requests (the
//! setup's steps, then the prompt's result), a `session/update`, and the agent's own
//! requests (files, questions, terminals, permissions).

use agent_client_protocol::v1::schema::{Error, RequestId};
use serde_json::Value;

use super::rpc::{self, AgentError};
use super::{AcpSession, Waiting, ending};
use crate::agents::AgentEvent;
use crate::agents::session::Outbox;

impl AcpSession {
    pub(super) fn response(
        &mut self,
        id: &RequestId,
        outcome: Result<Value, AgentError>,
        out: &mut Outbox,
    ) {
        if let RequestId::Number(n) = id
            && self.steer_answered(*n, &outcome, out)
        {
            return;
        }
        let (step, waited) = match self.waiting {
            Waiting::Initialize(n) => ("initialize", n),
            Waiting::NewSession(n) => ("session/new", n),
            Waiting::Resume(n) => ("session/resume", n),
            Waiting::Fork(n) => ("session/fork", n),
            Waiting::Setting(n) => ("a setting", n),
            Waiting::Prompt(n) => ("session/prompt", n),
            Waiting::Nothing => return,
        };
        if *id != RequestId::Number(waited) {
            tracing::debug!("ACP response to no request of ours: {id}");
            return;
        }
        if let Waiting::Setting(_) = self.waiting {
            return self.setting_answered(outcome, out);
        }
        let result = match outcome {
            Ok(result) => result,
            Err(error) if matches!(self.waiting, Waiting::Resume(_) | Waiting::Fork(_)) => {
                // The agent lost the session: the turn goes on as a new one.
                let message = format!("{step}: {}", error.message);
                out.push(AgentEvent::SessionNotFound { message });
                self.resume = None;
                return self.new_session(out);
            }
            Err(error) => {
                let failed =
                    ending::refused(step, &self.turn.agent, &error, &self.login, &mut out.events);
                return self.end(failed, out);
            }
        };
        match self.waiting {
            Waiting::Initialize(_) => self.initialized(&result, out),
            Waiting::NewSession(_) => self.created(&result, out),
            Waiting::Resume(_) => self.resumed(&result, out),
            Waiting::Fork(_) => self.forked(&result, out),
            _ => self.end(ending::done(&result), out),
        }
    }

    /// One `session/update`: the session's settings changing, else the answer's
    /// stream.
    pub(super) fn update(&mut self, update: Value, out: &mut Outbox) {
        match update.get("sessionUpdate").and_then(Value::as_str) {
            Some("config_option_update") => self.offered.read(&update),
            Some("current_mode_update") => {
                let mode = update.get("currentModeId").and_then(Value::as_str);
                self.offered.mode_changed(mode.unwrap_or_default());
            }
            _ => return self.stream.update(update, &mut out.events),
        }
        self.tell_options(out);
    }

    pub(super) fn request(&mut self, id: RequestId, method: &str, params: Value, out: &mut Outbox) {
        if method.starts_with("fs/") {
            return self.file_request(id, method, &params, out);
        }
        if method == "elicitation/create" {
            return self.elicit(id, &params, out);
        }
        if method.starts_with("terminal/") {
            return self.terminal(id, method, &params, out);
        }
        if method != "session/request_permission" {
            tracing::debug!("ACP request not implemented: {method}");
            out.write(rpc::error(&id, Error::method_not_found()));
            return;
        }
        self.ask_permission(id, params, out);
    }
}
