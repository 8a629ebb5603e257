//! The one list of built-in CLI kinds. Each kind's folder (`claude/`, `codex/`,
//! `gemini/`, with `claude.rs`, … beside it) gives one [`KindSpec`]: every decision
//! chatmd makes per CLI (its command line, how its output is read, the mode it asks in,
//! how to install it and log it in, where it stores its sessions and how they read for
//! `chatmd import`, the model a turn used when the CLI does not say, whether a process
//! can take further prompts), and [`KINDS`] registers it. Code asks [`spec_of`], never
//! a `match` per kind. What `team/` needs (name, role file, the files the CLI loads by
//! itself) is the kind's entry in `crate::agent_config`, below `team/`.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::ask_mode::AskMode;
use super::plan::TurnSpec;
use super::transcripts::{Transcript, TranscriptError};
use super::{AgentKind, Invocation, OutputParser, Session};

/// What chatmd does with one built-in CLI.
pub struct KindSpec {
    pub kind: AgentKind,
    /// The command line of one turn.
    pub plan: fn(&TurnSpec<'_>) -> Invocation,
    /// A fresh parser of one turn's output, for the agent named.
    pub parser: fn(&str) -> Box<dyn OutputParser>,
    /// The mode that makes it refuse what needs an approval nobody can give headless.
    pub ask_mode: AskMode,
    /// How to install it, for a user whose machine lacks it.
    pub install_command: &'static str,
    /// How to log it in once it is installed.
    pub login: Login,
    /// What to do after a turn failed for its login: its own login command, or the
    /// key it reads.
    pub login_advice: &'static str,
    /// The variable that moves its state (login, sessions) into a member's own `home`.
    pub state_env_var: &'static str,
    /// Its state folder under the user's home when that variable is unset (`""`: the
    /// home itself).
    pub default_state_dir: &'static str,
    /// The variables it takes an API key from, so it needs no login.
    pub key_vars: &'static [&'static str],
    /// The file in its state folder that holds its login, when the reference names
    /// one: `chatmd init` tells logged in from not without running it.
    pub login_file: Option<&'static str>,
    /// How `chatmd init` names it to a new user ("Claude Code").
    pub title: &'static str,
    /// Where it stores its sessions and how they read, for `chatmd import`.
    pub store: Option<SessionStore>,
    /// The model a turn is configured to use, for a CLI that does not report it.
    pub configured_model: Option<fn(&Invocation) -> Option<String>>,
    /// A process that reads its next prompts on stdin (kept between turns).
    pub further_prompts: Option<FurtherPrompts>,
}

impl KindSpec {
    /// Its state folder under the user's `home` when its variable is unset: `home`
    /// itself when the default is `""` (no `home/` with a trailing slash in messages).
    pub fn default_state_in(&self, home: &Path) -> PathBuf {
        match self.default_state_dir {
            "" => home.to_path_buf(),
            dir => home.join(dir),
        }
    }
}

/// How a CLI is logged in: `run `claude` and type `/login`` or `` `codex login` ``.
pub struct Login {
    /// The command line to run.
    pub command: &'static str,
    /// What to do in it once it runs, when running it is not all.
    pub then: Option<&'static str>,
}

impl Login {
    /// The phrase after "log in: ", with `prefix` (a variable's setting and a space)
    /// before the command.
    pub fn phrase(&self, prefix: &str) -> String {
        match self.then {
            Some(then) => format!("run `{prefix}{}` and {then}", self.command),
            None => format!("`{prefix}{}`", self.command),
        }
    }
}

/// The sessions a CLI stores itself.
pub struct SessionStore {
    /// The folder of the session files inside the state folder.
    pub sessions_dir: &'static [&'static str],
    /// How deep below that folder each file is.
    pub depth: usize,
    /// Whether a file at that depth is a session (its name, its folder).
    pub is_session_file: fn(&Path) -> bool,
    /// The session id and where it ran, from the file's first lines.
    pub peek: fn(&Path) -> Option<(String, SessionPlace)>,
    /// Whether a file's first JSON line is one of this CLI's.
    pub recognizes: fn(&Value) -> bool,
    /// The whole session, read.
    pub read: fn(&str) -> Result<Transcript, TranscriptError>,
    /// Whether the CLI finds a session only from the folder it ran in (claude and
    /// gemini), not by id from anywhere (codex).
    pub resumes_per_folder: bool,
}

/// Where a stored session ran: a folder, or the hash of one.
pub enum SessionPlace {
    Folder(String),
    Hash(String),
}

/// A CLI process that reads further prompts on stdin, so it can be kept between turns.
pub struct FurtherPrompts {
    /// Whether a turn's command line was made to read them.
    pub reads_them: fn(&Invocation) -> bool,
    /// A turn's command line made to read its prompt, and the next turns', on stdin.
    pub reading_them: fn(Invocation) -> Invocation,
    /// The arguments that started such a process, as every turn it serves must have
    /// them (what differs per turn, the prompt or the session to resume, left out).
    pub steady_args: fn(&Invocation) -> Vec<String>,
    /// The session that reads such a process's output, for the agent named.
    pub session: fn(&str) -> Box<dyn Session>,
}

/// Every built-in kind, in [`AgentKind::ALL`]'s order: each kind's folder, declared
/// from the one list in `agent_config/kind.rs`.
pub const KINDS: &[&KindSpec] = super::KIND_SPECS;

/// The spec of `kind`: every kind is listed once in [`KINDS`] (a unit test holds it).
pub fn spec_of(kind: AgentKind) -> &'static KindSpec {
    KINDS
        .iter()
        .copied()
        .find(|spec| spec.kind == kind)
        .unwrap_or(KINDS[0])
}

/// The kinds whose stored sessions `chatmd import` reads, as a sentence lists them.
pub fn stored_kinds_in_words() -> String {
    let names: Vec<&str> = KINDS
        .iter()
        .filter(|spec| spec.store.is_some())
        .map(|spec| spec.kind.name())
        .collect();
    crate::agent_config::in_words(&names)
}

#[cfg(test)]
mod tests;
