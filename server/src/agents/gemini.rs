//! Gemini CLI: `gemini -p <prompt> --output-format stream-json --skip-trust`. This
//! module plans the command line of a turn; `lines` reads the stream-json lines into
//! typed views, `parser` turns them into events and `exit` explains the runs that end
//! before any JSON.
//!
//! - No system-prompt flag: the role is inline (`[SYSTEM]\n...`) at the top of the
//!   prompt. On resume it is left out: the session already holds the first prompt.
//! - A large prompt goes on stdin with `-p ""`: gemini reads stdin and appends the (empty)
//!   `-p` text. A small one is the `-p` value with stdin on `/dev/null`.

mod exit;
mod lines;
mod parser;
mod store;

pub use parser::GeminiParser;

use super::Invocation;
use super::plan::{self, TurnSpec, inline};

/// gemini in the one list of kinds (`kinds.rs`).
pub(super) const SPEC: super::kinds::KindSpec = super::kinds::KindSpec {
    kind: super::AgentKind::Gemini,
    plan,
    parser: |agent| Box::new(GeminiParser::new(agent)),
    ask_mode: super::ask_mode::AskMode {
        flag: "--approval-mode",
        value: "default",
        choosers: &["--approval-mode", "--yolo", "-y"],
        flag_aliases: &[],
        config_keys: &[],
        effect: "refuses what needs approval",
    },
    install_command: "npm install -g @google/gemini-cli",
    login: super::kinds::Login {
        command: "gemini",
        then: Some("pick a login method"),
    },
    login_advice: "Run `gemini` once in a terminal to log in (with GEMINI_CLI_HOME set to \
                   the member's `home` if it has one), or export GEMINI_API_KEY before \
                   chatmd starts.",
    state_env_var: "GEMINI_CLI_HOME",
    // gemini's state is `.gemini` under its home variable, or under the user's home.
    default_state_dir: "",
    key_vars: &["GEMINI_API_KEY", "GOOGLE_API_KEY"],
    login_file: None,
    title: "Gemini CLI",
    store: Some(super::kinds::SessionStore {
        sessions_dir: &[".gemini", "tmp"],
        depth: 3,
        is_session_file: store::is_session_file,
        peek: store::peek,
        recognizes: store::recognizes,
        read: store::read,
        resumes_per_folder: true,
    }),
    configured_model: None,
    further_prompts: None,
};

/// The command line of one gemini turn.
pub(super) fn plan(turn: &TurnSpec<'_>) -> Invocation {
    let mut invocation = turn.base(true);
    let prompt = match turn.resume {
        Some(_) => turn.body.to_owned(),
        None => inline(turn.system, turn.body),
    };
    invocation.args.push("-p".to_owned());
    plan::prompt(&mut invocation, prompt, Some(""));
    invocation
        .args
        .extend(["--output-format", "stream-json", "--skip-trust"].map(String::from));
    plan::attached_flag(&mut invocation, "--resume", turn.resume);
    turn.ask_mode(&mut invocation, super::AgentKind::Gemini);
    turn.extra_args(&mut invocation);
    invocation
}
