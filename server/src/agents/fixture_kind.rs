//! A made-up CLI, compiled only in unit tests, that shows what a new agent kind takes:
//! this folder (its `KindSpec`, command line and output parser) and its entry in the
//! one list of kinds, `crate::agent_config`'s (its folder, and the name and role file
//! `team/` reads). No other code names it; `kinds/tests.rs` runs it
//! through the registry, `plan_turn`, `session_for` and the hints the user reads.
//!
//! It is no real program, so its format is its own: `fixture --json [--resume ID]
//! [--role TEXT] --asks default <prompt>`, printing one JSON object a line:
//! `{"session": ID}`, `{"text": …}`, then `{"end": "ok"}` or `{"end": "error",
//! "message": …}`.

mod parser;

use super::Invocation;
use super::plan::{self, TurnSpec, flag};

/// The fixture's spec, which the one list of kinds gives `KINDS` (`kinds.rs`).
pub(super) const SPEC: super::kinds::KindSpec = super::kinds::KindSpec {
    kind: super::AgentKind::Fixture,
    plan,
    parser: |agent| Box::new(parser::FixtureParser::new(agent)),
    ask_mode: super::ask_mode::AskMode {
        flag: "--asks",
        value: "default",
        choosers: &["--asks", "--never-ask"],
        flag_aliases: &[],
        config_keys: &[],
        effect: "refuses what needs approval",
    },
    install_command: "cargo install fixture-cli",
    login: super::kinds::Login {
        command: "fixture auth",
        then: None,
    },
    login_advice: "Log in with `fixture auth` (with FIXTURE_HOME set to the member's `home` \
                   if it has one).",
    state_env_var: "FIXTURE_HOME",
    default_state_dir: ".fixture",
    key_vars: &["FIXTURE_API_KEY"],
    login_file: None,
    title: "Fixture CLI",
    store: None,
    configured_model: None,
    further_prompts: None,
};

/// The command line of one fixture turn.
fn plan(turn: &TurnSpec<'_>) -> Invocation {
    let mut invocation = turn.base(true);
    invocation.args.push("--json".to_owned());
    flag(&mut invocation, "--resume", turn.resume);
    flag(
        &mut invocation,
        "--role",
        Some(turn.system).filter(|s| !s.is_empty()),
    );
    turn.ask_mode(&mut invocation, super::AgentKind::Fixture);
    turn.extra_args(&mut invocation);
    plan::prompt(&mut invocation, turn.body.to_owned(), Some("-"));
    invocation
}
