//! What a request worked out per message, kept across edits: one slot per message,
//! moved along by each edit (`Chat::reparse` says which messages are new: only their
//! slots are emptied), shared by the snapshots of one version. The slots hold only for
//! one value of a key (the position encoding, the team): another key empties them.

use std::sync::{Arc, Mutex, MutexGuard};

use crate::document::chat::Reparsed;

#[derive(Debug)]
struct Slots<T, K> {
    /// Bumped by each edit; a snapshot of another generation (a request still on an
    /// older version) works without them.
    generation: u64,
    key: Option<K>,
    /// One per message, or none at all until a request fills them.
    slots: Vec<Option<T>>,
}

impl<T, K> Default for Slots<T, K> {
    fn default() -> Self {
        Slots {
            generation: 0,
            key: None,
            slots: Vec::new(),
        }
    }
}

/// One document's kept slots and the generation its own version is.
#[derive(Debug)]
pub struct Kept<T, K> {
    slots: Arc<Mutex<Slots<T, K>>>,
    generation: u64,
}

impl<T, K> Default for Kept<T, K> {
    fn default() -> Self {
        Kept {
            slots: Arc::default(),
            generation: 0,
        }
    }
}

impl<T, K> Clone for Kept<T, K> {
    fn clone(&self) -> Self {
        Kept {
            slots: self.slots.clone(),
            generation: self.generation,
        }
    }
}

impl<T, K: PartialEq> Kept<T, K> {
    /// Carries the slots over an edit that re-parsed as `reparsed` says: the slots of
    /// the messages kept stay.
    pub fn edited(&mut self, reparsed: Reparsed) {
        let mut kept = lock(&self.slots);
        if kept.generation != self.generation {
            // Another copy of the document was edited first: this one starts afresh.
            drop(kept);
            *self = Kept::default();
            return;
        }
        kept.generation += 1;
        self.generation = kept.generation;
        match reparsed {
            Reparsed::All => kept.slots = Vec::new(),
            Reparsed::Spliced { .. } if kept.slots.is_empty() => {}
            Reparsed::Spliced {
                at,
                removed,
                inserted,
            } => {
                kept.slots.splice(
                    at..at + removed,
                    std::iter::repeat_with(|| None).take(inserted),
                );
            }
        }
    }

    /// Runs `work` with the slots of `count` messages under `key` (emptied first when
    /// they were kept under another key or for another count), or with `None` when this
    /// is a snapshot of an older version: it must then work without keeping anything.
    pub fn with<R>(
        &self,
        key: K,
        count: usize,
        work: impl FnOnce(Option<&mut [Option<T>]>) -> R,
    ) -> R {
        let mut guard = lock(&self.slots);
        if guard.generation != self.generation {
            drop(guard);
            return work(None);
        }
        if guard.key.as_ref() != Some(&key) {
            guard.key = Some(key);
            guard.slots.clear();
        }
        if guard.slots.len() != count {
            guard.slots.clear();
            guard.slots.resize_with(count, || None);
        }
        work(Some(&mut guard.slots))
    }

    /// How many of the slots are empty (for tests: what an edit made to be redone).
    #[cfg(test)]
    pub fn empty_slots(&self) -> usize {
        lock(&self.slots)
            .slots
            .iter()
            .filter(|s| s.is_none())
            .count()
    }
}

fn lock<T, K>(slots: &Mutex<Slots<T, K>>) -> MutexGuard<'_, Slots<T, K>> {
    slots
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}
