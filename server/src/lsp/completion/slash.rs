//! Completion of an agent's commands after `/` at the start of a line of the human's
//! message: the commands the members it mentions reported in their last turns (ACP
//! `available_commands_update`), or those of every member of the chat with known
//! commands when it mentions none.

use std::sync::Mutex;

use tower_lsp_server::ls_types::*;

use super::super::convert;
use super::super::state::{Document, State, lock};
use crate::agents::AgentCommand;
use crate::conversation::roster::Roster;
use crate::document::text::PositionEncoding;
use crate::team::Member;

/// The longest command typed so far that is still completed (a longer line after a `/`
/// is text, not a command being typed).
const MAX_TYPED: usize = 100;

/// Where a command being typed at `offset` starts: the offset of its `/`, when the line
/// (not starting before `floor`, the message body's start) runs from that `/` to
/// `offset` with no control character.
pub(super) fn slash_start(text: &str, offset: usize, floor: usize) -> Option<usize> {
    let before = text.get(..offset)?;
    let line = before.rfind(['\n', '\r']).map_or(0, |i| i + 1).max(floor);
    let typed = before.get(line..)?.strip_prefix('/')?;
    let plain = typed.len() <= MAX_TYPED && !typed.chars().any(char::is_control);
    plain.then_some(line)
}

pub(super) fn complete(
    state: &Mutex<State>,
    doc: &Document,
    text: &str,
    offset: usize,
    enc: PositionEncoding,
) -> Option<Vec<CompletionItem>> {
    let message = &doc.chat.messages[doc.chat.message_at(offset)?];
    let body = message.body_range().start;
    if offset < body {
        return None;
    }
    let slash = slash_start(text, offset, body)?;
    if doc.chat.in_code(offset) {
        return None;
    }
    let team = doc.team(state).team;
    let roster = Roster::new(&team, doc.chat.front_matter.as_ref());
    if roster.is_ai(message.handle(text)) {
        return None;
    }
    let mut asked: Vec<&Member> = Vec::new();
    for mention in message.mentions() {
        let name = &text[mention.handle];
        if let Some(member) = roster.member(name).filter(|_| !roster.is_human(name))
            && !asked.iter().any(|m| m.handle == member.handle)
        {
            asked.push(member);
        }
    }
    let mentions_none = asked.is_empty();
    if mentions_none {
        asked = roster.members.clone();
    }
    let known: Vec<(&Member, Vec<AgentCommand>)> = {
        let s = lock(state);
        asked
            .into_iter()
            .filter_map(|m| {
                let commands = &s.told.member(&team.folder, &m.handle)?.commands;
                (!commands.is_empty()).then(|| (m, commands.clone()))
            })
            .collect()
    };
    let range = convert::range(&doc.text, &(slash..offset), enc);
    let items = known
        .iter()
        .enumerate()
        .flat_map(|(i, (member, commands))| {
            commands
                .iter()
                .enumerate()
                .map(move |(j, command)| item(member, command, i * 10_000 + j, range))
        })
        .collect();
    Some(items)
}

/// One command's item: `/name`, the member in the detail, the description and what
/// to type after it in the documentation.
pub(super) fn item(
    member: &Member,
    command: &AgentCommand,
    order: usize,
    range: Range,
) -> CompletionItem {
    let label = format!("/{}", command.name);
    let mut doc = command.description.clone();
    if let Some(hint) = &command.hint {
        if !doc.is_empty() {
            doc.push_str("\n\n");
        }
        doc.push_str(&format!("Input: `{hint}`"));
    }
    CompletionItem {
        label: label.clone(),
        kind: Some(CompletionItemKind::FUNCTION),
        detail: Some(format!("@{}", member.handle)),
        documentation: (!doc.is_empty()).then_some(Documentation::MarkupContent(MarkupContent {
            kind: MarkupKind::Markdown,
            value: doc,
        })),
        sort_text: Some(format!("{order:08}")),
        filter_text: Some(label.clone()),
        text_edit: Some(CompletionTextEdit::Edit(TextEdit::new(range, label))),
        ..Default::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use std::path::PathBuf;

    #[test]
    fn a_command_is_typed_from_a_slash_at_the_start_of_a_line() {
        let text = "## @me\n/re";
        assert_eq!(slash_start(text, text.len(), 7), Some(7));
        assert_eq!(slash_start(text, 8, 7), Some(7), "just the slash");
        let text = "## @me\nhi\r\n/memory sh";
        assert_eq!(slash_start(text, text.len(), 7), Some(11), "CRLF; a space");
        assert_eq!(
            slash_start("## @me\nsee /re", 14, 7),
            None,
            "not at the start"
        );
        assert_eq!(slash_start("## @me\n /re", 11, 7), None, "indented");
        assert_eq!(slash_start("## @me\nno", 9, 7), None);
        assert_eq!(
            slash_start("## @me /x", 9, 9),
            None,
            "the heading is not the body"
        );
        let long = format!("## @me\n/{}", "a".repeat(MAX_TYPED + 1));
        assert_eq!(slash_start(&long, long.len(), 7), None);
        assert_eq!(slash_start("## @me\n/a\tb", 11, 7), None);
    }

    #[test]
    fn an_item_names_the_command_and_its_member() {
        let member = Member::new("coder", "acp", PathBuf::from("/w"));
        let command = AgentCommand {
            name: "mcp".into(),
            description: "Show the MCP servers.".into(),
            hint: Some("[reconnect]".into()),
        };
        let range = Range::new(Position::new(1, 0), Position::new(1, 2));
        let item = item(&member, &command, 3, range);
        assert_eq!(item.label, "/mcp");
        assert_eq!(item.detail.as_deref(), Some("@coder"));
        assert_eq!(
            item.documentation,
            Some(Documentation::MarkupContent(MarkupContent {
                kind: MarkupKind::Markdown,
                value: "Show the MCP servers.\n\nInput: `[reconnect]`".into()
            }))
        );
        assert_eq!(
            item.text_edit,
            Some(CompletionTextEdit::Edit(TextEdit::new(
                range,
                "/mcp".into()
            )))
        );
        assert_eq!(item.sort_text.as_deref(), Some("00000003"));
    }
}
