//! Following chats and team files on disk ourselves, for a client that does not watch
//! files for us (Neovim on Linux offers no `workspace/didChangeWatchedFiles`): a chat
//! fixed by `chatmd send` or `git checkout` while closed leaves the waiting count, and a
//! changed role file or `chatmd.toml` is read again, as with a client that watches.
//!
//! Bounded: only the folders that hold chats, the folders from them up to the workspace
//! root (where `chatmd.toml` and the team instruction are looked up) and their member
//! folders (role files) are watched, not recursively, [`MAX_FOLDERS`] at most; a
//! burst of events (a checkout, an editor's save-by-rename) is taken as one change
//! after it settles. A chat made in a folder that held none before is seen when the
//! editor opens it, or at the next start.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use notify::event::ModifyKind;
use notify::{EventKind, RecommendedWatcher, RecursiveMode, Watcher};
use tokio::sync::mpsc;
use tower_lsp_server::Client;
use tower_lsp_server::ls_types::{FileChangeType, FileEvent, Uri};

use super::state::{State, lock};
use crate::team;

/// At most this many folders are watched (each costs an inotify watch, a limited
/// resource shared with every other program of the user).
pub const MAX_FOLDERS: usize = 256;
/// How long the events of one change may keep coming before it is taken in.
const SETTLE: Duration = Duration::from_millis(200);

/// Starts watching, unless the client watches for us or there is no workspace. The
/// watcher lives as long as the task that takes its events (the server's lifetime).
pub fn start(client: Client, state: Arc<Mutex<State>>) {
    let (root, chats) = {
        let s = lock(&state);
        if s.client_flags.dynamic_watchers {
            return;
        }
        let Some(root) = s.root.clone() else { return };
        (root, s.chats.clone())
    };
    let folders = folders_to_watch(&root, &chats);
    let (tx, mut rx) = mpsc::unbounded_channel::<PathBuf>();
    let handler = move |event: notify::Result<notify::Event>| {
        let Ok(event) = event else { return };
        if !changes_content(&event.kind) {
            return;
        }
        for path in event.paths {
            if team::is_team_relevant(&path) {
                let _ = tx.send(path);
            }
        }
    };
    let mut watcher = match RecommendedWatcher::new(handler, notify::Config::default()) {
        Ok(watcher) => watcher,
        Err(error) => {
            tracing::warn!(%error, "cannot follow chats on disk: the waiting count may go stale");
            return;
        }
    };
    let watched = folders
        .iter()
        .filter(
            |folder| match watcher.watch(folder, RecursiveMode::NonRecursive) {
                Ok(()) => true,
                Err(error) => {
                    tracing::debug!(%error, folder = %folder.display(), "not watched");
                    false
                }
            },
        )
        .count();
    tracing::info!(folders = watched, "following chats and team files on disk");
    tokio::spawn(async move {
        let _watcher = watcher;
        while let Some(first) = rx.recv().await {
            let mut changed = BTreeSet::from([first]);
            while let Ok(Some(path)) = tokio::time::timeout(SETTLE, rx.recv()).await {
                changed.insert(path);
            }
            let events = changed
                .into_iter()
                .filter_map(|path| file_event(&path))
                .collect();
            super::watch::apply(&client, &state, events).await;
        }
    });
}

/// Whether an event can change what a file says. Not a read (the server reads the
/// chats it publishes: taking reads as changes would publish them again and again),
/// nor a change of metadata alone (a read can update the access time).
fn changes_content(kind: &EventKind) -> bool {
    match kind {
        EventKind::Create(_) | EventKind::Remove(_) => true,
        EventKind::Modify(ModifyKind::Metadata(_)) => false,
        EventKind::Modify(_) => true,
        // A backend that cannot tell says `Any`: taken as a change rather than missed.
        EventKind::Any => true,
        EventKind::Access(_) | EventKind::Other => false,
    }
}

/// The change to `path` as a client would report it.
fn file_event(path: &Path) -> Option<FileEvent> {
    let typ = if path.exists() {
        FileChangeType::CHANGED
    } else {
        FileChangeType::DELETED
    };
    Some(FileEvent::new(Uri::from_file_path(path)?, typ))
}

/// The workspace root, every folder that holds a chat and the folders between them and
/// the root, and their subfolders (a member's role file): nearest the root first, cut at
/// [`MAX_FOLDERS`].
pub fn folders_to_watch(root: &Path, chats: &[PathBuf]) -> Vec<PathBuf> {
    let mut folders = BTreeSet::from([root.to_path_buf()]);
    for chat in chats {
        let Some(folder) = chat.parent() else {
            continue;
        };
        for dir in folder.ancestors().take_while(|dir| dir.starts_with(root)) {
            folders.insert(dir.to_path_buf());
        }
        let members = std::fs::read_dir(folder).into_iter().flatten().flatten();
        for entry in members {
            if entry.file_type().is_ok_and(|t| t.is_dir()) && !is_hidden(&entry.file_name()) {
                folders.insert(entry.path());
            }
        }
    }
    let mut folders: Vec<PathBuf> = folders.into_iter().collect();
    folders.sort_by_key(|dir| (dir.components().count(), dir.clone()));
    folders.truncate(MAX_FOLDERS);
    folders
}

/// `.git`, `.state` (member homes) and the like: never a member folder.
fn is_hidden(name: &std::ffi::OsStr) -> bool {
    name.to_str().is_none_or(|name| name.starts_with('.'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_chats_folders_up_to_the_root_and_their_members_are_watched_nearest_first() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for folder in ["team/reviewer", "team/.state", "src/deep", "other"] {
            std::fs::create_dir_all(root.join(folder)).unwrap();
        }
        let chats = [root.join("team/a.chat.md"), root.join("team/b.chat.md")];
        assert_eq!(
            folders_to_watch(root, &chats),
            [
                root.to_path_buf(),
                root.join("team"),
                root.join("team/reviewer")
            ]
        );
    }

    #[test]
    fn at_most_the_cap_of_folders() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let chats: Vec<PathBuf> = (0..MAX_FOLDERS + 10)
            .map(|i| root.join(format!("chat{i}/x.chat.md")))
            .collect();
        let folders = folders_to_watch(root, &chats);
        assert_eq!(folders.len(), MAX_FOLDERS);
        assert_eq!(folders[0], root);
    }
}
