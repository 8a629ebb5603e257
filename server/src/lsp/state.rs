//! The server's state: open documents (text, parsed chat, version), the negotiated
//! position encoding, the workspace root, cached teams and the chat index.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use tower_lsp_server::ls_types::Uri;

use crate::document::chat::Chat;
use crate::document::text::{PositionEncoding, Text};
use crate::team::{self, Team};

/// An open document.
#[derive(Clone)]
pub struct Document {
    pub uri: Uri,
    pub path: Option<PathBuf>,
    pub version: i32,
    pub text: Text,
    pub chat: Arc<Chat>,
    /// The text as one string, made on first use after each change: requests read
    /// `&str` slices without walking the rope.
    flat: OnceLock<Arc<str>>,
}

impl Document {
    pub fn new(uri: Uri, version: i32, text: &str) -> Document {
        let path = super::convert::file_path(&uri);
        Document {
            uri,
            path,
            version,
            chat: Arc::new(Chat::parse(text)),
            text: Text::new(text),
            flat: OnceLock::from(Arc::from(text)),
        }
    }

    /// The whole text as a string (cheap after the first call per version).
    pub fn flat(&self) -> Arc<str> {
        self.flat
            .get_or_init(|| Arc::from(self.text.to_string()))
            .clone()
    }

    /// Applies one LSP content change and re-parses incrementally.
    pub fn apply_change(
        &mut self,
        range: Option<(
            crate::document::text::LineCol,
            crate::document::text::LineCol,
        )>,
        new_text: &str,
        encoding: PositionEncoding,
    ) -> crate::document::text::Edit {
        let edit = self.text.apply_change(range, new_text, encoding);
        let text = &self.text;
        Arc::make_mut(&mut self.chat).reparse(&edit, text.len_bytes(), |r| text.slice(r));
        self.flat = OnceLock::new();
        edit
    }
}

/// When a file on disk was read: its modification time and size.
pub type OutlineStamp = (Option<std::time::SystemTime>, u64);

/// What the client said it can do, as far as the server cares.
#[derive(Clone, Copy, Debug, Default)]
pub struct ClientFlags {
    pub dynamic_watchers: bool,
    /// `window/workDoneProgress/create` may be sent.
    pub work_done_progress: bool,
    /// `window/showDocument` may be sent.
    pub show_document: bool,
    /// The editor answers `applied: true` for an edit it skipped for an older
    /// version (Neovim), so a missing echo is found out sooner.
    pub skips_stale_edits: bool,
    /// The editor keeps a file's last line break apart from its text and adds it
    /// back after text inserted past the last line (Neovim): text appended at the end
    /// is sent without its own final line break.
    pub adds_final_line_break: bool,
    /// `window/showMessageRequest` may be sent (the client shows dialogs).
    pub show_message_request: bool,
}

#[derive(Default)]
pub struct State {
    pub encoding: PositionEncoding,
    pub root: Option<PathBuf>,
    pub client: ClientFlags,
    /// Where to look for agent CLIs instead of `PATH` (initialization option
    /// `agentPath`): editors started from a desktop often lack the shell's `PATH`.
    pub agent_path: Option<std::ffi::OsString>,
    pub documents: HashMap<Uri, Document>,
    /// Teams by team folder, loaded on first use and dropped when their files change.
    pub teams: HashMap<PathBuf, Arc<Team>>,
    /// Every `.chat.md` in the workspace, for workspace symbols.
    pub chats: Vec<PathBuf>,
    /// Outlines of chats on disk, by path, with the (mtime, size) they were read at.
    pub outlines: HashMap<PathBuf, (OutlineStamp, Arc<super::symbols::FileOutline>)>,
    /// Files that got team problems published, per team folder, so they can be cleared.
    pub team_problem_files: HashMap<PathBuf, Vec<Uri>>,
    /// Change journals of documents turns are writing into.
    pub journals: HashMap<Uri, super::journal::Journal>,
    /// Agent kinds (built in and the user's `agents.toml`), read on the first run.
    pub registry: Option<Arc<crate::agents::Registry>>,
    /// The turns running now.
    pub running: crate::turns::registry::Running,
    /// The tasks that run turns into documents, so an ending server can wait for them
    /// to write how their turns ended.
    pub runs: tokio_util::task::TaskTracker,
    pub shutting_down: bool,
    /// The user's own config folder: what they trust in workspaces.
    pub user_config: team::UserConfig,
    /// When the trust store last changed, as the cached teams saw it.
    pub trust_stamp: Option<std::time::SystemTime>,
}

impl State {
    /// The workspace root used for a file: the LSP root when the file is inside it,
    /// else the file's own folder.
    pub fn root_for(&self, path: &Path) -> PathBuf {
        match &self.root {
            Some(root) if path.starts_with(root) => root.clone(),
            _ => path.parent().map(Path::to_path_buf).unwrap_or_default(),
        }
    }
}

/// Loads the team for a chat, through the cache in `state`. Reading role files and
/// config happens outside the lock.
pub fn team_for(
    state: &std::sync::Mutex<State>,
    path: &Path,
    front_matter_team: Option<&str>,
) -> (Arc<Team>, Option<String>) {
    let root = lock(state).root_for(path);
    let (folder, error) = match team::resolve_team_folder(&root, path, front_matter_team) {
        Ok(folder) => (folder, None),
        Err(e) => (
            path.parent().map(Path::to_path_buf).unwrap_or_default(),
            Some(e.to_string()),
        ),
    };
    // The cache is only as good as the file watchers that clear it: a client that
    // cannot watch files gets the team read afresh (a few small files) every time.
    let watched = lock(state).client.dynamic_watchers;
    super::trust::forget_teams_if_trust_changed(state);
    if watched && let Some(team) = lock(state).teams.get(&folder) {
        return (team.clone(), error);
    }
    let trust = lock(state).user_config.load_trust();
    let team = Arc::new(team::load_team_with(&root, &folder, &trust));
    if watched {
        lock(state).teams.insert(folder, team.clone());
    }
    (team, error)
}

/// The team of the chat at `path` (its front matter's `team:`, else its folder), and
/// why its `team:` was refused, if it was.
pub fn chat_team_checked(
    state: &std::sync::Mutex<State>,
    path: &Path,
    chat: &crate::document::chat::Chat,
) -> (Arc<Team>, Option<String>) {
    let fm_team = chat.front_matter.as_ref().and_then(|fm| fm.team.as_ref());
    team_for(state, path, fm_team.map(|t| t.value.as_str()))
}

/// The team of the chat at `path`.
pub fn chat_team(
    state: &std::sync::Mutex<State>,
    path: &Path,
    chat: &crate::document::chat::Chat,
) -> Arc<Team> {
    chat_team_checked(state, path, chat).0
}

/// Locks the state; a panic elsewhere must not take the whole server down with it.
pub fn lock(state: &std::sync::Mutex<State>) -> std::sync::MutexGuard<'_, State> {
    state
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}
