//! Warm members: the agent processes kept running between a member's turns, so that its
//! next turn is one prompt on a live session. The first piece of the one owner of what
//! runs (issue 29): every process kept between turns is in this pool, and only here.
//!
//! ACP members are kept (their connection holds the session), and headless claude
//! members (`claude -p --input-format stream-json` reads the next message on stdin:
//! `claude.rs`); codex and gemini start a process per turn. A process is kept after an answered turn, keyed by its
//! chat and member, with the session it holds and a fingerprint of what started it
//! (program, arguments, environment, folder, the member's settings, the instructions
//! the session holds: `held=`). The member's next turn takes it only when the plan
//! continues that same session from a file that still says what the session saw (the
//! resume path's `seen=` rule, `conversation::seen::changed`) and the fingerprint is
//! the same, or starts a new session (then on the same connection); otherwise the kept
//! process is ended cleanly before the turn starts cold.
//!
//! Bounded: a kept process ends after an idle time (`warmIdleSeconds`, default 5
//! minutes), when its agent exits by itself, when the member's turn is cancelled or
//! fails (the runner keeps only answered turns), when the server ends (its workspace
//! closes with it: one server per editor window) or the `chatmd send` run does, and
//! when a workspace would hold more than the cap (`warmMembers`, default 8): the least
//! recently used ends first. A process is in the
//! pool as a task that owns it; dropping the task's request channel ends it.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;

use crate::runner::Kept;

mod claude;
pub(super) mod plan;
mod run;

pub(super) use run::run_turn;

/// How long a kept process waits for the member's next turn by default.
pub const DEFAULT_IDLE: Duration = Duration::from_secs(5 * 60);
/// How many processes a workspace keeps by default.
pub const DEFAULT_CAP: usize = 8;
/// How long ending kept processes may take on shutdown: each has the runner's grace
/// (2 s) to exit and then to be killed; a process still there after this is killed
/// without its grace when the runtime ends (a `chatmd send` run, the server).
const SHUTDOWN_WAIT: Duration = Duration::from_secs(4);

/// The pool's bounds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WarmSettings {
    /// A kept process ends after this long without a turn; zero keeps none.
    pub idle: Duration,
    /// The most processes kept per workspace.
    pub cap: usize,
    /// Headless claude members are kept too (`warmHeadless`), their process reading the
    /// next message on stdin (`claude.rs`). Off by default: such a turn's status has
    /// no `exit=` (its process still runs), and the run is no longer one `claude -p`.
    pub headless: bool,
}

impl Default for WarmSettings {
    fn default() -> Self {
        WarmSettings {
            idle: DEFAULT_IDLE,
            cap: DEFAULT_CAP,
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

/// One member's turn as the pool sees it.
#[derive(Clone, Debug)]
pub struct WarmTurn {
    pub pool: Arc<WarmPool>,
    pub key: WarmKey,
    /// What started the process and what its session holds; a kept process serves a
    /// turn with the same.
    pub fingerprint: String,
    /// The session the turn continues, when the file still says what it saw (the
    /// `seen=` rule): only then may a kept process serve it.
    pub continues: Option<String>,
    /// The turn starts a new session (it continues none: a council's review and
    /// decision, a member's first turn in the chat): a kept process started the same
    /// way serves it with a new session on its connection.
    pub afresh: bool,
}

/// A kept process: the task that owns it, and how to ask for it.
struct Entry {
    key: WarmKey,
    session: String,
    fingerprint: String,
    /// Bumped at each use: the lowest is the least recently used.
    used: u64,
    /// A request for the process; dropped, the task ends the process.
    asks: mpsc::Sender<oneshot::Sender<Kept>>,
    task: JoinHandle<()>,
}

/// The processes kept between turns, for every chat the server (or one `chatmd send`
/// run) serves.
#[derive(Debug, Default)]
pub struct WarmPool {
    inner: Mutex<Inner>,
}

#[derive(Default)]
struct Inner {
    settings: WarmSettings,
    entries: Vec<Entry>,
    clock: u64,
}

impl std::fmt::Debug for Inner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Inner")
            .field("settings", &self.settings)
            .field("entries", &self.entries.len())
            .finish()
    }
}

impl WarmPool {
    pub fn new(settings: WarmSettings) -> WarmPool {
        WarmPool {
            inner: Mutex::new(Inner {
                settings,
                ..Inner::default()
            }),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Changes the bounds (the editor's settings came); kept processes over the new
    /// cap end.
    pub fn configure(&self, settings: WarmSettings) {
        let ended = {
            let mut inner = self.lock();
            inner.settings = settings;
            let mut ended = Vec::new();
            if settings.idle.is_zero() {
                ended.append(&mut inner.entries);
            }
            ended
        };
        drop(ended);
    }

    /// Whether processes are kept at all.
    pub fn keeps(&self) -> bool {
        !self.lock().settings.idle.is_zero()
    }

    /// Whether headless claude members' processes are kept too.
    pub fn keeps_headless(&self) -> bool {
        self.keeps() && self.lock().settings.headless
    }

    /// The kept process of `turn`'s member, when it holds the session the turn
    /// continues and was started the same way. Any other kept process of the member
    /// ends (cleanly, before this returns): the turn starts cold.
    pub async fn take(&self, turn: &WarmTurn) -> Option<Kept> {
        let entry = {
            let mut inner = self.lock();
            let at = inner.entries.iter().position(|e| e.key == turn.key)?;
            inner.entries.remove(at)
        };
        let serves = (turn.afresh || turn.continues.as_deref() == Some(entry.session.as_str()))
            && entry.fingerprint == turn.fingerprint;
        if !serves {
            tracing::debug!(member = %turn.key.member, "the warm session does not serve this turn");
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

    /// Keeps `kept` for `turn`'s member's next turn, unless the pool keeps nothing;
    /// over the workspace's cap, its least recently used process ends.
    pub fn keep(&self, turn: &WarmTurn, kept: Kept) {
        let Some(session) = kept.live_session().map(str::to_owned) else {
            tokio::spawn(kept.end());
            return;
        };
        let mut ended = Vec::new();
        let mut inner = self.lock();
        let settings = inner.settings;
        if settings.idle.is_zero() || settings.cap == 0 {
            drop(inner);
            tokio::spawn(kept.end());
            return;
        }
        inner.entries.retain(|e| !e.task.is_finished());
        if let Some(at) = inner.entries.iter().position(|e| e.key == turn.key) {
            ended.push(inner.entries.remove(at));
        }
        loop {
            let same_workspace = inner
                .entries
                .iter()
                .filter(|e| e.key.workspace == turn.key.workspace);
            if same_workspace.clone().count() < settings.cap {
                break;
            }
            let Some(oldest) = same_workspace.min_by_key(|e| e.used).map(|e| e.used) else {
                break;
            };
            let at = inner.entries.iter().position(|e| e.used == oldest);
            if let Some(at) = at {
                tracing::debug!("the warm pool is full: the least recently used ends");
                ended.push(inner.entries.remove(at));
            }
        }
        inner.clock += 1;
        let (asks, asked) = mpsc::channel(1);
        let task = tokio::spawn(hold(kept, asked, settings.idle));
        let used = inner.clock;
        inner.entries.push(Entry {
            key: turn.key.clone(),
            session,
            fingerprint: turn.fingerprint.clone(),
            used,
            asks,
            task,
        });
        drop(inner);
        drop(ended);
    }

    /// Ends every kept process and waits (a bounded time) until they are gone.
    pub async fn shutdown(&self) {
        let entries = std::mem::take(&mut self.lock().entries);
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
