//! Completion in a chat of `@member` handles (members with their agent and role), of
//! context references after `#` (`references.rs`) and of an agent's commands after `/`
//! (`slash.rs`), of `routing:` and `chair:` values in the front matter
//! (`routing_help.rs`), and in `chatmd.toml` of a member's session
//! settings (`settings.rs`).

mod references;
mod settings;
mod slash;

use std::sync::Mutex;

use tower_lsp_server::ls_types::*;

use super::convert;
use super::state::{Document, State};
use crate::conversation::roster::Roster;
use crate::document::inline::is_handle_byte;
use crate::document::text::PositionEncoding;
use crate::team::Member;

/// The role text shown in completion documentation is cut to this many bytes.
const ROLE_PREVIEW: usize = 4000;

/// Where a handle being typed starts: the offset just after its `@`.
fn handle_start(text: &str, offset: usize) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut i = offset;
    while i > 0 && is_handle_byte(bytes[i - 1]) {
        i -= 1;
    }
    if i == 0 || bytes[i - 1] != b'@' {
        return None;
    }
    let at = i - 1;
    let ok = at == 0 || matches!(bytes[at - 1], b' ' | b'\t' | b'\n' | b'\r' | b'(' | b'[');
    ok.then_some(i)
}

pub fn member_item(
    member: &Member,
    taking_part: bool,
    order: usize,
    range: Range,
) -> CompletionItem {
    let summary = member.role_summary().unwrap_or("no role file");
    let mut doc = format!("**@{}** — {}\n\n", member.handle, member.agent);
    if let Some(role) = &member.role_text {
        let cut = role
            .char_indices()
            .take_while(|(i, _)| *i < ROLE_PREVIEW)
            .last()
            .map_or(0, |(i, c)| i + c.len_utf8());
        doc.push_str(&role[..cut]);
        if cut < role.len() {
            doc.push_str("\n\n…");
        }
    }
    CompletionItem {
        label: member.handle.clone(),
        kind: Some(CompletionItemKind::REFERENCE),
        detail: Some(format!(
            "{}{} — {}",
            member.agent,
            if taking_part {
                ""
            } else {
                " (not in this chat's members)"
            },
            summary
        )),
        documentation: Some(Documentation::MarkupContent(MarkupContent {
            kind: MarkupKind::Markdown,
            value: doc,
        })),
        sort_text: Some(format!("{}{order:04}", if taking_part { 'a' } else { 'b' })),
        text_edit: Some(CompletionTextEdit::Edit(TextEdit::new(
            range,
            member.handle.clone(),
        ))),
        ..Default::default()
    }
}

pub fn complete(
    state: &Mutex<State>,
    doc: &Document,
    enc: PositionEncoding,
    position: Position,
) -> Option<Vec<CompletionItem>> {
    if doc.path.as_deref().is_some_and(settings::is_config) {
        return settings::complete(state, doc, enc, position);
    }
    let text = doc.flat();
    let offset = convert::offset(&doc.text, position, enc);
    if let Some(items) = references::complete(state, doc, &text, offset, enc) {
        return Some(items);
    }
    if let Some(items) = super::routing_help::complete(state, doc, &text, offset, enc) {
        return Some(items);
    }
    let Some(start) = handle_start(&text, offset) else {
        return slash::complete(state, doc, &text, offset, enc);
    };
    if doc.chat.in_code(offset) {
        return None;
    }
    let team = doc.team(state).team;
    let roster = Roster::new(&team, doc.chat.front_matter.as_ref());
    let range = convert::range(&doc.text, &(start..offset), enc);
    let items = team
        .members
        .iter()
        .enumerate()
        .map(|(i, m)| member_item(m, roster.takes_part(&m.handle), i, range))
        .collect();
    Some(items)
}

#[cfg(test)]
mod tests {
    use super::handle_start;

    #[test]
    fn finds_the_handle_being_typed() {
        assert_eq!(handle_start("@", 1), Some(1));
        assert_eq!(handle_start("hi @rev", 7), Some(4));
        assert_eq!(handle_start("## @", 4), Some(4));
        assert_eq!(handle_start("(@a", 3), Some(2));
        assert_eq!(handle_start("bob@ex", 6), None);
        assert_eq!(handle_start("no at", 5), None);
    }
}
