//! The ACP agents chatmd knows by name (`[members.X] agent = "acp"`, `preset =
//! "<name>"`): the command line each is started with, how to install it, and, where the
//! agent is one of the built-in CLIs behind ACP, that kind (its state folder variable
//! for a member's `home`, the role file it loads by itself, its login hint).
//!
//! The command lines come from the agents' own documentation and the ACP registry;
//! `gemini --acp`, `claude-agent-acp` and `codex-acp` were driven end to end
//! (reference: acp-real-runs.md). An install hint is given only where the install
//! command is known; the others are reported "not installed" without one.

use super::AgentKind;

/// One ACP agent chatmd can start by name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AcpPreset {
    /// The name a member's `preset` uses.
    pub name: &'static str,
    /// The program, looked up on `PATH` like every agent's.
    pub program: &'static str,
    /// Its arguments that select ACP, before the entry's and the member's own.
    pub args: &'static [&'static str],
    /// Variables set before the member's own `env` (which wins).
    pub env: &'static [(&'static str, &'static str)],
    /// How to install it, for the "not installed" message.
    pub install: Option<&'static str>,
    /// The built-in CLI this agent is, when it is one: a member's `home` becomes its
    /// state folder variable, and the role file it loads by itself is known.
    pub kind: Option<AgentKind>,
    /// The session mode that asks before running tools, set at session start when the
    /// member chose no `mode` and the session offers it: an adapter may start in a
    /// mode that runs tools unasked (claude-agent-acp 0.101 starts in `auto`).
    pub asks_in: Option<&'static str>,
}

const fn preset(
    name: &'static str,
    program: &'static str,
    args: &'static [&'static str],
    install: Option<&'static str>,
) -> AcpPreset {
    AcpPreset {
        name,
        program,
        args,
        env: &[],
        install,
        kind: None,
        asks_in: None,
    }
}

/// Every preset, the three proven ones first.
pub const PRESETS: &[AcpPreset] = &[
    AcpPreset {
        // The headless adapter runs gemini with `--skip-trust`; the same trust here, and
        // the recorded permission flow ran with it.
        env: &[("GEMINI_CLI_TRUST_WORKSPACE", "true")],
        kind: Some(AgentKind::Gemini),
        // Its first mode now; kept should a later version start elsewhere.
        asks_in: Some("default"),
        ..preset(
            "gemini",
            "gemini",
            &["--acp"],
            Some("npm install -g @google/gemini-cli"),
        )
    },
    AcpPreset {
        // 0.101 predicts the user's next prompt after a turn with a model call of the
        // whole context, billed and never reported; nobody reads it here.
        env: &[("CLAUDE_CODE_ENABLE_PROMPT_SUGGESTION", "false")],
        kind: Some(AgentKind::Claude),
        // "Manual: always ask before making changes".
        asks_in: Some("default"),
        ..preset(
            "claude",
            "claude-agent-acp",
            &[],
            Some("npm install -g @agentclientprotocol/claude-agent-acp"),
        )
    },
    AcpPreset {
        // codex-acp's default mode ("Auto review") decides escalations by itself and never
        // asks the client; in `workspace-write` they reach the user as permission requests.
        env: &[("INITIAL_AGENT_MODE", "workspace-write")],
        kind: Some(AgentKind::Codex),
        ..preset(
            "codex",
            "codex-acp",
            &[],
            Some("npm install -g @agentclientprotocol/codex-acp"),
        )
    },
    preset(
        "goose",
        "goose",
        &["acp"],
        Some(
            "curl -fsSL https://github.com/block/goose/releases/download/stable/download_cli.sh | bash",
        ),
    ),
    preset(
        "opencode",
        "opencode",
        &["acp"],
        Some("npm install -g opencode-ai"),
    ),
    preset(
        "qwen",
        "qwen",
        &["--acp"],
        Some("npm install -g @qwen-code/qwen-code"),
    ),
    preset(
        "copilot",
        "copilot",
        &["--acp"],
        Some("npm install -g @github/copilot"),
    ),
    preset(
        "kiro",
        "kiro-cli",
        &["acp"],
        Some("curl -fsSL https://cli.kiro.dev/install | bash"),
    ),
    preset(
        "cursor",
        "cursor-agent",
        &["acp"],
        Some("curl https://cursor.com/install -fsS | bash"),
    ),
    preset(
        "auggie",
        "auggie",
        &["--acp"],
        Some("npm install -g @augmentcode/auggie"),
    ),
    preset("cline", "cline", &["--acp"], Some("npm install -g cline")),
    preset(
        "qoder",
        "qodercli",
        &["--acp"],
        Some("npm install -g @qoder-ai/qodercli"),
    ),
    preset(
        "blackbox",
        "blackbox",
        &["--experimental-acp"],
        Some("curl -fsSL https://blackbox.ai/install.sh | bash"),
    ),
    preset(
        "openhands",
        "openhands",
        &["acp"],
        Some("uv tool install openhands"),
    ),
    preset("kimi", "kimi", &["acp"], None),
    preset("cagent", "cagent", &["acp"], None),
    preset("stakpak", "stakpak", &["acp"], None),
    preset("vtcode", "vtcode", &["acp"], None),
    preset(
        "vibe",
        "vibe-acp",
        &[],
        Some("uv tool install mistral-vibe"),
    ),
    preset(
        "fast-agent",
        "fast-agent-acp",
        &[],
        Some("uv tool install fast-agent-acp"),
    ),
    preset("pi", "pi-acp", &[], Some("npm install -g pi-acp")),
];

/// The preset of this name (names are exact, lowercase).
pub fn preset_named(name: &str) -> Option<&'static AcpPreset> {
    PRESETS.iter().find(|preset| preset.name == name)
}

/// Every preset's name, in list order, for messages (`gemini, claude, codex, …`).
pub fn preset_names() -> String {
    PRESETS
        .iter()
        .map(|preset| preset.name)
        .collect::<Vec<_>>()
        .join(", ")
}

/// The preset whose program `program` is, by its file name (`/opt/bin/codex-acp` is
/// codex's), when it is one: an ACP turn's program tells whose login advice applies.
pub fn preset_of_program(program: &str) -> Option<&'static AcpPreset> {
    let file = program.rsplit('/').next().unwrap_or(program);
    PRESETS.iter().find(|preset| preset.program == file)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_lookups_are_exact() {
        for (i, preset) in PRESETS.iter().enumerate() {
            assert!(
                PRESETS[i + 1..].iter().all(|p| p.name != preset.name),
                "{} twice",
                preset.name
            );
            assert_eq!(preset_named(preset.name), Some(preset));
        }
        assert_eq!(preset_named("Gemini"), None);
        assert_eq!(
            preset_of_program("/opt/bin/codex-acp").map(|p| p.name),
            Some("codex")
        );
        assert_eq!(preset_of_program("llm"), None);
        assert!(preset_names().starts_with("gemini, claude, codex, goose"));
    }
}
