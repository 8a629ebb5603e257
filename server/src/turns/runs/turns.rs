//! What the registry says and does about single turns: their permission requests,
//! waits, steering, streamed bytes and progress tokens, cancelling them, and the list
//! the editor shows.

use std::collections::BTreeMap;
use std::sync::atomic::Ordering;
use std::time::Duration;

use super::{Runs, Steers, TurnInfo};
use crate::turns::Answers;

impl Runs {
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
        let registry = self.lock();
        registry.turns.get(document)?.values().find_map(|turn| {
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
    pub(super) fn steer(&self, document: &str, member: &str) -> bool {
        self.with_turn(document, member, |turn| {
            turn.steers
                .as_ref()
                .is_some_and(|s| s.send(member.to_owned()).is_ok())
        })
        .unwrap_or(false)
    }

    pub fn is_running(&self, document: &str, member: &str) -> bool {
        self.with_turn(document, member, |_| ()).is_some()
    }

    /// Whether `member` has a turn running in any document: a chat renamed while
    /// the turn runs is open under its new name before the turn follows it there.
    pub fn runs_anywhere(&self, member: &str) -> bool {
        self.lock()
            .turns
            .values()
            .any(|members| members.contains_key(member))
    }

    /// Every turn running now, as (document, member): what a check made apart from
    /// the registry reads.
    pub fn answering(&self) -> Vec<(String, String)> {
        let registry = self.lock();
        registry
            .turns
            .iter()
            .flat_map(|(document, members)| {
                members
                    .keys()
                    .map(move |member| (document.clone(), member.clone()))
            })
            .collect()
    }

    /// Whether members answer in `document` now.
    pub fn answering_in(&self, document: &str) -> bool {
        self.lock().turns.contains_key(document)
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
        let registry = self.lock();
        let Some(members) = registry.turns.get(document) else {
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
        let registry = self.lock();
        let found = registry
            .turns
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
        let registry = self.lock();
        self.closed.store(true, Ordering::SeqCst);
        for turn in registry.turns.values().flat_map(BTreeMap::values) {
            turn.cancel.cancel();
        }
    }

    /// Whether no turn is running.
    pub fn is_empty(&self) -> bool {
        self.lock().turns.is_empty()
    }

    /// Every running turn, by document and member.
    pub fn list(&self) -> Vec<TurnInfo> {
        let registry = self.lock();
        registry
            .turns
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
