//! Recognising the echo of chatmd's own edit among the changes an editor reports:
//! by the text it makes, whatever shape the editor gives it (VS Code's minimal diffs,
//! Neovim's batched changes and its extra final line break), and wherever the user's
//! typing that came first moved it.

use super::journal::Entry;
use crate::conversation::diff::{Region, regions};
use crate::document::ByteRange;

/// The text of an insert at the very end of a text that ends with a line break,
/// without its own final line break, for an editor that adds one back (Neovim keeps
/// a file's last line break apart from its lines: it takes an insert past the last
/// line as text after the last line and keeps the file's line break after it, so the
/// whole insert would leave one empty line too many). The insert stays past the last
/// line: typing at the end of that line, even typing the editor has not reported yet
/// when the insert arrives, stays before it.
pub fn without_final_line_break(text: &str, len: usize, range: &ByteRange, new: &str) -> String {
    let at_end = range.start == len && range.end == len && text.len() == len;
    for eol in ["\r\n", "\n"] {
        if at_end && text.ends_with(eol) && new.ends_with(eol) {
            return new[..new.len() - eol.len()].to_string();
        }
    }
    new.to_string()
}

/// A range clamped to the text and to character boundaries.
pub fn clamp(text: &str, range: &ByteRange) -> ByteRange {
    let mut start = range.start.min(text.len());
    let mut end = range.end.min(text.len()).max(start);
    while !text.is_char_boundary(start) {
        start -= 1;
    }
    while !text.is_char_boundary(end) {
        end += 1;
    }
    start..end
}

/// The edits being waited for, as they would land: moved through every change that
/// came first. Text typed exactly where an edit inserts may end up on either side
/// of the edit's text, depending on the editor, so both are expected.
#[derive(Clone)]
pub struct Echo {
    candidates: Vec<Vec<(ByteRange, String)>>,
    /// Which candidate landed, once one did.
    landed: Option<usize>,
    pub saw_theirs: bool,
}

/// Where the edits being waited for landed among the changes reported.
#[derive(Debug, PartialEq, Eq)]
pub struct Landing {
    /// How many of the changes it took to show the edits.
    pub consumed: usize,
    /// The text with the edits applied to the text before those changes.
    pub ours: String,
    /// The rest of what those changes did, as regions of `ours`: someone else's
    /// typing reported in the same changes (a whole-text change, the user's keys
    /// before the echo), or a line break the editor added. None of them reaches into
    /// the text the edits wrote.
    pub theirs: Vec<Region>,
    /// The text after those changes.
    pub text: String,
}

impl Echo {
    pub fn new(edits: Vec<(ByteRange, String)>) -> Echo {
        Echo {
            candidates: vec![edits],
            landed: None,
            saw_theirs: false,
        }
    }

    /// Whether applying `entries[..end]` (for the smallest `end`) to `view` gives a
    /// text that holds one candidate's edits, exactly where they go: the edits'
    /// text whole, everything else changed only outside it. Whatever shape the editor
    /// gives its report (minimal diffs, the whole text, several notifications, the
    /// user's keys in the same notification) the text it makes decides.
    pub fn find(&mut self, view: &str, entries: &[Entry]) -> Option<Landing> {
        let expected: Vec<(String, Vec<ByteRange>)> = self
            .candidates
            .iter()
            .map(|edits| (apply(view, edits), written(edits)))
            .collect();
        let mut text = view.to_string();
        for (n, entry) in entries.iter().enumerate() {
            let range = clamp(&text, &entry.range);
            text.replace_range(range, &entry.text);
            // A candidate that makes the text exactly is the one that landed; else
            // one the text holds beside someone else's changes.
            let exact = expected
                .iter()
                .position(|(want, _)| text.len() == want.len() && text == *want)
                .map(|c| (c, Vec::new()));
            let landed = exact.or_else(|| {
                expected
                    .iter()
                    .enumerate()
                    .find_map(|(c, (want, written))| Some((c, beside(want, &text, written)?)))
            });
            if let Some((c, theirs)) = landed {
                let want = &expected[c].0;
                self.landed = Some(c);
                return Some(Landing {
                    consumed: n + 1,
                    ours: want.clone(),
                    theirs,
                    text,
                });
            }
        }
        None
    }

    pub fn landed_edits(&self) -> Vec<(ByteRange, String)> {
        self.candidates[self.landed.unwrap_or(0)].clone()
    }

    /// Someone else's change came first: the edits would now land moved by it.
    pub fn moved(&mut self, entry: &Entry) {
        self.saw_theirs = true;
        let mut next = Vec::new();
        for edits in &self.candidates {
            for before in [true, false] {
                let moved: Vec<(ByteRange, String)> = edits
                    .iter()
                    .map(|(r, t)| (map_range(r, entry, before), t.clone()))
                    .collect();
                if !next.contains(&moved) {
                    next.push(moved);
                }
            }
        }
        // Two sides per change would grow without bound while the user types; the
        // oldest guesses matter least.
        next.truncate(8);
        self.candidates = next;
    }
}

/// Where sorted `edits` put their text, in the text they make.
fn written(edits: &[(ByteRange, String)]) -> Vec<ByteRange> {
    let mut shift: isize = 0;
    edits
        .iter()
        .map(|(range, new)| {
            let start = range.start.saturating_add_signed(shift);
            shift += new.len() as isize - range.len() as isize;
            start..start + new.len()
        })
        .collect()
}

/// The regions where `text` differs from `want` when none reaches into what our
/// edits wrote (`written`, ranges of `want`): then `text` is `want` with someone
/// else's changes beside it. A region may touch our text (typing right before or
/// after it); a place where an edit only deleted text must not be touched at all.
fn beside(want: &str, text: &str, written: &[ByteRange]) -> Option<Vec<Region>> {
    let found = regions(want, text);
    let clear = found.iter().all(|r| {
        written.iter().all(|w| {
            if w.is_empty() {
                !(r.old.start <= w.start && w.start <= r.old.end)
            } else if r.old.is_empty() {
                !(w.start < r.old.start && r.old.start < w.end)
            } else {
                r.old.end <= w.start || w.end <= r.old.start
            }
        })
    });
    clear.then_some(found)
}

fn map_range(r: &ByteRange, entry: &Entry, insert_before: bool) -> ByteRange {
    let (start, end, len) = (entry.range.start, entry.range.end, entry.text.len());
    let map = |o: usize| {
        if start == end && o == start {
            if insert_before { o } else { o + len }
        } else if o <= start {
            o
        } else if o >= end {
            o - (end - start) + len
        } else {
            start + len
        }
    };
    let a = map(r.start);
    a..map(r.end).max(a)
}

/// `text` with sorted, non-overlapping `edits` applied.
fn apply(text: &str, edits: &[(ByteRange, String)]) -> String {
    let mut out = text.to_string();
    for (range, new) in edits.iter().rev() {
        let range = clamp(&out, range);
        out.replace_range(range, new);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(range: ByteRange, text: &str) -> Entry {
        Entry {
            version: 2,
            range,
            text: text.into(),
        }
    }

    /// What `find` says: how many changes it took, the text with our edits, and the
    /// others' regions as (old range, their text).
    type Found = (usize, String, Vec<(ByteRange, String)>);

    fn found(echo: &mut Echo, view: &str, entries: &[Entry]) -> Option<Found> {
        let landing = echo.find(view, entries)?;
        let theirs = landing
            .theirs
            .iter()
            .map(|r| (r.old.clone(), landing.text[r.new.clone()].to_string()))
            .collect();
        Some((landing.consumed, landing.ours, theirs))
    }

    #[test]
    fn the_echo_is_found_by_the_text_it_makes() {
        let mut echo = Echo::new(vec![(4..4, "xy".into())]);
        let landed = found(&mut echo, "abcd", &[entry(4..4, "xy")]);
        assert_eq!(landed, Some((1, "abcdxy".into(), vec![])));
        // Neovim's way: the last line break replaced by the text plus one more.
        let mut echo = Echo::new(vec![(3..3, "x\n".into())]);
        let landed = found(&mut echo, "ab\n", &[entry(2..3, "\nx\n\n")]);
        assert_eq!(
            landed,
            Some((1, "ab\nx\n".into(), vec![(5..5, "\n".into())]))
        );
        // A replacement echoed as a minimal diff in two changes.
        let mut echo = Echo::new(vec![(0..11, "hallo worlt".into())]);
        let landed = found(
            &mut echo,
            "hello world",
            &[entry(1..2, "a"), entry(10..11, "t")],
        );
        assert_eq!(landed, Some((2, "hallo worlt".into(), vec![])));
    }

    #[test]
    fn the_echo_is_found_beside_the_users_typing_in_one_whole_text_change() {
        // The status line rewritten and a chunk added; the editor reports the whole
        // text, with the user's next message typed at the end.
        let view = "## @me\nq\n\n## @r\n<!-- s=1 -->\nThe \n\n## @me\n";
        let status = view.find("<!--").unwrap();
        let chunk_at = view.find("The ").unwrap() + 4;
        let edits = vec![
            (status..status + 12, "<!-- s=22 -->".to_string()),
            (chunk_at..chunk_at, "answer".to_string()),
        ];
        let mut echo = Echo::new(edits);
        let whole = "## @me\nq\n\n## @r\n<!-- s=22 -->\nThe answer\n\n## @me\nnext?\n";
        let landed = found(&mut echo, view, &[entry(0..view.len(), whole)]);
        let ours = "## @me\nq\n\n## @r\n<!-- s=22 -->\nThe answer\n\n## @me\n";
        assert_eq!(
            landed,
            Some((
                1,
                ours.into(),
                vec![(ours.len()..ours.len(), "next?\n".into())]
            ))
        );
        // Without the chunk, it has not landed, whatever else is there.
        let partial = "## @me\nq\n\n## @r\n<!-- s=22 -->\nThe \n\n## @me\nnext?\n";
        assert_eq!(
            found(&mut echo, view, &[entry(0..view.len(), partial)]),
            None
        );
    }

    #[test]
    fn a_change_typed_first_moves_the_expected_edit_either_way() {
        let mut echo = Echo::new(vec![(4..4, "xy".into())]);
        let typed = entry(4..4, "!");
        assert_eq!(echo.find("abcd", std::slice::from_ref(&typed)), None);
        // The user's key and the echo in the changes: the key is beside the text.
        assert_eq!(
            found(&mut echo, "abcd", &[typed.clone(), entry(5..5, "xy")]),
            Some((2, "abcdxy".into(), vec![(4..4, "!".into())])),
        );
        echo.moved(&typed);
        assert_eq!(
            found(&mut echo, "abcd!", &[entry(4..4, "xy")]),
            Some((1, "abcdxy!".into(), vec![])),
            "inserted before the user's text"
        );
        assert_eq!(echo.landed_edits(), vec![(4..4, "xy".to_string())]);
        assert_eq!(
            found(&mut echo, "abcd!", &[entry(5..5, "xy")]),
            Some((1, "abcd!xy".into(), vec![])),
            "or after it"
        );
        assert_eq!(echo.landed_edits(), vec![(5..5, "xy".to_string())]);
    }
}
