//! The document as an editor buffer: the engine's edits go out as versioned
//! `workspace/applyEdit`s and count as written only when the editor's `didChange`
//! shows them. Editors differ (see the reference on real editors): Neovim answers
//! `applied: true` for an edit it skipped, VS Code may apply an edit for an older
//! version and echo it late, Neovim may echo an edit at the end of the file with one
//! more line break. So the echo is recognised by the text it produces, never assumed.
//!
//! A document closed while a turn writes into it is finished in the file on disk.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::time::{Instant, sleep_until};
use tokio_util::sync::CancellationToken;
use tower_lsp_server::Client;
use tower_lsp_server::ls_types::*;

use super::convert;
use super::echo::{Echo, before_final_line_break, clamp};
use super::journal::Entry;
use super::progress::{Outbox, ProgressEvent};
use super::state::{State, lock};
use crate::document::ByteRange;
use crate::document::status::TurnStatus;
use crate::turns::file_port::{FilePort, difference};
use crate::turns::{Applied, Change, EditorPort, Level, PortError};

/// How long an edit the editor said it applied may take to show in a `didChange`
/// before it counts as lost (Neovim skips an edit for an older version silently).
const ECHO_WAIT: Duration = Duration::from_millis(1000);
/// With an editor that skips stale edits silently, how long to wait for the echo
/// after a change of the user's arrived without it.
const SKIPPED_WAIT: Duration = Duration::from_millis(300);
/// After a refused edit, how long to wait for the change that made it stale.
const REFUSED_WAIT: Duration = Duration::from_millis(500);
/// How long the editor may take to answer an edit at all.
const ANSWER_WAIT: Duration = Duration::from_secs(10);

pub struct LspPort {
    client: Client,
    state: Arc<Mutex<State>>,
    uri: Uri,
    path: Option<PathBuf>,
    reader: u64,
    /// The journal position `view` corresponds to.
    cursor: u64,
    /// The text as of `cursor`.
    view: String,
    /// Changes the engine has not taken yet.
    pending: Vec<Change>,
    /// Set once the document was closed: the file on disk takes its place.
    disk: Option<FilePort>,
    outbox: Option<Outbox>,
    /// Told which members the first round runs.
    started: Option<tokio::sync::oneshot::Sender<Vec<String>>>,
    /// Members whose turn began here and has not ended.
    claimed: Vec<String>,
    /// The editor answers `applied: true` for edits it skipped (Neovim).
    skips_stale_edits: bool,
}

impl LspPort {
    /// A port for `uri`, open in the editor or (when not open) a file on disk.
    pub fn new(
        client: Client,
        state: Arc<Mutex<State>>,
        uri: Uri,
        outbox: Option<Outbox>,
        started: Option<tokio::sync::oneshot::Sender<Vec<String>>>,
    ) -> LspPort {
        let path = uri.to_file_path().map(|p| p.into_owned());
        let (reader, skips_stale_edits) = {
            let mut s = lock(&state);
            let skips = s.client.skips_stale_edits;
            (
                s.journals.entry(uri.clone()).or_default().subscribe(),
                skips,
            )
        };
        LspPort {
            client,
            state,
            uri,
            path,
            reader,
            cursor: 0,
            view: String::new(),
            pending: Vec::new(),
            disk: None,
            outbox,
            started,
            claimed: Vec::new(),
            skips_stale_edits,
        }
    }

    fn key(&self) -> String {
        self.uri.as_str().to_string()
    }

    fn progress(&self, event: ProgressEvent) {
        if let Some(outbox) = &self.outbox {
            outbox.send(event);
        }
    }

    /// The team of the chat, as the editor features see it.
    pub fn team(&self, chat: &crate::document::chat::Chat) -> Arc<crate::team::Team> {
        let path = self.path.clone().unwrap_or_default();
        super::state::chat_team(&self.state, &path, chat)
    }

    /// Leaves the editor buffer for the file on disk (the document was closed); what
    /// differs between the last text seen and the file becomes someone else's change.
    fn switch_to_disk(&mut self) -> Result<(), PortError> {
        let Some(path) = self.path.clone() else {
            return Err(PortError::Other(format!(
                "{} was closed and is not a file on disk",
                self.uri.as_str()
            )));
        };
        let file = FilePort::open(&path, None)?;
        if !self.view.is_empty()
            && let Some((range, new_len)) = difference(&self.view, file.current())
        {
            self.pending.push(Change::theirs(range, new_len));
        }
        self.view = file.current().to_string();
        self.disk = Some(file);
        Ok(())
    }

    /// Goes back to the editor buffer when the document was opened again.
    fn return_from_disk(&mut self) -> Result<(), PortError> {
        let Some(file) = self.disk.as_mut() else {
            return Ok(());
        };
        let mut state = lock(&self.state);
        let Some(doc) = state.documents.get(&self.uri) else {
            return Ok(());
        };
        let text = doc.flat().to_string();
        // Drain the file's own pending changes first: they precede the reopening.
        let on_disk = file.current().to_string();
        if let Some((range, new_len)) = difference(&on_disk, &text) {
            self.pending.push(Change::theirs(range, new_len));
        }
        let journal = state.journals.entry(self.uri.clone()).or_default();
        self.cursor = journal.skip_to_end(self.reader);
        self.view = text;
        drop(state);
        self.disk = None;
        Ok(())
    }

    /// Takes in what the editor reported since `cursor`, as someone else's changes.
    fn take_in(&mut self) -> Result<(), PortError> {
        let (entries, closed) = self.read_journal();
        for entry in entries {
            self.take_theirs(&entry);
        }
        if closed {
            self.switch_to_disk()?;
        }
        Ok(())
    }

    /// The changes reported since `cursor` (also those that came just before the
    /// document closed), and whether it is closed.
    fn read_journal(&mut self) -> (Vec<Entry>, bool) {
        let mut state = lock(&self.state);
        let closed = !state.documents.contains_key(&self.uri);
        let journal = state.journals.entry(self.uri.clone()).or_default();
        let entries = journal.read(self.reader, self.cursor);
        self.cursor = journal.end();
        (entries, closed)
    }

    fn take_theirs(&mut self, entry: &Entry) {
        let range = clamp(&self.view, &entry.range);
        self.view.replace_range(range.clone(), &entry.text);
        self.pending.push(Change::theirs(range, entry.text.len()));
    }

    /// Sends `edits` and waits until the editor's changes show them (`Done`), or show
    /// that they did not land (`Stale`).
    async fn send(&mut self, edits: Vec<(ByteRange, String)>) -> Result<Applied, PortError> {
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
                    let (range, text) = before_final_line_break(&self.view, len, range, text);
                    OneOf::Left(TextEdit {
                        range: convert::range(&doc.text, &range, encoding),
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
        let mut echo = Echo::new(edits);
        let mut answered = false;
        let mut deadline = Instant::now() + ANSWER_WAIT;
        loop {
            let notified = changed.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            let foreign_before = echo.saw_theirs;
            match self.look_for_echo(&mut echo)? {
                Seen::Landed => return Ok(Applied::Done),
                Seen::Closed => return Ok(Applied::Stale),
                Seen::NotYet => {}
            }
            if answered && echo.saw_theirs && !foreign_before && self.skips_stale_edits {
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
                        Ok(Ok(response)) => {
                            tracing::debug!(reason = ?response.failure_reason, "edit refused");
                            if echo.saw_theirs {
                                return Ok(Applied::Stale);
                            }
                            deadline = Instant::now() + REFUSED_WAIT;
                        }
                        Ok(Err(error)) => {
                            return Err(PortError::Other(format!(
                                "the editor did not apply chatmd's edit: {error}"
                            )));
                        }
                        Err(_) => {
                            return Err(PortError::Other(format!(
                                "the editor did not answer chatmd's edit within {}s",
                                ANSWER_WAIT.as_secs()
                            )));
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
            if let Some((_, landed, extra)) = echo.find(&self.view, std::slice::from_ref(&whole)) {
                self.land(echo, landed, extra);
                self.switch_to_disk()?;
                return Ok(Seen::Landed);
            }
        }
        self.switch_to_disk()?;
        Ok(Seen::Closed)
    }

    /// The edits being waited for are in: `landed` is the text they made.
    fn land(&mut self, echo: &Echo, landed: String, extra: Option<String>) {
        self.view = landed;
        // From the last to the first: each then holds for the text the ones before it
        // left.
        for (range, text) in echo.landed_edits().into_iter().rev() {
            self.pending.push(Change {
                range,
                new_len: text.len(),
                ours: true,
            });
        }
        if let Some(extra) = extra {
            // The editor added a line break of its own at the end.
            let at = self.view.len();
            self.view.push_str(&extra);
            self.pending.push(Change::theirs(at..at, extra.len()));
        }
    }

    /// Takes in `entries`, recognising the echo of `echo`'s edits among them.
    fn find_echo(&mut self, echo: &mut Echo, entries: &[Entry]) -> bool {
        let mut i = 0;
        while i < entries.len() {
            if let Some((end, landed, extra)) = echo.find(&self.view, &entries[i..]) {
                self.land(echo, landed, extra);
                for entry in &entries[i + end..] {
                    self.take_theirs(entry);
                }
                return true;
            }
            echo.moved(&entries[i]);
            self.take_theirs(&entries[i]);
            i += 1;
        }
        false
    }
}

enum Seen {
    Landed,
    NotYet,
    Closed,
}

impl Drop for LspPort {
    fn drop(&mut self) {
        let mut state = lock(&self.state);
        for member in self.claimed.drain(..) {
            state.running.release(self.uri.as_str(), &member);
        }
        if let Some(journal) = state.journals.get_mut(&self.uri) {
            journal.unsubscribe(self.reader);
            if !journal.is_read() {
                state.journals.remove(&self.uri);
            }
        }
    }
}

impl EditorPort for LspPort {
    async fn text(&mut self) -> Result<String, PortError> {
        self.return_from_disk()?;
        if let Some(file) = self.disk.as_mut() {
            self.pending.clear();
            return file.text().await;
        }
        {
            let mut state = lock(&self.state);
            if let Some(doc) = state.documents.get(&self.uri) {
                self.view = doc.flat().to_string();
                let journal = state.journals.entry(self.uri.clone()).or_default();
                self.cursor = journal.skip_to_end(self.reader);
                self.pending.clear();
                return Ok(self.view.clone());
            }
        }
        self.switch_to_disk()?;
        self.pending.clear();
        match self.disk.as_mut() {
            Some(file) => file.text().await,
            None => unreachable!("switch_to_disk sets the file"),
        }
    }

    async fn apply(&mut self, edits: Vec<(ByteRange, String)>) -> Result<Applied, PortError> {
        self.return_from_disk()?;
        if let Some(file) = self.disk.as_mut() {
            return file.apply(edits).await;
        }
        self.send(edits).await
    }

    async fn notify(&mut self, level: Level, message: &str) {
        let kind = match level {
            Level::Info => MessageType::INFO,
            Level::Warning => MessageType::WARNING,
            Level::Error => MessageType::ERROR,
        };
        self.client.show_message(kind, message).await;
    }

    async fn changes(&mut self) -> Result<Vec<Change>, PortError> {
        if self.disk.is_none() {
            self.take_in()?;
        }
        let mut out = std::mem::take(&mut self.pending);
        if let Some(file) = self.disk.as_mut() {
            out.extend(file.changes().await?);
        }
        Ok(out)
    }

    fn begin_turn(&mut self, member: &str, cancel: &CancellationToken) -> Result<(), String> {
        let running = lock(&self.state).running.clone();
        running.claim(&self.key(), member, cancel)?;
        self.claimed.push(member.to_string());
        self.progress(ProgressEvent::Begin {
            document: self.key(),
            member: member.to_string(),
        });
        Ok(())
    }

    fn round_starting(&mut self, members: &[String]) {
        if let Some(started) = self.started.take() {
            let _ = started.send(members.to_vec());
        }
    }

    fn on_text(&mut self, member: &str, text: &str) {
        let running = lock(&self.state).running.clone();
        if let Some((bytes, elapsed)) = running.add_bytes(&self.key(), member, text.len()) {
            self.progress(ProgressEvent::Streamed {
                member: member.to_string(),
                bytes,
                elapsed,
            });
        }
    }

    fn end_turn(&mut self, member: &str, status: TurnStatus, error: Option<&str>) {
        let running = lock(&self.state).running.clone();
        let elapsed = running
            .list()
            .into_iter()
            .find(|t| t.document == self.key() && t.member == member)
            .map(|t| t.elapsed);
        running.release(&self.key(), member);
        self.claimed.retain(|m| m != member);
        self.progress(ProgressEvent::End {
            member: member.to_string(),
            status,
            elapsed,
            error: error.map(str::to_string),
        });
    }
}
