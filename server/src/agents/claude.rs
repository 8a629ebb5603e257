//! Claude Code: `claude -p <prompt> --output-format stream-json --verbose
//! --include-partial-messages`. This module plans the command line of a turn; `lines`
//! reads the stream-json lines into typed views and `parser` turns them into events.
//!
//! - The role goes through `--append-system-prompt`, every turn (it is a flag of the
//!   run, not part of the saved session). A system text too large for one argument is
//!   put inline on top of the prompt instead, which then goes on stdin.
//! - The prompt follows `-p` directly, where no option of the member's `args` (some take
//!   several values, like `--allowedTools`) can swallow it; large prompts go on stdin.

mod lines;
mod parser;
mod store;
pub mod stream_input;

pub use parser::ClaudeParser;

use super::Invocation;
use super::plan::{self, ARGUMENT_LIMIT, TurnSpec, flag, inline};

/// The flags the parser depends on.
pub const PROTOCOL_ARGS: [&str; 4] = [
    "--output-format",
    "stream-json",
    "--verbose",
    "--include-partial-messages",
];

/// claude in the one list of kinds (`kinds.rs`).
pub(super) const SPEC: super::kinds::KindSpec = super::kinds::KindSpec {
    kind: super::AgentKind::Claude,
    plan,
    parser: |agent| Box::new(ClaudeParser::new(agent)),
    ask_mode: super::ask_mode::AskMode {
        flag: "--permission-mode",
        value: "default",
        choosers: &[
            "--permission-mode",
            "--dangerously-skip-permissions",
            "--allow-dangerously-skip-permissions",
        ],
        flag_aliases: &[],
        config_keys: &[],
        effect: "refuses what needs approval",
    },
    install_command: "npm install -g @anthropic-ai/claude-code",
    login: super::kinds::Login {
        command: "claude",
        then: Some("type `/login`"),
    },
    login_advice: "Log in with `claude /login` in a terminal (with CLAUDE_CONFIG_DIR set to \
                   the member's `home` if it has one), or export ANTHROPIC_API_KEY before \
                   chatmd starts.",
    state_env_var: "CLAUDE_CONFIG_DIR",
    default_state_dir: ".claude",
    key_vars: &["ANTHROPIC_API_KEY"],
    // Where claude keeps its login the reference does not say: only a run could tell.
    login_file: None,
    title: "Claude Code",
    store: Some(super::kinds::SessionStore {
        sessions_dir: &["projects"],
        depth: 2,
        is_session_file: |_| true,
        peek: store::peek,
        recognizes: store::recognizes,
        read: store::read,
        resumes_per_folder: true,
    }),
    configured_model: None,
    further_prompts: Some(super::kinds::FurtherPrompts {
        reads_them: stream_input::reads_messages,
        reading_them: stream_input::reading_messages,
        steady_args: stream_input::steady_args,
        session: |agent| Box::new(stream_input::ClaudeStream::new(agent)),
    }),
};

/// The command line of one claude turn.
pub(super) fn plan(turn: &TurnSpec<'_>) -> Invocation {
    let mut invocation = turn.base(true);
    let (system_flag, prompt) = if turn.system.len() <= ARGUMENT_LIMIT {
        (
            Some(turn.system).filter(|s| !s.is_empty()),
            turn.body.to_owned(),
        )
    } else {
        (None, inline(turn.system, turn.body))
    };
    invocation.args.push("-p".to_owned());
    plan::prompt(&mut invocation, prompt, None);
    invocation.args.extend(PROTOCOL_ARGS.map(String::from));
    plan::attached_flag(&mut invocation, "--resume", turn.resume);
    flag(&mut invocation, "--append-system-prompt", system_flag);
    turn.ask_mode(&mut invocation, super::AgentKind::Claude);
    turn.extra_args(&mut invocation);
    invocation
}
