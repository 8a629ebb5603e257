//! A port's run in the registry of what runs (`turns/runs`): counted in its chat while
//! it goes on (a queued message is delivered when the chat's last run ends, under the
//! chat's name as it is then), and forgotten with whatever it left when the port goes.

use tower_lsp_server::ls_types::Uri;

use super::{LspPort, lock};

impl LspPort {
    /// Counts this port's run in its chat (queued messages wait for it) until
    /// [`LspPort::end_run`], under the chat's name as it is then.
    pub fn begin_run(&mut self) {
        self.running.count_run(self.run);
    }

    /// Ends the count of [`LspPort::begin_run`]: the chat's URI now, and whether no
    /// other run goes on in it.
    ///
    /// A chat opened while the run counts is the run's to bring up to date (its
    /// buffer may hold an older text of the file the run wrote), also when the run
    /// had nothing more to write; `lsp/reopened.rs` does it for a chat opened after.
    /// Whether the run counts is decided under the server state's lock on both
    /// sides, so a `didOpen` in between is seen by one of them, never by both or none.
    pub async fn end_run(&mut self) -> (Uri, bool) {
        loop {
            if let Err(error) = self.come_back().await {
                tracing::warn!(%error, uri = self.key(), "could not bring the reopened chat up to date");
            }
            let state = lock(&self.state);
            let opened_since = self.disk.is_some() && state.documents.contains_key(&self.uri);
            if !opened_since {
                let last = self.running.end_run(self.run);
                return (self.uri.clone(), last);
            }
        }
    }
}

impl Drop for LspPort {
    fn drop(&mut self) {
        // A run that ended without `end_run` (its task panicked) waits no more, and
        // the turns it did not end are released.
        self.running.close_run(self.run);
        let mut state = lock(&self.state);
        if let Some(journal) = state.journals.get_mut(&self.uri) {
            journal.unsubscribe(self.reader);
            if !journal.is_read() {
                state.journals.remove(&self.uri);
            }
        }
    }
}
