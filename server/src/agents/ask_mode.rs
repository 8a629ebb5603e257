//! The permission mode a headless CLI starts in. Run with `-p` (or `exec`), nobody can
//! answer the CLI's own approval prompt, so what its default mode lets through runs
//! unasked; and defaults change between versions (claude-agent-acp 0.101 moved its
//! default to `auto`, which runs tools without asking). So chatmd names a mode that
//! refuses what needs approval on every command line, unless the user's own config
//! (the member's `args`, which need trust, or the agent entry's) already chooses one:
//!
//! - claude: `--permission-mode default` (in `-p` mode a tool that needs approval is
//!   denied and listed in the result's `permission_denials`);
//! - codex: `--sandbox read-only` (`exec`'s documented default, with approval policy
//!   `never`: nothing outside the sandbox runs; `exec resume` takes it as
//!   `-c sandbox_mode="read-only"`, see `resume.rs`);
//! - gemini: `--approval-mode default` (headless, tools that need confirmation are left
//!   out of what the model is offered).

use crate::agent_config::AgentKind;

/// The mode chatmd starts a headless CLI in, and the options that choose one instead.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AskMode {
    /// The option that names the mode, as the CLI's help spells it.
    pub flag: &'static str,
    /// The mode: one that asks (or, with nobody to ask, refuses).
    pub value: &'static str,
    /// The options a user's `args` choose the mode with (`--opt` or `--opt=value`).
    pub(super) choosers: &'static [&'static str],
    /// Other spellings of [`Self::flag`] among them, which take a value too (`-s`).
    pub(super) flag_aliases: &'static [&'static str],
    /// `-c key=...` settings that choose it too (codex).
    pub(super) config_keys: &'static [&'static str],
    /// What the mode does, in words after "which" (`chatmd members`).
    pub effect: &'static str,
}

impl AskMode {
    /// The mode of `kind`'s headless CLI (each kind's `KindSpec`, in its own file).
    pub fn of(kind: AgentKind) -> AskMode {
        super::kinds::spec_of(kind).ask_mode
    }

    /// The arguments that name the mode.
    pub fn args(&self) -> [String; 2] {
        [self.flag.to_owned(), self.value.to_owned()]
    }

    /// The first of `args` (the user's own: the agent entry's, then the member's) that
    /// chooses a mode, with its value when it takes one: the user's choice stands.
    pub fn chosen_in<'a>(&self, args: impl IntoIterator<Item = &'a String>) -> Option<String> {
        let mut args = args.into_iter().peekable();
        while let Some(arg) = args.next() {
            let name = arg.split_once('=').map_or(arg.as_str(), |(name, _)| name);
            if let Some(chooser) = self.choosers.iter().find(|c| **c == name) {
                let takes_value = *chooser == self.flag || self.flag_aliases.contains(chooser);
                return Some(match (takes_value, arg.contains('=')) {
                    (true, false) => match args.peek() {
                        Some(value) => format!("{arg} {value}"),
                        None => arg.clone(),
                    },
                    _ => arg.clone(),
                });
            }
            if matches!(arg.as_str(), "-c" | "--config")
                && let Some(setting) = args.peek()
            {
                let key = setting.split_once('=').map_or("", |(key, _)| key.trim());
                if self.config_keys.contains(&key) {
                    return Some(format!("{arg} {setting}"));
                }
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn args(list: &[&str]) -> Vec<String> {
        list.iter().map(|a| a.to_string()).collect()
    }

    #[test]
    fn each_cli_starts_in_a_mode_that_asks() {
        assert_eq!(
            AskMode::of(AgentKind::Claude).args(),
            ["--permission-mode", "default"]
        );
        assert_eq!(
            AskMode::of(AgentKind::Codex).args(),
            ["--sandbox", "read-only"]
        );
        assert_eq!(
            AskMode::of(AgentKind::Gemini).args(),
            ["--approval-mode", "default"]
        );
    }

    #[test]
    fn the_users_own_choice_is_found_in_any_spelling() {
        let claude = AskMode::of(AgentKind::Claude);
        assert_eq!(
            claude.chosen_in(&args(&[
                "--model",
                "opus",
                "--permission-mode",
                "acceptEdits"
            ])),
            Some("--permission-mode acceptEdits".into())
        );
        assert_eq!(
            claude.chosen_in(&args(&["--permission-mode=plan"])),
            Some("--permission-mode=plan".into())
        );
        assert_eq!(
            claude.chosen_in(&args(&["--dangerously-skip-permissions"])),
            Some("--dangerously-skip-permissions".into())
        );
        assert_eq!(claude.chosen_in(&args(&["--model", "opus"])), None);
        let codex = AskMode::of(AgentKind::Codex);
        assert_eq!(
            codex.chosen_in(&args(&["-s", "workspace-write"])),
            Some("-s workspace-write".into())
        );
        assert_eq!(
            codex.chosen_in(&args(&["-c", "sandbox_mode=\"workspace-write\""])),
            Some("-c sandbox_mode=\"workspace-write\"".into())
        );
        assert_eq!(codex.chosen_in(&args(&["-c", "model=\"o3\""])), None);
        let gemini = AskMode::of(AgentKind::Gemini);
        assert_eq!(gemini.chosen_in(&args(&["-y"])), Some("-y".into()));
        assert_eq!(
            gemini.chosen_in(&args(&["--approval-mode", "auto_edit"])),
            Some("--approval-mode auto_edit".into())
        );
        assert_eq!(gemini.chosen_in(&args(&["--sandbox"])), None);
    }
}
