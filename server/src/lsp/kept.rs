//! What a request worked out per message, kept across edits: one slot per message,
//! moved along by each edit (`Chat::reparse` says which messages are new: only their
//! slots are emptied), shared by the snapshots of one version. The slots hold only for
//! one value of a key (the position encoding, the team): another key empties them.
//! Beside the slots, a request may keep one value of its own for the whole document
//! (the answer it last wrote, which the slots point into).

use std::sync::{Arc, Mutex, MutexGuard};

use crate::document::chat::Reparsed;

#[derive(Debug)]
struct Slots<T, K, W> {
    /// Bumped by each edit; a snapshot of another generation (a request still on an
    /// older version) works without them.
    generation: u64,
    key: Option<K>,
    /// One per message, or none at all until a request fills them.
    slots: Vec<Option<T>>,
    /// The whole document's value, emptied with all the slots.
    whole: W,
}

impl<T, K, W: Default> Default for Slots<T, K, W> {
    fn default() -> Self {
        Slots {
            generation: 0,
            key: None,
            slots: Vec::new(),
            whole: W::default(),
        }
    }
}

/// One document's kept slots and the generation its own version is.
#[derive(Debug)]
pub struct Kept<T, K, W = ()> {
    slots: Arc<Mutex<Slots<T, K, W>>>,
    generation: u64,
}

impl<T, K, W: Default> Default for Kept<T, K, W> {
    fn default() -> Self {
        Kept {
            slots: Arc::default(),
            generation: 0,
        }
    }
}

impl<T, K, W> Clone for Kept<T, K, W> {
    fn clone(&self) -> Self {
        Kept {
            slots: self.slots.clone(),
            generation: self.generation,
        }
    }
}

impl<T, K: PartialEq, W: Default> Kept<T, K, W> {
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
            Reparsed::All => {
                kept.slots = Vec::new();
                kept.whole = W::default();
            }
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
        self.with_whole(key, count, |kept| work(kept.map(|(slots, _)| slots)))
    }

    /// [`Kept::with`], with the whole document's value too.
    pub fn with_whole<R>(
        &self,
        key: K,
        count: usize,
        work: impl FnOnce(Option<(&mut [Option<T>], &mut W)>) -> R,
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
            // No slot points into it any more.
            guard.whole = W::default();
        }
        let Slots { slots, whole, .. } = &mut *guard;
        work(Some((slots, whole)))
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

fn lock<T, K, W>(slots: &Mutex<Slots<T, K, W>>) -> MutexGuard<'_, Slots<T, K, W>> {
    slots
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}
