//! A member's ACP session settings as `chatmd.toml` gives them (`mode`, `model`,
//! `[members.X.options]`, its MCP servers): plain data that `team/` reads and
//! `agents/acp` applies (`agents/acp/settings.rs` checks them against what a session
//! offers).

use std::fmt;

/// What a member asks of its ACP session besides the prompt.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SessionSettings {
    /// The session mode (`[members.X] mode`): the config option of category `mode`,
    /// else a legacy mode.
    pub mode: Option<String>,
    /// The model (`[members.X] model`): the config option of category `model`.
    pub model: Option<String>,
    /// Other config options by id (`[members.X.options]`), in key order.
    pub options: Vec<(String, SettingValue)>,
    /// The preset's mode that asks before tools run, set when the member chose no
    /// `mode` and the session offers it (claude-agent-acp 0.101 starts in `auto`).
    pub asking_mode: Option<String>,
    /// The member's MCP servers (`[members.X.mcp_servers]`), passed to each session.
    pub mcp_servers: Vec<super::mcp::McpServer>,
}

/// A value for a config option: a select's value id or a boolean's value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SettingValue {
    Text(String),
    Flag(bool),
}

impl fmt::Display for SettingValue {
    /// As written in `chatmd.toml`: `"plan"`, `true`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SettingValue::Text(text) => write!(f, "{text:?}"),
            SettingValue::Flag(flag) => write!(f, "{flag}"),
        }
    }
}
