//! Teams: member discovery from folders, role files, `chatmd.toml`, path containment,
//! workspace trust and the workspace scan. Library code: no async, no LSP types,
//! problems instead of panics.

mod autoload;
mod config;
mod discover;
mod error;
mod folders;
mod kind;
mod model;
mod paths;
mod probe;
mod scan;
pub mod trust;

pub use autoload::role_files_loaded;
pub use config::{CONFIG_FILE_NAME, trust_summary};
pub use discover::{DEFAULT_HUMAN, TEAM_INSTRUCTION_FILE, load_team, load_team_with};
pub use error::TeamError;
pub use kind::{AgentKind, UnknownAgentKind};
pub use model::{Member, Severity, Team, TeamProblem, UNTRUSTED_CODE, is_valid_handle};
pub use paths::resolve_team_folder;
pub use probe::{
    NOT_PROBED_IN_WORKSPACE, PROBE_TIMEOUT, find_in, find_on_path, inside_workspace, probe_version,
};
pub use scan::{is_team_relevant, scan_chats};
pub use trust::{UserConfig, UserTrust};
