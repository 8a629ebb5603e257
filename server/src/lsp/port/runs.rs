//! A port's run and what it leaves behind: the count of runs per chat
//! (`State::active_runs`; a queued message is delivered when the chat's last run ends,
//! under the chat's name as it is then), and what a port releases when it goes.

use tower_lsp_server::ls_types::Uri;

use super::{LspPort, lock};
use crate::lsp::state::State;

impl LspPort {
    /// Counts this port's run in `State::active_runs` (queued messages wait for it)
    /// until [`LspPort::end_run`], under the chat's name as it is then.
    pub fn begin_run(&mut self) {
        count_run(&mut lock(&self.state), &self.uri);
        self.counted_run = true;
    }

    /// The chat was renamed to `to`: a counted run goes on counting there.
    pub(super) fn move_run_count(&self, to: &Uri) {
        if self.counted_run {
            let mut state = lock(&self.state);
            uncount_run(&mut state, &self.uri);
            count_run(&mut state, to);
        }
    }

    /// Ends the count of [`LspPort::begin_run`]: the chat's URI now, and whether no
    /// other run goes on in it.
    pub fn end_run(&mut self) -> (Uri, bool) {
        self.counted_run = false;
        let last = uncount_run(&mut lock(&self.state), &self.uri);
        (self.uri.clone(), last)
    }
}

fn count_run(state: &mut State, uri: &Uri) {
    *state.active_runs.entry(uri.clone()).or_default() += 1;
}

/// Takes one run off `uri`'s count; whether it was the last.
pub(super) fn uncount_run(state: &mut State, uri: &Uri) -> bool {
    let n = state.active_runs.entry(uri.clone()).or_default();
    *n = n.saturating_sub(1);
    let last = *n == 0;
    if last {
        state.active_runs.remove(uri);
    }
    last
}

impl Drop for LspPort {
    fn drop(&mut self) {
        for member in self.claimed.drain(..) {
            self.running.release(self.uri.as_str(), &member);
            if let Some(lock) = &self.lock {
                lock.remove_member(&member);
            }
        }
        let mut state = lock(&self.state);
        if self.counted_run {
            // A run that ended without `end_run` (its task panicked) waits no more.
            uncount_run(&mut state, &self.uri);
        }
        if let Some(journal) = state.journals.get_mut(&self.uri) {
            journal.unsubscribe(self.reader);
            if !journal.is_read() {
                state.journals.remove(&self.uri);
            }
        }
    }
}
