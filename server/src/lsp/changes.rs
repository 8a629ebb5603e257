//! The actions on a file an agent changed (the `> - changed `path`` line in its
//! section, `turns/files.rs`): "Undo @x's changes" restores what the file held before
//! the turn wrote it (one annotated edit, refused when the user changed those lines
//! since), and "Open the diff" shows the file with the agent's change selected.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Mutex;

use serde_json::{Value, json};
use tower_lsp_server::Client;
use tower_lsp_server::jsonrpc::{Error, Result};
use tower_lsp_server::ls_types::*;

use super::state::{Document, State, lock};
use super::{convert, ext, turn_actions};
use crate::document::status::StatusComment;
use crate::document::text::{PositionEncoding, Text};
use crate::turns::files::{ChangeRecord, undone_text};

/// The change a line of a chat names: its record's keys.
struct Named {
    member: String,
    turn: String,
    shown: String,
}

/// The change named by line `line` of `text` (a changed or created file's line in a
/// member's section), if it is one.
fn named(chat: &crate::document::chat::Chat, text: &str, line: &str, at: usize) -> Option<Named> {
    let rest = line
        .strip_prefix("> - changed `")
        .or_else(|| line.strip_prefix("> - created `"))?;
    let shown = rest.split('`').next()?.to_owned();
    let message = &chat.messages[chat.message_at(at)?];
    let status = StatusComment::parse(text[message.status_range()?].trim()).ok()?;
    Some(Named {
        member: message.handle(text).to_owned(),
        turn: status.id()?.to_owned(),
        shown,
    })
}

/// The line of `text` that `line` (0-based) is, and where it starts.
fn line_of(text: &str, line: usize) -> Option<(&str, usize)> {
    let mut start = 0;
    for (n, piece) in text.split_inclusive('\n').enumerate() {
        if n == line {
            return Some((piece.trim_end_matches(['\n', '\r']), start));
        }
        start += piece.len();
    }
    None
}

/// The actions offered on the line of a changed file.
pub fn code_actions(doc: &Document, enc: PositionEncoding, range: Range) -> Vec<CodeAction> {
    let text = doc.flat();
    let at = convert::byte_range(&doc.text, range, enc).start;
    let line = doc.text.line_of_byte(at);
    let Some((content, start)) = line_of(&text, line) else {
        return Vec::new();
    };
    let Some(change) = named(&doc.chat, &text, content, start) else {
        return Vec::new();
    };
    let argument = json!({"uri": doc.uri.as_str(), "line": line});
    let action = |title: String, name: &str| CodeAction {
        command: Some(turn_actions::command(&title, name, argument.clone())),
        title,
        ..CodeAction::default()
    };
    vec![
        action("Open the diff".to_owned(), ext::OPEN_CHANGE),
        action(
            format!("Undo @{}'s changes", change.member),
            ext::UNDO_CHANGE,
        ),
    ]
}

/// The record of the change on line `line` of the chat `uri`, and the workspace root.
fn record_at(state: &Mutex<State>, uri: &Uri, line: u32) -> Result<ChangeRecord> {
    let chat = super::commands::chat_path(uri)?;
    let (doc, root) = {
        let s = lock(state);
        (s.documents.get(uri).cloned(), s.root_for(&chat))
    };
    let doc = doc.ok_or_else(|| Error::invalid_params("the chat is not open"))?;
    let text = doc.flat();
    let named = line_of(&text, line as usize)
        .and_then(|(content, start)| named(&doc.chat, &text, content, start))
        .ok_or_else(|| Error::invalid_params("no changed file on that line"))?;
    ChangeRecord::load(&root, &chat, &named.turn, &named.shown).ok_or_else(|| {
        Error::invalid_params(format!(
            "chatmd kept no record of @{}'s change to {} ({}): undo by hand",
            named.member, named.shown, named.turn
        ))
    })
}

/// The file's text as the user sees it: the editor's buffer, else the disk.
async fn current(client: &Client, state: &Mutex<State>, path: &std::path::Path) -> Option<String> {
    if let Some(text) = super::port::read_buffer(client, state, path).await {
        return Some(text);
    }
    std::fs::read_to_string(path).ok()
}

/// `chatmd.undoChange {uri, line}`.
pub async fn undo(client: &Client, state: &Mutex<State>, uri: Uri, line: u32) -> Result<Value> {
    let record = record_at(state, &uri, line)?;
    let now = current(client, state, &record.path).await;
    let undone = match undone_text(&record, now.as_deref()) {
        Ok(undone) => undone,
        Err(message) => {
            client.show_message(MessageType::WARNING, &message).await;
            return Err(Error::invalid_params(message));
        }
    };
    let label = format!("Undo @{} ({})", record.member, record.turn);
    let file = (record.path.as_path(), now.as_deref());
    let deletes = lock(state).client_flags.deletes_files;
    let done = match &undone {
        Some(text) => super::port::write_file(client, state, file, text, &label).await,
        None if deletes => delete(client, &record.path, &label).await,
        // A client without the `delete` operation (eglot): the file goes from the disk.
        None => std::fs::remove_file(&record.path)
            .or_else(|e| match e.kind() {
                std::io::ErrorKind::NotFound => Ok(()),
                _ => Err(e),
            })
            .map_err(|e| format!("cannot delete {}: {e}", record.path.display())),
    };
    done.map_err(Error::invalid_params)?;
    Ok(json!({"undone": record.shown}))
}

/// Deletes the file the turn created, as one annotated edit.
async fn delete(
    client: &Client,
    path: &std::path::Path,
    label: &str,
) -> std::result::Result<(), String> {
    let uri = Uri::from_file_path(path).ok_or_else(|| format!("{} is no file", path.display()))?;
    let id = "chatmd-undo".to_owned();
    let edit = WorkspaceEdit {
        changes: None,
        document_changes: Some(DocumentChanges::Operations(vec![
            DocumentChangeOperation::Op(ResourceOp::Delete(DeleteFile {
                uri,
                options: None,
                annotation_id: Some(id.clone()),
            })),
        ])),
        change_annotations: Some(HashMap::from([(
            id,
            ChangeAnnotation {
                label: label.to_owned(),
                needs_confirmation: Some(false),
                description: None,
            },
        )])),
    };
    match client.apply_edit(edit).await {
        Ok(answer) if answer.applied => Ok(()),
        _ => Err(format!("the editor did not delete {}", path.display())),
    }
}

/// `chatmd.openChange {uri, line}`: the changed file, the agent's change selected.
pub async fn open(client: &Client, state: &Mutex<State>, uri: Uri, line: u32) -> Result<Value> {
    let record = record_at(state, &uri, line)?;
    let before = record.before.as_deref().unwrap_or("");
    let changed = crate::conversation::diff::regions(before, &record.after);
    let encoding = lock(state).encoding;
    let after = Text::new(&record.after);
    let selection = match (changed.first(), changed.last()) {
        (Some(first), Some(last)) => {
            convert::range(&after, &(first.new.start..last.new.end), encoding)
        }
        _ => Range::default(),
    };
    let target = Uri::from_file_path(PathBuf::from(&record.path))
        .ok_or_else(|| Error::invalid_params("not a file"))?;
    let shown = client
        .show_document(ShowDocumentParams {
            uri: target,
            external: Some(false),
            take_focus: Some(true),
            selection: Some(selection),
        })
        .await
        .unwrap_or(false);
    Ok(json!({"shown": shown}))
}
