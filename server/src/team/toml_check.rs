//! The one TOML checker of chatmd's configuration files (`chatmd.toml`, `agents.toml`):
//! a strict parse whose failure is one [`ConfigProblem`] at its place (line, column and
//! the dotted key, which toml's errors lack), with the same hints for every file.

use std::ops::Range;
use std::path::Path;

use serde::de::DeserializeOwned;
use toml::de::{DeTable, DeValue};

use super::problem::{ConfigProblem, Severity};

/// Parses `text` (the content of `file`) into its strict serde shape. A file that does
/// not parse is one error at its place; `until_fixed` says what chatmd does meanwhile
/// ("chatmd ignores this chatmd.toml until it is fixed").
pub fn parse_strict<T: DeserializeOwned>(
    file: &Path,
    text: &str,
    until_fixed: &str,
) -> Result<T, Box<ConfigProblem>> {
    toml::from_str(text).map_err(|error| {
        let span = error.span();
        let message = error.message().trim_end();
        let hint = if message.starts_with("unknown field `agents`") {
            " (agent kinds belong in ~/.config/chatmd/agents.toml, not in the workspace)"
        } else if message.starts_with("unknown field") {
            "; remove it or fix its spelling"
        } else {
            ""
        };
        let mut problem = ConfigProblem::new(
            file,
            span.clone(),
            Severity::Error,
            format!("{message}{hint}. {until_fixed}"),
        )
        .located(text);
        problem.key = span.and_then(|s| key_at(text, s.start));
        Box::new(problem)
    })
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
