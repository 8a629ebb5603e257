//! Sending an edit and waiting for the editor's changes to show it (or show that it
//! did not land).

use std::time::Duration;

use tokio::time::{Instant, sleep_until};
use tower_lsp_server::jsonrpc::ErrorCode;
use tower_lsp_server::ls_types::*;

use super::LspPort;
use crate::conversation::diff::regions;
use crate::document::ByteRange;
use crate::lsp::convert;
use crate::lsp::echo::{Echo, Landing, clamp, without_final_line_break};
use crate::lsp::journal::Entry;
use crate::lsp::state::lock;
use crate::turns::{Applied, Change, PortError};

/// How long an edit the editor said it applied may take to show in a `didChange`
/// before it counts as lost (Neovim skips an edit for an older version silently).
const ECHO_WAIT: Duration = Duration::from_millis(1000);
/// With an editor that skips stale edits silently, how long to wait for the echo
/// after a change of the user's arrived without it.
const SKIPPED_WAIT: Duration = Duration::from_millis(300);
/// After a refused edit, how long to wait for the change that made it stale.
const REFUSED_WAIT: Duration = Duration::from_millis(500);
/// How many changes without the echo are held back as its possible first part.
const MAX_HELD: usize = 64;
/// How long the editor may take to answer an edit at all.
const ANSWER_WAIT: Duration = Duration::from_secs(10);

enum Seen {
    Landed,
    NotYet,
    Closed,
}

impl LspPort {
    /// Sends `edits` and waits until the editor's changes show them (`Done`), or show
    /// that they did not land (`Stale`).
    pub(super) async fn send(
        &mut self,
        edits: Vec<(ByteRange, String)>,
    ) -> Result<Applied, PortError> {
        let mut echo = Echo::new(edits.clone());
        let result = self.send_and_wait(edits, &mut echo).await;
        // Whatever was held back as a possible part of the echo is someone else's now.
        for entry in std::mem::take(&mut self.held) {
            echo.moved(&entry);
            self.take_theirs(&entry);
        }
        result
    }

    async fn send_and_wait(
        &mut self,
        edits: Vec<(ByteRange, String)>,
        echo: &mut Echo,
    ) -> Result<Applied, PortError> {
        let (writing, changed) = {
            let mut state = lock(&self.state);
            let journal = state.journals.entry(self.uri.clone()).or_default();
            (journal.writing.clone(), journal.changed.clone())
        };
        let _writing = writing.lock().await;
        let edit = {
            let mut state = lock(&self.state);
            let encoding = state.encoding;
            let end = state.journals.entry(self.uri.clone()).or_default().end();
            let Some(doc) = state.documents.get(&self.uri) else {
                drop(state);
                self.switch_to_disk()?;
                return Ok(Applied::Stale);
            };
            if end != self.cursor {
                return Ok(Applied::Stale);
            }
            let len = doc.text.len_bytes();
            let text_edits = edits
                .iter()
                .map(|(range, text)| {
                    let text = if self.adds_final_line_break {
                        without_final_line_break(&self.view, len, range, text)
                    } else {
                        text.clone()
                    };
                    OneOf::Left(TextEdit {
                        range: convert::range(&doc.text, range, encoding),
                        new_text: text,
                    })
                })
                .collect();
            WorkspaceEdit {
                document_changes: Some(DocumentChanges::Edits(vec![TextDocumentEdit {
                    text_document: OptionalVersionedTextDocumentIdentifier {
                        uri: self.uri.clone(),
                        version: Some(doc.version),
                    },
                    edits: text_edits,
                }])),
                ..WorkspaceEdit::default()
            }
        };
        let client = self.client.clone();
        let answer = tokio::time::timeout(ANSWER_WAIT, client.apply_edit(edit));
        tokio::pin!(answer);
        let mut answered = false;
        let mut deadline = Instant::now() + ANSWER_WAIT;
        // Whether a change of someone else's came while waiting; only an editor that
        // skips stale edits silently needs to know (held changes are compared with the
        // text for it, so the others are spared that work at every change).
        let mut foreign = false;
        loop {
            let notified = changed.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            let foreign_before = foreign;
            match self.look_for_echo(echo)? {
                Seen::Landed => return Ok(Applied::Done),
                Seen::Closed => return Ok(Applied::Stale),
                Seen::NotYet => {}
            }
            foreign = self.skips_stale_edits && (echo.saw_theirs || self.held_elsewhere(echo));
            if answered && foreign && !foreign_before {
                // Neovim skips an edit for an older version silently: a change of the
                // user's without the echo means this one was skipped (its own echo
                // would have come with it, or just after).
                deadline = deadline.min(Instant::now() + SKIPPED_WAIT);
            }
            tokio::select! {
                result = &mut answer, if !answered => {
                    answered = true;
                    match result {
                        Ok(Ok(response)) if response.applied => deadline = Instant::now() + ECHO_WAIT,
                        Ok(Err(error)) if error.code == ErrorCode::MethodNotFound => {
                            return Err(PortError::EditFailed {
                                message: error.to_string(),
                            });
                        }
                        Ok(refused) => {
                            // Refused with `applied: false`, or with an error reply:
                            // eglot answers an edit for an older version of its buffer
                            // so ("Edits on … require version 36, you have 37"). Either
                            // way the document moved on, or will: compute it again.
                            let reason = match refused {
                                Ok(response) => response.failure_reason,
                                Err(error) => Some(error.message.into_owned()),
                            };
                            tracing::debug!(?reason, "edit refused");
                            if echo.saw_theirs || !self.held.is_empty() {
                                return Ok(Applied::Stale);
                            }
                            deadline = Instant::now() + REFUSED_WAIT;
                        }
                        Err(_) => {
                            return Err(PortError::NoAnswer {
                                secs: ANSWER_WAIT.as_secs(),
                            });
                        }
                    }
                }
                () = &mut notified => {}
                () = sleep_until(deadline) => {
                    // Lost (or refused without a change we could see): compute it again.
                    return Ok(Applied::Stale);
                }
            }
        }
    }

    /// Reads the journal for the echo of `echo`'s edits; whatever else happened first
    /// becomes someone else's change and moves the expected edits along.
    fn look_for_echo(&mut self, echo: &mut Echo) -> Result<Seen, PortError> {
        let (entries, closed) = self.read_journal();
        if self.find_echo(echo, &entries) {
            if closed {
                self.switch_to_disk()?;
            }
            return Ok(Seen::Landed);
        }
        if !closed {
            return Ok(Seen::NotYet);
        }
        for entry in std::mem::take(&mut self.held) {
            echo.moved(&entry);
            self.take_theirs(&entry);
        }
        // Closed before the echo came: the editor may have saved the edit, and then
        // the file shows it. Whatever else differs there is someone else's change.
        let on_disk = self
            .path
            .as_ref()
            .and_then(|path| std::fs::read(path).ok())
            .and_then(|bytes| crate::document::decode(&bytes).ok().map(str::to_string));
        if let Some(on_disk) = on_disk {
            let whole = Entry {
                version: i32::MAX,
                range: 0..self.view.len(),
                text: on_disk,
            };
            if let Some(landing) = echo.find(&self.view, std::slice::from_ref(&whole)) {
                self.land(echo, landing);
                self.switch_to_disk()?;
                return Ok(Seen::Landed);
            }
        }
        self.switch_to_disk()?;
        Ok(Seen::Closed)
    }

    /// Takes in a change of someone else's. Editors may report a change as more than
    /// it is (the whole text, a line replaced by itself plus a line break): only the
    /// regions where the text really changed count, so the turns' places between them
    /// stay where they are.
    pub(super) fn take_theirs(&mut self, entry: &Entry) {
        let range = clamp(&self.view, &entry.range);
        let changes = Change::between(&self.view[range.clone()], &entry.text);
        self.view.replace_range(range.clone(), &entry.text);
        self.pending.extend(changes.into_iter().map(|c| {
            Change::theirs(
                range.start + c.range.start..range.start + c.range.end,
                c.new_len,
            )
        }));
    }

    /// Whether the changes held back changed the text anywhere but where the edits
    /// being waited for go: only then are they the user's rather than the first part
    /// of an echo the editor reports in pieces (Neovim's debounce can space them
    /// further apart than [`SKIPPED_WAIT`] on a busy machine).
    fn held_elsewhere(&self, echo: &Echo) -> bool {
        if self.held.is_empty() {
            return false;
        }
        let mut text = self.view.clone();
        for entry in &self.held {
            let range = clamp(&text, &entry.range);
            text.replace_range(range, &entry.text);
        }
        let places = echo.landed_edits();
        regions(&self.view, &text).iter().any(|r| {
            !places
                .iter()
                .any(|(at, _)| r.old.start <= at.end && at.start <= r.old.end)
        })
    }

    /// The edits being waited for are in, with whatever else the changes that showed
    /// them did: ours first (from the last to the first: each then holds for the text
    /// the ones before it left), then the others' regions around them.
    fn land(&mut self, echo: &Echo, landing: Landing) {
        for (range, text) in echo.landed_edits().into_iter().rev() {
            self.pending.push(Change {
                range,
                new_len: text.len(),
                ours: true,
            });
        }
        for region in landing.theirs.iter().rev() {
            self.pending
                .push(Change::theirs(region.old.clone(), region.new.len()));
        }
        self.view = landing.text;
    }

    /// Takes in `entries`, recognising the echo of `echo`'s edits among them (and
    /// among the changes held back before). The echo may start after changes of the
    /// user's and may be split over several notifications: changes before a found echo
    /// are someone else's; changes that do not show it yet are held back, since they
    /// may be its first part.
    fn find_echo(&mut self, echo: &mut Echo, entries: &[Entry]) -> bool {
        self.held.extend_from_slice(entries);
        // An echo comes in a few notifications at most: older changes are the user's.
        while self.held.len() > MAX_HELD {
            let entry = self.held.remove(0);
            echo.moved(&entry);
            self.take_theirs(&entry);
        }
        let Some(landing) = echo.find(&self.view, &self.held) else {
            return false;
        };
        let held = std::mem::take(&mut self.held);
        let consumed = landing.consumed;
        self.land(echo, landing);
        for entry in &held[consumed..] {
            self.take_theirs(entry);
        }
        true
    }
}
