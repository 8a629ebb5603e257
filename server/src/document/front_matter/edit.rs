//! Edits to the front matter: the smallest text replacement that sets one top-level
//! key, for the server to write `status: ended` or `forked_from:`.

use super::{BOM, FrontMatter, locate, parse};
use crate::document::ByteRange;
use crate::document::lines::Lines;
use crate::document::quoted::quoted;

/// The replacement (range of `text`, new text) that sets the top-level `key` to `value`:
/// - `key` present: its value is replaced (the first one, if it is set twice);
/// - no `key`: a `key: value` line is inserted just before the closing fence;
/// - no front matter: a whole block is inserted at the start of the file (after a BOM).
///
/// `value` is the value's text. It is written as a plain YAML scalar when that reads
/// back as the same text (`ended`, `3`, `review.chat.md`), else double-quoted with
/// escapes, so any text round-trips and the line never breaks. Inserted lines use the
/// block's line ending (CRLF if its opening fence line ends with CRLF; for a new block,
/// the file's first line ending).
///
/// `fm` is the parse of `text`'s front matter; when it is `None` or does not match
/// `text`, the front matter is located and parsed here. Keys after a YAML syntax error
/// are not seen, so such a key gets a second line (reported as set twice once the
/// error is fixed).
///
/// The new line goes at column 0: front matter written as one flow mapping (`{a: 1}`)
/// is not supported here.
pub fn set_key_edit(
    text: &str,
    fm: Option<&FrontMatter>,
    key: &str,
    value: &str,
) -> (ByteRange, String) {
    let fresh;
    let fm = match locate(text) {
        None => None,
        Some(block) => match fm {
            Some(fm) if fm.block == block && fits(text, fm) => Some(fm),
            _ => {
                fresh = parse(text, &block);
                Some(&fresh)
            }
        },
    };
    let value = yaml_scalar(value);
    let Some(fm) = fm else {
        let start = if text.starts_with(BOM) { BOM.len() } else { 0 };
        let eol = line_ending(text, start);
        let key = yaml_scalar(key);
        return (start..start, format!("---{eol}{key}: {value}{eol}---{eol}"));
    };
    match fm.entry(key) {
        Some(entry) if entry.value.is_empty() => (entry.value.clone(), format!(" {value}")),
        Some(entry) => (entry.value.clone(), value),
        None => {
            let eol = line_ending(text, fm.block.range.start);
            let at = document_end(text, fm);
            (at..at, format!("{}: {value}{eol}", yaml_scalar(key)))
        }
    }
}

/// Where a new last line of the YAML document goes: before the closing fence, or
/// before a `...` that ends the document earlier (`... # done`, which is no fence):
/// a line after that would start a second document.
pub(super) fn document_end(text: &str, fm: &FrontMatter) -> usize {
    let yaml = &fm.block.yaml;
    let last = fm.entries.iter().map(|e| e.value.end.max(e.key.range.end));
    let from = last.max().unwrap_or(yaml.start).clamp(yaml.start, yaml.end);
    let mut lines = Lines::from(text, from);
    // The line holding the last value is not the marker (`from` may be mid-line).
    if from > yaml.start {
        lines.next();
    }
    lines
        .take_while(|line| line.start < yaml.end)
        .find(|line| {
            let line = &text[line.range()];
            line.starts_with("...") && line[3..].starts_with([' ', '\t'])
        })
        .map_or(yaml.end, |line| line.start)
}

/// Whether `fm`'s entry ranges can be used on `text` without slicing out of bounds.
fn fits(text: &str, fm: &FrontMatter) -> bool {
    fm.entries
        .iter()
        .all(|e| text.get(e.value.clone()).is_some() && text.get(e.key.range.clone()).is_some())
}

/// `\r\n` if the line starting at `pos` ends with one, else `\n`.
pub(super) fn line_ending(text: &str, pos: usize) -> &'static str {
    let rest = text.get(pos..).unwrap_or("");
    match rest.find('\n') {
        Some(i) if rest[..i].ends_with('\r') => "\r\n",
        _ => "\n",
    }
}

/// `text` as a YAML scalar in block context that reads back as exactly `text`.
pub(crate) fn yaml_scalar(text: &str) -> String {
    if is_plain_safe(text) {
        text.to_owned()
    } else {
        double_quoted(text)
    }
}

fn is_plain_safe(text: &str) -> bool {
    let Some(first) = text.chars().next() else {
        return false;
    };
    !"-?:,[]{}#&*!|>'\"%@`".contains(first)
        && !matches!(text, "~" | "null" | "Null" | "NULL")
        && !text.starts_with(char::is_whitespace)
        && !text.ends_with(char::is_whitespace)
        && !text.ends_with(':')
        && !text.contains(": ")
        && !text.contains(" #")
        && text
            .chars()
            .all(|c| !c.is_control() && !matches!(c, '\u{2028}' | '\u{2029}' | '\u{feff}'))
}

pub(super) fn double_quoted(text: &str) -> String {
    quoted(text, |out, c| {
        match c {
            '\u{85}' => out.push_str("\\N"),
            '\u{2028}' => out.push_str("\\L"),
            '\u{2029}' => out.push_str("\\P"),
            '\u{feff}' => out.push_str("\\uFEFF"),
            c if c.is_control() => out.push_str(&format!("\\x{:02X}", u32::from(c))),
            _ => return false,
        }
        true
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `text` after setting `key` to `value`, checked to parse without problems.
    fn set(text: &str, key: &str, value: &str) -> String {
        let (range, new) = set_key_edit(text, None, key, value);
        let edited = format!("{}{new}{}", &text[..range.start], &text[range.end..]);
        let problems = parse(&edited, &locate(&edited).unwrap()).problems;
        assert_eq!(problems, [], "{edited:?}");
        edited
    }

    /// The title's value and its source text.
    fn title(text: &str) -> (String, &str) {
        let title = parse(text, &locate(text).unwrap()).title.unwrap();
        (title.value, &text[title.range])
    }

    /// Found by fuzzing: a plain value continued on lines that look like list items
    /// (`  - a`) is one scalar (`Dnoe deaa - - a`), but its range covered only its first
    /// line, so setting the key left the continuation lines behind as a syntax error.
    #[test]
    fn setting_a_key_replaces_every_line_of_a_multi_line_plain_value() {
        let text = "---\ntitle: Dnoe deaa\n  -\n  - a\nmax_\u{fffd}chain: -1se\n...\n";
        let source = "Dnoe deaa\n  -\n  - a";
        assert_eq!(title(text), ("Dnoe deaa - - a".to_owned(), source));
        let edited = "---\ntitle: \"\"\nmax_\u{fffd}chain: -1se\n...\n";
        assert_eq!(set(text, "title", ""), edited);
    }

    /// Found by fuzzing: yaml-rust2 reads a comment line indented by a tab as a blank
    /// line inside a plain value (`)`, `\t#`, ` 0` is the value `) 0`); the value's
    /// range stopped before the comment, and setting the key left ` 0` behind.
    #[test]
    fn setting_a_key_replaces_a_plain_value_read_across_a_tab_indented_comment() {
        let text = "---\ntitle: )\n\t#\n 0\n---\n";
        assert_eq!(title(text), (") 0".to_owned(), ")\n\t#\n 0"));
        assert_eq!(set(text, "title", "x"), "---\ntitle: x\n---\n");
    }

    /// Found by fuzzing: a `...` with a comment after it ends the YAML document without
    /// closing the block; a new key went after it, into a second document.
    #[test]
    fn a_new_key_goes_before_a_document_end_marker() {
        let text = "---\na: 1\n... # done\n---\n## @me\n";
        let edited = "---\na: 1\ntitle: x\n... # done\n---\n## @me\n";
        assert_eq!(set(text, "title", "x"), edited);
        assert_eq!(title(edited), ("x".to_owned(), "x"));
    }
}
