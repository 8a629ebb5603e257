//! The document as an editor buffer: the engine's edits go out as versioned
//! `workspace/applyEdit`s and count as written only when the editor's `didChange`
//! shows them. Editors differ (see the reference on real editors): Neovim answers
//! `applied: true` for an edit it skipped, VS Code may apply an edit for an older
//! version and echo it late, Neovim may echo an edit at the end of the file with one
//! more line break. So the echo is recognised by the text it produces, never assumed.
//!
//! A document closed while a turn writes into it is finished in the file on disk
//! (`port/disk.rs`, `port/closed.rs`). Turns take the chat's lock (`turns/lock.rs`)
//! while they run, so `chatmd send` does not run turns in the same chat at the same
//! time.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use tokio_util::sync::CancellationToken;
use tower_lsp_server::Client;
use tower_lsp_server::ls_types::*;

mod closed;
mod diagnostics;
mod dialog;
mod disk;
mod disk_texts;
mod files;
mod renamed;
mod runs;
mod send;
mod told;

pub use disk::catch_up;
pub use disk_texts::{DiskTexts, fingerprint};
pub use files::{read_buffer, write as write_file};
pub use renamed::{Renames, files_renamed};

use super::journal::Entry;
use super::progress::{Outbox, ProgressEvent};
use super::state::{State, lock};
use crate::document::status::TurnStatus;
use crate::turns::file_port::FilePort;
use crate::turns::lock;
use crate::turns::runs::{RunId, Runs};
use crate::turns::{Applied, Change, EditorPort, Edits, Level, PortError, Snapshot, TurnError};

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
    /// Changes the editor reported while an edit was in flight that did not show it
    /// (yet): they may be the first part of its echo (Neovim may report one edit in
    /// several `didChange`s), so they are taken as someone else's only once the echo
    /// is found after them or the edit is given up.
    held: Vec<Entry>,
    /// Set once the document was closed: the file on disk takes its place.
    disk: Option<FilePort>,
    outbox: Option<Outbox>,
    /// Told which members the first round runs.
    started: Option<tokio::sync::oneshot::Sender<Vec<String>>>,
    /// The turn ids of the sections this port wrote: they follow the document to disk.
    ids: Vec<String>,
    /// The editor answers `applied: true` for edits it skipped (Neovim).
    skips_stale_edits: bool,
    /// Text appended at the end goes without its final line break (Neovim adds it).
    adds_final_line_break: bool,
    /// The server's runs and turns (shared; kept here so streamed text does not take
    /// the state lock for every chunk).
    running: Runs,
    /// This port's run there: the members whose turn began here and has not ended,
    /// and the chat's lock, taken by the first turn and held until the run ends (a
    /// chain's next round is not taken over by a `chatmd send` in between).
    run: RunId,
    /// The chat's team folder, once looked up (what agents tell is kept by it).
    team_folder: Option<PathBuf>,
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
        let path = super::convert::file_path(&uri);
        let (reader, skips_stale_edits, adds_final_line_break, running) = {
            let mut s = lock(&state);
            let running = s.running.clone();
            (
                s.journals.entry(uri.clone()).or_default().subscribe(),
                s.client_flags.skips_stale_edits,
                s.client_flags.adds_final_line_break,
                running,
            )
        };
        let run = running.open_run(uri.as_str(), path.as_deref(), lock::SERVER);
        LspPort {
            client,
            state,
            uri,
            path,
            reader,
            cursor: 0,
            view: String::new(),
            pending: Vec::new(),
            held: Vec::new(),
            disk: None,
            outbox,
            started,
            ids: Vec::new(),
            skips_stale_edits,
            adds_final_line_break,
            running,
            run,
            team_folder: None,
        }
    }

    fn key(&self) -> &str {
        self.uri.as_str()
    }

    fn progress(&self, event: ProgressEvent) {
        if let Some(outbox) = &self.outbox {
            outbox.send(event);
        }
    }

    /// The team of the chat, as the editor features see it.
    pub fn team(&self, chat: &crate::document::chat::Chat) -> Arc<crate::team::Team> {
        super::state::team_of(&self.state, self.path.as_deref(), chat).team
    }

    /// The open document as the editor last reported it: its text and the chat the
    /// server keeps parsed for it (nothing is parsed here). The view and the journal
    /// start from it.
    fn open_snapshot(&mut self) -> Option<Snapshot> {
        let mut state = lock(&self.state);
        let doc = state.documents.get(&self.uri)?;
        let snapshot = Snapshot {
            text: doc.flat(),
            chat: doc.chat.clone(),
            version: i64::from(doc.version),
        };
        self.view = snapshot.text.to_string();
        let journal = state.journals.entry(self.uri.clone()).or_default();
        self.cursor = journal.skip_to_end(self.reader);
        self.pending.clear();
        Some(snapshot)
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
}

impl EditorPort for LspPort {
    async fn snapshot(&mut self) -> Result<Snapshot, PortError> {
        self.come_back().await?;
        if let Some(file) = self.disk.as_mut() {
            self.pending.clear();
            let snapshot = file.snapshot().await;
            self.remember_disk_text();
            return snapshot;
        }
        if let Some(snapshot) = self.open_snapshot() {
            return Ok(snapshot);
        }
        if let Err(error) = self.switch_to_disk() {
            self.recover(error).await?;
        }
        self.pending.clear();
        if let Some(file) = self.disk.as_mut() {
            let snapshot = file.snapshot().await;
            self.remember_disk_text();
            return snapshot;
        }
        // Renamed: the document under its new name.
        match self.open_snapshot() {
            Some(snapshot) => Ok(snapshot),
            None => Ok(Snapshot::parse(self.view.as_str(), 0)),
        }
    }

    async fn apply(&mut self, edits: Edits) -> Result<Applied, PortError> {
        for (_, text) in &edits {
            for id in closed::section_ids(text) {
                if !self.ids.contains(&id) {
                    self.ids.push(id);
                }
            }
        }
        self.come_back().await?;
        if let Some(file) = self.disk.as_mut() {
            let applied = file.apply(edits).await;
            self.remember_disk_text();
            return applied;
        }
        let before = self.pending.len();
        match self.send(edits).await {
            Err(error) => {
                // The edit may have shown in the editor just before the document closed
                // and its file turned out gone (renamed): it is in, and sending it again
                // would write it twice. Otherwise it is computed again for the renamed
                // document's text.
                let landed = self.pending[before.min(self.pending.len())..]
                    .iter()
                    .any(|change| change.ours);
                self.recover(error).await?;
                Ok(if landed {
                    Applied::Done
                } else {
                    Applied::Stale
                })
            }
            applied => applied,
        }
    }

    async fn notify(&mut self, level: Level, message: &str) {
        let kind = match level {
            Level::Info => MessageType::INFO,
            Level::Warning => MessageType::WARNING,
            Level::Error => MessageType::ERROR,
        };
        self.client.show_message(kind, message).await;
    }

    async fn diagnostics(&mut self, path: &std::path::Path) -> Option<Vec<String>> {
        diagnostics::of_file(&self.client, path).await
    }

    async fn read_buffer(&mut self, path: &std::path::Path) -> Option<String> {
        files::read_buffer(&self.client, &self.state, path).await
    }

    async fn write_file(
        &mut self,
        file: (&Path, Option<&str>),
        text: &str,
        label: &str,
    ) -> Result<(), String> {
        files::write(&self.client, &self.state, file, text, label).await
    }

    async fn changes(&mut self) -> Result<Vec<Change>, PortError> {
        if self.disk.is_none()
            && let Err(error) = self.take_in()
        {
            self.recover(error).await?;
        }
        let mut out = std::mem::take(&mut self.pending);
        if let Some(file) = self.disk.as_mut() {
            out.extend(file.changes().await?);
            self.remember_disk_text();
        }
        Ok(out)
    }

    fn begin_turn(&mut self, member: &str, cancel: &CancellationToken) -> Result<(), TurnError> {
        self.running.claim(self.run, member, cancel)?;
        self.progress(ProgressEvent::Begin {
            document: self.key().to_string(),
            member: member.to_string(),
        });
        Ok(())
    }

    fn permission_asked(
        &mut self,
        asked: crate::turns::Asked<'_>,
        answers: &crate::turns::Answers,
    ) {
        self.running
            .asked(self.key(), asked.member, asked.block, answers);
        if lock(&self.state).permission_dialog {
            dialog::ask(&self.client, asked, answers);
        }
    }

    fn waiting_changed(&mut self, member: &str, waits: bool) {
        self.running.set_waiting(self.key(), member, waits);
        self.progress(ProgressEvent::Waiting {
            member: member.to_string(),
            waits,
        });
    }

    fn steerable(&mut self, member: &str, steers: &crate::turns::runs::Steers) {
        self.running.steerable(self.key(), member, steers);
    }

    fn chat_team(
        &mut self,
        _ctx: &crate::turns::Context,
        chat: &crate::document::chat::Chat,
    ) -> Arc<crate::team::Team> {
        self.team(chat)
    }

    fn current_text(&self) -> Option<&str> {
        Some(
            self.disk
                .as_ref()
                .map_or(self.view.as_str(), FilePort::current),
        )
    }

    /// A chat not open in the editor is written on disk.
    fn writes_are_costly(&self) -> bool {
        self.disk.is_some()
    }

    fn round_starting(&mut self, members: &[String]) {
        if let Some(started) = self.started.take() {
            let _ = started.send(members.to_vec());
        }
    }

    fn on_text(&mut self, member: &str, text: &str) {
        if let Some((bytes, elapsed)) = self.running.add_bytes(self.key(), member, text.len()) {
            self.progress(ProgressEvent::Streamed {
                member: member.to_string(),
                bytes,
                elapsed,
            });
        }
    }

    fn on_retry(&mut self, member: &str, retry: &crate::agents::Retry) {
        self.progress(ProgressEvent::Retry {
            member: member.to_string(),
            message: retry.to_string(),
        });
    }

    fn agent_told(&mut self, member: &str, event: &crate::agents::AgentEvent) {
        self.keep_told(member, event);
    }

    fn end_turn(&mut self, member: &str, status: TurnStatus, error: Option<&TurnError>) {
        if matches!(status, TurnStatus::Done | TurnStatus::Skipped) {
            self.answered(member);
        }
        let elapsed = self.running.release(self.run, member);
        self.progress(ProgressEvent::End {
            member: member.to_string(),
            status,
            elapsed,
            error: error.map(ToString::to_string),
        });
    }
}
