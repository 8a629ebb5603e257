//! The processes kept between turns (warm members), as the one owner of what runs
//! keeps them: a member's agent stays running after an answered turn so its next turn
//! is one prompt on a live session (how a turn runs on one: `turns/warm`). Every such
//! process is here and only here (tidy checks it), next to the runs and turns of
//! `runs/mod.rs`: what is kept, for whom, and when it ends.
//!
//! A process is kept keyed by its chat and member, with the session it holds and a
//! fingerprint of what started it (`turns/warm/plan.rs`). The member's next turn takes
//! it only when the plan continues that same session and the fingerprint is the same,
//! or starts a new session (then on the same connection); otherwise the kept process
//! is ended cleanly before the turn starts cold.
//!
//! Bounded: a kept process ends after an idle time (`warmIdleSeconds`, default 5
//! minutes), when its agent exits by itself, when the member's turn is cancelled or
//! fails (the runner keeps only answered turns), when its workspace closes
//! ([`Runs::end_kept`]: the server ends, one server per editor window; a `chatmd send`
//! run ends), when a workspace would hold more than the cap (`warmMembers`, default 8)
//! and when the kept processes of a workspace use more memory than their cap
//! (`warmMemoryMB`, `memory.rs`): the least recently used ends first. A process is
//! kept as a task that owns it; dropping the task's request channel ends it.

use std::path::PathBuf;
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;

use super::Runs;
use crate::runner::Kept;

mod memory;
#[cfg(test)]
mod tests;

/// How long a kept process waits for the member's next turn by default.
pub const DEFAULT_IDLE: Duration = Duration::from_secs(5 * 60);
/// How many processes a workspace keeps by default.
pub const DEFAULT_CAP: usize = 8;
/// How much memory a workspace's kept processes may use by default: their process
/// groups' resident memory, in bytes. Eight real claude adapters (each a node adapter
/// and the Claude Code it runs) fit; a member whose agent grew past its share ends.
pub const DEFAULT_MEMORY: u64 = 4096 << 20;
/// How long ending kept processes may take on shutdown: each has the runner's grace
/// (2 s) to exit and then to be killed; a process still there after this is killed
/// without its grace when the runtime ends (a `chatmd send` run, the server).
const SHUTDOWN_WAIT: Duration = Duration::from_secs(4);

/// The bounds of what is kept.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WarmSettings {
    /// A kept process ends after this long without a turn; zero keeps none.
    pub idle: Duration,
    /// The most processes kept per workspace.
    pub cap: usize,
    /// The most resident memory (bytes) the kept process groups of a workspace use.
    pub memory: u64,
    /// Headless claude members are kept too (`warmHeadless`), their process reading the
    /// next message on stdin (`turns/warm/claude.rs`). Off by default: such a turn's
    /// status has no `exit=` (its process still runs), and the run is no longer one
    /// `claude -p`.
    pub headless: bool,
}

impl Default for WarmSettings {
    fn default() -> Self {
        WarmSettings {
            idle: DEFAULT_IDLE,
            cap: DEFAULT_CAP,
            memory: DEFAULT_MEMORY,
            headless: false,
        }
    }
}

/// Whose turns a kept process serves: a member of a chat in a workspace.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WarmKey {
    pub workspace: PathBuf,
    pub chat: PathBuf,
    pub member: String,
}

/// What a turn asks of a kept process: whose it is, how it was started, and which
/// session the turn continues.
#[derive(Clone, Debug)]
pub struct Wanted {
    pub key: WarmKey,
    /// What started the process and what its session holds; a kept process serves a
    /// turn with the same.
    pub fingerprint: String,
    /// The session the turn continues, when the file still says what it saw (the
    /// `seen=` rule): only then may a kept process serve it.
    pub continues: Option<String>,
    /// The turn starts a new session (it continues none): a kept process started the
    /// same way serves it with a new session on its connection.
    pub afresh: bool,
}

/// A kept process: the task that owns it, and how to ask for it.
struct Entry {
    key: WarmKey,
    session: String,
    fingerprint: String,
    /// Bumped at each use: the lowest is the least recently used.
    used: u64,
    /// The process group whose memory counts against the cap.
    group: i32,
    /// A request for the process; dropped, the task ends the process.
    asks: mpsc::Sender<oneshot::Sender<Kept>>,
    task: JoinHandle<()>,
}

/// The processes kept between turns, for every chat the process serves.
#[derive(Default)]
pub(super) struct Pool {
    inner: Mutex<Inner>,
}

#[derive(Default)]
struct Inner {
    settings: WarmSettings,
    kept: Vec<Entry>,
    clock: u64,
}

impl Pool {
    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl Runs {
    /// Changes the bounds of what is kept (the editor's settings came); with no idle
    /// time, every kept process ends.
    pub fn configure_warm(&self, settings: WarmSettings) {
        let ended = {
            let mut inner = self.kept.lock();
            inner.settings = settings;
            let mut ended = Vec::new();
            if settings.idle.is_zero() {
                ended.append(&mut inner.kept);
            }
            ended
        };
        drop(ended);
    }

    /// Whether processes are kept at all.
    pub fn keeps_warm(&self) -> bool {
        !self.kept.lock().settings.idle.is_zero()
    }

    /// Whether headless claude members' processes are kept too.
    pub fn keeps_headless(&self) -> bool {
        let inner = self.kept.lock();
        !inner.settings.idle.is_zero() && inner.settings.headless
    }

    /// How many processes are kept now.
    pub fn kept_count(&self) -> usize {
        let mut inner = self.kept.lock();
        inner.kept.retain(|e| !e.task.is_finished());
        inner.kept.len()
    }

    /// The kept process `wanted` asks for, when it holds the session the turn
    /// continues and was started the same way. Any other kept process of the member
    /// ends (cleanly, before this returns): the turn starts cold.
    pub async fn take_kept(&self, wanted: &Wanted) -> Option<Kept> {
        let entry = {
            let mut inner = self.kept.lock();
            let at = inner.kept.iter().position(|e| e.key == wanted.key)?;
            inner.kept.remove(at)
        };
        let serves = (wanted.afresh || wanted.continues.as_deref() == Some(entry.session.as_str()))
            && entry.fingerprint == wanted.fingerprint;
        if !serves {
            tracing::debug!(member = %wanted.key.member, "the warm session does not serve this turn");
            drop(entry.asks);
            let _ = entry.task.await;
            return None;
        }
        let (reply, answer) = oneshot::channel();
        if entry.asks.send(reply).await.is_err() {
            return None;
        }
        answer.await.ok()
    }

    /// Keeps `kept` for `wanted`'s member's next turn, unless nothing is kept (no idle
    /// time, a cap of zero, the process ending); over the workspace's cap, its least
    /// recently used process ends, and over its memory cap (measured off the turn's
    /// path) as many as it takes.
    pub fn keep(&self, wanted: &Wanted, kept: Kept) {
        let Some(session) = kept.live_session().map(str::to_owned) else {
            tokio::spawn(kept.end());
            return;
        };
        let mut ended = Vec::new();
        let mut inner = self.kept.lock();
        let settings = inner.settings;
        // Checked under the pool's lock, which `end_kept` takes: a process is either
        // ended by it or never kept.
        if settings.idle.is_zero() || settings.cap == 0 || self.is_closed() {
            drop(inner);
            tokio::spawn(kept.end());
            return;
        }
        inner.kept.retain(|e| !e.task.is_finished());
        if let Some(at) = inner.kept.iter().position(|e| e.key == wanted.key) {
            ended.push(inner.kept.remove(at));
        }
        loop {
            let same_workspace = inner
                .kept
                .iter()
                .filter(|e| e.key.workspace == wanted.key.workspace);
            if same_workspace.clone().count() < settings.cap {
                break;
            }
            let Some(oldest) = same_workspace.min_by_key(|e| e.used).map(|e| e.used) else {
                break;
            };
            let at = inner.kept.iter().position(|e| e.used == oldest);
            if let Some(at) = at {
                tracing::debug!("the warm pool is full: the least recently used ends");
                ended.push(inner.kept.remove(at));
            }
        }
        inner.clock += 1;
        let (asks, asked) = mpsc::channel(1);
        let group = kept.group_id();
        let task = tokio::spawn(hold(kept, asked, settings.idle));
        let used = inner.clock;
        inner.kept.push(Entry {
            key: wanted.key.clone(),
            session,
            fingerprint: wanted.fingerprint.clone(),
            used,
            group,
            asks,
            task,
        });
        drop(inner);
        drop(ended);
        self.check_memory(&wanted.key.workspace, settings.memory);
    }

    /// Ends every kept process and waits (a bounded time) until they are gone: the
    /// workspace closes (the server ends, a `chatmd send` run is over). Nothing is kept
    /// and no turn starts from now on.
    pub async fn end_kept(&self) {
        let entries = {
            let mut inner = self.kept.lock();
            self.closed.store(true, std::sync::atomic::Ordering::SeqCst);
            std::mem::take(&mut inner.kept)
        };
        let tasks: Vec<JoinHandle<()>> = entries
            .into_iter()
            .map(|entry| {
                drop(entry.asks);
                entry.task
            })
            .collect();
        // The tasks end their processes in parallel; waiting for each in turn waits
        // for the slowest.
        let all = async {
            for task in tasks {
                let _ = task.await;
            }
        };
        let _ = tokio::time::timeout(SHUTDOWN_WAIT, all).await;
    }
}

/// Holds `kept` until a turn asks for it, its agent exits, `idle` passes, or the pool
/// lets go of it (the request channel closes); every way but the first ends it.
async fn hold(mut kept: Kept, mut asked: mpsc::Receiver<oneshot::Sender<Kept>>, idle: Duration) {
    let idle_over = tokio::time::sleep(idle);
    tokio::pin!(idle_over);
    tokio::select! {
        // An agent seen to have exited is never handed to a turn.
        biased;
        () = kept.watch() => tracing::debug!("a warm agent exited while idle"),
        ask = asked.recv() => if let Some(reply) = ask {
            if let Err(kept) = reply.send(kept) {
                kept.end().await;
            }
            return;
        },
        () = &mut idle_over => tracing::debug!("a warm agent was idle too long"),
    }
    kept.end().await;
}
