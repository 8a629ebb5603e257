//! Setting up a turn's session, between `initialize` and `session/prompt`: continue
//! the member's last session with `session/resume` (where the agent offers it) or make
//! a new one with `session/new` (with the workspace root as an `additionalDirectories`
//! root where the agent takes them and the member works elsewhere); tell what the
//! session offers ([`AgentEvent::Options`]); apply the member's mode, model and options
//! one request at a time; then prompt.

use std::collections::VecDeque;

use agent_client_protocol::schema::ProtocolVersion;
use agent_client_protocol::v1::schema::{
    ClientCapabilities, ContentBlock, FileSystemCapabilities, Implementation, InitializeRequest,
    NewSessionRequest, PromptRequest, TextContent,
};
use serde_json::{Value, json};

use super::offered::Offered;
use super::rpc::AgentError;
use super::settings::{Change, SettingValue, changes};
use super::{AcpSession, Waiting, ending};
use crate::agents::session::Outbox;
use crate::agents::{AgentEvent, RunningTotals};

impl AcpSession {
    pub(super) fn initialized(&mut self, result: &Value, out: &mut Outbox) {
        let version = result.get("protocolVersion").and_then(Value::as_u64);
        if version.is_some_and(|v| v != 1) {
            let message = format!(
                "{} speaks ACP version {}; chatmd speaks version 1",
                self.turn.agent,
                version.unwrap_or_default()
            );
            return self.end(AgentEvent::Failed { message }, out);
        }
        self.login.methods = ending::auth_methods(result);
        self.saves_on_exit = super::costs::saves_on_exit(result);
        out.push(AgentEvent::RunningTotals(RunningTotals {
            tokens: false,
            cost: super::costs::costs_span_processes(result),
        }));
        let (servers, skipped) =
            super::mcp::offered(&self.setup.settings.mcp_servers, result, &self.turn.agent);
        self.mcp_servers = servers;
        out.events
            .extend(skipped.into_iter().map(AgentEvent::Notice));
        self.steering = super::steering::advertised(result);
        self.embedded_context = result
            .pointer("/agentCapabilities/promptCapabilities/embeddedContext")
            .and_then(Value::as_bool)
            .unwrap_or(false);
        let capability = |name: &str| {
            result
                .pointer(&format!("/agentCapabilities/sessionCapabilities/{name}"))
                .is_some_and(|v| !v.is_null())
        };
        // The member's folder is its cwd; the workspace around it is where the code is.
        self.roots = match &self.setup.workspace {
            Some(root) if capability("additionalDirectories") && *root != self.cwd => {
                vec![root.clone()]
            }
            _ => Vec::new(),
        };
        self.warm.resumable = capability("resume");
        if self.setup.keeps_sessions && !self.warm.resumable {
            // No turn of this agent will continue this session: it has nothing the
            // file could contradict later.
            out.push(AgentEvent::SessionNotResumable);
        }
        if self.fork
            && let Some((session, _)) = &self.resume
        {
            if capability("fork") {
                let params = self.reopen_params(session);
                let id = self.send("session/fork", params, out);
                self.waiting = Waiting::Fork(id);
                return;
            }
            // Continuing the session itself would mix the two chats in it.
            self.resume = None;
        }
        if let Some((session, _)) = &self.resume {
            // Only `session/resume` continues a session here. `session/load` replays the
            // history as updates, and gemini (the one real agent without resume) sends
            // part of that replay after its answer to the load, where nothing tells it
            // from the new answer; its load also fails within the minute the session
            // was made (gemini-cli #28693). Such an agent starts a new session with the
            // whole chat instead.
            if capability("resume") {
                let params = self.reopen_params(session);
                let id = self.send("session/resume", params, out);
                self.waiting = Waiting::Resume(id);
                return;
            }
            self.resume = None;
        }
        self.new_session(out);
    }

    /// The params of `session/resume` or `session/fork` of `session`: those of a load.
    fn reopen_params(&self, session: &str) -> Value {
        let mut params =
            json!({"sessionId": session, "cwd": self.cwd, "mcpServers": self.mcp_servers});
        if !self.roots.is_empty() {
            params["additionalDirectories"] = json!(self.roots);
        }
        params
    }

    pub(super) fn new_session(&mut self, out: &mut Outbox) {
        let request =
            NewSessionRequest::new(self.cwd.clone()).additional_directories(self.roots.clone());
        let mut params = serde_json::to_value(request).unwrap_or(Value::Null);
        // The servers as the schema's `McpServer` JSON, built in `mcp.rs`.
        params["mcpServers"] = Value::Array(self.mcp_servers.clone());
        let id = self.send("session/new", params, out);
        self.waiting = Waiting::NewSession(id);
    }

    /// The session to continue is back: the turn prompts it with what is new.
    pub(super) fn resumed(&mut self, result: &Value, out: &mut Outbox) {
        let Some((session, prompt)) = self.resume.take() else {
            return self.new_session(out);
        };
        self.prompt = Some(prompt);
        self.established(session, result, out);
    }

    /// The session was branched off: the new one (its id in the result) has the
    /// history up to here, and the turn prompts it with what is new.
    pub(super) fn forked(&mut self, result: &Value, out: &mut Outbox) {
        let Some((_, prompt)) = self.resume.take() else {
            return self.new_session(out);
        };
        self.prompt = Some(prompt);
        self.created(result, out);
    }

    pub(super) fn created(&mut self, result: &Value, out: &mut Outbox) {
        let Some(session) = result.get("sessionId").and_then(Value::as_str) else {
            let message = format!("{} created a session without an id", self.turn.agent);
            return self.end(AgentEvent::Failed { message }, out);
        };
        self.established(session.to_owned(), result, out);
    }

    /// The session exists (new or resumed, its `result` says what it offers): the
    /// member's settings are applied, then the prompt goes.
    fn established(&mut self, session: String, result: &Value, out: &mut Outbox) {
        self.session = Some(session);
        self.offered = Offered::from_result(result);
        self.tell_options(out);
        let settings = self.setup.settings.for_session(&self.offered);
        match changes(&settings, &self.offered, &self.turn.agent) {
            Ok(changes) => {
                self.changes = VecDeque::from(changes);
                self.next_setting(out);
            }
            Err(message) => self.end(AgentEvent::Failed { message }, out),
        }
    }

    /// Sends the next setting's request, or the prompt when none is left.
    fn next_setting(&mut self, out: &mut Outbox) {
        let Some(session) = self.session.clone() else {
            return;
        };
        let Some(change) = self.changes.front() else {
            return self.ready(session, out);
        };
        let (method, params) = change.request(&session);
        let id = self.send(method, params, out);
        self.waiting = Waiting::Setting(id);
    }

    /// The agent's answer to the setting in flight.
    pub(super) fn setting_answered(
        &mut self,
        outcome: Result<Value, AgentError>,
        out: &mut Outbox,
    ) {
        let Some(change) = self.changes.pop_front() else {
            return;
        };
        let result = match outcome {
            Ok(result) => result,
            Err(error) => {
                let (method, _) = change.request("");
                let words = match ending::refused(
                    method,
                    &self.turn.agent,
                    &error,
                    &self.login,
                    &mut out.events,
                ) {
                    AgentEvent::Failed { message } => message,
                    _ => error.message,
                };
                let message = format!(
                    "{} refused `{}`: {words}",
                    self.turn.agent,
                    change.written()
                );
                return self.end(AgentEvent::Failed { message }, out);
            }
        };
        // `set_config_option` answers the whole new list; `set_mode` answers `{}`.
        self.offered.read(&result);
        match &change {
            Change::Mode(mode) => self.offered.mode_changed(mode),
            Change::Config {
                key,
                value: SettingValue::Text(model),
                ..
            } if key == "model" => self.model_set = Some(model.clone()),
            Change::Config { .. } => {}
        }
        self.settings_changed = true;
        self.next_setting(out);
    }

    /// Tells the settings the session offers, when it offers any.
    pub(super) fn tell_options(&mut self, out: &mut Outbox) {
        let choices = self.offered.choices();
        if !choices.is_empty() {
            out.push(AgentEvent::Options(choices));
        }
    }

    /// Everything is set: the session and what is in force go in the status, and the
    /// prompt goes.
    pub(super) fn ready(&mut self, session: String, out: &mut Outbox) {
        if self.settings_changed {
            self.tell_options(out);
        }
        // A model the member set is in force; else the legacy `models` name it more
        // precisely than the config option (codex: `gpt-5.5[medium]`, not `gpt-5.5`).
        let model = self.model_set.clone().or_else(|| {
            let legacy = self.offered.models.as_ref().and_then(|m| m.current.clone());
            legacy.or_else(|| self.offered.model().map(str::to_owned))
        });
        out.push(AgentEvent::Started {
            session: Some(session.clone()),
            model,
        });
        if self.setup.settings.mode.is_some()
            && let Some(mode) = self.offered.mode()
        {
            out.push(AgentEvent::Mode(mode.to_owned()));
        }
        let prompt = self.prompt.take().unwrap_or_default();
        let mut blocks = vec![ContentBlock::Text(TextContent::new(prompt))];
        blocks.extend(super::context::blocks(
            &self.setup.attachments,
            self.embedded_context,
        ));
        let params = PromptRequest::new(session, blocks);
        let id = self.send("session/prompt", params, out);
        self.waiting = Waiting::Prompt(id);
    }
}

/// The `initialize` params: protocol 1, the client's name and version, `fs` reads and
/// writes (`fs.rs`), `terminal` (chatmd runs the agent's commands: `terminal.rs`),
/// `elicitation` (form and URL questions), `plan` (plan operations).
pub(super) fn initialize() -> Value {
    let files = FileSystemCapabilities::new()
        .read_text_file(true)
        .write_text_file(true);
    let capabilities = ClientCapabilities::new().fs(files).terminal(true);
    let request = InitializeRequest::new(ProtocolVersion::V1)
        .client_capabilities(capabilities)
        .client_info(Implementation::new("chatmd", env!("CARGO_PKG_VERSION")));
    let mut params = serde_json::to_value(request).unwrap_or(Value::Null);
    // The recorded exchanges with every real agent carry only `fs` and `terminal`;
    // `auth: {terminal: false}` tells an agent nothing an absent key does not.
    if let Some(capabilities) = params
        .get_mut("clientCapabilities")
        .and_then(Value::as_object_mut)
    {
        capabilities.remove("auth");
        // Questions are asked in the file (`elicitation.rs`).
        capabilities.insert("elicitation".into(), json!({"form": {}, "url": {}}));
        // Plans by id (`plan_update`, `plan_removed`): rendered as the checklist
        // (`plan_updates.rs`). The schema has `plan` behind its unstable feature only.
        capabilities.insert("plan".into(), json!({}));
    }
    params
}

#[cfg(test)]
mod tests;
