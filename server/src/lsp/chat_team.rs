//! The team of a chat as the server finds it: its place ([`team::locate`]) and the
//! team read from there, through the cache the client's file watchers keep valid.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use super::state::{State, lock};
use crate::document::chat::Chat;
use crate::team::{self, Team};

/// The team of a chat, as the editor features see it.
#[derive(Clone)]
pub struct ChatTeam {
    pub team: Arc<Team>,
    /// The workspace root of the chat (empty for a document that is not a file).
    pub root: PathBuf,
    /// Why the front matter's `team:` was refused, when it was.
    pub refused: Option<String>,
}

/// The team of the chat at `path` (`None`: a document that is not a file, which has an
/// empty team), found by [`team::locate`] and loaded through the cache in `state`.
/// Reading role files and config happens outside the lock.
pub fn team_of(state: &Mutex<State>, path: Option<&Path>, chat: &Chat) -> ChatTeam {
    let Some(path) = path else {
        return ChatTeam {
            team: Arc::new(Team::empty(PathBuf::new())),
            root: PathBuf::new(),
            refused: None,
        };
    };
    let editor_root = lock(state).root.clone();
    let place = team::locate(editor_root.as_deref(), path, chat);
    let refused = place.refused.as_ref().map(ToString::to_string);
    let chat_team = |team| ChatTeam {
        team,
        root: place.root.clone(),
        refused: refused.clone(),
    };
    // The cache is only as good as the file watchers that clear it: a client that
    // cannot watch files gets the team read afresh (a few small files) every time.
    let watched = lock(state).client_flags.dynamic_watchers;
    super::trust::forget_teams_if_trust_changed(state);
    if watched && let Some(team) = lock(state).teams.get(&place.folder) {
        return chat_team(team.clone());
    }
    let trust = lock(state).user_config.load_trust();
    let team = Arc::new(place.load(&trust));
    if watched {
        lock(state).teams.insert(place.folder.clone(), team.clone());
    }
    chat_team(team)
}
