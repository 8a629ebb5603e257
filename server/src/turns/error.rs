//! Why a turn did not run or could not be written, typed until a sink shows it (the
//! editor's message and progress, the reply to a command, `chatmd send`'s stderr). The
//! words are the user's: each variant renders the message the user reads.

use super::lock::Holder;
use crate::conversation::actions::ActionError;
use crate::conversation::prompt::PromptError;
use crate::document::DecodeError;

/// Why the document could not be read or changed.
#[derive(Debug, thiserror::Error)]
pub enum PortError {
    #[error("cannot read {path}: {source}")]
    Read {
        path: String,
        source: std::io::Error,
    },
    #[error("cannot write {path}: {source}")]
    Write {
        path: String,
        source: std::io::Error,
    },
    #[error("{path} is not a regular file but {kind}")]
    NotAFile { path: String, kind: String },
    #[error("{path}: {source}")]
    NotUtf8 { path: String, source: DecodeError },
    #[error("{path} keeps being emptied and rewritten; chatmd stopped writing it")]
    KeepsEmptied { path: String },
    #[error("{path} keeps changing on disk: the answer could not be written")]
    KeepsChanging { path: String },
    /// The chat was closed in the editor and its file is gone (deleted, or moved
    /// where no open document shows it).
    #[error(
        "{path} was closed and its file is gone (deleted or moved), so the answer has \
         nowhere to go; the turn was stopped"
    )]
    Gone { path: String },
    /// The chat was closed in the editor and was never a file (an untitled buffer).
    #[error("{uri} was closed and is not a file on disk")]
    NotOnDisk { uri: String },
    /// The editor answered an edit with an error (the protocol's words).
    #[error("the editor did not apply chatmd's edit: {message}")]
    EditFailed { message: String },
    #[error("the editor did not answer chatmd's edit within {secs}s")]
    NoAnswer { secs: u64 },
    #[error("the editor refused {times} edits in a row; the answer could not be written")]
    Refused { times: usize },
    #[error("the new sections were written but the editor did not report them")]
    NotReported,
}

impl PortError {
    /// Whether reading or writing a file failed (rather than the editor).
    pub fn is_file(&self) -> bool {
        !matches!(
            self,
            PortError::EditFailed { .. }
                | PortError::NoAnswer { .. }
                | PortError::Refused { .. }
                | PortError::NotReported
        )
    }
}

/// Why a turn (or a command about turns) did not run, or stopped.
#[derive(Debug, thiserror::Error)]
pub enum TurnError {
    /// The document could not be read or written.
    #[error(transparent)]
    Port(#[from] PortError),
    /// A command refused on the chat as it is (retry, fork, answer).
    #[error(transparent)]
    Action(#[from] ActionError),
    /// The prompt cannot be built (too large even when cut).
    #[error(transparent)]
    Prompt(#[from] PromptError),
    #[error(transparent)]
    Queue(#[from] crate::conversation::queue::QueueError),
    /// A reference of the message (`#file:`, `#diff`, `#diagnostics:`) cannot be
    /// attached; nothing was sent.
    #[error(transparent)]
    Attach(#[from] super::attach::AttachError),
    /// The member has spent its budget in this chat; it was not started.
    #[error("{0}")]
    OverBudget(String),
    #[error(
        "@{member}'s section ({id}) is no longer in the chat (deleted, or copied so that two \
         sections carry its id): the turn was stopped, and nothing more of it is written"
    )]
    SectionGone { member: String, id: String },
    #[error("@{handle} is not a member of this team")]
    NotAMember { handle: String },
    /// The member's settings come from a workspace file the user has not trusted
    /// (`team/` words the refusal).
    #[error("{why}")]
    Untrusted { why: String },
    #[error(
        "no agent kind `{agent}` (claude, codex, gemini, acp, command, or one from ~/.config/chatmd/agents.toml)"
    )]
    UnknownAgent { agent: String },
    #[error(
        "@{member} is an ACP member that names no agent: give it `preset = \"gemini\"` (or \
         another preset) or a `command` in chatmd.toml"
    )]
    NoAcpAgent { member: String },
    #[error(
        "@{member} runs a program (`agent = \"command\"`) but names none: give it a `command` \
         (and `args`) in chatmd.toml"
    )]
    NoProgram { member: String },
    #[error("`{program}` is not installed (not found on PATH).{}", install_hint(.hint, program))]
    NotInstalled {
        program: String,
        hint: Option<String>,
    },
    #[error("@{member} is already answering in this chat; wait for it or cancel it first")]
    AlreadyAnswering { member: String },
    #[error("@{member} is still answering; cancel it first")]
    StillAnswering { member: String },
    #[error("@{member} was not started: chatmd is shutting down")]
    ShuttingDown { member: String },
    /// Another process (a `chatmd send`) runs turns in the chat.
    #[error("@{member} was not asked: {holder}; wait until it ends")]
    Busy { member: String, holder: Holder },
    #[error("the answer on that line is now @{found}'s, not @{member}'s")]
    AnswerMoved { found: String, member: String },
    /// The chat changed under every attempt of a command; `again` is what to do.
    #[error("the chat kept changing; {again} again")]
    KeptChanging { again: &'static str },
    /// The agent failed: its CLI's own words, or the runner's account of the exit.
    #[error("{0}")]
    Agent(String),
    #[error("the turn ended without a result")]
    NoResult,
}

/// How to install the program, and for a built-in CLI how to log in after: a new user
/// needs both before the member can answer.
fn install_hint(hint: &Option<String>, program: &str) -> String {
    let Some(hint) = hint else {
        return String::new();
    };
    let name = program.rsplit('/').next().unwrap_or(program);
    match crate::agents::AgentKind::ALL
        .iter()
        .find(|kind| kind.binary() == name)
    {
        Some(&kind) => format!(
            " Install it with `{hint}`, then log in: {}.",
            crate::agents::kinds::spec_of(kind).login.phrase("")
        ),
        None => format!(" Install it with `{hint}`."),
    }
}
