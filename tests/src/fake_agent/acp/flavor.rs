//! What differs between the three ACP agents before any prompt: the `initialize` result,
//! the session's modes, models and config options, the slash commands, and the words of
//! their errors. The static parts are `fixtures/acp/<flavor>.json`, taken from the
//! recordings (see `fixtures/acp/README.md`).

use std::sync::OnceLock;

use super::super::cli::Cli;
use super::json::{J, obj};

fn templates(flavor: Cli) -> &'static J {
    static CLAUDE: OnceLock<J> = OnceLock::new();
    static CODEX: OnceLock<J> = OnceLock::new();
    static GEMINI: OnceLock<J> = OnceLock::new();
    match flavor {
        Cli::Claude => {
            CLAUDE.get_or_init(|| J::parse(include_str!("../../../fixtures/acp/claude.json")))
        }
        Cli::Codex => {
            CODEX.get_or_init(|| J::parse(include_str!("../../../fixtures/acp/codex.json")))
        }
        Cli::Gemini => {
            GEMINI.get_or_init(|| J::parse(include_str!("../../../fixtures/acp/gemini.json")))
        }
    }
}

/// The program name a test runs (`gemini` takes `--acp`).
pub fn program(flavor: Cli) -> &'static str {
    match flavor {
        Cli::Claude => "claude-agent-acp",
        Cli::Codex => "codex-acp",
        Cli::Gemini => "gemini",
    }
}

/// The `initialize` result.
pub fn initialize(flavor: Cli) -> J {
    templates(flavor).at("initialize")
}

/// codex-acp's mode when the session starts: `INITIAL_AGENT_MODE`, else "agent".
pub fn initial_codex_mode() -> String {
    std::env::var("INITIAL_AGENT_MODE")
        .ok()
        .filter(|m| {
            ["read-only", "workspace-write", "agent", "agent-full-access"].contains(&m.as_str())
        })
        .unwrap_or_else(|| "agent".to_string())
}

/// claude-agent-acp offers `bypassPermissions` only when not root or with `IS_SANDBOX=1`.
pub fn claude_allows_bypass() -> bool {
    let root = std::fs::read_to_string("/proc/self/status").is_ok_and(|status| {
        status
            .lines()
            .find_map(|line| line.strip_prefix("Uid:"))
            .and_then(|ids| ids.split_whitespace().nth(1))
            == Some("0")
    });
    !root || std::env::var("IS_SANDBOX").as_deref() == Ok("1")
}

/// The session's `modes`, with `mode` current (codex; the others start in "default").
pub fn modes(flavor: Cli, mode: &str) -> J {
    let mut modes = templates(flavor).at("modes");
    modes.set("currentModeId", mode);
    if flavor == Cli::Claude && !claude_allows_bypass() {
        let kept: Vec<J> = modes
            .at("availableModes")
            .items()
            .iter()
            .filter(|m| m.get("id").and_then(J::as_str) != Some("bypassPermissions"))
            .cloned()
            .collect();
        modes.set("availableModes", kept);
    }
    modes
}

/// The session's `configOptions`: `mode` current, and each of `values` (config id,
/// value) current in its option.
pub fn config_options(flavor: Cli, mode: &str, values: &[(String, String)]) -> J {
    let mut options: Vec<J> = templates(flavor).at("configOptions").items().to_vec();
    for option in &mut options {
        let id = option
            .get("id")
            .and_then(J::as_str)
            .unwrap_or_default()
            .to_string();
        if let Some((_, value)) = values.iter().find(|(i, _)| *i == id) {
            option.set("currentValue", value.as_str());
        }
        if id != "mode" {
            continue;
        }
        option.set("currentValue", mode);
        if flavor == Cli::Claude && !claude_allows_bypass() {
            let kept: Vec<J> = option
                .at("options")
                .items()
                .iter()
                .filter(|o| o.get("value").and_then(J::as_str) != Some("bypassPermissions"))
                .cloned()
                .collect();
            option.set("options", kept);
        }
    }
    J::Arr(options)
}

/// The values each select config option offers, by option id (the legacy `modes` of
/// gemini as `mode`).
pub fn option_values(flavor: Cli, id: &str) -> Option<Vec<String>> {
    if id == "mode" {
        return Some(mode_ids(flavor));
    }
    let options = templates(flavor).get("configOptions")?.items().to_vec();
    let option = options
        .iter()
        .find(|o| o.get("id").and_then(J::as_str) == Some(id))?;
    Some(
        option
            .at("options")
            .items()
            .iter()
            .filter_map(|o| o.get("value")?.as_str().map(str::to_string))
            .collect(),
    )
}

/// The result of `session/new` (with `Some(id)`), `session/load` or `session/resume`
/// (`None` where that agent leaves the id out), in the agent's key order.
pub fn session_result(flavor: Cli, id: Option<&str>, mode: &str) -> J {
    session_result_with(flavor, id, mode, &[])
}

/// [`session_result`] with the config `values` set in this session.
pub fn session_result_with(
    flavor: Cli,
    id: Option<&str>,
    mode: &str,
    values: &[(String, String)],
) -> J {
    let t = templates(flavor);
    let mut result = J::Obj(Vec::new());
    if let Some(id) = id {
        result.set("sessionId", id);
    }
    match flavor {
        Cli::Claude => {
            result.set("modes", modes(flavor, mode));
            result.set("configOptions", config_options(flavor, mode, values));
        }
        Cli::Codex => {
            result.set("models", t.at("models"));
            result.set("modes", modes(flavor, mode));
            result.set("configOptions", config_options(flavor, mode, values));
        }
        Cli::Gemini => {
            result.set("modes", modes(flavor, mode));
            result.set("models", t.at("models"));
        }
    }
    result
}

/// The `available_commands_update` every session gets once it is set up.
pub fn commands_update(flavor: Cli) -> J {
    obj! {
        "sessionUpdate": "available_commands_update",
        "availableCommands": templates(flavor).at("availableCommands"),
    }
}

/// The modes a `session/set_mode` may pick.
pub fn mode_ids(flavor: Cli) -> Vec<String> {
    modes(flavor, "")
        .at("availableModes")
        .items()
        .iter()
        .filter_map(|m| m.get("id")?.as_str().map(str::to_string))
        .collect()
}

/// The first mode of a new session. claude-agent-acp 0.101 starts in `auto` (its tools
/// run without a permission request): `FAKE_ACP_CLAUDE_START_MODE=auto` plays it.
pub fn start_mode(flavor: Cli) -> String {
    match flavor {
        Cli::Codex => initial_codex_mode(),
        Cli::Claude => std::env::var("FAKE_ACP_CLAUDE_START_MODE")
            .ok()
            .filter(|mode| mode_ids(Cli::Claude).contains(mode))
            .unwrap_or_else(|| "default".to_string()),
        Cli::Gemini => "default".to_string(),
    }
}

/// The file of instructions each agent reads from its working folder.
pub fn context_file(flavor: Cli) -> &'static str {
    match flavor {
        Cli::Claude => "CLAUDE.md",
        Cli::Codex => "AGENTS.md",
        Cli::Gemini => "GEMINI.md",
    }
}

/// codex-acp's extension notification before a session is set up (custom provider).
pub fn codex_auth_status() -> J {
    obj! {
        "authStatus": obj! { "kind": "gateway", "label": "Custom model gateway", "detail": "mock" },
    }
}

/// The `session/update` codex sends for its thread status.
pub fn codex_status(active: Option<&[&str]>) -> J {
    let status = match active {
        Some(flags) => obj! {
            "type": "active",
            "activeFlags": flags.iter().map(|f| J::from(*f)).collect::<Vec<J>>(),
        },
        None => obj! { "type": "idle" },
    };
    obj! {
        "sessionUpdate": "session_info_update",
        "_meta": obj! { "codex": obj! { "threadStatus": status } },
    }
}
