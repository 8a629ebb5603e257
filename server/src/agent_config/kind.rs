//! The three built-in agent kinds and the facts chatmd needs about each CLI: its
//! binary, the role file it loads by itself, how to install it, its state variable.

use std::fmt;
use std::str::FromStr;

/// A coding-agent CLI that chatmd knows by name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum AgentKind {
    Claude,
    Codex,
    Gemini,
}

/// A name that is not one of the built-in agent kinds.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown agent kind `{0}`: expected claude, codex or gemini")]
pub struct UnknownAgentKind(pub String);

impl AgentKind {
    /// Every kind, in role-file precedence order: when a member folder holds several
    /// role files, the first kind here wins.
    pub const ALL: [AgentKind; 3] = [AgentKind::Claude, AgentKind::Codex, AgentKind::Gemini];

    /// The lowercase name used in `chatmd.toml` (`agent = "codex"`) and in status comments.
    pub fn name(self) -> &'static str {
        match self {
            AgentKind::Claude => "claude",
            AgentKind::Codex => "codex",
            AgentKind::Gemini => "gemini",
        }
    }

    /// The role file that makes a folder a member of this kind.
    pub fn role_file_name(self) -> &'static str {
        match self {
            AgentKind::Claude => "CLAUDE.md",
            AgentKind::Codex => "AGENTS.md",
            AgentKind::Gemini => "GEMINI.md",
        }
    }

    /// The program looked up on `PATH`.
    pub fn binary(self) -> &'static str {
        self.name()
    }

    /// What to tell a user whose machine lacks the CLI.
    pub fn install_command(self) -> &'static str {
        match self {
            AgentKind::Claude => "npm install -g @anthropic-ai/claude-code",
            AgentKind::Codex => "npm install -g @openai/codex",
            AgentKind::Gemini => "npm install -g @google/gemini-cli",
        }
    }

    /// How to log the CLI in once it is installed, as a phrase after "log in:".
    pub fn login_command(self) -> &'static str {
        match self {
            AgentKind::Claude => "run `claude` and type `/login`",
            AgentKind::Codex => "`codex login`",
            AgentKind::Gemini => "run `gemini` and pick a login method",
        }
    }

    /// The environment variable that moves the CLI's state (login, sessions) into a
    /// member's own `home` folder.
    pub fn state_env_var(self) -> &'static str {
        match self {
            AgentKind::Claude => "CLAUDE_CONFIG_DIR",
            AgentKind::Codex => "CODEX_HOME",
            AgentKind::Gemini => "GEMINI_CLI_HOME",
        }
    }

    /// The kind whose role file has this exact name (`AGENTS.md` → codex).
    pub fn from_role_file_name(file_name: &str) -> Option<AgentKind> {
        AgentKind::ALL
            .into_iter()
            .find(|kind| kind.role_file_name() == file_name)
    }
}

impl fmt::Display for AgentKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for AgentKind {
    type Err = UnknownAgentKind;

    /// Accepts the lowercase names only, as written in `chatmd.toml`.
    fn from_str(name: &str) -> Result<Self, Self::Err> {
        AgentKind::ALL
            .into_iter()
            .find(|kind| kind.name() == name)
            .ok_or_else(|| UnknownAgentKind(name.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn names_files_binaries_and_install_commands() {
        let rows: Vec<_> = AgentKind::ALL
            .into_iter()
            .map(|k| {
                (
                    k.to_string(),
                    k.role_file_name(),
                    k.binary(),
                    k.install_command(),
                )
            })
            .collect();
        assert_eq!(
            rows,
            vec![
                (
                    "claude".to_owned(),
                    "CLAUDE.md",
                    "claude",
                    "npm install -g @anthropic-ai/claude-code"
                ),
                (
                    "codex".to_owned(),
                    "AGENTS.md",
                    "codex",
                    "npm install -g @openai/codex"
                ),
                (
                    "gemini".to_owned(),
                    "GEMINI.md",
                    "gemini",
                    "npm install -g @google/gemini-cli"
                ),
            ]
        );
    }

    #[test]
    fn parses_its_own_names_only() {
        assert_eq!("codex".parse::<AgentKind>(), Ok(AgentKind::Codex));
        assert_eq!(
            "Codex".parse::<AgentKind>().map_err(|e| e.to_string()),
            Err("unknown agent kind `Codex`: expected claude, codex or gemini".to_owned())
        );
        assert_eq!(
            AgentKind::from_role_file_name("GEMINI.md"),
            Some(AgentKind::Gemini)
        );
        assert_eq!(AgentKind::from_role_file_name("gemini.md"), None);
    }
}
