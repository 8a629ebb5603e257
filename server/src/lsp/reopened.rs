//! A chat opened with an older copy of its file after the run that wrote it ended: the
//! editor read the file, a turn wrote its last words and its end, and only then was
//! the `didOpen` handled. The server brings the buffer up to date itself, with one
//! edit, as a run that goes on does (`port/disk.rs`): one owner of the buffer's text.
//! An editor left to read the file again raced the server's own edit (Neovim's reload
//! and an edit of version 0, which Neovim applies to whatever its buffer holds, wrote
//! the answer twice over).

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use tower_lsp_server::Client;
use tower_lsp_server::ls_types::Uri;

use super::port::{LspPort, catch_up, fingerprint};
use super::state::{Document, State, lock};
use crate::turns::{EditorPort, PortError};

/// Opens `doc` in the server's state. Answers the chat's path when its text is an
/// older copy of the file, one this server saw there before its latest, and no run of this process
/// counts in the chat (a run that counts brings it up to date when it ends, see
/// `LspPort::end_run`): then bring it up to date with [`catch_up_later`]. The run's
/// count and the document are read under one lock, so exactly one of the two sees it.
pub fn open(state: &Mutex<State>, doc: Document) -> Option<PathBuf> {
    let path = doc.path.clone();
    let seen_before = path.as_ref().is_some_and(|p| lock(state).disk_texts.has(p));
    // Hashed outside the lock: a chat may be megabytes.
    let print = seen_before.then(|| fingerprint(&doc.flat()));
    let uri = doc.uri.clone();
    let mut s = lock(state);
    s.documents.insert(uri.clone(), doc);
    let path = path?;
    // The file's latest text as this server saw it is no older copy: opened so, the
    // chat is as any other (its dead turns are marked as usual).
    let older = print.is_some_and(|print| {
        s.disk_texts.knows(&path, print) && !s.disk_texts.is_latest(&path, print)
    }) && !s.running.runs_in(uri.as_str());
    older.then_some(path)
}

/// Brings the just opened chat at `path` up to date with the file, in a task of its own
/// (the edit waits for the editor). Nothing is done when the buffer no longer holds a
/// text the file had (the user typed: the buffer is theirs) or the file changed since
/// this server last saw it (another program wrote it: the editor's business).
pub fn catch_up_later(client: Client, state: Arc<Mutex<State>>, uri: Uri, path: PathBuf) {
    tokio::spawn(async move {
        let mut port = LspPort::new(client, state.clone(), uri, None, None);
        let caught_up = port.edit_until_applied(20, |snapshot| {
            Ok::<_, PortError>(
                edit_to_latest(&state, &path, &snapshot.text).map(|edit| (vec![edit], ())),
            )
        });
        match caught_up.await {
            Ok(_) => tracing::debug!(
                path = %path.display(),
                "opened with an older text of the file: brought up to date"
            ),
            Err(error) => tracing::warn!(%error, "could not bring the opened chat up to date"),
        }
    });
}

/// The edit that turns `text`, a text the file had, into the file's latest.
fn edit_to_latest(
    state: &Mutex<State>,
    path: &Path,
    text: &str,
) -> Option<(crate::document::ByteRange, String)> {
    let latest = std::fs::read_to_string(path).ok()?;
    if latest == text {
        return None;
    }
    let (latest_print, text_print) = (fingerprint(&latest), fingerprint(text));
    let s = lock(state);
    let ours = s.disk_texts.is_latest(path, latest_print) && s.disk_texts.knows(path, text_print);
    drop(s);
    ours.then(|| catch_up(text, &latest)).flatten()
}
