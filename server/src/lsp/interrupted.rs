//! A document opened with turns left `streaming` (or `queued`, `waiting`) and no
//! process behind them, after a crash or a killed editor: their status becomes
//! `interrupted`, so the file tells the truth. A turn that another process runs (a
//! `chatmd send` holding the chat's lock, a process on another host) is left alone.

use std::sync::{Arc, Mutex};

use tower_lsp_server::Client;
use tower_lsp_server::ls_types::Uri;

use super::port::LspPort;
use super::state::{State, lock};
use crate::conversation::section::interrupted_edits;
use crate::turns::owner::runs_elsewhere;
use crate::turns::{EditorPort, PortError};

/// Marks the document's dead turns; the edit waits for the editor. Finding them reads
/// every status comment (a long chat has 20k): the caller runs this after the
/// diagnostics, which have parsed them, and makes no request wait for it.
pub async fn mark(client: Client, state: Arc<Mutex<State>>, uri: Uri) {
    let path = uri.to_file_path().map(|p| p.into_owned());
    let (doc, running) = {
        let s = lock(&state);
        (s.documents.get(&uri).cloned(), s.running.clone())
    };
    let key = uri.as_str().to_string();
    let Some(doc) = doc else {
        return;
    };
    let text = doc.flat();
    let found = interrupted_edits(&text, &doc.chat, |m, c| {
        running.is_running(&key, m) || runs_elsewhere(c, path.as_deref())
    });
    if found.is_empty() {
        return;
    }
    let mut port = LspPort::new(client, state, uri, None, None);
    let marked = port.edit_until_applied(20, |snapshot| {
        let edits = interrupted_edits(&snapshot.text, &snapshot.chat, |m, c| {
            running.is_running(&key, m) || runs_elsewhere(c, path.as_deref())
        });
        Ok::<_, PortError>((!edits.is_empty()).then_some((edits, ())))
    });
    if let Err(error) = marked.await {
        tracing::warn!(%error, "could not mark interrupted turns");
    }
}
