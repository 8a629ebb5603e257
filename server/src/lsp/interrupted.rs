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

/// Marks the document's dead turns, in a task of its own (the edit waits for the
/// editor).
pub fn mark_later(client: Client, state: Arc<Mutex<State>>, uri: Uri) {
    let path = uri.to_file_path().map(|p| p.into_owned());
    let needed = {
        let s = lock(&state);
        let Some(doc) = s.documents.get(&uri) else {
            return;
        };
        let text = doc.flat();
        !interrupted_edits(&text, &doc.chat, |m, c| {
            s.running.is_running(uri.as_str(), m) || runs_elsewhere(c, path.as_deref())
        })
        .is_empty()
    };
    if !needed {
        return;
    }
    tokio::spawn(async move {
        let running = lock(&state).running.clone();
        let key = uri.as_str().to_string();
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
    });
}
