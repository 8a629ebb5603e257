//! Where a problem is in an `agents.toml`: byte offsets turned into line and column, and
//! the dotted key whose text holds an offset (toml's errors carry a span but no key).

use std::ops::Range;

use toml::de::{DeTable, DeValue};

/// A 1-based line and column; the column counts characters, not bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Location {
    pub line: usize,
    pub column: usize,
}

impl Location {
    /// The location of byte `offset` in `text` (clamped to the text).
    pub fn of(text: &str, offset: usize) -> Location {
        let mut offset = offset.min(text.len());
        while !text.is_char_boundary(offset) {
            offset -= 1;
        }
        let before = &text[..offset];
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        Location {
            line: before.matches('\n').count() + 1,
            column: before[line_start..].chars().count() + 1,
        }
    }
}

/// The dotted key (`agents.llm.prompt`) of the innermost key/value pair whose text
/// holds `offset`, or `None` when the text does not parse or no pair holds it.
pub fn key_at(text: &str, offset: usize) -> Option<String> {
    let root = DeTable::parse(text).ok()?;
    let mut best: Option<(usize, Vec<String>)> = None;
    visit(root.get_ref(), &mut Vec::new(), offset, &mut best);
    best.map(|(_, path)| dotted(&path))
}

/// Keys joined the way TOML writes them: bare when they can be, quoted otherwise
/// (`agents."claude.v2".args`).
pub fn dotted<S: AsRef<str>>(keys: &[S]) -> String {
    let bare = |key: &str| {
        !key.is_empty()
            && key
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    };
    keys.iter()
        .map(|key| {
            let key = key.as_ref();
            if bare(key) {
                key.to_owned()
            } else {
                format!("{key:?}")
            }
        })
        .collect::<Vec<_>>()
        .join(".")
}

fn visit(
    table: &DeTable<'_>,
    path: &mut Vec<String>,
    offset: usize,
    best: &mut Option<(usize, Vec<String>)>,
) {
    for (key, value) in table {
        path.push(key.get_ref().to_string());
        let span = key.span().start.min(value.span().start)..key.span().end.max(value.span().end);
        consider(span, path, offset, best);
        match value.get_ref() {
            DeValue::Table(inner) => visit(inner, path, offset, best),
            DeValue::Array(items) => {
                for item in items.iter() {
                    if let DeValue::Table(inner) = item.get_ref() {
                        visit(inner, path, offset, best);
                    }
                }
            }
            _ => {}
        }
        path.pop();
    }
}

/// Keeps the narrowest pair holding `offset`; on a tie the deeper one (seen later).
fn consider(
    span: Range<usize>,
    path: &[String],
    offset: usize,
    best: &mut Option<(usize, Vec<String>)>,
) {
    let holds = span.contains(&offset) || (span.is_empty() && span.start == offset);
    if !holds {
        return;
    }
    let width = span.len();
    if best.as_ref().is_none_or(|(w, _)| width <= *w) {
        *best = Some((width, path.to_vec()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn locations_count_lines_and_characters() {
        let text = "a = 1\nb = \"é\" x\n";
        assert_eq!(Location::of(text, 0), Location { line: 1, column: 1 });
        assert_eq!(Location::of(text, 6), Location { line: 2, column: 1 });
        let x = text.find('x').unwrap();
        assert_eq!(Location::of(text, x), Location { line: 2, column: 9 });
        assert_eq!(Location::of(text, 999), Location { line: 3, column: 1 });
    }

    #[test]
    fn keys_are_found_from_offsets_in_keys_and_values() {
        let text =
            "[agents.llm]\ncommand = \"llm\"\nprompt = \"stdn\"\n\n[agents.claude]\nargs = [1]\n";
        let at = |needle: &str| key_at(text, text.find(needle).unwrap());
        assert_eq!(at("\"stdn\"").as_deref(), Some("agents.llm.prompt"));
        assert_eq!(at("prompt").as_deref(), Some("agents.llm.prompt"));
        assert_eq!(at("1]").as_deref(), Some("agents.claude.args"));
        assert_eq!(key_at("not = [toml", 3), None);
        assert_eq!(
            dotted(&["agents", "claude.v2", "args"]),
            "agents.\"claude.v2\".args"
        );
    }
}
