//! Code actions: quick fixes for problems (nearest member names, add to `members:`)
//! and "Convert to chatmd format" for chats written in another tool's format.
//! Every edit is computed here; nothing is left for `codeAction/resolve`.

use std::collections::HashMap;
use std::sync::Mutex;

use tower_lsp_server::ls_types::*;

use super::convert;
use super::diagnostics::{problems_of, to_diagnostic};
use super::ext;
use super::state::{Document, State};
use super::turn_actions::{FORK_TITLE, command};
use crate::conversation::problems::{self, Fix};
use crate::conversation::roster::Roster;
use crate::conversation::seen;
use crate::document::text::PositionEncoding;

fn workspace_edit(doc: &Document, fix: &Fix, enc: PositionEncoding) -> WorkspaceEdit {
    let edits = fix
        .edits
        .iter()
        .map(|(range, new_text)| {
            TextEdit::new(convert::range(&doc.text, range, enc), new_text.clone())
        })
        .collect();
    WorkspaceEdit {
        changes: Some(HashMap::from([(doc.uri.clone(), edits)])),
        ..Default::default()
    }
}

/// "Fork from here" for a message a member's session saw in an earlier version: a new
/// chat up to that message, whose members start sessions of their own from it (a fork
/// resumes no session of its original).
fn fork_from_here(doc: &Document, diagnostic: Diagnostic) -> CodeAction {
    let line = diagnostic.range.start.line;
    let argument = serde_json::json!({ "uri": doc.uri, "line": line });
    CodeAction {
        title: FORK_TITLE.to_owned(),
        kind: Some(CodeActionKind::QUICKFIX),
        diagnostics: Some(vec![diagnostic]),
        command: Some(command(FORK_TITLE, ext::FORK, argument)),
        ..Default::default()
    }
}

fn overlaps(a: &crate::document::ByteRange, b: &crate::document::ByteRange) -> bool {
    a.start <= b.end && b.start <= a.end
}

pub fn code_actions(
    state: &Mutex<State>,
    doc: &Document,
    enc: PositionEncoding,
    range: Range,
) -> Vec<CodeAction> {
    let wanted = convert::byte_range(&doc.text, range, enc);
    let (found, team) = problems_of(state, doc);
    let mut actions = Vec::new();
    for problem in found.iter().filter(|p| overlaps(&p.range, &wanted)) {
        let diagnostic = to_diagnostic(&doc.text, problem, enc);
        if problem.code == seen::CODE {
            actions.push(fork_from_here(doc, diagnostic.clone()));
        }
        for fix in &problem.fixes {
            actions.push(CodeAction {
                title: fix.title.clone(),
                kind: Some(CodeActionKind::QUICKFIX),
                diagnostics: Some(vec![diagnostic.clone()]),
                edit: Some(workspace_edit(doc, fix, enc)),
                is_preferred: Some(fix.preferred),
                ..Default::default()
            });
        }
    }
    actions.extend(super::trust::code_actions(
        state, doc, enc, &wanted, &found, &team,
    ));
    actions.extend(super::trust_chat::code_actions(
        state, doc, enc, &wanted, &found,
    ));
    // A foreign file may hold chatmd-like headings in its answers (`## @media`), so
    // detection decides, not the absence of messages; it stops at a chat's first heading.
    let text = doc.flat();
    let human = Roster::new(&team, doc.chat.front_matter.as_ref()).human;
    if let Some(fix) = problems::convert_fix(&text, &human) {
        let diagnostics = found
            .iter()
            .filter(|p| p.code == "foreign-format")
            .map(|p| to_diagnostic(&doc.text, p, enc))
            .collect();
        actions.push(CodeAction {
            title: fix.title.clone(),
            kind: Some(CodeActionKind::QUICKFIX),
            diagnostics: Some(diagnostics),
            edit: Some(workspace_edit(doc, &fix, enc)),
            ..Default::default()
        });
    }
    actions
}
