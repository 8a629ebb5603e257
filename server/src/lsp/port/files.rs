//! An agent's file requests through the editor: a read asks the editor for the
//! buffer (`chatmd/readBuffer`, when the client declared it) so the agent sees the
//! unsaved change the user is looking at; a write is one `workspace/applyEdit` with a
//! change annotation naming the member and the turn, so it lands in the buffer and the
//! editor's Undo takes it back.

use std::collections::HashMap;
use std::path::Path;

use tower_lsp_server::Client;
use tower_lsp_server::ls_types::*;

use crate::document::text::Text;
use crate::lsp::{convert, ext};

/// How long the editor may take to hand over a buffer before the disk is read.
const READ_WAIT: std::time::Duration = std::time::Duration::from_secs(5);

/// The id of the annotation every agent write carries (one per edit).
const ANNOTATION: &str = "chatmd-agent-write";

/// The editor's text of the file at `path`, or `None` when it is not open there, the
/// editor does not answer, or it did not declare `chatmd/readBuffer`.
pub async fn read_buffer(
    client: &Client,
    state: &std::sync::Mutex<crate::lsp::state::State>,
    path: &Path,
) -> Option<String> {
    if !crate::lsp::state::lock(state).client_flags.read_buffer {
        return None;
    }
    let uri = Uri::from_file_path(path)?;
    let request = client.send_request::<ext::ReadBuffer>(ext::ReadBufferParams { uri });
    match tokio::time::timeout(READ_WAIT, request).await {
        Ok(Ok(Some(result))) => Some(result.text),
        Ok(Ok(None)) => None,
        Ok(Err(error)) => {
            tracing::debug!("chatmd/readBuffer: {error}");
            None
        }
        Err(_) => None,
    }
}

/// Writes `text` into the file at `path`, which holds `before` (`None`: it does not
/// exist yet and is created), as one annotated edit of the regions that change.
pub async fn write(
    client: &Client,
    state: &std::sync::Mutex<crate::lsp::state::State>,
    (path, before): (&Path, Option<&str>),
    text: &str,
    label: &str,
) -> Result<(), String> {
    let (encoding, creates, adds_line_break) = {
        let s = crate::lsp::state::lock(state);
        let flags = s.client_flags;
        (s.encoding, flags.creates_files, flags.adds_final_line_break)
    };
    let uri = Uri::from_file_path(path).ok_or_else(|| format!("{} is no file", path.display()))?;
    let old = before.unwrap_or("");
    let lines = Text::new(old);
    let edits = crate::conversation::diff::regions(old, text)
        .into_iter()
        .map(|region| {
            OneOf::Right(AnnotatedTextEdit {
                text_edit: TextEdit {
                    range: convert::range(&lines, &region.old, encoding),
                    new_text: into_empty(&text[region.new], old, adds_line_break),
                },
                annotation_id: ANNOTATION.to_owned(),
            })
        })
        .collect();
    let mut operations = Vec::new();
    // A client without the `create` operation (eglot) edits a new file's URI as it
    // is: eglot visits it in a buffer, which makes the file when the user saves.
    if before.is_none() && creates {
        operations.push(DocumentChangeOperation::Op(ResourceOp::Create(
            CreateFile {
                uri: uri.clone(),
                options: Some(CreateFileOptions {
                    overwrite: Some(false),
                    ignore_if_exists: Some(true),
                }),
                annotation_id: Some(ANNOTATION.to_owned()),
            },
        )));
    }
    operations.push(DocumentChangeOperation::Edit(TextDocumentEdit {
        text_document: OptionalVersionedTextDocumentIdentifier { uri, version: None },
        edits,
    }));
    let annotation = ChangeAnnotation {
        label: label.to_owned(),
        needs_confirmation: Some(false),
        description: Some(format!("{label} wrote this file through chatmd")),
    };
    let edit = WorkspaceEdit {
        changes: None,
        document_changes: Some(DocumentChanges::Operations(operations)),
        change_annotations: Some(HashMap::from([(ANNOTATION.to_owned(), annotation)])),
    };
    match client.apply_edit(edit).await {
        Ok(answer) if answer.applied => Ok(()),
        Ok(answer) => Err(format!(
            "the editor did not apply the change to {}{}",
            path.display(),
            answer
                .failure_reason
                .map(|why| format!(": {why}"))
                .unwrap_or_default()
        )),
        Err(error) => Err(format!(
            "the editor did not apply the change to {}: {error}",
            path.display()
        )),
    }
}

/// The text of an insert, without its final line break when it fills an empty file in
/// an editor that keeps a line break after the last line itself (Neovim: an empty
/// buffer is one empty line, which would stay after the text as a second line break).
fn into_empty(new: &str, old: &str, adds_line_break: bool) -> String {
    let trimmed = new.strip_suffix("\r\n").or_else(|| new.strip_suffix('\n'));
    match trimmed {
        Some(trimmed) if old.is_empty() && adds_line_break => trimmed.to_owned(),
        _ => new.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::into_empty;

    #[test]
    fn only_an_empty_file_in_neovim_loses_the_final_line_break() {
        assert_eq!(into_empty("made\n", "", true), "made");
        assert_eq!(into_empty("made\r\n", "", true), "made");
        assert_eq!(into_empty("made\n", "", false), "made\n");
        assert_eq!(into_empty("more\n", "a\n", true), "more\n");
        assert_eq!(into_empty("made", "", true), "made");
    }
}
