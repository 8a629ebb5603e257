//! Agent Client Protocol members: any agent that speaks ACP (`gemini --acp`,
//! `claude-agent-acp`, `codex-acp`, goose, opencode, …) as a two-way [`Session`].
//!
//! A turn is one agent process: `initialize` (protocol 1, `fs` offered: `fs.rs`; no
//! `terminal`), then on its result `session/resume` of the member's
//! last session or `session/new` in the member's workdir, then the member's mode,
//! model and options, one request each, and `session/prompt` (`setup.rs`,
//! `settings.rs`, `offered.rs`). The `session/update` stream becomes answer text,
//! thoughts, the plan, tool lines and usage (`updates.rs`, `calls.rs`), and the
//! session's settings as they change;
//! `session/request_permission` becomes an [`AgentEvent::Permission`] answered by a
//! [`SessionCommand::Answer`] (`permission.rs`); a cancel sends `session/cancel` and
//! answers every waiting request `cancelled`. The prompt's result ends the turn
//! (`ending.rs`) and stdin is closed: each agent exits when its stdin closes. No
//! `session/close` is sent: the process ends with the turn, and closing would only free
//! what its exit frees (claude-agent-acp and codex-acp keep the session on disk either
//! way, so a later `session/resume` in a new process works the same; docs/agents.md).
//!
//! `fs/read_text_file` and `fs/write_text_file` become an [`AgentEvent::File`] answered
//! by a [`SessionCommand::File`] (`fs.rs`); `elicitation/create` becomes a question
//! asked like a permission (`elicitation.rs`); `terminal/*` runs the agent's commands
//! in chatmd's hands (`terminal.rs`). Requests of the agent's that chatmd does not
//! implement (anything unknown) are answered "method not found";
//! unknown notifications and lines that are not JSON-RPC are ignored (agents may print
//! noise on stdout). The protocol crate gives the message types only: the runner owns
//! the process, its limits and its stderr.

mod calls;
mod commands;
mod context;
mod costs;
mod elicitation;
mod ending;
mod fs;
mod incoming;
mod mcp;
mod offered;
mod permission;
mod plan;
mod plan_updates;
mod rpc;
mod settings;
mod setup;
mod steering;
mod terminal;
mod updates;
mod warm;

pub use crate::agent_config::{AcpPreset, PRESETS, preset_named, preset_names, preset_of_program};
pub use crate::agent_config::{McpServer, McpTransport};
pub use context::PromptAttachment;
pub use ending::Login;
pub use permission::summary as permission_summary;
pub(crate) use plan::plan;
pub use plan::{install_hint, member_preset, program};
pub use settings::{SessionSettings, SessionSetup, SettingValue};

use std::collections::VecDeque;
use std::path::PathBuf;

use agent_client_protocol::v1::schema::CancelNotification;
use serde_json::Value;

use super::output::sanitize;
use super::reader::Turn;
use super::session::{Outbox, Session, SessionCommand};
use super::{AgentEvent, ExitInfo, Invocation};
use offered::Offered;
use permission::Permissions;
use rpc::Incoming;
use settings::Change;
use updates::Stream;

/// How long an ACP agent may take to exit once its prompt is answered and its stdin
/// closed, before it is asked to stop; gemini and claude-agent-acp exit at once.
pub const ACP_LINGER: std::time::Duration = std::time::Duration::from_millis(300);
/// How long a turn's end waits for the commands it killed to be gone: a `SIGKILL`
/// takes when the process next runs, well within this even on a loaded machine.
const REAP_WITHIN: std::time::Duration = std::time::Duration::from_secs(2);
/// How long an adapter that saves as it exits may take to exit after an answer.
const SAVING_EXIT_GRACE: std::time::Duration = std::time::Duration::from_secs(10);

/// Which of our requests the agent has yet to answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Waiting {
    Initialize(i64),
    NewSession(i64),
    /// `session/resume` of the session the turn continues.
    Resume(i64),
    /// `session/fork` of the session the turn branches off (`forking`).
    Fork(i64),
    /// A `session/set_config_option` or `session/set_mode` of the member's settings.
    Setting(i64),
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
    /// The member's settings and the workspace root.
    setup: SessionSetup,
    /// The `additionalDirectories` of the session: the workspace root, where the
    /// agent takes them and the member works elsewhere.
    roots: Vec<PathBuf>,
    /// The member's MCP servers the agent takes, as sent in `session/new` and
    /// `session/resume` (`mcp.rs`).
    mcp_servers: Vec<Value>,
    /// What the session offers to be set, as the agent last told it.
    offered: Offered,
    /// The member's settings still to apply, the first one in flight.
    changes: VecDeque<Change>,
    /// A setting was applied (the options are told again).
    settings_changed: bool,
    /// The model the member set, now in force.
    model_set: Option<String>,
    /// The prompt, held until the session exists.
    prompt: Option<String>,
    /// The agent takes `resource` blocks (`promptCapabilities.embeddedContext`).
    embedded_context: bool,
    next_id: i64,
    waiting: Waiting,
    /// The ACP session id, once `session/new` answered.
    session: Option<String>,
    /// The session this turn continues, and the prompt for it (only what is new since
    /// its last turn); the whole prompt is `prompt`, for a new session.
    resume: Option<(String, String)>,
    /// The session in `resume` is branched off with `session/fork` (the chat is a fork
    /// of the one that session belongs to), not continued.
    fork: bool,
    /// A cancel was sent: later permission requests are answered `cancelled` at once.
    cancelled: bool,
    /// The agent advertised `_session/steering` (`steering.rs`).
    steering: bool,
    /// The agent saves state as it exits after its stdin closes (`costs.rs`).
    saves_on_exit: bool,
    /// Our steering request waiting for its answer.
    steer_request: Option<i64>,
    permissions: Permissions,
    files: fs::FileRequests,
    /// The commands the agent runs through chatmd (`terminal/*`).
    terminals: terminal::Terminals,
    /// The agent's questions (`elicitation/create`) waiting for the user.
    questions: elicitation::Questions,
    stream: Stream,
    login: Login,
    /// The agent's name in messages, and the last stray stdout line.
    turn: Turn,
    /// Whether the process stays open for the member's next turn (`warm.rs`).
    warm: warm::Keeping,
}

impl AcpSession {
    /// A session for an agent named `agent` in messages, working in `cwd`, whose login
    /// advice is `login`.
    pub fn new(agent: &str, cwd: PathBuf, login: Login) -> AcpSession {
        let stream = Stream::new(cwd.clone());
        AcpSession {
            cwd,
            setup: SessionSetup::default(),
            roots: Vec::new(),
            mcp_servers: Vec::new(),
            offered: Offered::default(),
            changes: VecDeque::new(),
            settings_changed: false,
            model_set: None,
            prompt: None,
            embedded_context: false,
            next_id: 1,
            waiting: Waiting::Nothing,
            session: None,
            resume: None,
            fork: false,
            cancelled: false,
            steering: false,
            saves_on_exit: false,
            steer_request: None,
            permissions: Permissions::default(),
            files: fs::FileRequests::default(),
            terminals: terminal::Terminals::default(),
            questions: elicitation::Questions::default(),
            stream,
            login,
            turn: Turn::new(agent),
            warm: warm::Keeping::default(),
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
        // Known before the process starts (its agent guard is told how long to let what
        // it leaves behind save the session); `initialize` then says for sure.
        let saves_on_exit = login.kind == Some(crate::agent_config::AgentKind::Claude);
        let mut session = AcpSession::new(file, invocation.cwd.clone(), login)
            .with_setup(invocation.session.clone());
        session.saves_on_exit = saves_on_exit;
        session
    }

    /// The session applies the member's settings in `setup` and offers the workspace
    /// root in it as an additional root.
    pub fn with_setup(mut self, setup: SessionSetup) -> AcpSession {
        self.setup = setup;
        self
    }

    /// The turn continues `session`, with `prompt` (what is new since its last turn),
    /// by `session/resume` where the agent offers it; else, or when the agent has lost
    /// the session, it is a new session with the whole prompt.
    pub fn resuming(mut self, session: String, prompt: String) -> AcpSession {
        self.resume = Some((session, prompt));
        self
    }

    /// The turn branches `session` off with `session/fork` where the agent offers it
    /// (`sessionCapabilities.fork`) and prompts the new session with `prompt` (what is
    /// new since the session's last turn); else it is a new session with the whole
    /// prompt.
    pub fn forking(mut self, session: String, prompt: String) -> AcpSession {
        self.resume = Some((session, prompt));
        self.fork = true;
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
        // What the turn's end says (cancelled, a kill asked) holds once it is written.
        self.terminals.reap_killed(REAP_WITHIN);
        self.waiting = Waiting::Nothing;
        self.turn.finished = true;
        out.close_input = self.warm.closes_after(&event);
        out.push(event);
    }
}

impl Session for AcpSession {
    fn start(&mut self, prompt: Option<String>, out: &mut Outbox) {
        self.prompt = Some(prompt.unwrap_or_default());
        let id = self.send("initialize", setup::initialize(), out);
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
                    self.update(update, out);
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
                let answer = self.permissions.answer(&request, &outcome);
                match answer.or_else(|| self.questions.answer(&request, &outcome)) {
                    Some(line) => {
                        out.write(line);
                        true
                    }
                    None => false,
                }
            }
            SessionCommand::File { request, outcome } => self.file_answered(&request, outcome, out),
            SessionCommand::Cancel => {
                // Before the prompt there is nothing to cancel the agent's way: the
                // runner stops the process.
                let (Waiting::Prompt(_), Some(session)) = (self.waiting, &self.session) else {
                    return false;
                };
                let cancel = CancelNotification::new(session.clone());
                out.write(rpc::notification("session/cancel", cancel));
                out.write(self.permissions.cancel_all());
                out.write(self.questions.cancel_all());
                self.terminals.kill_all();
                self.cancelled = true;
                true
            }
            SessionCommand::Input(text) => self.steer(&text, out),
        }
    }

    fn records_traffic(&self) -> bool {
        true
    }

    fn set_waker(&mut self, waker: super::session::Waker) {
        self.terminals.set_waker(waker);
    }

    fn woken(&mut self, out: &mut Outbox) {
        if !self.turn.finished {
            self.terminals_woken(out);
        }
    }

    fn linger(&self) -> Option<std::time::Duration> {
        // codex-acp stays 2 s after its stdin closes (shutting its app server down),
        // which held the turn's status at `streaming` for 2 s more than the answer
        // (measured against the real adapters, docs/real-cli-measurements.md); its
        // session is saved by the prompt's result. claude's is not: it is asked to stop
        // only when the runner's grace is over.
        (!self.saves_on_exit).then_some(ACP_LINGER)
    }

    fn exit_after_answer_counts(&self) -> bool {
        // gemini --acp 0.61 now and then exits 1 after a complete `end_turn` answer
        // (its model router complaining on stderr as it shuts down, 2-3 times per
        // matrix run): the answer and the session are whole, so the turn is done and
        // its status comment keeps `exit=1`.
        false
    }

    fn exit_grace(&self) -> std::time::Duration {
        // The claude adapters write the session's cost record as they exit: 0.04-0.23 s
        // on a quiet machine, over 2 s with the CPU busy (the record was lost, and the
        // next turn's running cost started from zero, under load 24 on 2 cores).
        if self.saves_on_exit {
            SAVING_EXIT_GRACE
        } else {
            std::time::Duration::ZERO
        }
    }

    fn live_session(&self) -> Option<&str> {
        self.session.as_deref().filter(|_| self.warm.resumable)
    }

    fn again(&mut self, invocation: &Invocation, out: &mut Outbox) -> bool {
        self.prompt_again(invocation, out)
    }

    fn afresh(&mut self) -> bool {
        self.warm.afresh = true;
        true
    }

    fn finish(&mut self, exit: &ExitInfo, out: &mut Outbox) {
        // The agent is gone: nothing can release its commands any more.
        self.terminals.kill_all();
        self.terminals.reap_killed(REAP_WITHIN);
        if self.turn.exited() {
            ending::exited(&self.turn, exit, &self.login, out);
        }
    }
}
