//! A turn as a conversation with the agent's process, from the adapter's side. Pure:
//! the runner does the I/O. It starts the process, hands the session the prompt, each
//! stdout line and each command from the user's side (an answer to a permission
//! request, cancel, more input), and after each call forwards the events the session
//! produced and writes the bytes it produced to the agent's stdin.
//!
//! - A headless CLI (claude `-p`, codex `exec`, gemini `-p`, a plain command) is a
//!   [`Headless`] session: it writes the prompt once and closes stdin (the CLIs read to
//!   the end of file before they start), reads stdout through its [`OutputParser`],
//!   and takes no command.
//! - A two-way protocol (ACP's JSON-RPC) is a session of its own: it writes its opening
//!   messages at the start, keeps stdin open while it lives, turns a request of the
//!   agent into an [`AgentEvent::Permission`] and the user's [`SessionCommand::Answer`]
//!   into its reply, and a cancel into the protocol's own cancel.
//!
//! Only ACP agents ask for permission (`acp/`): the headless CLIs cannot ask anyone.

use std::fmt;

use super::{AgentEvent, ExitInfo, OutputParser};

/// One agent turn as the runner drives it. One session per process.
pub trait Session: Send {
    /// The process has started. `prompt` is the invocation's `Stdin::Prompt` (`None`
    /// when stdin is `/dev/null`: the prompt is in the arguments).
    fn start(&mut self, prompt: Option<String>, out: &mut Outbox);

    /// One line of stdout, without its line break (it may be invalid JSON or text).
    fn line(&mut self, line: &str, out: &mut Outbox);

    /// A command from the user's side. Returns whether the session took it; the
    /// headless ones take none. For a cancel that was not taken the runner stops the
    /// process itself; a cancel that was taken gives the agent the runner's grace to
    /// end its turn by itself (then the process is stopped all the same).
    fn command(&mut self, command: SessionCommand, out: &mut Outbox) -> bool;

    /// The process has exited and stdout is closed: the final `Done` or `Failed` if
    /// the output did not already end the turn.
    fn finish(&mut self, exit: &ExitInfo, out: &mut Outbox);

    /// Whether the session speaks a two-way protocol whose traffic
    /// `CHATMD_ACP_RECORD` records (the headless CLIs' output is not traffic).
    fn records_traffic(&self) -> bool {
        false
    }

    /// How long the process may take to exit by itself once the turn is answered and
    /// its stdin closed, before it is asked to stop (SIGTERM); `None`: the runner's
    /// whole grace. The headless CLIs exit at once after their last event.
    fn linger(&self) -> Option<std::time::Duration> {
        None
    }

    /// Whether a failing exit after a whole answer fails the turn. A headless CLI saves
    /// its session as it ends, so its exit code is part of the turn; an ACP agent has
    /// finished the turn, session included, when it answers the prompt.
    fn exit_after_answer_counts(&self) -> bool {
        true
    }

    /// How long, at least, the process may take to exit by itself after an answer
    /// before it is killed, where that is longer than the runner's grace: an agent
    /// that saves part of its session as it exits (claude-agent-acp's cost record).
    fn exit_grace(&self) -> std::time::Duration {
        std::time::Duration::ZERO
    }

    /// The session this process holds open, when its protocol keeps one across
    /// prompts (ACP): the warm pool (`turns/warm`) keeps such a process between turns
    /// and matches it by this id.
    fn live_session(&self) -> Option<&str> {
        None
    }

    /// A next turn on the same live process: `invocation` is the turn as planned (its
    /// prompt and attachments). Returns false when the session cannot take another
    /// prompt (the headless CLIs: their process ends with the turn).
    fn again(&mut self, _invocation: &super::Invocation, _out: &mut Outbox) -> bool {
        false
    }

    /// The next turn on this live process starts a session of its own rather than
    /// continuing the one it holds (a council's review, a member that starts fresh):
    /// whether the protocol can (ACP: `session/new` on the same connection).
    fn afresh(&mut self) -> bool {
        false
    }

    /// How the session's own work in the background (an ACP agent's terminals) tells
    /// the runner it has news, given once at the start; the runner then calls
    /// [`Session::woken`]. A session without such work drops it.
    fn set_waker(&mut self, waker: Waker) {
        drop(waker);
    }

    /// Its background work has news (see [`Session::set_waker`]).
    fn woken(&mut self, out: &mut Outbox) {
        let _ = out;
    }
}

/// Called from any thread when a session's background work has news for it.
pub type Waker = std::sync::Arc<dyn Fn() + Send + Sync>;

/// What a session hands the runner after each call. The runner empties it each time.
#[derive(Debug, Default)]
pub struct Outbox {
    /// Events of the turn, in order.
    pub events: Vec<AgentEvent>,
    /// Bytes for the agent's stdin, in order.
    pub input: Vec<u8>,
    /// Close stdin once `input` is written (the agent reads to the end of file).
    pub close_input: bool,
}

impl Outbox {
    pub fn push(&mut self, event: AgentEvent) {
        self.events.push(event);
    }

    /// Queues `bytes` for the agent's stdin (a whole prompt is moved, not copied).
    pub fn write(&mut self, bytes: Vec<u8>) {
        if self.input.is_empty() {
            self.input = bytes;
        } else {
            self.input.extend_from_slice(&bytes);
        }
    }
}

/// What the user's side can tell a running session.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SessionCommand {
    /// The answer to the permission request `request` (an [`AgentEvent::Permission`]).
    Answer {
        request: RequestId,
        outcome: PermissionOutcome,
    },
    /// The answer to the file request `request` (an
    /// [`AgentEvent::File`](super::AgentEvent::File)).
    File {
        request: RequestId,
        outcome: super::FileOutcome,
    },
    /// Stop the turn: the agent's own way where it has one, else the process is killed.
    Cancel,
    /// A message for the agent while its turn runs: ACP's `_session/steering` where the
    /// agent advertises it. A session that takes it reports an
    /// [`AgentEvent::Steered`](super::AgentEvent::Steered); the others take none.
    Input(String),
}

/// The id of a permission request, unique within its session; the session maps it to
/// the protocol's own id (ACP numbers its requests from 0).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct RequestId(pub String);

impl RequestId {
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for RequestId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// The agent asks the user's approval before it acts, and waits for the answer:
/// `summary` is what it wants to do, in one line (`Bash: cargo test`); `tool` the tool
/// call it is about, as the `Tool` events name it, when the agent says; `options` the
/// agent's own ways to answer, in its order (the answer names one by its id).
/// `kind` and `title` are the tool call's as the agent gave them (ACP's kind name,
/// `execute`, `switch_mode`, `other` when it gave none; the whole title): the policy
/// rules of the chat match them. `plan` is the plan a plan approval asks about.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PermissionRequest {
    pub id: RequestId,
    pub summary: String,
    pub tool: Option<String>,
    pub options: Vec<PermissionOption>,
    pub kind: String,
    pub title: String,
    pub plan: Option<AskedPlan>,
}

impl PermissionRequest {
    /// The `kind` of a request that is a question of the agent's (ACP
    /// `elicitation/create`), not an approval of a tool call: its options are answers
    /// ([`PermissionKind::Answer`]) and a decline.
    pub const QUESTION: &'static str = "question";

    /// Whether this request is a question rather than an approval.
    pub fn is_question(&self) -> bool {
        self.kind == Self::QUESTION
    }
}

/// The plan of a plan approval (a `switch_mode` request whose input carries `plan`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AskedPlan {
    /// A list: its entries, shown as a checklist.
    Steps(Vec<String>),
    /// Text (claude's plan is Markdown), shown quoted as it is.
    Text(String),
}

/// One way to answer a permission request: the agent's `id` of it (`proceed_once`),
/// its `name` in the agent's words (`Allow`), and what it does.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PermissionOption {
    pub id: String,
    pub name: String,
    pub kind: PermissionKind,
}

impl PermissionOption {
    pub fn new(id: &str, name: &str, kind: PermissionKind) -> PermissionOption {
        PermissionOption {
            id: id.to_owned(),
            name: name.to_owned(),
            kind,
        }
    }
}

/// What an option does, whatever the agent calls it (options are chosen by kind,
/// never by position: agents order them differently).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PermissionKind {
    AllowOnce,
    AllowAlways,
    RejectOnce,
    RejectAlways,
    /// An answer to a question of the agent's (`elicitation/create`): neither an allow
    /// nor a reject, so no policy ever picks it.
    Answer,
}

impl PermissionKind {
    /// ACP's name of the kind (`allow_once`), which `chatmd.answer` also accepts.
    pub fn as_str(self) -> &'static str {
        match self {
            PermissionKind::AllowOnce => "allow_once",
            PermissionKind::AllowAlways => "allow_always",
            PermissionKind::RejectOnce => "reject_once",
            PermissionKind::RejectAlways => "reject_always",
            PermissionKind::Answer => "answer",
        }
    }

    pub fn parse(name: &str) -> Option<PermissionKind> {
        [
            PermissionKind::AllowOnce,
            PermissionKind::AllowAlways,
            PermissionKind::RejectOnce,
            PermissionKind::RejectAlways,
            PermissionKind::Answer,
        ]
        .into_iter()
        .find(|kind| kind.as_str() == name)
    }
}

/// How the user answered a permission request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PermissionOutcome {
    /// The option with this id.
    Selected(String),
    /// No answer will come (the request was dismissed, the turn is ending).
    Cancelled,
}

/// A headless CLI's turn: the prompt written once and stdin closed, stdout read by its
/// line parser, every command refused (a cancel then kills the process).
pub struct Headless {
    parser: Box<dyn OutputParser>,
}

impl Headless {
    pub fn new(parser: Box<dyn OutputParser>) -> Headless {
        Headless { parser }
    }
}

impl Session for Headless {
    fn start(&mut self, prompt: Option<String>, out: &mut Outbox) {
        if let Some(prompt) = prompt {
            out.write(prompt.into_bytes());
        }
        out.close_input = true;
    }

    fn line(&mut self, line: &str, out: &mut Outbox) {
        self.parser.line(line, &mut out.events);
    }

    fn command(&mut self, _command: SessionCommand, _out: &mut Outbox) -> bool {
        false
    }

    fn finish(&mut self, exit: &ExitInfo, out: &mut Outbox) {
        self.parser.finish(exit, &mut out.events);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    /// Text lines, `DONE` ends the turn.
    struct Lines;

    impl OutputParser for Lines {
        fn line(&mut self, line: &str, out: &mut Vec<AgentEvent>) {
            out.push(match line {
                "DONE" => AgentEvent::Done {
                    stop_reason: None,
                    usage: None,
                },
                text => AgentEvent::Text(text.to_owned()),
            });
        }

        fn finish(&mut self, _exit: &ExitInfo, _out: &mut Vec<AgentEvent>) {}
    }

    #[test]
    fn a_headless_session_writes_its_prompt_once_closes_stdin_and_takes_no_command() {
        let mut session = Headless::new(Box::new(Lines));
        let mut out = Outbox::default();
        session.start(Some("[MESSAGE]\nme: hi".into()), &mut out);
        assert_eq!(out.input, b"[MESSAGE]\nme: hi");
        assert!(out.close_input);

        let mut out = Outbox::default();
        session.line("hello", &mut out);
        assert_eq!(out.events, [AgentEvent::Text("hello".into())]);
        assert!(out.input.is_empty());

        for command in [
            SessionCommand::Cancel,
            SessionCommand::Input("more".into()),
            SessionCommand::Answer {
                request: RequestId("0".into()),
                outcome: PermissionOutcome::Selected("allow".into()),
            },
        ] {
            let mut out = Outbox::default();
            assert!(!session.command(command, &mut out));
            assert!(out.events.is_empty() && out.input.is_empty() && !out.close_input);
        }
    }

    #[test]
    fn without_a_prompt_on_stdin_stdin_is_only_closed() {
        let mut out = Outbox::default();
        Headless::new(Box::new(Lines)).start(None, &mut out);
        assert!(out.input.is_empty());
        assert!(out.close_input);
    }

    #[test]
    fn permission_kinds_read_and_write_acp_names() {
        for name in ["allow_once", "allow_always", "reject_once", "reject_always"] {
            assert_eq!(
                PermissionKind::parse(name).map(PermissionKind::as_str),
                Some(name)
            );
        }
        assert_eq!(PermissionKind::parse("allow"), None);
    }
}
