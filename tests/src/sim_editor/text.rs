//! How the simulated editors lay out text: the LSP positions of byte offsets, the
//! shape of the echo each editor gives an applied edit, and run-specific times redacted.

use serde_json::{Value, json};

use super::Behaviour;

/// How an editor that behaves like `behaviour` reports an applied edit in `didChange`.
pub(super) fn echo_of(
    behaviour: Behaviour,
    text: &str,
    range: std::ops::Range<usize>,
    new: &str,
) -> (std::ops::Range<usize>, String) {
    match behaviour {
        Behaviour::Neovim
            if range.start == text.len() && range.is_empty() && text.ends_with('\n') =>
        {
            (text.len() - 1..text.len(), format!("\n{new}\n"))
        }
        Behaviour::VsCode if !range.is_empty() => {
            // A minimal diff: only the part that differs.
            let old = &text[range.clone()];
            let mut prefix = old
                .bytes()
                .zip(new.bytes())
                .take_while(|(a, b)| a == b)
                .count();
            while !old.is_char_boundary(prefix) || !new.is_char_boundary(prefix) {
                prefix -= 1;
            }
            let (old_rest, new_rest) = (&old[prefix..], &new[prefix..]);
            let mut suffix = old_rest
                .bytes()
                .rev()
                .zip(new_rest.bytes().rev())
                .take_while(|(a, b)| a == b)
                .count();
            while !old_rest.is_char_boundary(old_rest.len() - suffix)
                || !new_rest.is_char_boundary(new_rest.len() - suffix)
            {
                suffix -= 1;
            }
            let start = range.start + prefix;
            let end = range.end - suffix;
            (start..end, new_rest[..new_rest.len() - suffix].to_string())
        }
        _ => (range, new.to_string()),
    }
}

/// The LSP position of a byte offset.
pub(super) fn position(text: &str, offset: usize, utf8: bool) -> Value {
    let before = &text[..offset];
    let line = before.matches('\n').count();
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let in_line = &text[line_start..offset];
    let character = if utf8 {
        in_line.len()
    } else {
        in_line.encode_utf16().count()
    };
    json!({"line": line, "character": character})
}

/// The byte offset of an LSP position.
pub(super) fn offset(text: &str, position: &Value, utf8: bool) -> usize {
    let line = position["line"].as_u64().expect("line") as usize;
    let character = position["character"].as_u64().expect("character") as usize;
    let mut start = 0;
    for _ in 0..line {
        match text[start..].find('\n') {
            Some(i) => start += i + 1,
            None => return text.len(),
        }
    }
    let line_text = &text[start..text[start..].find('\n').map_or(text.len(), |i| start + i)];
    if utf8 {
        return start + character.min(line_text.len());
    }
    let mut units = 0;
    for (i, c) in line_text.char_indices() {
        if units >= character {
            return start + i;
        }
        units += c.len_utf16();
    }
    start + line_text.len()
}

/// Status comments with the times of this run replaced, so whole documents compare.
pub fn redact(text: &str) -> String {
    let times = regex::Regex::new(r"(started|took)=[^ ]+").expect("regex");
    times.replace_all(text, "$1=…").into_owned()
}
