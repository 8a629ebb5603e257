//! What a request worked out per message, kept across edits: one slot per message,
//! moved along by each edit (`Chat::reparse` says which messages are new: only their
//! slots are emptied), shared by the snapshots of one version. The slots hold only for
//! one value of a key (the position encoding, the team): another key empties them.
//! Beside the slots, a request may keep one value of its own for the whole document
//! (the answer it last wrote, which the slots point into).
//!
//! No work runs under the slots' lock: the work takes the slots (and the whole value)
//! out, runs, and puts them back if nobody touched them meanwhile. An edit holds the
//! server's state while it moves the slots along, and work that held the slots while
//! it read the state (the installed CLIs, the agent kinds) deadlocked the server with
//! it under load.

use std::sync::{Arc, Mutex, MutexGuard};

use crate::document::chat::Reparsed;

/// The whole document's value kept beside the slots, told how each edit moved them.
pub trait Whole: Default {
    /// The slots `at..at + removed` were replaced by `inserted` empty ones.
    fn spliced(&mut self, _at: usize, _removed: usize, _inserted: usize) {}
}

impl Whole for () {}

#[derive(Debug)]
struct Slots<T, K, W> {
    /// Bumped by each edit; a snapshot of another generation (a request still on an
    /// older version) works without them.
    generation: u64,
    /// Bumped each time work takes the slots out: work puts them back only when no
    /// other work took them since.
    lease: u64,
    key: Option<K>,
    /// One per message, or none at all until a request fills them.
    slots: Vec<Option<T>>,
    /// The whole document's value, emptied with all the slots.
    whole: W,
}

impl<T, K, W: Whole> Default for Slots<T, K, W> {
    fn default() -> Self {
        Slots {
            generation: 0,
            lease: 0,
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

impl<T, K, W: Whole> Default for Kept<T, K, W> {
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

impl<T, K: PartialEq, W: Whole> Kept<T, K, W> {
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
                kept.whole.spliced(at, removed, inserted);
            }
        }
    }

    /// Runs `work` with the slots of `count` messages under `key` (emptied first when
    /// they were kept under another key or for another count), or with `None` when this
    /// is a snapshot of an older version: it must then work without keeping anything.
    /// The slots are out of the shared place while `work` runs (an edit meanwhile
    /// finds none to move, and what `work` kept is dropped: it is of an older version).
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
        let (mut slots, mut whole, lease) = {
            let mut guard = lock(&self.slots);
            if guard.generation != self.generation {
                drop(guard);
                return work(None);
            }
            if guard.key.as_ref() != Some(&key) {
                guard.key = Some(key);
                guard.slots.clear();
            }
            guard.lease += 1;
            let slots = std::mem::take(&mut guard.slots);
            let whole = std::mem::take(&mut guard.whole);
            (slots, whole, guard.lease)
        };
        if slots.len() != count {
            slots.clear();
            slots.resize_with(count, || None);
            // No slot points into it any more.
            whole = W::default();
        }
        let result = work(Some((&mut slots, &mut whole)));
        let mut guard = lock(&self.slots);
        if guard.generation == self.generation && guard.lease == lease {
            guard.slots = slots;
            guard.whole = whole;
        }
        result
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

#[cfg(test)]
mod tests {
    use std::sync::mpsc;
    use std::time::Duration;

    use super::*;

    #[test]
    fn an_edit_goes_on_while_work_runs_and_the_work_of_the_old_version_is_not_kept() {
        let mut doc: Kept<u32, u8> = Kept::default();
        let snapshot = doc.clone();
        let (edited_tx, edited_rx) = mpsc::channel();
        let (started_tx, started_rx) = mpsc::channel();
        let editor = std::thread::spawn(move || {
            started_rx.recv().expect("the work started");
            doc.edited(Reparsed::All);
            edited_tx.send(()).expect("tell the work");
            doc
        });
        let edited_meanwhile = snapshot.with(1, 3, |slots| {
            let slots = slots.expect("the snapshot is of the current version");
            started_tx.send(()).expect("tell the editor");
            // The edit waits for no work: before, it waited on the slots' lock for ever
            // when the work in turn waited on what the edit held.
            let edited = edited_rx.recv_timeout(Duration::from_secs(20)).is_ok();
            slots.fill(Some(7));
            edited
        });
        let doc = editor.join().expect("the edit");
        assert!(edited_meanwhile, "the edit waited for the work to end");
        // The work was of the version before the edit: nothing of it is kept.
        assert!(snapshot.with(1, 3, |slots| slots.is_none()));
        assert_eq!(
            doc.with(1, 3, |slots| slots.map(|s| s.to_vec())),
            Some(vec![None; 3])
        );
    }

    #[test]
    fn work_on_the_current_version_is_kept_for_the_next() {
        let doc: Kept<u32, u8> = Kept::default();
        doc.with(1, 2, |slots| slots.expect("current")[1] = Some(5));
        assert_eq!(
            doc.with(1, 2, |slots| slots.map(|s| s.to_vec())),
            Some(vec![None, Some(5)])
        );
        // Another key empties them.
        assert_eq!(
            doc.with(2, 2, |slots| slots.map(|s| s.to_vec())),
            Some(vec![None, None])
        );
    }
}
