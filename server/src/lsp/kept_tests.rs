//! Tests of the slots kept across edits ([`super`]).

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

#[test]
fn work_on_slots_out_with_other_work_waits_for_them_and_finds_what_that_work_kept() {
    let doc: Kept<u32, u8> = Kept::default();
    let other = doc.clone();
    let (taken_tx, taken_rx) = mpsc::channel();
    let (go_tx, go_rx) = mpsc::channel::<()>();
    let first = std::thread::spawn(move || {
        other.with(1, 3, |slots| {
            let slots = slots.expect("current");
            taken_tx.send(()).expect("tell the second");
            go_rx.recv().expect("the second is on its way");
            slots.fill(Some(4));
        })
    });
    taken_rx.recv().expect("the first took the slots");
    let (seen_tx, seen_rx) = mpsc::channel();
    let second = {
        let doc = doc.clone();
        std::thread::spawn(move || {
            let seen = doc.with(1, 3, |slots| slots.map(|s| s.to_vec()));
            seen_tx.send(seen).expect("report");
        })
    };
    // (Before, the second did not wait: it ended without.)
    while doc.waiting() == 0 && !second.is_finished() {
        std::thread::yield_now();
    }
    go_tx.send(()).expect("let the first end");
    first.join().expect("the first");
    second.join().expect("the second");
    // Before, the second made three empty slots of its own and its own work.
    assert_eq!(seen_rx.recv().expect("seen"), Some(vec![Some(4); 3]));
}

#[test]
fn an_edit_wakes_work_waiting_for_the_slots_of_the_version_before_it() {
    let mut doc: Kept<u32, u8> = Kept::default();
    let holder = doc.clone();
    let waiter = doc.clone();
    let (taken_tx, taken_rx) = mpsc::channel();
    let (done_tx, done_rx) = mpsc::channel::<()>();
    let first = std::thread::spawn(move || {
        holder.with(1, 2, |slots| {
            assert!(slots.is_some());
            taken_tx.send(()).expect("tell the test");
            done_rx.recv().expect("the test is done");
        })
    });
    taken_rx.recv().expect("the first took the slots");
    let (seen_tx, seen_rx) = mpsc::channel();
    let second = std::thread::spawn(move || {
        seen_tx
            .send(waiter.with(1, 2, |slots| slots.is_none()))
            .expect("report");
    });
    // (Before, the second did not wait: it ended without.)
    while doc.waiting() == 0 && !second.is_finished() {
        std::thread::yield_now();
    }
    doc.edited(Reparsed::All);
    // The waiter is of the version before the edit: it works without slots,
    // while the first still has its (now old) slots out.
    let without = seen_rx
        .recv_timeout(Duration::from_secs(20))
        .expect("the edit woke the waiter");
    assert!(without);
    // The new version's work does not wait for the old one's either.
    assert!(doc.with(1, 2, |slots| slots.is_some()));
    done_tx.send(()).expect("let the first end");
    first.join().expect("the first");
    second.join().expect("the second");
}

#[test]
fn work_within_work_on_the_same_slots_goes_without_them_and_a_panic_gives_them_back() {
    let doc: Kept<u32, u8> = Kept::default();
    let inner = doc.with(1, 1, |outer| {
        outer.expect("current")[0] = Some(1);
        doc.with(1, 1, |slots| slots.is_none())
    });
    assert!(inner, "the inner work would wait for itself");
    let panicked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        doc.with(1, 1, |slots| {
            slots.expect("current")[0] = Some(2);
            panic!("work failed");
        })
    }));
    assert!(panicked.is_err());
    // The slots are free again; what the panicking work half made is not kept.
    assert_eq!(
        doc.with(1, 1, |slots| slots.map(|s| s.to_vec())),
        Some(vec![None])
    );
}

#[test]
fn the_same_handle_is_one_allocation_and_a_different_one_is_its_own() {
    let mut handles = SameHandles::default();
    let first = handles.get("reviewer");
    assert!(first.same(&handles.get("reviewer")));
    // As written: another case is another handle.
    let other = handles.get("Reviewer");
    assert_eq!((&*first, &*other), ("reviewer", "Reviewer"));
    assert!(!first.same(&other));
    // Past 64 handles each new one is its own, and the first ones are still shared.
    for n in 0..70 {
        assert_eq!(&*handles.get(&format!("m{n}")), format!("m{n}"));
    }
    assert!(!handles.get("m69").same(&handles.get("m69")));
    assert!(first.same(&handles.get("reviewer")));
}

/// The slots of `doc` for the messages from `from` on.
fn slots_from(doc: &Kept<u32, u8>, count: usize, from: usize) -> Option<Vec<Option<u32>>> {
    doc.with_whole_from(1, count, from, |kept| {
        kept.map(|(slots, ())| slots.to_vec())
    })
}

#[test]
fn work_on_the_latest_messages_keeps_slots_for_them_only_and_edits_move_them() {
    let mut doc: Kept<u32, u8> = Kept::default();
    doc.with_whole_from(1, 10, 7, |kept| {
        let (slots, ()) = kept.expect("current");
        assert_eq!(slots.len(), 3);
        slots.copy_from_slice(&[Some(7), Some(8), Some(9)]);
    });
    assert_eq!(lock(&doc.slots.slots).slots.len(), 3, "none for the others");
    // Two messages replaced by three before them: they moved on by one.
    doc.edited(Reparsed::Spliced {
        at: 2,
        removed: 2,
        inserted: 3,
    });
    assert_eq!(
        slots_from(&doc, 11, 8),
        Some(vec![Some(7), Some(8), Some(9)])
    );
    // One of them replaced: its slot is emptied, the others stay.
    doc.edited(Reparsed::Spliced {
        at: 9,
        removed: 1,
        inserted: 1,
    });
    assert_eq!(slots_from(&doc, 11, 8), Some(vec![Some(7), None, Some(9)]));
    // Asked from earlier: empty slots before them.
    assert_eq!(
        slots_from(&doc, 11, 6),
        Some(vec![None, None, Some(7), None, Some(9)])
    );
    // An edit from before the first slot into them: those slots go, the others stay
    // with their messages (moved back by two).
    doc.edited(Reparsed::Spliced {
        at: 5,
        removed: 3,
        inserted: 1,
    });
    assert_eq!(slots_from(&doc, 9, 6), Some(vec![Some(7), None, Some(9)]));
    // Another count than the slots are for: all empty again.
    assert_eq!(slots_from(&doc, 4, 1), Some(vec![None; 3]));
}

proptest::proptest! {
    /// Whatever the edits and where work starts, a slot holds what work kept for the
    /// message it is for now, or nothing: never another message's.
    #[test]
    fn slots_kept_from_anywhere_stay_with_their_messages(
        steps in proptest::collection::vec((0usize..12, 0usize..4, 0usize..4, proptest::bool::ANY), 1..30),
    ) {
        let mut doc: Kept<u32, u8> = Kept::default();
        // What each message was given last, as a list of every message would keep it.
        let mut model: Vec<Option<u32>> = vec![None; 8];
        for (n, (at, removed, inserted, work)) in steps.into_iter().enumerate() {
            if work {
                let from = at.min(model.len());
                let seen = slots_from(&doc, model.len(), from).expect("current");
                for (kept, given) in seen.iter().zip(&model[from..]) {
                    proptest::prop_assert!(kept.is_none() || kept == given, "{seen:?} {model:?}");
                }
                // A value of its own for each message and step.
                let value = |i: usize| u32::try_from(n * 100 + i).ok();
                doc.with_whole_from(1, model.len(), from, |kept| {
                    for (i, slot) in kept.expect("current").0.iter_mut().enumerate() {
                        *slot = value(from + i);
                    }
                });
                for (i, slot) in model.iter_mut().enumerate().skip(from) {
                    *slot = value(i);
                }
            } else {
                let at = at.min(model.len());
                let removed = removed.min(model.len() - at);
                doc.edited(Reparsed::Spliced { at, removed, inserted });
                model.splice(at..at + removed, std::iter::repeat_n(None, inserted));
            }
        }
    }
}
