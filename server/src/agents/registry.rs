//! The agent registry: how to talk to each CLI (built-in claude, codex and gemini, the
//! generic `acp` entry for Agent Client Protocol agents, plus the user's own
//! `agents.toml` overrides, `command` kinds and `acp` kinds). No role text lives here.
//!
//! ```toml
//! # ~/.config/chatmd/agents.toml
//! [agents.claude]                # override a built-in: program and extra args only
//! command = "/opt/claude/bin/claude"
//! args = ["--model", "opus"]
//!
//! [agents.claude-fast]           # a new name on a built-in protocol
//! type = "claude"
//! args = ["--model", "haiku"]
//!
//! [agents.llm]                   # any program that reads a prompt and prints an answer
//! type = "command"
//! command = "llm"
//! args = ["-m", "gpt-4o"]
//! prompt = "stdin"               # or "argument" (the prompt becomes the last argument)
//! output = "text"                # or "jsonl", with JSON pointers:
//! # text = "/delta"  session = "/session_id"  done = "/type"  done_value = "done"  error = "/error"
//!
//! [agents.goose]                 # an Agent Client Protocol agent: a preset by name
//! type = "acp"
//! preset = "goose"               # or `command = "..."` (and `args`) for any ACP agent
//! ```
//!
//! The flags each built-in parser depends on (claude's `--output-format stream-json`,
//! codex's `--json`, ...) are not part of `args` and cannot be overridden: an entry's
//! `args` are extra arguments, placed after them and before the member's own `args`.

mod raw;

use std::path::{Path, PathBuf};

use crate::agents::AgentKind;
use crate::team::{ConfigProblem, Severity};

/// How a CLI's output is read, and so which adapter runs it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Adapter {
    /// One of the built-in headless CLIs (`kinds.rs` lists them, each in its folder).
    Cli(AgentKind),
    Command(CommandSpec),
    /// An Agent Client Protocol agent, run as a two-way session (`agents/acp`).
    Acp(AcpSpec),
}

impl Adapter {
    /// The name used for `type = "..."` in `agents.toml`.
    pub fn type_name(&self) -> &'static str {
        match self {
            Adapter::Cli(kind) => kind.name(),
            Adapter::Command(_) => "command",
            Adapter::Acp(_) => "acp",
        }
    }

    /// The built-in kind whose protocol this is, if any (an ACP agent speaks ACP even
    /// when it is one of the built-in CLIs: see [`AcpSpec`]).
    pub fn kind(&self) -> Option<AgentKind> {
        match self {
            Adapter::Cli(kind) => Some(*kind),
            Adapter::Command(_) | Adapter::Acp(_) => None,
        }
    }

    /// Whether a turn of this agent can continue an earlier session: a built-in CLI or
    /// an ACP agent (which still starts a new one when it offers no `session/resume`).
    /// A plain command has no known way to be given its session back.
    pub fn can_resume(&self) -> bool {
        self.kind().is_some() || self.two_way()
    }

    /// Whether the agent talks both ways while a turn runs (ACP): it asks the user's
    /// approval, reads and writes files through chatmd, and takes more input.
    pub fn two_way(&self) -> bool {
        matches!(self, Adapter::Acp(_))
    }

    /// Whether the agent may stop and ask the user's approval in the middle of a turn.
    pub fn asks_permission(&self) -> bool {
        self.two_way()
    }

    /// Whether a message may be given to a turn already running (steering).
    pub fn steers(&self) -> bool {
        self.two_way()
    }

    /// Whether the agent can branch a session off another one (`session/fork`), so a
    /// forked chat's first turn starts from the original's session.
    pub fn forks(&self) -> bool {
        self.two_way()
    }

    /// Whether the agent's process can be kept between turns and given the next one.
    pub fn keeps_warm(&self) -> bool {
        self.two_way()
    }

    /// Whether a headless run of the agent can read its next prompts on stdin, so its
    /// process can be kept between turns too (claude's stream-json input: the
    /// `warmHeadless` setting, `agents/claude/stream_input.rs`).
    pub fn reads_further_prompts(&self) -> bool {
        self.further_prompts().is_some()
    }

    /// How a headless run of the agent reads its next prompts on stdin, when it can.
    pub fn further_prompts(&self) -> Option<&'static super::kinds::FurtherPrompts> {
        self.kind()
            .and_then(|kind| super::kinds::spec_of(kind).further_prompts.as_ref())
    }

    /// Whether the agent says, in the same process, that it lost the session it was
    /// asked to resume and goes on in a new one (no second process for the fallback).
    pub fn falls_back_in_process(&self) -> bool {
        self.two_way()
    }

    /// Whether attachments go to the agent as resource blocks rather than inside the
    /// prompt's text.
    pub fn takes_resources(&self) -> bool {
        self.two_way()
    }

    /// Whether a session belongs to the agent's name (`agent = "..."`) rather than to
    /// its kind's CLI: every ACP agent keeps its own sessions, while two names on one
    /// built-in CLI share that CLI's.
    pub fn sessions_per_name(&self) -> bool {
        self.two_way()
    }

    /// Whether the program must be named (by the entry or a trusted member `command`)
    /// because the kind has none of its own: a plain command.
    pub fn needs_named_program(&self) -> bool {
        matches!(self, Adapter::Command(_))
    }

    /// Whether the program is known to answer `--version`: a plain program may not
    /// (or may do something else with it).
    pub fn probes_version(&self) -> bool {
        !self.needs_named_program()
    }

    fn of_kind(kind: AgentKind) -> Adapter {
        Adapter::Cli(kind)
    }
}

/// How a `command` kind takes its prompt and prints its answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandSpec {
    pub prompt: PromptDelivery,
    pub output: CommandOutput,
}

/// How an `acp` kind is started: a preset's command line (`agents/acp/presets.rs`), or
/// the entry's own program and arguments. A member's own `preset` wins over the entry's.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AcpSpec {
    /// A preset name, already checked against the list.
    pub preset: Option<String>,
}

pub use crate::agent_config::{ACP, COMMAND};

/// Where a `command` kind reads the prompt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PromptDelivery {
    /// Written to stdin, which is then closed.
    Stdin,
    /// As the last argument (on stdin instead when it is too large for one argument).
    Argument,
}

/// What a `command` kind prints.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CommandOutput {
    /// Plain text: every stdout line is answer text.
    Text,
    /// One JSON object per line, read through JSON pointers.
    Jsonl(JsonPointers),
}

/// JSON pointers (RFC 6901, like `/delta/text`) into each line of a `jsonl` command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JsonPointers {
    /// A string here is answer text, appended as is.
    pub text: String,
    /// A string here is the session id.
    pub session: Option<String>,
    /// The turn is complete on a line where this is `done_value` (compared with the
    /// value's text), or, without `done_value`, anything but null, false, 0 or "".
    pub done: Option<String>,
    pub done_value: Option<String>,
    /// A string here ends the turn as failed, with that message.
    pub error: Option<String>,
}

/// One registry entry: the name members use in `agent = "..."` and how to run it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentEntry {
    pub name: String,
    pub adapter: Adapter,
    /// The program; a bare name is looked up on `PATH`.
    pub program: String,
    /// Extra arguments, after the adapter's own and before the member's.
    pub args: Vec<String>,
    /// How to install the program, for the "not installed" message.
    pub install_hint: Option<String>,
    /// The `agents.toml` that defined or changed this entry; `None` for a plain built-in.
    pub source: Option<PathBuf>,
}

impl AgentEntry {
    /// The built-in entry of a kind: its usual binary, no extra arguments.
    pub fn builtin(kind: AgentKind) -> AgentEntry {
        AgentEntry {
            name: kind.name().to_owned(),
            adapter: Adapter::of_kind(kind),
            program: kind.binary().to_owned(),
            args: Vec::new(),
            install_hint: Some(super::kinds::spec_of(kind).install_command.to_owned()),
            source: None,
        }
    }

    /// The generic program entry: no program of its own, the member's `command` names
    /// it; the prompt goes on stdin and every line the program prints is the answer, so
    /// any program runs as it is (a test suite, a linter, `git diff --stat`).
    pub fn command() -> AgentEntry {
        AgentEntry {
            name: COMMAND.to_owned(),
            adapter: Adapter::Command(CommandSpec {
                prompt: PromptDelivery::Stdin,
                output: CommandOutput::Text,
            }),
            program: String::new(),
            args: Vec::new(),
            install_hint: None,
            source: None,
        }
    }

    /// The generic ACP entry: no program of its own, the member's `preset` or `command`
    /// names it.
    pub fn acp() -> AgentEntry {
        AgentEntry {
            name: ACP.to_owned(),
            adapter: Adapter::Acp(AcpSpec::default()),
            program: String::new(),
            args: Vec::new(),
            install_hint: None,
            source: None,
        }
    }
}

/// All agent kinds a member can name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Registry {
    entries: Vec<AgentEntry>,
}

impl Default for Registry {
    fn default() -> Self {
        Registry::builtin()
    }
}

impl Registry {
    /// The built-in entries only: claude, codex and gemini with their usual binaries,
    /// then `acp` and `command`.
    pub fn builtin() -> Registry {
        let mut entries: Vec<AgentEntry> = AgentKind::ALL
            .iter()
            .copied()
            .map(AgentEntry::builtin)
            .collect();
        entries.push(AgentEntry::acp());
        entries.push(AgentEntry::command());
        Registry { entries }
    }

    /// The built-ins with `path` (default: [`default_path`], the user's own) applied. A
    /// missing default file is normal; a missing explicit file, an unreadable one, and
    /// every mistake in one are problems. A file that does not parse (bad syntax, an
    /// unknown key, a value of the wrong type) is ignored as a whole; a valid file with
    /// an invalid entry loses only that entry (a built-in then keeps its defaults).
    pub fn load(path: Option<&Path>) -> (Registry, Vec<ConfigProblem>) {
        let (path, explicit) = match path {
            Some(path) => (path.to_path_buf(), true),
            None => match default_path() {
                Some(path) => (path, false),
                None => return (Registry::builtin(), Vec::new()),
            },
        };
        match std::fs::read_to_string(&path) {
            Ok(text) => Registry::parse(&path, &text),
            Err(error) if error.kind() == std::io::ErrorKind::NotFound && !explicit => {
                (Registry::builtin(), Vec::new())
            }
            Err(error) => {
                let problem = ConfigProblem::new(
                    path,
                    None,
                    Severity::Error,
                    format!(
                        "cannot read the agent registry ({error}); chatmd uses the built-in agents only"
                    ),
                );
                (Registry::builtin(), vec![problem])
            }
        }
    }

    /// The built-ins with the text of an `agents.toml` applied; `file` names it in problems.
    pub fn parse(file: &Path, text: &str) -> (Registry, Vec<ConfigProblem>) {
        let mut registry = Registry::builtin();
        let home = std::env::var_os("HOME").map(PathBuf::from);
        let (entries, problems) = raw::parse(file, text, home.as_deref());
        for entry in entries {
            registry.insert(entry);
        }
        (registry, problems)
    }

    /// The entry a member's `agent = "..."` names.
    pub fn entry(&self, name: &str) -> Option<&AgentEntry> {
        self.entries.iter().find(|entry| entry.name == name)
    }

    /// Every entry: the built-ins first, then the user's in name order.
    pub fn entries(&self) -> &[AgentEntry] {
        &self.entries
    }

    /// Adds `entry`, replacing one of the same name.
    pub fn insert(&mut self, entry: AgentEntry) {
        match self.entries.iter_mut().find(|e| e.name == entry.name) {
            Some(existing) => *existing = entry,
            None => self.entries.push(entry),
        }
    }
}

/// `$XDG_CONFIG_HOME/chatmd/agents.toml`, else `~/.config/chatmd/agents.toml`.
pub fn default_path() -> Option<PathBuf> {
    default_path_from(
        std::env::var_os("XDG_CONFIG_HOME").as_deref(),
        std::env::var_os("HOME").as_deref(),
    )
}

/// [`default_path`] from given variable values (tests cannot set the environment).
/// A relative `XDG_CONFIG_HOME` is ignored, as the XDG spec says.
pub fn default_path_from(
    xdg_config_home: Option<&std::ffi::OsStr>,
    home: Option<&std::ffi::OsStr>,
) -> Option<PathBuf> {
    let config = match xdg_config_home.map(Path::new) {
        Some(xdg) if xdg.is_absolute() => xdg.to_path_buf(),
        _ => Path::new(home.filter(|h| !h.is_empty())?).join(".config"),
    };
    Some(config.join("chatmd").join("agents.toml"))
}
