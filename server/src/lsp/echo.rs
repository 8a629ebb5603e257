//! Recognising the echo of chatmd's own edit among the changes an editor reports:
//! by the text it makes, whatever shape the editor gives it (VS Code's minimal diffs,
//! Neovim's batched changes and its extra final line break), and wherever the user's
//! typing that came first moved it.

use super::journal::Entry;
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

impl Echo {
    pub fn new(edits: Vec<(ByteRange, String)>) -> Echo {
        Echo {
            candidates: vec![edits],
            landed: None,
            saw_theirs: false,
        }
    }

    /// Whether applying `entries[..end]` (for the smallest `end`) to `view` gives the
    /// text one candidate's edits give: returns `end`, that text, and a trailing line
    /// break the editor added.
    pub fn find(
        &mut self,
        view: &str,
        entries: &[Entry],
    ) -> Option<(usize, String, Option<String>)> {
        let expected: Vec<String> = self
            .candidates
            .iter()
            .map(|edits| apply(view, edits))
            .collect();
        let mut text = view.to_string();
        for (n, entry) in entries.iter().enumerate() {
            let range = clamp(&text, &entry.range);
            text.replace_range(range, &entry.text);
            for (c, want) in expected.iter().enumerate() {
                if text.len() == want.len() && text == *want {
                    self.landed = Some(c);
                    return Some((n + 1, text, None));
                }
                for eol in ["\n", "\r\n"] {
                    if text.len() == want.len() + eol.len()
                        && text.ends_with(eol)
                        && text.starts_with(want.as_str())
                    {
                        self.landed = Some(c);
                        return Some((n + 1, want.clone(), Some(eol.to_string())));
                    }
                }
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

    #[test]
    fn the_echo_is_found_by_the_text_it_makes() {
        let mut echo = Echo::new(vec![(4..4, "xy".into())]);
        let found = echo.find("abcd", &[entry(4..4, "xy")]);
        assert_eq!(found, Some((1, "abcdxy".into(), None)));
        // Neovim's way: the last line break replaced by the text plus one more.
        let mut echo = Echo::new(vec![(3..3, "x\n".into())]);
        let found = echo.find("ab\n", &[entry(2..3, "\nx\n\n")]);
        assert_eq!(found, Some((1, "ab\nx\n".into(), Some("\n".into()))));
        // A replacement echoed as a minimal diff in two changes.
        let mut echo = Echo::new(vec![(0..11, "hallo worlt".into())]);
        let found = echo.find("hello world", &[entry(1..2, "a"), entry(10..11, "t")]);
        assert_eq!(found, Some((2, "hallo worlt".into(), None)));
    }

    #[test]
    fn a_change_typed_first_moves_the_expected_edit_either_way() {
        let mut echo = Echo::new(vec![(4..4, "xy".into())]);
        let typed = entry(4..4, "!");
        assert_eq!(echo.find("abcd", std::slice::from_ref(&typed)), None);
        echo.moved(&typed);
        assert_eq!(
            echo.find("abcd!", &[entry(4..4, "xy")]),
            Some((1, "abcdxy!".into(), None)),
            "inserted before the user's text"
        );
        assert_eq!(echo.landed_edits(), vec![(4..4, "xy".to_string())]);
        assert_eq!(
            echo.find("abcd!", &[entry(5..5, "xy")]),
            Some((1, "abcd!xy".into(), None)),
            "or after it"
        );
        assert_eq!(echo.landed_edits(), vec![(5..5, "xy".to_string())]);
    }
}
