//! Completion in `chatmd.toml` of a member's session settings, from what its agent
//! offered in its last turn (ACP `configOptions`, or the legacy `modes`/`models`): the
//! values of `mode = "…"` and `model = "…"` in a `[members.X]` table, and in a
//! `[members.X.options]` table the settings' ids as keys and each one's values.
//!
//! The file is read as text around the cursor (the line being typed and the table
//! header above it): a file being typed rarely parses.

use std::path::Path;
use std::sync::Mutex;

use tower_lsp_server::ls_types::*;

use super::super::convert;
use super::super::state::{Document, State, lock};
use crate::agents::ConfigChoice;
use crate::document::text::PositionEncoding;

/// The member keys whose values are offered, each a setting's id or category.
const MEMBER_KEYS: [&str; 2] = ["mode", "model"];

/// What is being typed at the cursor.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Spot {
    /// The value of `key` of member `member`, from `start`; `quoted`: after its `"`;
    /// `options`: a key of its `options` table (else of its own table).
    Value {
        member: String,
        key: String,
        start: usize,
        quoted: bool,
        options: bool,
    },
    /// A key of `[members.<member>.options]`, from `start`.
    OptionKey { member: String, start: usize },
}

/// The table a line is in.
enum Table {
    Member(String),
    Options(String),
}

/// What is being typed at `offset` of a `chatmd.toml`, if completion has anything for it.
pub(super) fn spot(text: &str, offset: usize) -> Option<Spot> {
    let before = text.get(..offset)?;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let line = &before[line_start..];
    let table = table_above(&before[..line_start])?;
    let indent = line.len() - line.trim_start().len();
    let rest = &line[indent..];
    let key_len = rest
        .bytes()
        .take_while(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-'))
        .count();
    let key = &rest[..key_len];
    let after_key = &rest[key_len..];
    if after_key.is_empty() {
        return match table {
            Table::Options(member) => Some(Spot::OptionKey {
                member,
                start: offset - key_len,
            }),
            Table::Member(_) => None,
        };
    }
    let value = after_key.trim_start().strip_prefix('=')?.trim_start();
    let (partial, quoted) = match value.strip_prefix('"') {
        Some(partial) if !partial.contains('"') => (partial, true),
        Some(_) => return None,
        None if value.is_empty() => ("", false),
        None => return None,
    };
    let (member, options) = match table {
        Table::Member(member) if MEMBER_KEYS.contains(&key) => (member, false),
        Table::Options(member) if !key.is_empty() => (member, true),
        _ => return None,
    };
    Some(Spot::Value {
        member,
        key: key.to_owned(),
        start: offset - partial.len(),
        quoted,
        options,
    })
}

/// The table of the last header in `text` (`[members.X]`, `[members."X".options]`);
/// `None` for any other table.
fn table_above(text: &str) -> Option<Table> {
    let header = text
        .lines()
        .rev()
        .map(str::trim)
        .find(|line| line.starts_with('['))?;
    if header.starts_with("[[") {
        return None;
    }
    let inside = &header[1..header.find(']')?];
    let parts: Vec<&str> = inside
        .split('.')
        .map(|part| part.trim().trim_matches(['"', '\'']))
        .collect();
    match parts.as_slice() {
        ["members", member] if !member.is_empty() => Some(Table::Member((*member).to_owned())),
        ["members", member, "options"] if !member.is_empty() => {
            Some(Table::Options((*member).to_owned()))
        }
        _ => None,
    }
}

/// The setting a key names: in a member's table (`mode`, `model`) the one of that
/// category, else the one with that id (as the turn applies them); in its `options`
/// table the one with that id.
fn setting<'a>(
    options: &'a [ConfigChoice],
    key: &str,
    member_key: bool,
) -> Option<&'a ConfigChoice> {
    let of = |c: &&ConfigChoice| c.category.as_deref() == Some(key);
    let named = |c: &&ConfigChoice| c.id == key;
    if member_key {
        options
            .iter()
            .find(of)
            .or_else(|| options.iter().find(named))
    } else {
        options.iter().find(named)
    }
}

/// A setting's values: its select values (TOML strings), or `true` and `false` for a
/// boolean one (it lists no values; its value in force says it is one), each with
/// whether it is a string, its name and description.
fn values(choice: &ConfigChoice) -> Vec<(&str, bool, &str, Option<&str>)> {
    if choice.values.is_empty() && matches!(choice.current.as_deref(), Some("true" | "false")) {
        return vec![
            ("true", false, "true", None),
            ("false", false, "false", None),
        ];
    }
    choice
        .values
        .iter()
        .map(|v| {
            (
                v.value.as_str(),
                true,
                v.name.as_str(),
                v.description.as_deref(),
            )
        })
        .collect()
}

/// Whether `path` is a `chatmd.toml`.
pub(super) fn is_config(path: &Path) -> bool {
    path.file_name().is_some_and(|name| name == "chatmd.toml")
}

pub(super) fn complete(
    state: &Mutex<State>,
    doc: &Document,
    enc: PositionEncoding,
    position: Position,
) -> Option<Vec<CompletionItem>> {
    let folder = doc.path.as_deref()?.parent()?;
    let text = doc.flat();
    let offset = convert::offset(&doc.text, position, enc);
    let spot = spot(&text, offset)?;
    let member = match &spot {
        Spot::Value { member, .. } | Spot::OptionKey { member, .. } => member,
    };
    let options = lock(state).told.options_under(folder, member)?.to_vec();
    Some(items(&spot, &options, |start| {
        convert::range(&doc.text, &(start..offset), enc)
    }))
}

/// The items for `spot` from the member's `options`; `range` gives the range from a
/// start offset to the cursor.
pub(super) fn items(
    spot: &Spot,
    options: &[ConfigChoice],
    range: impl Fn(usize) -> Range,
) -> Vec<CompletionItem> {
    match spot {
        Spot::Value {
            key,
            start,
            quoted,
            options: in_options,
            ..
        } => {
            let Some(choice) = setting(options, key, !in_options) else {
                return Vec::new();
            };
            values(choice)
                .into_iter()
                .enumerate()
                .filter_map(|(i, (value, string, name, description))| {
                    let insert = match (string, *quoted) {
                        (true, true) => escaped(value),
                        (true, false) => format!("\"{}\"", escaped(value)),
                        (false, false) => value.to_owned(),
                        // Inside quotes only a string goes.
                        (false, true) => return None,
                    };
                    let current = choice.current.as_deref() == Some(value);
                    Some(CompletionItem {
                        label: value.to_owned(),
                        kind: Some(CompletionItemKind::ENUM_MEMBER),
                        detail: Some(if current {
                            format!("{name} (in force in its last session)")
                        } else {
                            name.to_owned()
                        }),
                        documentation: description.map(|d| Documentation::String(d.to_owned())),
                        sort_text: Some(format!("{i:04}")),
                        filter_text: Some(insert.clone()),
                        text_edit: Some(CompletionTextEdit::Edit(TextEdit::new(
                            range(*start),
                            insert,
                        ))),
                        ..Default::default()
                    })
                })
                .collect()
        }
        Spot::OptionKey { start, .. } => options
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let values: Vec<&str> = c.values.iter().map(|v| v.value.as_str()).collect();
                CompletionItem {
                    label: c.id.clone(),
                    kind: Some(CompletionItemKind::PROPERTY),
                    detail: Some(c.name.clone()),
                    documentation: Some(Documentation::String(values.join(", "))),
                    sort_text: Some(format!("{i:04}")),
                    text_edit: Some(CompletionTextEdit::Edit(TextEdit::new(
                        range(*start),
                        c.id.clone(),
                    ))),
                    ..Default::default()
                }
            })
            .collect(),
    }
}

/// `value` as it goes between a TOML basic string's quotes.
fn escaped(value: &str) -> String {
    value.replace('\\', "\\\\").replace('"', "\\\"")
}

#[cfg(test)]
mod tests;
