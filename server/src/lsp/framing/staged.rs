//! Large document syncs kept out of tower-lsp-server. A `didOpen` of a 10 MB chat
//! would grow tower-lsp-server's read buffer to the message's size for good and be
//! decoded twice (a `Value`, then the params). The guard decodes such a message once
//! (a `didOpen` into the document itself), keeps it here and passes a small stand-in
//! notification in its place, which the server handles in the same order as the
//! message would have been.

use std::collections::VecDeque;
use std::sync::atomic::AtomicBool;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};
use serde_json::json;
use tower_lsp_server::ls_types::DidChangeTextDocumentParams;
use tower_lsp_server::ls_types::notification::Notification;

use super::text_param::{self, Decoded, DocSync};
use crate::document::text::Text;
use crate::lsp::ext::StagedSync;
use crate::lsp::state::Document;

/// A sync message this large or larger is staged; smaller ones pass as they are.
pub const STAGE_FROM: usize = 256 << 10;

/// How many staged messages may wait for the server at most. Each holds a document,
/// so the guard waits for room rather than reading on without bound. A staged message
/// is never dropped while its stand-in may still be taken: it would be an edit lost,
/// and the document would differ from the editor's from then on.
const WAITING: usize = 2;

/// A staged message: the document a `didOpen` opens, the params of a `didChange`.
pub enum Staged {
    Open(Box<Document>),
    Change(DidChangeTextDocumentParams),
}

/// The params of the stand-in notification: which staged message it stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct StagedKey {
    pub key: u64,
}

/// Staged messages, waiting for their stand-in to reach the server.
#[derive(Default, Clone)]
pub struct StagedSyncs {
    inner: Arc<Inner>,
}

#[derive(Default)]
struct Inner {
    next: AtomicU64,
    waiting: Mutex<VecDeque<(u64, Staged)>>,
    taken: tokio::sync::Notify,
    /// Whether the server handles the notifications it gets: from `initialize` until
    /// `shutdown` (before and after, tower-lsp-server drops them, so their stand-ins
    /// would never be taken). Large syncs are staged only then.
    serving: AtomicBool,
}

impl StagedSyncs {
    /// The staged message `key` stands for, taken out (`None`: unknown).
    pub fn take(&self, key: StagedKey) -> Option<Staged> {
        let mut waiting = lock(&self.inner.waiting);
        let at = waiting.iter().position(|(k, _)| *k == key.key)?;
        let staged = waiting.remove(at).map(|(_, staged)| staged);
        self.inner.taken.notify_waiters();
        staged
    }

    /// The server handles notifications from now on (`initialize`), or no more
    /// (`shutdown`: what still waits is never taken).
    pub fn serving(&self, serving: bool) {
        self.inner.serving.store(serving, Ordering::SeqCst);
        if !serving {
            lock(&self.inner.waiting).clear();
            self.inner.taken.notify_waiters();
        }
    }

    /// Stages `body` when it is a large, well-formed `didOpen` or `didChange`
    /// notification, and returns its stand-in's body (`None`: a `didOpen` whose text
    /// does not decode, dropped); else gives `body` back.
    pub(super) async fn stage(&self, body: Vec<u8>) -> Result<Option<Vec<u8>>, Vec<u8>> {
        if body.len() < STAGE_FROM || !self.inner.serving.load(Ordering::SeqCst) {
            return Err(body);
        }
        let staged = match text_param::sync(body) {
            Decoded::Sync(DocSync::Open(params, lines)) => {
                // Built here, in the thread that decoded the text: the document
                // keeps the very bytes the message was read into.
                let item = params.text_document;
                let text = Text::from_string_and_line_starts(item.text, lines);
                Staged::Open(Box::new(Document::with_text(item.uri, item.version, text)))
            }
            Decoded::Sync(DocSync::Change(params)) => Staged::Change(params),
            Decoded::Other(body) => return Err(body),
            Decoded::BadText => {
                tracing::warn!(
                    "a malformed notification: the text of a didOpen is not a valid JSON string; the document is not opened"
                );
                return Ok(None);
            }
        };
        self.wait_for_room().await;
        let key = self.inner.next.fetch_add(1, Ordering::Relaxed);
        lock(&self.inner.waiting).push_back((key, staged));
        let stand_in = json!({
            "jsonrpc": "2.0",
            "method": StagedSync::METHOD,
            "params": StagedKey { key },
        });
        Ok(Some(stand_in.to_string().into_bytes()))
    }

    /// Waits until fewer than [`WAITING`] staged messages wait, each taken by the
    /// server in turn (or dropped with all the others when it stops serving).
    async fn wait_for_room(&self) {
        loop {
            let taken = self.inner.taken.notified();
            tokio::pin!(taken);
            taken.as_mut().enable();
            if lock(&self.inner.waiting).len() < WAITING {
                return;
            }
            taken.await;
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

#[cfg(test)]
#[path = "staged_tests.rs"]
mod tests;
