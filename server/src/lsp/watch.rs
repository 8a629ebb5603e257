//! Keeping current with the workspace: the initial scan for chats, file watchers
//! registered with the client, and what a changed role file or config invalidates.

use std::sync::{Arc, Mutex};

use tower_lsp_server::Client;
use tower_lsp_server::ls_types::*;

use super::state::{ClientFlags, State, lock};
use crate::team;

/// The files whose changes matter: chats, role files, team instructions, config.
const WATCHED: [&str; 4] = [
    "**/*.chat.md",
    "**/{CLAUDE,AGENTS,GEMINI,AGENTS.override}.md",
    "**/team_instruction.md",
    "**/chatmd.toml",
];

pub fn client_flags(caps: &ClientCapabilities) -> ClientFlags {
    let workspace = caps.workspace.as_ref();
    ClientFlags {
        dynamic_watchers: workspace
            .and_then(|w| w.did_change_watched_files.as_ref())
            .and_then(|d| d.dynamic_registration)
            .unwrap_or(false),
        work_done_progress: caps
            .window
            .as_ref()
            .and_then(|w| w.work_done_progress)
            .unwrap_or(false),
        show_document: caps
            .window
            .as_ref()
            .and_then(|w| w.show_document.as_ref())
            .is_some_and(|s| s.support),
        skips_stale_edits: false,
        adds_final_line_break: false,
        show_message_request: caps
            .window
            .as_ref()
            .is_some_and(|w| w.show_message.is_some()),
        pull_diagnostics: caps
            .text_document
            .as_ref()
            .is_some_and(|t| t.diagnostic.is_some()),
        diagnostic_refresh: workspace
            .and_then(|w| w.diagnostics.as_ref())
            .and_then(|d| d.refresh_support)
            .unwrap_or(false),
        read_buffer: caps
            .experimental
            .as_ref()
            .and_then(|e| e.get(super::ext::READ_BUFFER_CAPABILITY))
            .and_then(serde_json::Value::as_bool)
            .unwrap_or(false),
        creates_files: resource_operation(caps, ResourceOperationKind::Create),
        deletes_files: resource_operation(caps, ResourceOperationKind::Delete),
    }
}

/// Whether the client's workspace edits take resource operations of `kind`.
fn resource_operation(caps: &ClientCapabilities, kind: ResourceOperationKind) -> bool {
    caps.workspace
        .as_ref()
        .and_then(|w| w.workspace_edit.as_ref())
        .and_then(|e| e.resource_operations.as_ref())
        .is_some_and(|kinds| kinds.contains(&kind))
}

/// Asks the client to watch the files that matter, when it can register watchers.
pub async fn register(client: &Client, state: &Mutex<State>) {
    if !lock(state).client_flags.dynamic_watchers {
        return;
    }
    let options = DidChangeWatchedFilesRegistrationOptions {
        watchers: WATCHED
            .iter()
            .map(|glob| FileSystemWatcher {
                glob_pattern: GlobPattern::String(glob.to_string()),
                kind: None,
            })
            .collect(),
    };
    let registration = Registration {
        id: "chatmd-watched-files".to_string(),
        method: "workspace/didChangeWatchedFiles".to_string(),
        register_options: serde_json::to_value(options).ok(),
    };
    let request = client.register_capability(vec![registration]);
    match tokio::time::timeout(std::time::Duration::from_secs(10), request).await {
        Ok(Ok(())) => {}
        Ok(Err(e)) => tracing::warn!("the client refused file watchers: {e}"),
        Err(_) => tracing::warn!("the client did not answer the file watcher registration"),
    }
}

/// Finds every chat in the workspace (run off the async threads).
pub fn scan_workspace(state: &Mutex<State>) {
    let Some(root) = lock(state).root.clone() else {
        return;
    };
    let chats = team::scan_chats(&root);
    tracing::info!(count = chats.len(), "workspace scanned");
    record_scan(state, chats);
}

/// Keeps a scan's chats, unless one already recorded (the first scan wins: changes
/// since then came through the watchers).
pub fn record_scan(state: &Mutex<State>, chats: Vec<std::path::PathBuf>) {
    let mut s = lock(state);
    if !s.chats_scanned {
        s.chats = chats;
        s.chats_scanned = true;
    }
}

/// Takes in files changed on disk (reported by the client, or seen by `disk_watch`):
/// the teams read again, the open chats' diagnostics redone when a team changed, and
/// the closed chats' waits told again.
pub async fn apply(client: &Client, state: &Arc<Mutex<State>>, changes: Vec<FileEvent>) {
    let chats: Vec<_> = changes
        .iter()
        .filter_map(|c| super::convert::file_path(&c.uri))
        .filter(|p| team::is_chat_file(p))
        .collect();
    for (uri, version) in files_changed(state, changes) {
        tokio::spawn(super::diagnostics::publish(
            client.clone(),
            state.clone(),
            uri,
            version,
            false,
        ));
    }
    if !chats.is_empty() {
        let (client, state) = (client.clone(), state.clone());
        tokio::spawn(async move { super::waiting::chats_changed(&client, &state, chats).await });
    }
}

/// Applies file changes; returns the open documents whose diagnostics must be redone.
pub fn files_changed(state: &Mutex<State>, changes: Vec<FileEvent>) -> Vec<(Uri, i32)> {
    let mut s = lock(state);
    let mut team_changed = false;
    for change in changes {
        let Some(path) = super::convert::file_path(&change.uri) else {
            continue;
        };
        if team::is_chat_file(&path) {
            s.chats.retain(|p| *p != path);
            if change.typ != FileChangeType::DELETED {
                s.chats.push(path.clone());
                s.chats.sort();
            }
        }
        if team::is_team_relevant(&path) && !team::is_chat_file(&path) {
            team_changed = true;
        }
        // A new or deleted folder can add or remove a member, too.
        if path.is_dir() || change.typ == FileChangeType::DELETED {
            team_changed = true;
        }
    }
    if team_changed {
        s.forget_teams();
    }
    if !team_changed {
        return Vec::new();
    }
    s.documents
        .values()
        .map(|d| (d.uri.clone(), d.version))
        .collect()
}
