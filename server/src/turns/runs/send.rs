//! A Send as both front ends start it: the editor's commands (`chatmd.send`, Ask,
//! Continue, Retry, …) and `chatmd send` build the run's [`Context`] here from what each
//! knows, so a turn runs the same from either.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use tokio_util::sync::CancellationToken;

use crate::agents::Registry;
use crate::team::{self, UserConfig};
use crate::turns::Context;

/// What a front end knows of a Send.
pub struct SendRequest {
    /// The chat file.
    pub chat: PathBuf,
    /// Where the workspace is looked for from: the editor's workspace folder, or the
    /// terminal's current folder ([`team::workspace_root`]).
    pub around: Option<PathBuf>,
    /// Members asked by name (Ask, `--to`); otherwise the routing rules decide.
    pub targets: Option<Vec<String>>,
    /// The agent kinds: built in and the user's `agents.toml`.
    pub registry: Arc<Registry>,
    /// Folders searched for agent CLIs before `PATH` (the editor's `agentPath`).
    pub agent_path: Option<std::ffi::OsString>,
    pub user_config: UserConfig,
    /// The owner of what runs, which keeps members' processes between their turns: the
    /// server's, for as long as it runs, or one `chatmd send` run's.
    pub runs: super::Runs,
}

/// The run's context: the workspace found around the chat, a token of its own that
/// cancels the run.
pub fn context(request: SendRequest) -> Context {
    let folder = request.chat.parent().unwrap_or(Path::new(""));
    Context {
        workspace_root: team::workspace_root(request.around.as_deref(), folder),
        chat_path: request.chat,
        registry: request.registry,
        cancel: CancellationToken::new(),
        targets: request.targets,
        agent_path: request.agent_path,
        user_config: request.user_config,
        runs: Some(request.runs),
    }
}
