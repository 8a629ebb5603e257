//! Agent Client Protocol members: any agent that speaks ACP (`gemini --acp`,
//! `claude-agent-acp`, `codex-acp`, goose, opencode, …) as a two-way [`Session`].
//!
//! A turn is one new ACP session: `initialize` (protocol 1, no `fs`, no `terminal`:
//! agents use their own tools), then on its result `session/new` in the member's
//! workdir, then on that result `session/prompt` with the whole prompt. The
//! `session/update` stream becomes answer text and tool lines (`updates.rs`);
//! `session/request_permission` becomes an [`AgentEvent::Permission`] answered by a
//! [`SessionCommand::Answer`] (`permission.rs`); a cancel sends `session/cancel` and
//! answers every waiting request `cancelled`. The prompt's result ends the turn
//! (`ending.rs`) and stdin is closed: each agent exits when its stdin closes.
//!
//! Requests of the agent's that chatmd does not implement (`fs/*`, `terminal/*`,
//! `elicitation/create`, anything unknown) are answered "method not found";
//! unknown notifications and lines that are not JSON-RPC are ignored (agents may print
//! noise on stdout). The protocol crate gives the message types only: the runner owns
//! the process, its limits and its stderr.

mod ending;
mod permission;
mod plan;
mod presets;
mod rpc;
mod updates;

pub use ending::Login;
pub use permission::summary as permission_summary;
pub(crate) use plan::plan;
pub use plan::{install_hint, member_preset, program};
pub use presets::{AcpPreset, PRESETS, preset_named, preset_names, preset_of_program};

use std::path::PathBuf;

use agent_client_protocol::schema::ProtocolVersion;
use agent_client_protocol::v1::schema::{
    CancelNotification, ClientCapabilities, ContentBlock, Error, FileSystemCapabilities,
    Implementation, InitializeRequest, NewSessionRequest, PromptRequest, RequestId, TextContent,
};
use serde_json::{Value, json};

use super::output::sanitize;
use super::reader::Turn;
use super::session::{Outbox, Session, SessionCommand};
use super::{AgentEvent, ExitInfo, Invocation};
use permission::{Asking, Permissions};
use rpc::{AgentError, Incoming};
use updates::Stream;

/// Which of our requests the agent has yet to answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Waiting {
    Initialize(i64),
    NewSession(i64),
    /// `session/resume` of the session the turn continues.
    Resume(i64),
    Prompt(i64),
    /// The turn is over (answered, failed, or not started).
    Nothing,
}

/// One turn of an ACP agent. Build it with [`AcpSession::new`] (or
/// [`AcpSession::for_turn`]) and hand it to the runner with the turn's invocation.
#[derive(Debug)]
pub struct AcpSession {
    /// The working folder, sent as the session's `cwd`.
    cwd: PathBuf,
    /// The prompt, held until the session exists.
    prompt: Option<String>,
    next_id: i64,
    waiting: Waiting,
    /// The ACP session id, once `session/new` answered.
    session: Option<String>,
    /// The session this turn continues, and the prompt for it (only what is new since
    /// its last turn); the whole prompt is `prompt`, for a new session.
    resume: Option<(String, String)>,
    /// A cancel was sent: later permission requests are answered `cancelled` at once.
    cancelled: bool,
    permissions: Permissions,
    stream: Stream,
    login: Login,
    /// The agent's name in messages, and the last stray stdout line.
    turn: Turn,
}

impl AcpSession {
    /// A session for an agent named `agent` in messages, working in `cwd`, whose login
    /// advice is `login`.
    pub fn new(agent: &str, cwd: PathBuf, login: Login) -> AcpSession {
        AcpSession {
            cwd,
            prompt: None,
            next_id: 1,
            waiting: Waiting::Nothing,
            session: None,
            resume: None,
            cancelled: false,
            permissions: Permissions::default(),
            stream: Stream::default(),
            login,
            turn: Turn::new(agent),
        }
    }

    /// The session of a turn planned as `invocation`: its working folder, and the name
    /// and login of the program it runs (a preset's CLI is known by its file name).
    pub fn for_turn(invocation: &Invocation) -> AcpSession {
        let file = invocation
            .program
            .rsplit('/')
            .next()
            .unwrap_or(&invocation.program);
        let login = Login {
            kind: preset_of_program(file).and_then(|preset| preset.kind),
            program: file.to_owned(),
            methods: Vec::new(),
        };
        AcpSession::new(file, invocation.cwd.clone(), login)
    }

    /// The turn continues `session`, with `prompt` (what is new since its last turn),
    /// by `session/resume` where the agent offers it; else, or when the agent has lost
    /// the session, it is a new session with the whole prompt.
    pub fn resuming(mut self, session: String, prompt: String) -> AcpSession {
        self.resume = Some((session, prompt));
        self
    }

    fn send<P: serde::Serialize>(&mut self, method: &str, params: P, out: &mut Outbox) -> i64 {
        let id = self.next_id;
        self.next_id += 1;
        out.write(rpc::request(id, method, params));
        id
    }

    /// Ends the turn with `event` (its `Done` or `Failed`) and closes stdin.
    fn end(&mut self, event: AgentEvent, out: &mut Outbox) {
        self.waiting = Waiting::Nothing;
        self.turn.finished = true;
        out.push(event);
        out.close_input = true;
    }

    fn response(&mut self, id: &RequestId, outcome: Result<Value, AgentError>, out: &mut Outbox) {
        let (step, waited) = match self.waiting {
            Waiting::Initialize(n) => ("initialize", n),
            Waiting::NewSession(n) => ("session/new", n),
            Waiting::Resume(n) => ("session/resume", n),
            Waiting::Prompt(n) => ("session/prompt", n),
            Waiting::Nothing => return,
        };
        if *id != RequestId::Number(waited) {
            tracing::debug!("ACP response to no request of ours: {id}");
            return;
        }
        let result = match outcome {
            Ok(result) => result,
            Err(error) if matches!(self.waiting, Waiting::Resume(_)) => {
                // The agent lost the session: the turn goes on as a new one.
                let message = format!("{step}: {}", error.message);
                out.push(AgentEvent::SessionNotFound { message });
                self.resume = None;
                return self.new_session(out);
            }
            Err(error) => {
                let failed = ending::refused(step, &self.turn.agent, &error, &self.login);
                return self.end(failed, out);
            }
        };
        match self.waiting {
            Waiting::Initialize(_) => self.initialized(&result, out),
            Waiting::NewSession(_) => self.created(&result, out),
            Waiting::Resume(_) => self.resumed(&result, out),
            _ => self.end(ending::done(&result), out),
        }
    }

    fn initialized(&mut self, result: &Value, out: &mut Outbox) {
        let version = result.get("protocolVersion").and_then(Value::as_u64);
        if version.is_some_and(|v| v != 1) {
            let message = format!(
                "{} speaks ACP version {}; chatmd speaks version 1",
                self.turn.agent,
                version.unwrap_or_default()
            );
            return self.end(AgentEvent::Failed { message }, out);
        }
        self.login.methods = result
            .get("authMethods")
            .and_then(Value::as_array)
            .map(|methods| {
                let name = |m: &Value| m.get("name").and_then(Value::as_str).map(str::to_owned);
                methods.iter().filter_map(name).collect()
            })
            .unwrap_or_default();
        if let Some((session, _)) = &self.resume {
            // Only `session/resume` continues a session here. `session/load` replays the
            // history as updates, and gemini (the one real agent without resume) sends
            // part of that replay after its answer to the load, where nothing tells it
            // from the new answer; its load also fails within the minute the session
            // was made (gemini-cli #28693). Such an agent starts a new session with the
            // whole chat instead.
            let resumes = result
                .pointer("/agentCapabilities/sessionCapabilities/resume")
                .is_some_and(|v| !v.is_null());
            if resumes {
                let params = json!({"sessionId": session, "cwd": self.cwd, "mcpServers": []});
                let id = self.send("session/resume", params, out);
                self.waiting = Waiting::Resume(id);
                return;
            }
            self.resume = None;
        }
        self.new_session(out);
    }

    fn new_session(&mut self, out: &mut Outbox) {
        let params = NewSessionRequest::new(self.cwd.clone());
        let id = self.send("session/new", params, out);
        self.waiting = Waiting::NewSession(id);
    }

    /// The session to continue is back: the turn prompts it with what is new.
    fn resumed(&mut self, result: &Value, out: &mut Outbox) {
        let Some((session, prompt)) = self.resume.take() else {
            return self.new_session(out);
        };
        out.push(AgentEvent::Started {
            session: Some(session.clone()),
            model: model(result),
        });
        self.prompt = Some(prompt);
        self.prompt_session(session, out);
    }

    fn created(&mut self, result: &Value, out: &mut Outbox) {
        let Some(session) = result.get("sessionId").and_then(Value::as_str) else {
            let message = format!("{} created a session without an id", self.turn.agent);
            return self.end(AgentEvent::Failed { message }, out);
        };
        out.push(AgentEvent::Started {
            session: Some(session.to_owned()),
            model: model(result),
        });
        self.prompt_session(session.to_owned(), out);
    }

    fn prompt_session(&mut self, session: String, out: &mut Outbox) {
        self.session = Some(session.clone());
        let prompt = self.prompt.take().unwrap_or_default();
        let text = ContentBlock::Text(TextContent::new(prompt));
        let params = PromptRequest::new(session, vec![text]);
        let id = self.send("session/prompt", params, out);
        self.waiting = Waiting::Prompt(id);
    }

    fn request(&mut self, id: RequestId, method: &str, params: Value, out: &mut Outbox) {
        if method != "session/request_permission" {
            tracing::debug!("ACP request not implemented: {method}");
            out.write(rpc::error(&id, Error::method_not_found()));
            return;
        }
        match self.permissions.ask(id, params, &mut self.stream) {
            Asking::Answered(line) => out.write(line),
            Asking::User(request) if self.cancelled => {
                let cancelled = super::PermissionOutcome::Cancelled;
                out.write(
                    self.permissions
                        .answer(&request.id, &cancelled)
                        .unwrap_or_default(),
                );
            }
            Asking::User(request) => {
                self.stream.block_ends();
                out.push(AgentEvent::Permission(Box::new(request)));
            }
        }
    }
}

/// The model a new session reports: `models.currentModelId`, else the current value of
/// a `model` config option.
fn model(result: &Value) -> Option<String> {
    let current = result
        .pointer("/models/currentModelId")
        .and_then(Value::as_str);
    let option = || {
        result
            .get("configOptions")?
            .as_array()?
            .iter()
            .find(|o| o.get("category").and_then(Value::as_str) == Some("model"))?
            .get("currentValue")?
            .as_str()
    };
    current.or_else(option).map(str::to_owned)
}

/// The `initialize` params: protocol 1, the client's name and version, and nothing it
/// does not implement (no `fs`, no `terminal`).
fn initialize() -> Value {
    let capabilities = ClientCapabilities::new()
        .fs(FileSystemCapabilities::new())
        .terminal(false);
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
    }
    params
}

impl Session for AcpSession {
    fn start(&mut self, prompt: Option<String>, out: &mut Outbox) {
        self.prompt = Some(prompt.unwrap_or_default());
        let id = self.send("initialize", initialize(), out);
        self.waiting = Waiting::Initialize(id);
    }

    fn line(&mut self, line: &str, out: &mut Outbox) {
        if self.turn.finished {
            return;
        }
        match rpc::read(line) {
            Some(Incoming::Response { id, outcome }) => self.response(&id, outcome, out),
            Some(Incoming::Request { id, method, params }) => {
                self.request(id, &method, params, out);
            }
            Some(Incoming::Notification { method, params }) => {
                if method == "session/update"
                    && let Value::Object(mut params) = params
                    && let Some(update) = params.remove("update")
                {
                    self.stream.update(update, &mut out.events);
                } else {
                    tracing::trace!("ACP notification ignored: {method}");
                }
            }
            None if line.trim().is_empty() => {}
            None => {
                tracing::debug!(agent = %self.turn.agent, "not a JSON-RPC line: {line}");
                self.turn.stray = Some(sanitize(line.trim()));
            }
        }
    }

    fn command(&mut self, command: SessionCommand, out: &mut Outbox) -> bool {
        match command {
            SessionCommand::Answer { request, outcome } => {
                match self.permissions.answer(&request, &outcome) {
                    Some(line) => {
                        out.write(line);
                        true
                    }
                    None => false,
                }
            }
            SessionCommand::Cancel => {
                // Before the prompt there is nothing to cancel the agent's way: the
                // runner stops the process.
                let (Waiting::Prompt(_), Some(session)) = (self.waiting, &self.session) else {
                    return false;
                };
                let cancel = CancelNotification::new(session.clone());
                out.write(rpc::notification("session/cancel", cancel));
                out.write(self.permissions.cancel_all());
                self.cancelled = true;
                true
            }
            SessionCommand::Input(_) => false,
        }
    }

    fn records_traffic(&self) -> bool {
        true
    }

    fn finish(&mut self, exit: &ExitInfo, out: &mut Outbox) {
        if self.turn.exited() {
            out.push(ending::exited(&self.turn, exit, &self.login));
        }
    }
}
