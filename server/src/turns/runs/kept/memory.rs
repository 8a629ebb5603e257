//! The memory cap of what is kept (`warmMemoryMB`): after a process is kept, the
//! resident memory of every kept process group of its workspace is read (off the turn's
//! path: the answer is not held up by a scan of `/proc`), and while they use more than
//! the cap the least recently used ends, the one just kept too if it alone is over.
//! A group counts every process in it: the agent, what it started (Claude Code under
//! claude-agent-acp) and the agent guard.

use std::path::Path;

use super::super::Runs;

impl Runs {
    /// Ends kept processes of `workspace`, least recently used first, while they use
    /// more than `cap` bytes.
    pub(super) fn check_memory(&self, workspace: &Path, cap: u64) {
        if cap == u64::MAX {
            return;
        }
        let groups: Vec<(u64, i32)> = {
            let inner = self.kept.lock();
            inner
                .kept
                .iter()
                .filter(|e| e.key.workspace == workspace)
                .map(|e| (e.used, e.group))
                .collect()
        };
        let runs = self.clone();
        tokio::spawn(async move {
            let ids: Vec<i32> = groups.iter().map(|&(_, group)| group).collect();
            let Ok(sizes) =
                tokio::task::spawn_blocking(move || crate::runner::groups_memory(&ids)).await
            else {
                return;
            };
            let measured: Vec<(u64, u64)> = groups
                .iter()
                .zip(sizes)
                .map(|(&(used, _), bytes)| (used, bytes))
                .collect();
            let over = over_cap(&measured, cap);
            if over.is_empty() {
                return;
            }
            tracing::debug!(
                ended = over.len(),
                cap,
                "the kept agents use more memory than their cap: the least recently used end"
            );
            let ended: Vec<_> = {
                let mut inner = runs.kept.lock();
                let (ended, stay) = std::mem::take(&mut inner.kept)
                    .into_iter()
                    .partition(|e| over.contains(&e.used));
                inner.kept = stay;
                ended
            };
            drop(ended);
        });
    }
}

/// Which of the kept processes (their use stamp and resident bytes) end to bring them
/// under `cap`: the least recently used first, until the rest fit.
pub(super) fn over_cap(kept: &[(u64, u64)], cap: u64) -> Vec<u64> {
    let mut by_use = kept.to_vec();
    by_use.sort_by_key(|&(used, _)| used);
    let mut total: u64 = by_use.iter().map(|&(_, bytes)| bytes).sum();
    let mut ended = Vec::new();
    for (used, bytes) in by_use {
        if total <= cap {
            break;
        }
        total -= bytes;
        ended.push(used);
    }
    ended
}
