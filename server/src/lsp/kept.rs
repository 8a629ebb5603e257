//! What a request worked out per message, kept across edits: one slot per message,
//! moved along by each edit (`Chat::reparse` says which messages are new: only their
//! slots are emptied), shared by the snapshots of one version. The slots hold only for
//! one value of a key (the position encoding, the team): another key empties them.
//! Beside the slots, a request may keep one value of its own for the whole document
//! (the answer it last wrote, which the slots point into).
//!
//! No work runs under the slots' lock: the work takes the slots (and the whole value)
//! out, runs, and puts them back if no edit came meanwhile. An edit holds the
//! server's state while it moves the slots along, and work that held the slots while
//! it read the state (the installed CLIs, the agent kinds) deadlocked the server with
//! it under load: an edit never waits for work.
//!
//! Work on the version whose slots are out waits for them to come back rather than
//! making every slot again beside them: an editor asks for the outline and the folds,
//! or the diagnostics and the lenses, at once, and on a chat of 500,000 messages each
//! second set of slots was 40 to 50 MB and the work of a whole open, thrown away.

use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::ThreadId;

use crate::document::chat::Reparsed;

/// A heading's handle as written, shared by the messages that wrote it so: one pointer
/// wide (an `Arc<str>` is two), as a slot per message keeps one and a long chat has
/// 500k slots.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Handle(Arc<Box<str>>);

impl Handle {
    pub fn new(handle: &str) -> Handle {
        Handle(Arc::new(handle.into()))
    }

    /// Whether `self` and `other` are one allocation (for tests).
    #[cfg(test)]
    pub fn same(&self, other: &Handle) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl std::ops::Deref for Handle {
    type Target = str;

    fn deref(&self) -> &str {
        &self.0
    }
}

/// The handles of the messages made in one piece of work, one allocation each and
/// numbered as first met: a slot per message keeps its heading's handle (or its
/// number), and a long chat has a few handles over tens of thousands of headings.
#[derive(Debug, Default)]
pub struct SameHandles(Vec<Handle>);

impl SameHandles {
    /// The number of `handle` as written, numbered now when it had none (the first 64
    /// such handles, so a number is under 64); after that the handle, its own.
    pub fn number(&mut self, handle: &str) -> Result<usize, Handle> {
        if let Some(number) = self.0.iter().position(|h| **h == *handle) {
            return Ok(number);
        }
        let new = Handle::new(handle);
        if self.0.len() >= 64 {
            return Err(new);
        }
        self.0.push(new);
        Ok(self.0.len() - 1)
    }

    /// `handle` as written, shared with the earlier messages that wrote it so.
    pub fn get(&mut self, handle: &str) -> Handle {
        self.number(handle)
            .map_or_else(|own| own, |n| self.0[n].clone())
    }

    /// The handle numbered `number`.
    pub fn numbered(&self, number: usize) -> &Handle {
        &self.0[number]
    }
}

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
    /// The thread whose work has this generation's slots out; others wait for them.
    /// An edit clears it: what that work kept is of an older version.
    out_with: Option<ThreadId>,
    /// How much work waits for them (for tests).
    waiting: usize,
    key: Option<K>,
    /// One per message from `first` on, or none at all until a request fills them.
    slots: Vec<Option<T>>,
    /// The message the first slot is for: work that only lists a chat's latest
    /// messages one by one keeps none for the earlier (8 bytes each, 4 MB for a chat
    /// of 500,000 messages).
    first: usize,
    /// The whole document's value, emptied with all the slots.
    whole: W,
}

impl<T, K, W: Whole> Default for Slots<T, K, W> {
    fn default() -> Self {
        Slots {
            generation: 0,
            out_with: None,
            waiting: 0,
            key: None,
            slots: Vec::new(),
            first: 0,
            whole: W::default(),
        }
    }
}

/// One document's kept slots and the generation its own version is.
#[derive(Debug)]
pub struct Kept<T, K, W = ()> {
    slots: Arc<Shared<T, K, W>>,
    generation: u64,
}

/// The slots, and the signal that work put them back (or an edit came).
#[derive(Debug)]
struct Shared<T, K, W> {
    slots: Mutex<Slots<T, K, W>>,
    returned: Condvar,
}

impl<T, K, W: Whole> Default for Shared<T, K, W> {
    fn default() -> Self {
        Shared {
            slots: Mutex::default(),
            returned: Condvar::new(),
        }
    }
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
        let mut kept = lock(&self.slots.slots);
        if kept.generation != self.generation {
            // Another copy of the document was edited first: this one starts afresh.
            drop(kept);
            *self = Kept::default();
            return;
        }
        kept.generation += 1;
        self.generation = kept.generation;
        // Work waiting for slots of the version before wakes to work without them.
        kept.out_with = None;
        self.slots.returned.notify_all();
        match reparsed {
            Reparsed::All => {
                kept.slots = Vec::new();
                kept.first = 0;
                kept.whole = W::default();
            }
            Reparsed::Spliced { .. } if kept.slots.is_empty() => {}
            Reparsed::Spliced {
                at,
                removed,
                inserted,
            } => {
                let (first, len) = (kept.first, kept.slots.len());
                let end = (at + removed).saturating_sub(first).min(len);
                if at + removed <= first {
                    // All before the first slot: the slots stay, for messages moved on.
                    kept.first = first - removed + inserted;
                } else if at >= first {
                    kept.slots.splice(
                        (at - first).min(end)..end,
                        std::iter::repeat_with(|| None).take(inserted),
                    );
                } else {
                    // From before the first slot into them: those slots go, and the new
                    // messages get none, as those before them.
                    kept.slots.drain(..end);
                    kept.first = at + inserted;
                }
                kept.whole.spliced(at, removed, inserted);
            }
        }
    }

    /// Runs `work` with the slots of `count` messages under `key` (emptied first when
    /// they were kept under another key or for another count), or with `None` when this
    /// is a snapshot of an older version: it must then work without keeping anything.
    /// The slots are out of the shared place while `work` runs (an edit meanwhile
    /// finds none to move, and what `work` kept is dropped: it is of an older version).
    #[cfg(test)]
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
        self.with_whole_from(key, count, 0, work)
    }

    /// [`Kept::with_whole`] for the messages from `from` on only: `work` gets their
    /// slots, and none is kept for those before the first it was ever given (until
    /// work asks for them).
    pub fn with_whole_from<R>(
        &self,
        key: K,
        count: usize,
        from: usize,
        work: impl FnOnce(Option<(&mut [Option<T>], &mut W)>) -> R,
    ) -> R {
        let me = std::thread::current().id();
        let (mut slots, mut first, mut whole) = {
            let mut guard = lock(&self.slots.slots);
            loop {
                if guard.generation != self.generation || guard.out_with == Some(me) {
                    // An older version's snapshot, or work within this one's work.
                    drop(guard);
                    return work(None);
                }
                if guard.out_with.is_none() {
                    break;
                }
                guard.waiting += 1;
                guard = self
                    .slots
                    .returned
                    .wait(guard)
                    .unwrap_or_else(|poisoned| poisoned.into_inner());
                guard.waiting -= 1;
            }
            guard.out_with = Some(me);
            if guard.key.as_ref() != Some(&key) {
                guard.key = Some(key);
                guard.slots.clear();
                guard.first = 0;
            }
            let slots = std::mem::take(&mut guard.slots);
            let whole = std::mem::take(&mut guard.whole);
            (slots, guard.first, whole)
        };
        let from = from.min(count);
        if first + slots.len() != count {
            slots.clear();
            slots.resize_with(count - from, || None);
            first = from;
            // No slot points into it any more.
            whole = W::default();
        } else if from < first {
            slots.splice(0..0, std::iter::repeat_with(|| None).take(first - from));
            first = from;
        }
        let mut out = Out {
            shared: &self.slots,
            generation: self.generation,
            slots,
            first,
            whole,
        };
        let asked = from - out.first;
        work(Some((&mut out.slots[asked..], &mut out.whole)))
    }

    /// How much work waits for the slots (for tests).
    #[cfg(test)]
    fn waiting(&self) -> usize {
        lock(&self.slots.slots).waiting
    }

    /// How many of the slots are empty (for tests: what an edit made to be redone).
    #[cfg(test)]
    pub fn empty_slots(&self) -> usize {
        lock(&self.slots.slots)
            .slots
            .iter()
            .filter(|s| s.is_none())
            .count()
    }
}

/// Slots out with work, put back as the work ends, for the next work of the same
/// version; or only given up when it panicked (they may be half made) or an edit came.
struct Out<'a, T, K, W: Whole> {
    shared: &'a Shared<T, K, W>,
    generation: u64,
    slots: Vec<Option<T>>,
    first: usize,
    whole: W,
}

impl<T, K, W: Whole> Drop for Out<'_, T, K, W> {
    fn drop(&mut self) {
        let mut guard = lock(&self.shared.slots);
        // Of the same generation, no other work had them meanwhile: others waited.
        if guard.generation == self.generation {
            if !std::thread::panicking() {
                guard.slots = std::mem::take(&mut self.slots);
                guard.first = self.first;
                guard.whole = std::mem::take(&mut self.whole);
            }
            guard.out_with = None;
        }
        drop(guard);
        self.shared.returned.notify_all();
    }
}

fn lock<T, K, W>(slots: &Mutex<Slots<T, K, W>>) -> MutexGuard<'_, Slots<T, K, W>> {
    slots
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

#[cfg(test)]
#[path = "kept_tests.rs"]
mod tests;
