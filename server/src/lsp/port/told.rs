//! What a member's agent told about itself during a turn (its `/` commands, its
//! session's settings, that it needs a login), kept in the server's state by the chat's
//! team folder and the member; a login problem shows as a diagnostic in every open
//! chat, so they are published again when it comes or goes.

use std::path::PathBuf;
use std::sync::Arc;

use super::LspPort;
use crate::agents::AgentEvent;
use crate::document::chat::Chat;
use crate::lsp::state::lock;

impl LspPort {
    /// Keeps `event` of `member`.
    pub(super) fn keep_told(&mut self, member: &str, event: &AgentEvent) {
        let Some(folder) = self.team_folder() else {
            return;
        };
        let login_changed = lock(&self.state).told.take(&folder, member, event);
        if login_changed {
            self.republish();
        }
    }

    /// `member` answered: a login problem it had is over.
    pub(super) fn answered(&mut self, member: &str) {
        if !lock(&self.state).told.any_login() {
            return;
        }
        let Some(folder) = self.team_folder() else {
            return;
        };
        if lock(&self.state).told.answered(&folder, member) {
            self.republish();
        }
    }

    /// The chat's team folder, as the editor features find it (looked up once).
    fn team_folder(&mut self) -> Option<PathBuf> {
        if let Some(folder) = &self.team_folder {
            return Some(folder.clone());
        }
        let path = self.path.clone()?;
        let open = lock(&self.state)
            .documents
            .get(&self.uri)
            .map(|doc| doc.chat.clone());
        let chat = open.unwrap_or_else(|| {
            Arc::new(Chat::parse(
                &std::fs::read_to_string(&path).unwrap_or_default(),
            ))
        });
        let folder = self.team(&chat).folder.clone();
        self.team_folder = Some(folder.clone());
        Some(folder)
    }

    /// Publishes the diagnostics of every open document again.
    fn republish(&self) {
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let open: Vec<_> = lock(&self.state)
            .documents
            .values()
            .map(|doc| (doc.uri.clone(), doc.version))
            .collect();
        let (client, state) = (self.client.clone(), self.state.clone());
        runtime.spawn(async move {
            for (uri, version) in open {
                crate::lsp::diagnostics::publish(
                    client.clone(),
                    state.clone(),
                    uri,
                    version,
                    false,
                )
                .await;
            }
        });
    }
}
