//! Codex: `codex exec --json --skip-git-repo-check [-c developer_instructions=...] <prompt>`
//! (or `exec resume <ID> ...`). This module plans the command line of a turn; `lines`
//! reads the `--json` events into typed views, `parser` turns them into events and
//! `items` summarizes the tool items.
//!
//! - The role goes in `-c developer_instructions="<TOML string>"` on the first turn. On
//!   resume it is left out: the thread keeps it, and codex ignores it there anyway.
//! - The prompt is the last argument with stdin on `/dev/null` (piped stdin would be
//!   appended to it), or `-` with the prompt on stdin when it is large.

mod items;
mod lines;
mod parser;
mod store;

pub use parser::CodexParser;

use super::Invocation;
use super::plan::{self, ARGUMENT_LIMIT, TurnSpec, inline};
use crate::document::quoted::toml_string;

/// codex in the one list of kinds (`kinds.rs`).
pub(super) const SPEC: super::kinds::KindSpec = super::kinds::KindSpec {
    kind: super::AgentKind::Codex,
    plan,
    parser: |agent| Box::new(CodexParser::new(agent)),
    ask_mode: super::ask_mode::AskMode {
        flag: "--sandbox",
        value: "read-only",
        choosers: &[
            "--sandbox",
            "-s",
            "--dangerously-bypass-approvals-and-sandbox",
            "--approve-for-me",
        ],
        flag_aliases: &["-s"],
        config_keys: &["sandbox_mode", "approval_policy"],
        effect: "runs nothing outside a read-only sandbox",
    },
    install_command: "npm install -g @openai/codex",
    login: super::kinds::Login {
        command: "codex login",
        then: None,
    },
    login_advice: "Log in with `codex login` in a terminal (with CODEX_HOME set to the \
                   member's `home` if it has one), or export the provider's key \
                   (OPENAI_API_KEY, or the `env_key` of a custom provider) before chatmd \
                   starts.",
    state_env_var: "CODEX_HOME",
    default_state_dir: ".codex",
    key_vars: &["CODEX_API_KEY", "OPENAI_API_KEY"],
    // codex keeps its login in `$CODEX_HOME/auth.json` (agent-clis.md).
    login_file: Some("auth.json"),
    title: "Codex",
    store: Some(super::kinds::SessionStore {
        sessions_dir: &["sessions"],
        depth: 4,
        is_session_file: store::is_session_file,
        peek: store::peek,
        recognizes: store::recognizes,
        read: store::read,
        // codex finds a thread by its id from any folder.
        resumes_per_folder: false,
    }),
    configured_model: Some(super::provenance::codex_model),
    further_prompts: None,
};

/// The command line of one codex turn.
pub(super) fn plan(turn: &TurnSpec<'_>) -> Invocation {
    let (system, body, resume) = (turn.system, turn.body, turn.resume);
    let mut invocation = turn.base(true);
    invocation.args.push("exec".to_owned());
    if let Some(session) = resume {
        invocation
            .args
            .extend(["resume".to_owned(), session.to_owned()]);
    }
    invocation
        .args
        .extend(["--json", "--skip-git-repo-check"].map(String::from));
    let mut prompt = body.to_owned();
    if resume.is_none() && !system.is_empty() {
        let setting = format!("developer_instructions={}", toml_string(system));
        if setting.len() <= ARGUMENT_LIMIT {
            invocation.args.extend(["-c".to_owned(), setting]);
        } else {
            prompt = inline(system, body);
        }
    }
    turn.ask_mode(&mut invocation, super::AgentKind::Codex);
    turn.extra_args(&mut invocation);
    if resume.is_some() {
        // `exec resume` refuses `--sandbox` and `-C`: rewritten into what it takes.
        let (args, cwd) = super::resume::codex_resume_args(&invocation.args);
        invocation.args = args;
        if let Some(cwd) = cwd {
            invocation.cwd = invocation.cwd.join(cwd);
        }
    }
    plan::prompt(&mut invocation, prompt, Some("-"));
    invocation
}

#[cfg(test)]
mod tests;
