//! The turns running in this process, by document and member: one running turn per
//! member and document, each with the token that cancels it. (The agent kinds a
//! member can use are `agents::Registry`; this is who runs now.)

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use tokio_util::sync::CancellationToken;

use super::{Answers, TurnError};

/// One running turn, as this set keeps it.
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

/// Turns by document, then by member: looked up by `&str`, without building a key
/// (streamed text counts its bytes here for every chunk).
type Turns = BTreeMap<String, BTreeMap<String, Claim>>;

/// The running turns; clones share the same set.
#[derive(Clone, Default)]
pub struct Running {
    turns: Arc<Mutex<Turns>>,
    /// Set by [`Running::close`]: the process is ending, no turn may start.
    closed: Arc<std::sync::atomic::AtomicBool>,
}

impl Running {
    fn lock(&self) -> MutexGuard<'_, Turns> {
        self.turns.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn with_turn<T>(
        &self,
        document: &str,
        member: &str,
        f: impl FnOnce(&mut Claim) -> T,
    ) -> Option<T> {
        self.lock().get_mut(document)?.get_mut(member).map(f)
    }

    /// Registers `member`'s turn in `document`; refuses a second one.
    pub fn claim(
        &self,
        document: &str,
        member: &str,
        cancel: &CancellationToken,
    ) -> Result<(), TurnError> {
        let mut turns = self.lock();
        // Checked under the lock that `close` takes: a turn either is cancelled by it
        // or never starts.
        if self.closed.load(std::sync::atomic::Ordering::SeqCst) {
            return Err(TurnError::ShuttingDown {
                member: member.to_string(),
            });
        }
        let members = turns.entry(document.to_string()).or_default();
        if members.contains_key(member) {
            return Err(TurnError::AlreadyAnswering {
                member: member.to_string(),
            });
        }
        members.insert(
            member.to_string(),
            Claim {
                cancel: cancel.clone(),
                started: Instant::now(),
                bytes: 0,
                progress: None,
                asks: Vec::new(),
                steers: None,
                waiting: false,
            },
        );
        Ok(())
    }

    /// `member`'s agent in `document` asked the permission block `block`; its answer
    /// goes to `answers`.
    pub fn asked(&self, document: &str, member: &str, block: &str, answers: &Answers) {
        self.with_turn(document, member, |turn| {
            turn.asks.push((block.to_string(), answers.clone()));
        });
    }

    /// Whether `member`'s turn in `document` waits for the user's answer.
    pub fn set_waiting(&self, document: &str, member: &str, waiting: bool) {
        self.with_turn(document, member, |turn| turn.waiting = waiting);
    }

    /// Where the answer to the permission block `block` of `document` goes, while the
    /// turn that asked it runs.
    pub fn answers_for(&self, document: &str, block: &str) -> Option<Answers> {
        let turns = self.lock();
        turns.get(document)?.values().find_map(|turn| {
            turn.asks
                .iter()
                .find(|(b, _)| b == block)
                .map(|(_, answers)| answers.clone())
        })
    }

    /// `member`'s turn in `document` takes requests to steer through `steers`.
    pub fn steerable(&self, document: &str, member: &str, steers: &Steers) {
        self.with_turn(document, member, |turn| turn.steers = Some(steers.clone()));
    }

    /// Asks `member`'s running turn in `document` to take the chat's queued message;
    /// whether there was such a turn to ask.
    pub fn steer(&self, document: &str, member: &str) -> bool {
        self.with_turn(document, member, |turn| {
            turn.steers
                .as_ref()
                .is_some_and(|s| s.send(member.to_owned()).is_ok())
        })
        .unwrap_or(false)
    }

    /// Forgets `member`'s turn in `document`; returns how long it ran.
    pub fn release(&self, document: &str, member: &str) -> Option<Duration> {
        let mut turns = self.lock();
        let members = turns.get_mut(document)?;
        let turn = members.remove(member);
        if members.is_empty() {
            turns.remove(document);
        }
        turn.map(|t| t.started.elapsed())
    }

    /// Moves the turns of `from` to `to` (the chat was renamed while they ran); a
    /// member already running in `to` keeps its own turn there.
    pub fn move_document(&self, from: &str, to: &str) {
        let mut turns = self.lock();
        let Some(moved) = turns.remove(from) else {
            return;
        };
        let members = turns.entry(to.to_string()).or_default();
        for (member, turn) in moved {
            members.entry(member).or_insert(turn);
        }
    }

    pub fn is_running(&self, document: &str, member: &str) -> bool {
        self.with_turn(document, member, |_| ()).is_some()
    }

    /// Whether `member` has a turn running in any document: a chat renamed while
    /// the turn runs is open under its new name before the turn follows it there.
    pub fn runs_anywhere(&self, member: &str) -> bool {
        self.lock()
            .values()
            .any(|members| members.contains_key(member))
    }

    /// Counts streamed answer bytes; returns the total and how long the turn runs.
    pub fn add_bytes(&self, document: &str, member: &str, n: usize) -> Option<(usize, Duration)> {
        self.with_turn(document, member, |turn| {
            turn.bytes += n;
            (turn.bytes, turn.started.elapsed())
        })
    }

    pub fn set_progress(&self, document: &str, member: &str, token: &str) {
        self.with_turn(document, member, |turn| {
            turn.progress = Some(token.to_string());
        });
    }

    /// Cancels `member`'s turn in `document`, or every turn of it; returns the members
    /// cancelled.
    pub fn cancel(&self, document: &str, member: Option<&str>) -> Vec<String> {
        let turns = self.lock();
        let Some(members) = turns.get(document) else {
            return Vec::new();
        };
        members
            .iter()
            .filter(|(m, _)| member.is_none_or(|want| want == m.as_str()))
            .map(|(m, turn)| {
                turn.cancel.cancel();
                m.clone()
            })
            .collect()
    }

    /// Cancels the turn shown with progress `token`; whether there was one.
    pub fn cancel_progress(&self, token: &str) -> bool {
        let turns = self.lock();
        let found = turns
            .values()
            .flat_map(BTreeMap::values)
            .find(|t| t.progress.as_deref() == Some(token));
        if let Some(turn) = found {
            turn.cancel.cancel();
        }
        found.is_some()
    }

    /// Cancels every running turn and refuses new ones from now on (the server is
    /// shutting down, or a signal ends it).
    pub fn close(&self) {
        let turns = self.lock();
        self.closed.store(true, std::sync::atomic::Ordering::SeqCst);
        for turn in turns.values().flat_map(BTreeMap::values) {
            turn.cancel.cancel();
        }
    }

    /// Whether no turn is running.
    pub fn is_empty(&self) -> bool {
        self.lock().is_empty()
    }

    /// Every running turn, by document and member.
    pub fn list(&self) -> Vec<TurnInfo> {
        let turns = self.lock();
        turns
            .iter()
            .flat_map(|(document, members)| {
                members.iter().map(move |(member, t)| TurnInfo {
                    document: document.clone(),
                    member: member.clone(),
                    elapsed: t.started.elapsed(),
                    bytes: t.bytes,
                    waiting: t.waiting,
                })
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_turn_per_member_and_document() {
        let running = Running::default();
        let token = CancellationToken::new();
        running.claim("a.chat.md", "reviewer", &token).unwrap();
        let refused = running.claim("a.chat.md", "reviewer", &token).unwrap_err();
        assert_eq!(
            refused.to_string(),
            "@reviewer is already answering in this chat; wait for it or cancel it first"
        );
        running.claim("b.chat.md", "reviewer", &token).unwrap();
        running.release("a.chat.md", "reviewer");
        running.claim("a.chat.md", "reviewer", &token).unwrap();
    }

    #[test]
    fn cancel_by_member_document_or_progress_token() {
        let running = Running::default();
        let (a, b, c) = (
            CancellationToken::new(),
            CancellationToken::new(),
            CancellationToken::new(),
        );
        running.claim("x", "a", &a).unwrap();
        running.claim("x", "b", &b).unwrap();
        running.claim("y", "a", &c).unwrap();
        running.set_progress("y", "a", "p1");
        assert_eq!(running.cancel("x", Some("b")), vec!["b"]);
        assert!(b.is_cancelled() && !a.is_cancelled());
        assert!(running.cancel_progress("p1"));
        assert!(c.is_cancelled());
        assert!(!running.cancel_progress("p2"));
        assert_eq!(running.cancel("x", None), vec!["a", "b"]);
        assert!(a.is_cancelled());
    }

    #[test]
    fn closing_cancels_every_turn_and_refuses_new_ones() {
        let running = Running::default();
        let (a, b) = (CancellationToken::new(), CancellationToken::new());
        running.claim("x", "a", &a).unwrap();
        running.claim("y", "b", &b).unwrap();
        running.close();
        assert!(a.is_cancelled() && b.is_cancelled());
        assert_eq!(
            running
                .claim("x", "c", &CancellationToken::new())
                .unwrap_err()
                .to_string(),
            "@c was not started: chatmd is shutting down"
        );
        running.release("x", "a");
        running.release("y", "b");
        assert!(running.is_empty());
    }

    #[test]
    fn a_turn_moved_with_its_chat_runs_under_the_new_name() {
        let running = Running::default();
        running
            .claim("old", "a", &CancellationToken::new())
            .unwrap();
        assert!(running.runs_anywhere("a") && !running.runs_anywhere("b"));
        running.move_document("old", "new");
        assert!(running.is_running("new", "a") && !running.is_running("old", "a"));
        running.release("new", "a");
        assert!(!running.runs_anywhere("a") && running.is_empty());
    }

    #[test]
    fn the_list_counts_bytes() {
        let running = Running::default();
        running.claim("x", "a", &CancellationToken::new()).unwrap();
        assert_eq!(running.add_bytes("x", "a", 5).unwrap().0, 5);
        assert_eq!(running.add_bytes("x", "a", 7).unwrap().0, 12);
        assert!(running.add_bytes("x", "b", 1).is_none());
        let list = running.list();
        assert_eq!(list.len(), 1);
        assert_eq!((list[0].member.as_str(), list[0].bytes), ("a", 12));
    }
}
