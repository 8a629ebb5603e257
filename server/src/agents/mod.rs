//! Agent adapters: how each kind of CLI (claude, codex, gemini, any command, any ACP
//! agent) is started for one turn (an [`Invocation`]) and the [`Session`] that talks
//! with it: its output lines become normalized [`AgentEvent`]s, and commands from the
//! user's side become its input. Also the other facts only this folder knows about
//! CLIs: where its program is found (`program.rs`) and its version (`probe.rs`). The
//! built-in kinds' static facts and the ACP presets are plain data in
//! `crate::agent_config` (below `team/`, which needs them too), re-exported here. No
//! tokio, no LSP types; the runner executes what an adapter describes.

pub mod acp;
mod activity;
pub mod ask_mode;
mod auth;
pub mod command;
mod fields;
mod files;
mod json;
pub mod kinds;
mod offers;
mod output;
mod permissions;
mod plan;
pub mod probe;
pub mod program;
pub mod provenance;
mod reader;
pub mod registry;
mod resume;
mod session;
pub mod session_id;
mod tools;
pub mod transcripts;
pub mod versions;

pub use crate::agent_config::{AgentKind, UnknownAgentKind};

// Each built-in kind's folder (`claude.rs` and `claude/`, …), from the one list of kinds
// in `agent_config/kind.rs`.
crate::agent_config::declare_kind_folders!();
pub use crate::team::{cli_kind, role_files_loaded};
pub use activity::{
    CallStatus, CallView, ContextUsage, FileDiff, PlanEntry, StepStatus, cost_words,
};
pub use files::{FileOp, FileOutcome, FileRefusal, FileRequest};
pub use offers::{AgentCommand, AuthMethod, ConfigChoice, ConfigValue};
pub use output::{code_span, sanitize};
pub use plan::{ARGUMENT_LIMIT, DEFAULT_IDLE, DEFAULT_TOTAL};
pub use provenance::configured_model;
pub use registry::{
    AcpSpec, Adapter, AgentEntry, CommandOutput, CommandSpec, JsonPointers, PromptDelivery,
    Registry,
};
pub use session::{
    AskedPlan, Headless, Outbox, PermissionKind, PermissionOption, PermissionOutcome,
    PermissionRequest, RequestId, Session, SessionCommand,
};

use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

use crate::team::Member;

/// Everything needed to start one turn of an agent CLI.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Invocation {
    /// The program to run (a bare name is looked up on `PATH` by the runner).
    pub program: String,
    pub args: Vec<String>,
    /// Variables added to (or overriding) the inherited environment.
    pub env: Vec<(String, String)>,
    /// Folders to create before the start (e.g. `CODEX_HOME`, which must exist).
    pub create_dirs: Vec<PathBuf>,
    pub cwd: PathBuf,
    pub stdin: Stdin,
    pub limits: Limits,
    /// How to install the CLI, for the "not installed" message.
    pub install_hint: Option<String>,
    /// What an ACP session of this turn asks for besides the prompt (the member's
    /// mode, model and options, the workspace root); empty for a headless CLI.
    pub session: acp::SessionSetup,
}

/// What the child's standard input is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stdin {
    /// `/dev/null`: the prompt is in the arguments.
    Null,
    /// A pipe, and the prompt the session writes to it: a headless CLI's session writes
    /// it as it is and closes the pipe (the CLIs read to the end of file); a two-way
    /// protocol's writes it in its own messages and keeps the pipe open while it lives.
    Prompt(String),
}

/// When a turn ends, besides the adapter's own completion event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Ends the turn when the CLI prints nothing for this long. It starts when the
    /// prompt is sent, so a CLI that never says anything does not wait for `total`.
    pub idle: Option<Duration>,
    /// Ends the turn after this long, whatever happens.
    pub total: Duration,
    /// Whether the output has a completion event (claude/gemini `result`, codex
    /// `turn.completed`); without one the turn ends when the process exits.
    pub has_completion_event: bool,
}

/// Token counts, when the agent reports them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Usage {
    pub input_tokens: u64,
    pub output_tokens: u64,
}

/// Which usage reports of a run are the session's running totals (codex's
/// `turn.completed.usage` on `exec resume`; claude's `total_cost_usd` on `--resume`
/// from 2.1.332 on).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RunningTotals {
    pub tokens: bool,
    pub cost: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ToolStatus {
    Started,
    Completed,
    Failed,
}

/// A retry the CLI announced: a request failed and it tries again (claude's
/// `system/api_retry`, codex's `Reconnecting... 2/5 (...)`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Retry {
    /// Which attempt this is, when the CLI counts them.
    pub attempt: Option<u64>,
    /// How many it will make at most, when it says.
    pub max: Option<u64>,
    /// Why, in the CLI's words (`529 Overloaded`, `stream disconnected ...`).
    pub reason: String,
}

impl fmt::Display for Retry {
    /// `retrying (3/10): 529 Overloaded`, as the terminal and the editor show it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("retrying")?;
        match (self.attempt, self.max) {
            (Some(attempt), Some(max)) => write!(f, " ({attempt}/{max})")?,
            (Some(attempt), None) => write!(f, " ({attempt})")?,
            _ => {}
        }
        if !self.reason.is_empty() {
            write!(f, ": {}", self.reason)?;
        }
        Ok(())
    }
}

/// A tool call the CLI refused on its own because it needs an approval nobody could
/// give in a headless run (claude's `result.permission_denials`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Denial {
    /// The tool's name (`Bash`, `Write`).
    pub tool: String,
    /// What it would have acted on (a command, a path), first line, if anything.
    pub input: Option<String>,
}

/// One normalized thing an agent did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AgentEvent {
    /// The session is known (first line of every CLI's JSON output).
    Started {
        session: Option<String>,
        model: Option<String>,
    },
    /// The model that actually answered, when it differs from what `Started` said
    /// (gemini starts as `auto` and names the routed model at the end).
    Model(String),
    /// The session mode in force, when the member set one (ACP `mode`).
    Mode(String),
    /// Answer text to append, already clean Markdown.
    Text(String),
    /// Tool activity, summarized in one line (`Bash: cargo test`). `id` ties the
    /// start of a call to its end; `detail` is the first line of a failure.
    Tool {
        id: Option<String>,
        summary: String,
        status: ToolStatus,
        detail: Option<String>,
    },
    /// The CLI retries a failed request; the turn goes on.
    Retry(Retry),
    /// Tool calls the CLI refused for want of an approval, and the member arguments
    /// that would allow them (`--allowedTools Bash(touch:*) Write`).
    Denied {
        denials: Vec<Denial>,
        allow: Vec<String>,
    },
    /// A usage report in the middle of a turn.
    Usage(Usage),
    /// The turn completed successfully.
    Done {
        stop_reason: Option<String>,
        usage: Option<Usage>,
    },
    /// The turn failed; `message` is the agent's own words where it gave any.
    Failed { message: String },
    /// Something worth a line in the log (a non-fatal error, a skipped line).
    Notice(String),
    /// The CLI could not find the session it was asked to resume (`message`: its own
    /// words). A `Failed` follows; the turn may run again as a new session.
    SessionNotFound { message: String },
    /// The agent has no way to continue a session (an ACP agent that offers no
    /// `session/resume`): the turn runs in a new session with the whole prompt, and
    /// the next turn will too, so no session remembers anything the file could
    /// contradict.
    SessionNotResumable,
    /// The agent asks the user's approval and waits: the answer goes back as a
    /// [`SessionCommand::Answer`] with the request's id. Only ACP agents ask (the
    /// headless CLIs cannot ask anyone). Boxed: it is the largest event by far.
    Permission(Box<PermissionRequest>),
    /// The agent reads or writes a file through chatmd and waits: the answer goes back
    /// as a [`SessionCommand::File`] with the request's id (ACP agents only, `files.rs`).
    File(Box<FileRequest>),
    /// A piece of the agent's thinking (ACP `agent_thought_chunk`), clean like `Text`.
    Thought(String),
    /// The agent's plan, whole (each report replaces the last).
    Plan(Vec<PlanEntry>),
    /// One tool call of an ACP agent as it stands now (shown as a line updated in
    /// place); the headless CLIs report [`AgentEvent::Tool`] instead.
    Call(Box<CallView>),
    /// How full the context window is and what the session cost (ACP `usage_update`).
    Context(ContextUsage),
    /// What this run cost, with its currency (`0.0023 USD`; claude's `total_cost_usd`).
    Cost(String),
    /// Which of this run's reports (`Done`'s tokens, `Cost`) are the session's running
    /// totals rather than the run's own: the turn records the difference from the
    /// session's previous report.
    RunningTotals(RunningTotals),
    /// The commands the agent takes after `/`, whole (each report replaces the last).
    Commands(Vec<AgentCommand>),
    /// The settings the session offers, whole (each report replaces the last).
    Options(Vec<ConfigChoice>),
    /// The agent needs a login before it can answer: `advice` says what to run (one
    /// line, the same words as the `Failed` that follows), `methods` what it offers.
    LoginNeeded {
        advice: String,
        methods: Vec<AuthMethod>,
    },
    /// What became of a [`SessionCommand::Input`]: `injected` when the agent took it
    /// into the running turn (its answer goes on in the same turn), else not taken and
    /// the message is still the caller's to send; `outcome` is the agent's word for it
    /// (`injected`, `promptRequired`, an error), for the log.
    Steered { injected: bool, outcome: String },
}

/// How the process ended, given to the parser when output is over.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExitInfo {
    /// The exit code, or None when killed by a signal.
    pub code: Option<i32>,
    /// The last lines of stderr, for error messages.
    pub stderr_tail: String,
}

/// Turns a headless CLI's stdout lines into events. One parser per turn; a
/// [`Headless`] session runs it.
///
/// Events are appended to a vector the caller owns and reuses: most lines give one
/// event or none, and a vector per line would cost an allocation each.
pub trait OutputParser: Send {
    /// One line of stdout, without its line break (it may be invalid JSON or text):
    /// appends its events to `out`.
    fn line(&mut self, line: &str, out: &mut Vec<AgentEvent>);
    /// The process has exited and stdout is closed: appends the final `Done` or
    /// `Failed` if the output did not already end the turn.
    fn finish(&mut self, exit: &ExitInfo, out: &mut Vec<AgentEvent>);
}

/// The command line of one turn: `entry`'s program in the member's workdir, with the
/// role (`system`, already built by the prompt builder; empty for none) delivered the
/// way the entry's CLI takes it, and `body` as the prompt. `resume` is the agent's own
/// session id from the member's last turn; it is used only when the member resumes
/// (it does unless `resume = false`).
pub fn plan_turn(
    entry: &AgentEntry,
    member: &Member,
    system: &str,
    body: &str,
    resume: Option<&str>,
) -> Invocation {
    let turn = plan::TurnSpec {
        entry,
        member,
        system,
        body,
        // The adapters trust this to be no option: a CLI gets only its own id's shape
        // (the turn that found another one already said so and starts a new session).
        resume: plan::resume_session(member, resume).filter(|id| {
            entry
                .adapter
                .kind()
                .is_none_or(|kind| session_id::is_cli_session_id(kind, id))
        }),
    };
    match &entry.adapter {
        Adapter::Cli(kind) => (kinds::spec_of(*kind).plan)(&turn),
        Adapter::Command(spec) => command::plan(&turn, spec),
        Adapter::Acp(spec) => acp::plan(&turn, spec),
    }
}

/// A fresh parser for one turn of a headless `entry`. An ACP entry has none (it is a
/// two-way [`Session`]: see [`session_for`]); its parser fails the turn saying so.
pub fn parser_for(entry: &AgentEntry) -> Box<dyn OutputParser> {
    match &entry.adapter {
        Adapter::Cli(kind) => (kinds::spec_of(*kind).parser)(&entry.name),
        Adapter::Command(spec) => Box::new(command::CommandParser::new(&entry.name, &spec.output)),
        Adapter::Acp(_) => Box::new(NotHeadless(entry.name.clone())),
    }
}

/// A fresh session for one turn of `entry` planned as `invocation` (by [`plan_turn`]):
/// the headless CLIs' [`Headless`] session, or an ACP agent's [`acp::AcpSession`],
/// which needs the turn's working folder and program.
pub fn session_for(entry: &AgentEntry, invocation: &Invocation) -> Box<dyn Session> {
    match &entry.adapter {
        Adapter::Acp(_) => Box::new(acp::AcpSession::for_turn(invocation)),
        // A warm member's process, which reads its messages on stdin (`turns/warm`).
        Adapter::Cli(kind) => match &kinds::spec_of(*kind).further_prompts {
            Some(further) if (further.reads_them)(invocation) => (further.session)(&entry.name),
            _ => Box::new(Headless::new(parser_for(entry))),
        },
        _ => Box::new(Headless::new(parser_for(entry))),
    }
}

/// The parser of an ACP entry run as a headless CLI, which it is not: the turn fails
/// with that, not with silence.
struct NotHeadless(String);

impl OutputParser for NotHeadless {
    fn line(&mut self, _line: &str, _out: &mut Vec<AgentEvent>) {}

    fn finish(&mut self, _exit: &ExitInfo, out: &mut Vec<AgentEvent>) {
        out.push(AgentEvent::Failed {
            message: format!(
                "{} speaks ACP, a two-way protocol; it runs as a session, not as a headless CLI",
                self.0
            ),
        });
    }
}
