//! The diagnostics last published for a document, kept as the JSON of their array, and
//! used again when a keystroke left them as they were. A long chat shows its first 1000
//! problems, and a key typed further on changes none of them: their positions are
//! those of before, and converting and serializing them again was about a third of a
//! keystroke's work. They are used again only when the problems are the same and every
//! edit since was after the last of them (positions before an edit do not move).

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, MutexGuard};

use crate::conversation::problems::Problem;

/// How many edits are remembered: a burst longer than that between two publications
/// computes them afresh.
const LOG: usize = 1024;

/// What one document's lineage of versions published last, and the edits since.
#[derive(Debug, Default)]
pub struct Published(Mutex<Memo>);

#[derive(Debug, Default)]
struct Memo {
    /// Edits counted so far (the count of the latest version).
    edits: u64,
    /// The latest edits: the count each made, and the byte it started at.
    log: VecDeque<(u64, usize)>,
    last: Option<Last>,
}

#[derive(Debug)]
struct Last {
    /// The count of the version they were published for.
    at: u64,
    problems: Vec<Problem>,
    json: Arc<Vec<u8>>,
}

impl Published {
    /// Counts an edit starting at byte `start` after the version counted `at`; the new
    /// version's count, or `None` when another copy of the document was edited since
    /// (it then starts a memo of its own).
    pub fn edited(&self, at: u64, start: usize) -> Option<u64> {
        let mut memo = lock(&self.0);
        if memo.edits != at {
            return None;
        }
        memo.edits += 1;
        let edits = memo.edits;
        memo.log.push_back((edits, start));
        if memo.log.len() > LOG {
            memo.log.pop_front();
        }
        Some(edits)
    }

    /// The JSON of the diagnostics of `problems` for the version counted `at`: the last
    /// published when they are the same problems and no edit since came before the end
    /// of one of them, else what `convert` makes (kept for next time by
    /// [`Published::keep`]).
    pub fn json(
        &self,
        at: u64,
        problems: &[Problem],
        convert: impl FnOnce() -> Vec<u8>,
    ) -> Arc<Vec<u8>> {
        {
            let memo = lock(&self.0);
            if let Some(last) = &memo.last
                && last.at <= at
                && last.problems == problems
            {
                // Every edit from the last publication's version to this one is still
                // in the log.
                let logged = memo
                    .log
                    .front()
                    .is_some_and(|&(first, _)| first <= last.at + 1);
                let earliest = memo
                    .log
                    .iter()
                    .filter(|&&(count, _)| count > last.at && count <= at)
                    .map(|&(_, start)| start)
                    .min();
                let after_all = |start: usize| problems.iter().all(|p| p.range.end < start);
                let unmoved = last.at == at || (logged && earliest.is_some_and(after_all));
                if unmoved {
                    return last.json.clone();
                }
            }
        }
        Arc::new(convert())
    }

    /// Keeps `json`, the diagnostics of `problems` published for the version counted
    /// `at`.
    pub fn keep(&self, at: u64, problems: Vec<Problem>, json: Arc<Vec<u8>>) {
        let mut memo = lock(&self.0);
        if memo.last.as_ref().is_some_and(|last| last.at > at) {
            return;
        }
        memo.last = Some(Last { at, problems, json });
    }
}

fn lock(memo: &Mutex<Memo>) -> MutexGuard<'_, Memo> {
    memo.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::team::Severity;

    fn problem(at: usize) -> Problem {
        Problem {
            range: at..at + 3,
            severity: Severity::Warning,
            code: "unknown-mention",
            message: "unknown".into(),
            fixes: Vec::new(),
        }
    }

    /// `json` of the memo, and whether it used the last one.
    fn reused(memo: &Published, at: u64, problems: &[Problem]) -> bool {
        let fresh = memo.json(at, problems, || b"fresh".to_vec());
        fresh.as_slice() != b"fresh"
    }

    #[test]
    fn the_last_json_is_used_again_only_when_every_edit_since_came_after_the_problems() {
        let memo = Published::default();
        let problems = vec![problem(10), problem(20)];
        assert!(!reused(&memo, 0, &problems), "nothing published yet");
        memo.keep(0, problems.clone(), Arc::new(b"last".to_vec()));
        assert!(reused(&memo, 0, &problems), "the same version");
        let at = memo.edited(0, 500).expect("the latest copy");
        assert!(reused(&memo, at, &problems), "a key after them");
        assert!(!reused(&memo, at, &[problem(10)]), "other problems");
        let at = memo.edited(at, 23).expect("the latest copy");
        assert!(
            !reused(&memo, at, &problems),
            "an edit at the end of the last"
        );
        memo.keep(at, problems.clone(), Arc::new(b"last".to_vec()));
        // More edits than the log keeps: those forgotten may have been anywhere.
        let mut at = at;
        for _ in 0..LOG + 1 {
            at = memo.edited(at, 1000).expect("the latest copy");
        }
        assert!(!reused(&memo, at, &problems));
    }

    #[test]
    fn a_copy_edited_on_its_own_is_not_counted_in_the_others_memo() {
        let memo = Published::default();
        let at = memo.edited(0, 5).expect("the latest copy");
        // An older copy (still at 0) edited afterwards starts a memo of its own.
        assert_eq!(memo.edited(0, 7), None);
        assert_eq!(memo.edited(at, 9), Some(2));
    }
}
