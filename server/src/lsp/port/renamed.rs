//! A chat renamed while turns write into it. Editors rename by closing the document
//! and opening one under the new name with the same text (VS Code sends the two
//! notifications back to back); the file on disk has moved. When the closed
//! document's file is gone, the turns follow the one open document that holds their
//! sections, so the answer lands in the renamed chat instead of failing or making
//! the old file up again.

use std::time::Duration;

use super::{LspPort, closed, lock};
use crate::turns::lock::{ChatLock, SERVER};
use crate::turns::{Change, PortError};

/// How long the renamed document may take to open after the old one closed.
const RENAME_GRACE: Duration = Duration::from_secs(1);
const RENAME_POLL: Duration = Duration::from_millis(20);

impl LspPort {
    /// Moves this port to the one other open document holding its sections, exactly
    /// as this port last saw them; false when there is none (or more than one).
    pub(super) fn follow_rename(&mut self) -> bool {
        let Some((start, end)) = closed::sections(&self.view, &self.ids) else {
            return false;
        };
        let ours = &self.view[start..end];
        let mut state = lock(&self.state);
        let mut holding = state
            .documents
            .iter()
            .filter(|(uri, doc)| **uri != self.uri && doc.flat().contains(ours))
            .map(|(uri, doc)| (uri.clone(), doc.flat().to_string()));
        let (Some((uri, text)), None) = (holding.next(), holding.next()) else {
            return false;
        };
        if let Some(journal) = state.journals.get_mut(&self.uri) {
            journal.unsubscribe(self.reader);
            if !journal.is_read() {
                state.journals.remove(&self.uri);
            }
        }
        let journal = state.journals.entry(uri.clone()).or_default();
        self.reader = journal.subscribe();
        self.cursor = journal.end();
        drop(state);
        self.pending.extend(Change::between(&self.view, &text));
        self.view = text;
        self.running.move_document(self.uri.as_str(), uri.as_str());
        tracing::info!(
            from = self.uri.as_str(),
            to = uri.as_str(),
            "the chat was renamed; its turns follow it"
        );
        self.path = super::super::convert::file_path(&uri);
        self.uri = uri;
        // The lock goes with the chat: `chatmd send` on the new name must see it.
        if self.lock.is_some()
            && let Some(path) = &self.path
        {
            match ChatLock::acquire(path, SERVER) {
                Ok(lock) => {
                    for member in &self.claimed {
                        lock.add_member(member);
                    }
                    self.lock = Some(lock);
                }
                Err(error) => {
                    tracing::warn!(%error, "the renamed chat's turns run without its lock")
                }
            }
        }
        true
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
        Err(error)
    }
}
