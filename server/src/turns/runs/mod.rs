//! The one owner of what runs (issue 29): every run of turns in this process, by chat,
//! and every turn in it. A run is one Send, the editor's or a `chatmd send`: counted in
//! its chat while it goes on (a queued message waits for the chat's last run), holding
//! the chat's lock (`turns/lock.rs`) with the members it runs written there, and owning
//! its members' turns: the token that cancels each, the permission requests it waits
//! on, where a steered message goes, its progress; and the agent processes kept
//! between turns (warm members: `kept/`), with their bounds and their end. Nothing else
//! keeps a list of what runs or is kept running (tidy checks it): the language server
//! and `chatmd send` ask here, and whether a new message starts a run, is queued or is
//! steered into a running turn is decided here (`delivery.rs`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use tokio_util::sync::CancellationToken;

use super::lock::{self, ChatLock, LockError};
use super::{Answers, TurnError};

mod delivery;
pub mod kept;
mod send;
#[cfg(test)]
mod tests;
mod turns;

pub use delivery::Delivery;
pub use send::{SendRequest, context};

/// One running turn, as the registry keeps it.
struct Claim {
    cancel: CancellationToken,
    started: Instant,
    bytes: usize,
    /// The progress token the editor can cancel the turn with.
    progress: Option<String>,
    /// The permission blocks the turn's agent asked, and where their answers go.
    asks: Vec<(String, Answers)>,
    /// Where a request to steer the chat's queued message into this turn goes.
    steers: Option<Steers>,
    /// The agent waits for the user's answer to a permission request.
    waiting: bool,
}

/// Where the requests to steer a queued message into a running turn go: the handle of
/// the member whose turn should take it (`turns::steer`).
pub type Steers = tokio::sync::mpsc::UnboundedSender<String>;

/// What is known about a running turn, for lists and status bars.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TurnInfo {
    pub document: String,
    pub member: String,
    pub elapsed: Duration,
    pub bytes: usize,
    /// The agent waits for the user's answer to a permission request.
    pub waiting: bool,
}

/// A run of turns in one chat, as [`Runs::open_run`] gave it out.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct RunId(u64);

/// A run: where it runs, whether a queued message waits for it, and the chat's lock.
struct Run {
    document: String,
    /// Counted in its document's runs ([`Runs::count_run`]).
    counted: bool,
    /// The chat's file, when the lock is taken at the run's first turn (the editor's
    /// runs; `chatmd send` takes it before reading the file).
    locks: Option<PathBuf>,
    /// Who takes the lock: [`lock::SERVER`] or [`lock::SEND`].
    program: &'static str,
    lock: Option<ChatLock>,
    /// The members whose turn this run started and that has not ended.
    members: Vec<String>,
}

/// Turns by document, then by member: looked up by `&str`, without building a key
/// (streamed text counts its bytes here for every chunk).
type Turns = BTreeMap<String, BTreeMap<String, Claim>>;

#[derive(Default)]
struct Registry {
    turns: Turns,
    runs: BTreeMap<RunId, Run>,
    next: u64,
}

/// Every run and turn of this process, and the processes kept between turns; clones
/// share them.
#[derive(Clone, Default)]
pub struct Runs {
    registry: Arc<Mutex<Registry>>,
    /// Set by [`Runs::close`] and [`Runs::end_kept`]: the process is ending, no turn
    /// may start and no process is kept.
    closed: Arc<AtomicBool>,
    /// The agent processes kept for members' next turns (`kept/`).
    kept: Arc<kept::Pool>,
}

impl std::fmt::Debug for Runs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Runs").finish_non_exhaustive()
    }
}

impl Runs {
    fn lock(&self) -> MutexGuard<'_, Registry> {
        self.registry.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn is_closed(&self) -> bool {
        self.closed.load(Ordering::SeqCst)
    }

    fn with_turn<T>(
        &self,
        document: &str,
        member: &str,
        f: impl FnOnce(&mut Claim) -> T,
    ) -> Option<T> {
        self.lock().turns.get_mut(document)?.get_mut(member).map(f)
    }

    /// A run in `document` that takes the chat's lock at `chat` for `program` with its
    /// first turn (no file: no lock).
    pub fn open_run(&self, document: &str, chat: Option<&Path>, program: &'static str) -> RunId {
        self.insert_run(document, (chat.map(Path::to_path_buf), program), None)
    }

    /// A run in `document` holding the chat's `lock` already (`chatmd send` takes it
    /// before it reads the file).
    pub fn open_locked_run(&self, document: &str, lock: Option<ChatLock>) -> RunId {
        self.insert_run(document, (None, lock::SEND), lock)
    }

    fn insert_run(
        &self,
        document: &str,
        (locks, program): (Option<PathBuf>, &'static str),
        lock: Option<ChatLock>,
    ) -> RunId {
        let mut registry = self.lock();
        registry.next += 1;
        let id = RunId(registry.next);
        registry.runs.insert(
            id,
            Run {
                document: document.to_owned(),
                counted: false,
                locks,
                program,
                lock,
                members: Vec::new(),
            },
        );
        id
    }

    /// Counts `run` in its chat until [`Runs::end_run`]: a queued message waits for it.
    pub fn count_run(&self, run: RunId) {
        if let Some(run) = self.lock().runs.get_mut(&run) {
            run.counted = true;
        }
    }

    /// Ends the count of [`Runs::count_run`]; whether no other counted run goes on in
    /// the run's chat (under its name now: a rename moved it).
    pub fn end_run(&self, run: RunId) -> bool {
        let mut registry = self.lock();
        let Some(document) = registry.runs.get_mut(&run).map(|run| {
            run.counted = false;
            run.document.clone()
        }) else {
            return true;
        };
        !counted_in(&registry, &document)
    }

    /// Whether a counted run goes on in `document`.
    pub fn runs_in(&self, document: &str) -> bool {
        counted_in(&self.lock(), document)
    }

    /// Forgets `run`: the turns it started and did not end are released (its task
    /// ended without ending them: it panicked), its count and its lock go.
    pub fn close_run(&self, run: RunId) {
        let mut registry = self.lock();
        let Some(closed) = registry.runs.remove(&run) else {
            return;
        };
        for member in &closed.members {
            remove_claim(&mut registry.turns, &closed.document, member);
            if let Some(lock) = &closed.lock {
                lock.remove_member(member);
            }
        }
    }

    /// Registers `member`'s turn in `run`'s chat; refuses a second one there, one while
    /// the process ends, and one in a chat another process holds the lock of.
    pub fn claim(
        &self,
        run: RunId,
        member: &str,
        cancel: &CancellationToken,
    ) -> Result<(), TurnError> {
        let takes_lock = {
            let mut registry = self.lock();
            // Checked under the lock that `close` takes: a turn either is cancelled by
            // it or never starts.
            if self.closed.load(Ordering::SeqCst) {
                return Err(TurnError::ShuttingDown {
                    member: member.to_string(),
                });
            }
            let Some(entry) = registry.runs.get(&run) else {
                return Err(TurnError::ShuttingDown {
                    member: member.to_string(),
                });
            };
            let document = entry.document.clone();
            let takes_lock = entry
                .lock
                .is_none()
                .then(|| entry.locks.clone().map(|chat| (chat, entry.program)))
                .flatten();
            let members = registry.turns.entry(document).or_default();
            if members.contains_key(member) {
                return Err(TurnError::AlreadyAnswering {
                    member: member.to_string(),
                });
            }
            members.insert(member.to_string(), Claim::new(cancel));
            takes_lock
        };
        // Taken outside the registry: taking a lock may wait for another process.
        let taken = takes_lock.map(|(chat, program)| ChatLock::acquire(&chat, program));
        let mut registry = self.lock();
        let Some(entry) = registry.runs.get_mut(&run) else {
            return Ok(());
        };
        match taken {
            Some(Ok(lock)) => entry.lock = Some(lock),
            Some(Err(LockError::Busy(holder))) => {
                let document = entry.document.clone();
                remove_claim(&mut registry.turns, &document, member);
                return Err(TurnError::Busy {
                    member: member.to_string(),
                    holder,
                });
            }
            Some(Err(error)) => {
                // Once is enough: the next turn of the run does not try again.
                entry.locks = None;
                tracing::warn!(%error, "turns run without the chat's lock");
            }
            None => {}
        }
        if let Some(lock) = &entry.lock {
            lock.add_member(member);
        }
        entry.members.push(member.to_string());
        Ok(())
    }

    /// Forgets `member`'s turn in `run`; returns how long it ran.
    pub fn release(&self, run: RunId, member: &str) -> Option<Duration> {
        let mut registry = self.lock();
        let entry = registry.runs.get_mut(&run)?;
        entry.members.retain(|m| m != member);
        if let Some(lock) = &entry.lock {
            lock.remove_member(member);
        }
        let document = entry.document.clone();
        remove_claim(&mut registry.turns, &document, member).map(|t| t.started.elapsed())
    }

    /// `run`'s chat was renamed to `document` (its file now `chat`): its count, the
    /// turns running under the old name and its lock follow it; a member already
    /// running under the new name keeps its own turn there.
    pub fn move_run(&self, run: RunId, document: &str, chat: Option<&Path>) {
        let (from, relock) = {
            let mut registry = self.lock();
            let Some(entry) = registry.runs.get_mut(&run) else {
                return;
            };
            let from = std::mem::replace(&mut entry.document, document.to_owned());
            if entry.locks.is_some() {
                entry.locks = chat.map(Path::to_path_buf);
            }
            let relock = entry.lock.as_ref().map(|_| entry.program);
            (from, relock.zip(chat.map(Path::to_path_buf)))
        };
        self.move_document(&from, document);
        // The lock goes with the chat: `chatmd send` on the new name must see it.
        let Some((program, chat)) = relock else {
            return;
        };
        match ChatLock::acquire(&chat, program) {
            Ok(lock) => {
                let mut registry = self.lock();
                if let Some(entry) = registry.runs.get_mut(&run) {
                    for member in &entry.members {
                        lock.add_member(member);
                    }
                    entry.lock = Some(lock);
                }
            }
            Err(error) => tracing::warn!(%error, "the renamed chat's turns run without its lock"),
        }
    }

    /// Moves the turns of `from` to `to` (the chat was renamed while they ran); a
    /// member already running in `to` keeps its own turn there.
    fn move_document(&self, from: &str, to: &str) {
        let mut registry = self.lock();
        let Some(moved) = registry.turns.remove(from) else {
            return;
        };
        let members = registry.turns.entry(to.to_string()).or_default();
        for (member, turn) in moved {
            members.entry(member).or_insert(turn);
        }
    }
}

impl Claim {
    fn new(cancel: &CancellationToken) -> Claim {
        Claim {
            cancel: cancel.clone(),
            started: Instant::now(),
            bytes: 0,
            progress: None,
            asks: Vec::new(),
            steers: None,
            waiting: false,
        }
    }
}

/// Whether a counted run goes on in `document`.
fn counted_in(registry: &Registry, document: &str) -> bool {
    registry
        .runs
        .values()
        .any(|run| run.counted && run.document == document)
}

fn remove_claim(turns: &mut Turns, document: &str, member: &str) -> Option<Claim> {
    let members = turns.get_mut(document)?;
    let claim = members.remove(member);
    if members.is_empty() {
        turns.remove(document);
    }
    claim
}
