//! What a member's agent is, as plain data that both `team/` (reading `chatmd.toml`
//! and member folders) and `agents/` (running the agent) need, so that neither imports
//! the other: each built-in kind's entry with what `team/` reads of it (`kind.rs`:
//! name, role file, the files its CLI loads by itself; the rest of a kind is its
//! `KindSpec` in `agents/`), the ACP agents known by name (`presets.rs`), an ACP
//! member's session settings (`settings.rs`) and MCP servers (`mcp.rs`), and the
//! registry names every workspace has (`acp`, `command`). Text and tables only: no
//! I/O, no tokio.

mod kind;
mod mcp;
mod presets;
mod settings;

pub(crate) use kind::declare_kind_folders;
pub use kind::{AgentKind, KindFacts, UnknownAgentKind, in_words};
pub use mcp::{McpServer, McpTransport};
pub use presets::{AcpPreset, PRESETS, preset_named, preset_names, preset_of_program};
pub use settings::{SessionSettings, SettingValue};

/// The name members use for any ACP agent: `agent = "acp"` with a `preset` or `command`.
pub const ACP: &str = "acp";

/// The name members use for any plain program: `agent = "command"` with the member's own
/// `command` (and `args`), which a workspace file sets only once trusted.
pub const COMMAND: &str = "command";
