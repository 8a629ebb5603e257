use tokio_util::sync::CancellationToken;

use super::*;

/// A run in `document` without a chat file (no lock).
fn run_in(runs: &Runs, document: &str) -> RunId {
    runs.open_run(document, None, crate::turns::lock::SERVER)
}

#[test]
fn one_turn_per_member_and_document() {
    let runs = Runs::default();
    let token = CancellationToken::new();
    let (a, b) = (run_in(&runs, "a.chat.md"), run_in(&runs, "b.chat.md"));
    runs.claim(a, "reviewer", &token).unwrap();
    let other = run_in(&runs, "a.chat.md");
    let refused = runs.claim(other, "reviewer", &token).unwrap_err();
    assert_eq!(
        refused.to_string(),
        "@reviewer is already answering in this chat; wait for it or cancel it first"
    );
    runs.claim(b, "reviewer", &token).unwrap();
    runs.release(a, "reviewer");
    runs.claim(other, "reviewer", &token).unwrap();
}

#[test]
fn cancel_by_member_document_or_progress_token() {
    let runs = Runs::default();
    let (a, b, c) = (
        CancellationToken::new(),
        CancellationToken::new(),
        CancellationToken::new(),
    );
    let (x, y) = (run_in(&runs, "x"), run_in(&runs, "y"));
    runs.claim(x, "a", &a).unwrap();
    runs.claim(x, "b", &b).unwrap();
    runs.claim(y, "a", &c).unwrap();
    runs.set_progress("y", "a", "p1");
    assert_eq!(runs.cancel("x", Some("b")), vec!["b"]);
    assert!(b.is_cancelled() && !a.is_cancelled());
    assert!(runs.cancel_progress("p1"));
    assert!(c.is_cancelled());
    assert!(!runs.cancel_progress("p2"));
    assert_eq!(runs.cancel("x", None), vec!["a", "b"]);
    assert!(a.is_cancelled());
}

#[test]
fn closing_cancels_every_turn_and_refuses_new_ones() {
    let runs = Runs::default();
    let (a, b) = (CancellationToken::new(), CancellationToken::new());
    let (x, y) = (run_in(&runs, "x"), run_in(&runs, "y"));
    runs.claim(x, "a", &a).unwrap();
    runs.claim(y, "b", &b).unwrap();
    runs.close();
    assert!(a.is_cancelled() && b.is_cancelled());
    assert_eq!(
        runs.claim(x, "c", &CancellationToken::new())
            .unwrap_err()
            .to_string(),
        "@c was not started: chatmd is shutting down"
    );
    runs.release(x, "a");
    runs.release(y, "b");
    assert!(runs.is_empty());
}

#[test]
fn a_run_moved_with_its_chat_runs_under_the_new_name() {
    let runs = Runs::default();
    let run = run_in(&runs, "old");
    runs.count_run(run);
    runs.claim(run, "a", &CancellationToken::new()).unwrap();
    assert!(runs.runs_anywhere("a") && !runs.runs_anywhere("b"));
    runs.move_run(run, "new", None);
    assert!(runs.is_running("new", "a") && !runs.is_running("old", "a"));
    assert!(runs.runs_in("new") && !runs.runs_in("old"));
    runs.release(run, "a");
    assert!(!runs.runs_anywhere("a") && runs.is_empty());
    assert!(runs.end_run(run), "the chat's last run");
    assert!(!runs.runs_in("new"));
}

#[test]
fn the_list_counts_bytes() {
    let runs = Runs::default();
    let x = run_in(&runs, "x");
    runs.claim(x, "a", &CancellationToken::new()).unwrap();
    assert_eq!(runs.add_bytes("x", "a", 5).unwrap().0, 5);
    assert_eq!(runs.add_bytes("x", "a", 7).unwrap().0, 12);
    assert!(runs.add_bytes("x", "b", 1).is_none());
    let list = runs.list();
    assert_eq!(list.len(), 1);
    assert_eq!((list[0].member.as_str(), list[0].bytes), ("a", 12));
}

#[test]
fn a_queued_message_waits_for_the_chats_last_counted_run() {
    let runs = Runs::default();
    let (first, second) = (run_in(&runs, "c"), run_in(&runs, "c"));
    // A port that runs nothing (it only marks a message queued) holds nothing up.
    let _marking = run_in(&runs, "c");
    assert!(runs.delivers_queued("c"));
    runs.count_run(first);
    runs.count_run(second);
    assert!(!runs.delivers_queued("c"));
    assert!(!runs.end_run(first), "another run goes on");
    assert!(runs.end_run(second), "the last run");
    assert!(runs.delivers_queued("c"));
}

#[test]
fn a_closed_run_releases_its_turns() {
    let runs = Runs::default();
    let run = run_in(&runs, "c");
    runs.count_run(run);
    runs.claim(run, "a", &CancellationToken::new()).unwrap();
    runs.claim(run, "b", &CancellationToken::new()).unwrap();
    runs.close_run(run);
    assert!(runs.is_empty() && runs.delivers_queued("c"));
}

#[test]
fn send_starts_or_queues_as_members_answer() {
    let runs = Runs::default();
    assert_eq!(runs.delivery("c", false), Delivery::Start);
    let run = run_in(&runs, "c");
    runs.claim(run, "a", &CancellationToken::new()).unwrap();
    assert_eq!(runs.delivery("c", false), Delivery::Queue);
    assert_eq!(runs.delivery("c", true), Delivery::Start);
    assert_eq!(runs.delivery("other", false), Delivery::Start);
}

#[test]
fn a_message_for_one_running_member_is_steered_into_its_turn() {
    let runs = Runs::default();
    let run = run_in(&runs, "c");
    runs.claim(run, "a", &CancellationToken::new()).unwrap();
    runs.claim(run, "b", &CancellationToken::new()).unwrap();
    let (steers, mut steered) = tokio::sync::mpsc::unbounded_channel();
    runs.steerable("c", "a", &steers);
    assert!(!runs.steer_queued("c", &["a".into(), "b".into()]));
    assert!(
        !runs.steer_queued("c", &["b".into()]),
        "b takes no steering"
    );
    assert!(runs.steer_queued("c", &["a".into()]));
    assert_eq!(steered.try_recv().ok().as_deref(), Some("a"));
    assert!(steered.try_recv().is_err());
}

#[test]
fn a_run_holds_the_chats_lock_from_its_first_turn_until_it_closes() {
    use crate::turns::lock::{Probe, probe};
    let folder = tempfile::tempdir().unwrap();
    let chat = folder.path().join("c.chat.md");
    std::fs::write(&chat, "## @me\nhi\n").unwrap();
    let runs = Runs::default();
    let run = runs.open_run("c", Some(&chat), crate::turns::lock::SERVER);
    assert_eq!(probe(&chat), Probe::Free, "no turn yet");
    runs.claim(run, "reviewer", &CancellationToken::new())
        .unwrap();
    assert_eq!(probe(&chat), Probe::Ours);
    runs.release(run, "reviewer");
    assert_eq!(probe(&chat), Probe::Ours, "held until the run closes");
    runs.close_run(run);
    assert_eq!(probe(&chat), Probe::Free);
}
