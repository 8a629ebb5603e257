//! A chat renamed while turns write into it. Editors rename by closing the document
//! and opening one under the new name with the same text (VS Code sends the two
//! notifications back to back); the file on disk has moved. Editors that say so
//! (`workspace/didRenameFiles`, `willRenameFiles`) name the new place: once the
//! closed document's file is gone, its turns follow the document open there, or the
//! file there when none opens in a moment. Without that word, the turns follow the one
//! open document that holds their sections; either way the answer lands in the renamed
//! chat instead of failing or making the old file up again.

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

use tower_lsp_server::ls_types::{FileRename, Uri};

use super::{LspPort, closed, lock};
use crate::lsp::convert::file_path;
use crate::lsp::state::State;
use crate::turns::{Change, PortError};

/// How long the renamed document may take to open after the old one closed.
const RENAME_GRACE: Duration = Duration::from_secs(1);
const RENAME_POLL: Duration = Duration::from_millis(20);

/// How many renames are remembered: a turn looks its chat up in them once it sees the
/// chat closed, a moment after the rename.
const KEPT_RENAMES: usize = 64;

/// The files and folders the editor said it renamed, oldest first.
#[derive(Default)]
pub struct Renames {
    moves: VecDeque<(PathBuf, PathBuf)>,
}

impl Renames {
    pub fn record(&mut self, from: PathBuf, to: PathBuf) {
        self.moves.retain(|(f, t)| !(*f == from && *t == to));
        if self.moves.len() == KEPT_RENAMES {
            self.moves.pop_front();
        }
        self.moves.push_back((from, to));
    }

    /// Where the file at `path` is now, by the renames told: of the file itself or a
    /// folder it is in, one after the other (renamed again, moved back).
    pub fn target(&self, path: &Path) -> Option<PathBuf> {
        let mut at = path.to_path_buf();
        for (from, to) in &self.moves {
            if let Ok(rest) = at.strip_prefix(from) {
                // `join("")` would add a trailing `/`.
                at = if rest.as_os_str().is_empty() {
                    to.clone()
                } else {
                    to.join(rest)
                };
            }
        }
        (at != path).then_some(at)
    }
}

/// `workspace/didRenameFiles` or `willRenameFiles`: the renames are kept, and the
/// turns writing into the documents renamed are woken to look for them (they move once
/// they see the old document closed).
pub fn files_renamed(state: &Mutex<State>, files: &[FileRename]) {
    let mut state = lock(state);
    for file in files {
        let path = |uri: &str| uri.parse::<Uri>().ok().as_ref().and_then(file_path);
        if let (Some(from), Some(to)) = (path(&file.old_uri), path(&file.new_uri)) {
            state.renames.record(from, to);
        }
    }
    let renames = &state.renames;
    for (uri, journal) in &state.journals {
        if file_path(uri).is_some_and(|path| renames.target(&path).is_some()) {
            journal.changed.notify_waiters();
        }
    }
}

impl LspPort {
    /// Moves this port to the renamed document: the one open where the editor said
    /// the chat went, or else the one other open document holding this port's
    /// sections exactly as it last saw them; false when there is none (or more than
    /// one).
    pub(super) fn follow_rename(&mut self) -> bool {
        let told = self.told_target();
        let ours = match closed::sections(&self.view, &self.ids) {
            Some((start, end)) => &self.view[start..end],
            None if told.is_some() => "",
            None => return false,
        };
        let shared = self.state.clone();
        let mut state = lock(&shared);
        let mut holding = state
            .documents
            .iter()
            .filter(|(uri, doc)| match &told {
                Some(to) => doc.path.as_ref() == Some(to),
                None => **uri != self.uri && doc.flat().contains(ours),
            })
            .map(|(uri, doc)| (uri.clone(), doc.flat().to_string()));
        let (Some((uri, text)), None) = (holding.next(), holding.next()) else {
            return false;
        };
        // Under the same lock as the text: the journal goes on from this text.
        self.read_journal_of(&mut state, &uri);
        drop(state);
        self.pending.extend(Change::between(&self.view, &text));
        self.view = text;
        self.move_to(uri);
        true
    }

    /// Leaves the journal of this port's document for the one of `uri`, from its end.
    fn read_journal_of(&mut self, state: &mut State, uri: &Uri) {
        if let Some(journal) = state.journals.get_mut(&self.uri) {
            journal.unsubscribe(self.reader);
            if !journal.is_read() {
                state.journals.remove(&self.uri);
            }
        }
        let journal = state.journals.entry(uri.clone()).or_default();
        self.reader = journal.subscribe();
        self.cursor = journal.end();
    }

    /// Where the editor said this port's chat went, when it did.
    fn told_target(&self) -> Option<PathBuf> {
        let path = self.path.as_deref()?;
        lock(&self.state).renames.target(path)
    }

    /// Makes `uri` this port's document: its turns, its lock and its name go there.
    fn move_to(&mut self, uri: Uri) {
        tracing::info!(
            from = self.uri.as_str(),
            to = uri.as_str(),
            "the chat was renamed; its turns follow it"
        );
        self.path = file_path(&uri);
        self.running
            .move_run(self.run, uri.as_str(), self.path.as_deref());
        self.uri = uri;
    }

    /// The file the editor said the chat was renamed to, when no document opened
    /// there: this port goes on in it (and back to the editor once it opens).
    fn follow_to_file(&mut self) -> Result<(), PortError> {
        let Some(to) = self.told_target().filter(|to| to.is_file()) else {
            return Err(PortError::Gone {
                path: self
                    .path
                    .as_deref()
                    .unwrap_or(Path::new(""))
                    .display()
                    .to_string(),
            });
        };
        let Some(uri) = Uri::from_file_path(&to) else {
            return Err(PortError::Gone {
                path: to.display().to_string(),
            });
        };
        let state = self.state.clone();
        self.read_journal_of(&mut lock(&state), &uri);
        self.move_to(uri);
        self.switch_to_disk()
    }

    /// After `error`: when the chat is gone because it is being renamed, waits (a
    /// moment at most) for the renamed document and follows it; otherwise `error`.
    pub(super) async fn recover(&mut self, error: PortError) -> Result<(), PortError> {
        if !matches!(error, PortError::Gone { .. }) {
            return Err(error);
        }
        let deadline = tokio::time::Instant::now() + RENAME_GRACE;
        while tokio::time::Instant::now() < deadline {
            tokio::time::sleep(RENAME_POLL).await;
            if self.follow_rename() {
                return Ok(());
            }
        }
        if self.told_target().is_some() {
            return self.follow_to_file();
        }
        Err(error)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn a_chat_is_found_through_renames_of_itself_and_its_folders() {
        let mut renames = Renames::default();
        renames.record("/ws/draft.chat.md".into(), "/ws/final.chat.md".into());
        assert_eq!(
            renames.target(Path::new("/ws/draft.chat.md")),
            Some("/ws/final.chat.md".into())
        );
        assert!(
            !renames
                .target(Path::new("/ws/draft.chat.md"))
                .unwrap()
                .as_os_str()
                .to_string_lossy()
                .ends_with('/')
        );
        // Then its folder moves.
        renames.record("/ws".into(), "/archive/2025".into());
        assert_eq!(
            renames.target(Path::new("/ws/draft.chat.md")),
            Some("/archive/2025/final.chat.md".into())
        );
        assert_eq!(
            renames.target(Path::new("/ws/team/other.chat.md")),
            Some("/archive/2025/team/other.chat.md".into())
        );
        // A name that only starts like the folder's is not in it.
        assert_eq!(renames.target(Path::new("/wsx/a.chat.md")), None);
        assert_eq!(renames.target(Path::new("/elsewhere/a.chat.md")), None);
    }

    #[test]
    fn a_chat_renamed_back_has_not_moved() {
        let mut renames = Renames::default();
        renames.record("/ws/a.chat.md".into(), "/ws/b.chat.md".into());
        // `willRenameFiles` and `didRenameFiles` tell the same rename twice.
        renames.record("/ws/a.chat.md".into(), "/ws/b.chat.md".into());
        renames.record("/ws/b.chat.md".into(), "/ws/a.chat.md".into());
        assert_eq!(renames.target(Path::new("/ws/a.chat.md")), None);
        assert_eq!(renames.moves.len(), 2);
    }

    #[test]
    fn only_the_latest_renames_are_kept() {
        let mut renames = Renames::default();
        for n in 0..KEPT_RENAMES + 10 {
            renames.record(format!("/ws/{n}").into(), format!("/ws/{}", n + 1).into());
        }
        assert_eq!(renames.moves.len(), KEPT_RENAMES);
        assert_eq!(renames.target(Path::new("/ws/0")), None);
        assert_eq!(
            renames.target(Path::new("/ws/10")),
            Some(format!("/ws/{}", KEPT_RENAMES + 10).into())
        );
    }
}
