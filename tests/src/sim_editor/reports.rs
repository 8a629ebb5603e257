//! Other shapes an editor may give its `didChange` reports, all legal LSP, each seen
//! in a real client: the whole text at every change, and VS Code's habit of
//! reporting one multi-part edit as many small changes.

use serde_json::{Value, json};

use super::Behaviour;
use super::text::{echo_of, position};

/// How the simulated editor reports changes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reports {
    /// Ranges, one change per edit (or the editor's own shape: see `text::echo_of`).
    Ranges,
    /// Every change as the whole new text (a content change without a range).
    WholeText,
    /// Each part of a server edit as its own notification, a replaced range as the
    /// changes of a character diff, listed from the last to the first.
    ManySmall,
}

/// Applies `edits` (sorted from the last to the first) to `text` and returns the
/// notifications that report them.
pub(super) fn report(
    reports: Reports,
    behaviour: Behaviour,
    text: &mut String,
    edits: &[(std::ops::Range<usize>, String)],
    utf8: bool,
) -> Vec<Vec<Value>> {
    match reports {
        Reports::Ranges => unreachable!("reported by the editor's own shape"),
        Reports::WholeText => {
            for (range, new) in edits {
                // What the buffer holds after the edit (Neovim keeps a final line break
                // apart from the lines).
                let (range, new) = echo_of(behaviour, text, range.clone(), new);
                text.replace_range(range, &new);
            }
            vec![vec![json!({"text": text.as_str()})]]
        }
        Reports::ManySmall => edits
            .iter()
            .map(|(range, new)| small_changes(text, range.clone(), new, utf8))
            .collect(),
    }
}

/// `range` of `text` replaced by `new`, reported as the changes of a character diff
/// between them, the last first (so each holds for the text before it).
fn small_changes(
    text: &mut String,
    range: std::ops::Range<usize>,
    new: &str,
    utf8: bool,
) -> Vec<Value> {
    let old = text[range.clone()].to_string();
    let diff = similar::TextDiff::from_chars(old.as_str(), new);
    // Each differing run: its range in `old` (bytes) and its new text.
    let mut runs: Vec<(std::ops::Range<usize>, String)> = Vec::new();
    let (mut at_old, mut pending): (usize, Option<(std::ops::Range<usize>, String)>) = (0, None);
    for change in diff.iter_all_changes() {
        let value = change.value();
        match change.tag() {
            similar::ChangeTag::Equal => {
                runs.extend(pending.take());
                at_old += value.len();
            }
            similar::ChangeTag::Delete => {
                let run = pending.get_or_insert((at_old..at_old, String::new()));
                run.0.end += value.len();
                at_old += value.len();
            }
            similar::ChangeTag::Insert => {
                pending
                    .get_or_insert((at_old..at_old, String::new()))
                    .1
                    .push_str(value);
            }
        }
    }
    runs.extend(pending);
    let mut out = Vec::new();
    for (run, new) in runs.into_iter().rev() {
        let at = range.start + run.start..range.start + run.end;
        out.push(json!({
            "range": {
                "start": position(text, at.start, utf8),
                "end": position(text, at.end, utf8),
            },
            "text": new,
        }));
        text.replace_range(at, &new);
    }
    out
}
