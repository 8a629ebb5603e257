//! What waits for the user, across the workspace: each chat's waits
//! (`conversation::waiting`) as diagnostics. Clients that pull diagnostics get them from
//! `workspace/diagnostic` (and `textDocument/diagnostic` for one chat); the others get
//! them published, with an open chat's other problems or on their own for a closed one.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use tower_lsp_server::Client;
use tower_lsp_server::ls_types::*;

use super::diagnostics::{to_diagnostic, to_diagnostic_at};
use super::state::{Document, State, lock};
use crate::conversation::problems::Problem;
use crate::conversation::waiting::{WaitKind, latest_sent, waiting};
use crate::document::chat::Chat;
use crate::document::line_starts::LineStarts;
use crate::document::text::PositionEncoding;
use crate::team::Severity;

/// The identifier of the pulled diagnostics, so the client keeps them apart from the
/// published ones.
pub const IDENTIFIER: &str = "chatmd-waiting";

/// The waits of a chat as problems: a question informs, the rest wants an answer.
pub fn problems(text: &str, chat: &Chat) -> Vec<Problem> {
    waiting(text, chat)
        .into_iter()
        .map(|w| Problem {
            range: w.range,
            severity: match w.kind {
                WaitKind::Question => Severity::Info,
                _ => Severity::Warning,
            },
            code: w.kind.code(),
            message: w.message,
            fixes: Vec::new(),
        })
        .collect()
}

/// The waits of an open chat, as [`problems`] finds them on its whole text, read from
/// its latest messages only: the waits are all in the latest round, so the messages
/// from the last human one sent on are read (a tail of the chat growing until it holds
/// that message), not the whole text of a long chat.
pub fn open_problems(doc: &Document) -> Vec<Problem> {
    let chat = &doc.chat;
    let count = chat.messages.len();
    let mut last = 2;
    loop {
        let from = count.saturating_sub(last);
        let tail = chat.tail(from);
        let base = chat.len - tail.len;
        let part = doc.text_from(base);
        if from == 0 || latest_sent(&part, &tail).is_some() {
            let mut found = problems(&part, &tail);
            for p in &mut found {
                p.range = p.range.start + base..p.range.end + base;
            }
            return found;
        }
        last *= 4;
    }
}

fn diagnostics(text: &str, enc: PositionEncoding) -> Vec<Diagnostic> {
    // A table of line starts, not a rope: the start-up scan reads every closed chat
    // (a long one while the editor opens it), and a rope of 10 MB costs 12 MB and
    // most of the time for the few positions the waits need.
    let starts = LineStarts::new(text);
    problems(text, &Chat::parse(text))
        .iter()
        .map(|p| to_diagnostic_at(&starts, p, enc))
        .collect()
}

/// A chat's waits as the editor has it when open, else as it is on disk (nothing when
/// it cannot be read or is not UTF-8: its own diagnostics say why once opened).
fn chat_diagnostics(state: &Mutex<State>, path: &Path) -> (Option<i32>, Vec<Diagnostic>) {
    let (open, enc) = {
        let s = lock(state);
        let open = s
            .documents
            .values()
            .find(|d| d.path.as_deref() == Some(path))
            .cloned();
        (open, s.encoding)
    };
    if let Some(doc) = open {
        let found = open_problems(&doc)
            .iter()
            .map(|p| to_diagnostic(&doc.text, p, enc))
            .collect();
        return (Some(doc.version), found);
    }
    let text = std::fs::read(path)
        .ok()
        .and_then(|bytes| String::from_utf8(bytes).ok());
    (None, text.map_or_else(Vec::new, |t| diagnostics(&t, enc)))
}

/// Every chat of the workspace (scanned now if the start-up scan has not ended), and
/// every open chat outside it.
fn every_chat(state: &Mutex<State>) -> Vec<PathBuf> {
    let (scanned, root) = {
        let s = lock(state);
        (s.chats_scanned, s.root.clone())
    };
    if !scanned && let Some(root) = root {
        super::watch::record_scan(state, crate::team::scan_chats(&root));
    }
    let s = lock(state);
    let mut chats = s.chats.clone();
    chats.extend(s.documents.values().filter_map(|d| d.path.clone()));
    chats.sort();
    chats.dedup();
    chats
}

/// `workspace/diagnostic`: a full report for every chat (run off the async threads).
pub fn workspace_report(state: &Mutex<State>) -> WorkspaceDiagnosticReportResult {
    let items = every_chat(state)
        .into_iter()
        .filter_map(|path| {
            let (version, items) = chat_diagnostics(state, &path);
            Some(WorkspaceDocumentDiagnosticReport::Full(
                WorkspaceFullDocumentDiagnosticReport {
                    uri: Uri::from_file_path(&path)?,
                    version: version.map(i64::from),
                    full_document_diagnostic_report: FullDocumentDiagnosticReport {
                        result_id: None,
                        items,
                    },
                },
            ))
        })
        .collect();
    WorkspaceDiagnosticReportResult::Report(WorkspaceDiagnosticReport { items })
}

/// `textDocument/diagnostic`: the waits of one chat.
pub fn document_report(state: &Mutex<State>, uri: &Uri) -> DocumentDiagnosticReportResult {
    let items = super::convert::file_path(uri)
        .filter(|p| crate::team::is_chat_file(p))
        .map_or_else(Vec::new, |path| chat_diagnostics(state, &path).1);
    DocumentDiagnosticReportResult::Report(DocumentDiagnosticReport::Full(
        RelatedFullDocumentDiagnosticReport {
            related_documents: None,
            full_document_diagnostic_report: FullDocumentDiagnosticReport {
                result_id: None,
                items,
            },
        },
    ))
}

/// For a client that does not pull: publishes the waits of each closed chat in `paths`
/// (an empty list clears what an earlier one showed).
pub async fn publish_closed(
    client: &Client,
    state: &std::sync::Arc<Mutex<State>>,
    paths: Vec<PathBuf>,
) {
    if lock(state).client_flags.pull_diagnostics {
        return;
    }
    let task_state = state.clone();
    let computed = tokio::task::spawn_blocking(move || closed_changes(&task_state, paths)).await;
    for (uri, found) in computed.unwrap_or_default() {
        client.publish_diagnostics(uri, found, None).await;
    }
}

/// The closed chats among `paths` whose shown waits change, with their waits now.
fn closed_changes(state: &Mutex<State>, paths: Vec<PathBuf>) -> Vec<(Uri, Vec<Diagnostic>)> {
    let mut out = Vec::new();
    for path in paths {
        let open = lock(state)
            .documents
            .values()
            .any(|d| d.path.as_deref() == Some(path.as_path()));
        let Some(uri) = Uri::from_file_path(&path).filter(|_| !open) else {
            continue;
        };
        let (_, found) = chat_diagnostics(state, &path);
        let mut s = lock(state);
        // Waits are shown again (they may have changed); none are cleared once.
        let publish = if found.is_empty() {
            s.waiting_shown.remove(&path)
        } else {
            s.waiting_shown.insert(path.clone());
            true
        };
        if publish {
            out.push((uri, found));
        }
    }
    out
}

/// How long the waits of closed chats wait after the start-up scan. An editor opens the
/// chats it shows right after `initialized`; reading every closed chat meanwhile (a
/// whole parse each) took half the machine from the first open's parse and outline: a
/// 10 MB chat of 190k messages in the workspace, opened at once, was parsed twice at
/// the same time. A chat opened meanwhile is then skipped (its own diagnostics come
/// with it).
const AFTER_FIRST_OPENS: std::time::Duration = std::time::Duration::from_millis(300);

/// After the start-up scan: the waits of every closed chat, for a client that does not
/// pull them.
pub async fn publish_workspace(client: Client, state: std::sync::Arc<Mutex<State>>) {
    if lock(&state).client_flags.pull_diagnostics {
        return;
    }
    tokio::time::sleep(AFTER_FIRST_OPENS).await;
    let chats = lock(&state).chats.clone();
    publish_closed(&client, &state, chats).await;
}

/// Chats changed on disk: a client that pulls is asked to pull again (when it can be);
/// the others get the closed chats' waits published.
pub async fn chats_changed(
    client: &Client,
    state: &std::sync::Arc<Mutex<State>>,
    paths: Vec<PathBuf>,
) {
    let flags = lock(state).client_flags;
    if !flags.pull_diagnostics {
        return publish_closed(client, state, paths).await;
    }
    if flags.diagnostic_refresh {
        let refresh = client.workspace_diagnostic_refresh();
        if let Err(e) = tokio::time::timeout(std::time::Duration::from_secs(10), refresh).await {
            tracing::debug!("the client did not answer a diagnostic refresh: {e}");
        }
    }
}
