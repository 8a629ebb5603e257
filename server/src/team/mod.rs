//! Teams: where a chat's team is (`place.rs`: its workspace root and team folder),
//! member discovery from folders, role files, `chatmd.toml`, path containment,
//! workspace trust and the workspace scan; the configuration problem type and TOML
//! checker that `agents.toml` shares. Library code: no async, no LSP types, problems
//! instead of panics.

pub mod agent_settings;
mod autoload;
mod config;
mod discover;
mod error;
mod folders;
mod model;
mod paths;
mod place;
mod problem;
mod scan;
#[cfg(test)]
pub(crate) mod temp_tree;
pub(crate) mod toml_check;
pub mod trust;

pub use autoload::{cli_kind, role_files_loaded};
pub use config::{CONFIG_FILE_NAME, TeamRule, trust_summary};
pub use discover::{DEFAULT_HUMAN, TEAM_INSTRUCTION_FILE, load_team_with};
pub use error::TeamError;
pub use model::{Member, Team, Thoughts, is_valid_handle};
pub(crate) use paths::contain;
pub use paths::resolve_team_folder;
pub(crate) use paths::{normalize, resolve_existing};
pub use place::{TeamPlace, current_folder, locate, team_named, workspace_root};
pub use problem::{ConfigProblem, Location, Severity, UNTRUSTED_CODE};
pub use scan::{is_chat_file, is_team_relevant, scan_chats};
pub use trust::{UserConfig, UserTrust};
