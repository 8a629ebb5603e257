//! Leaving the editor buffer for the file on disk when the chat is closed (carrying
//! this port's sections into the file when it is not the editor's last text), and
//! coming back when it is opened again.
//!
//! Coming back races with the turns' own writes: the editor reads the file, chatmd
//! writes the next part of an answer, and only then does the `didOpen` arrive, with the
//! text before that write. Taken as someone else's change, that older text would undo
//! the write and the answer would go on in the wrong place. So the file's latest texts
//! are kept by fingerprint (`disk_texts.rs`); a buffer that opens with one of them is
//! brought up to date with one edit, and the turns go on as if it had read the latest.

use super::disk_texts::fingerprint;
use super::{LspPort, closed, lock};
use crate::conversation::diff::difference;
use crate::document::ByteRange;
use crate::turns::file_port::FilePort;
use crate::turns::{Applied, Change, PortError};

/// The one edit that turns `older`, a text the file had, into `latest`.
pub fn catch_up(older: &str, latest: &str) -> Option<(ByteRange, String)> {
    let (range, new_len) = difference(older, latest)?;
    let new = latest[range.start..range.start + new_len].to_string();
    Some((range, new))
}

impl LspPort {
    /// Leaves the editor buffer for the file on disk (the document was closed). When
    /// the file is not the editor's last text (closed without saving), this port's
    /// sections are carried into it; otherwise what differs is someone else's change.
    pub(super) fn switch_to_disk(&mut self) -> Result<(), PortError> {
        let Some(path) = self.path.clone() else {
            return Err(PortError::NotOnDisk {
                uri: self.uri.as_str().to_string(),
            });
        };
        if !path.exists() {
            if self.follow_rename() {
                return Ok(());
            }
            return Err(PortError::Gone {
                path: path.display().to_string(),
            });
        }
        let mut file = FilePort::open(&path)?;
        if !self.view.is_empty() && file.current() != self.view {
            self.carry_into(&mut file)?;
        }
        self.view = file.current().to_string();
        self.disk = Some(file);
        self.remember_disk_text();
        Ok(())
    }

    /// Keeps the fingerprint of the file's text as it is now.
    pub(super) fn remember_disk_text(&mut self) {
        let (Some(file), Some(path)) = (&self.disk, &self.path) else {
            return;
        };
        let print = fingerprint(file.current());
        lock(&self.state).disk_texts.keep(path, print);
    }

    /// Whether the file had `text` while this server followed it.
    fn knows_disk_text(&self, text: &str) -> bool {
        let Some(path) = &self.path else { return false };
        let print = fingerprint(text);
        lock(&self.state).disk_texts.knows(path, print)
    }

    fn carry_into(&mut self, file: &mut FilePort) -> Result<(), PortError> {
        for _ in 0..20 {
            let on_disk = file.current().to_string();
            let Some(carried) = closed::carry_over(&self.view, &on_disk, &self.ids) else {
                self.pending.extend(Change::between(&self.view, &on_disk));
                return Ok(());
            };
            if file.replace_all(carried.text)? == Applied::Done {
                tracing::info!(
                    uri = self.uri.as_str(),
                    "closed without saving: the running turns' sections were carried into the file"
                );
                self.pending.extend(carried.changes);
                return Ok(());
            }
            file.reload()?;
        }
        Err(PortError::KeepsChanging {
            path: self
                .path
                .as_deref()
                .unwrap_or(std::path::Path::new(""))
                .display()
                .to_string(),
        })
    }

    /// Goes back to the editor buffer when the document was opened again; a buffer
    /// that opened with an older text of the file is brought up to date first.
    pub(super) async fn come_back(&mut self) -> Result<(), PortError> {
        let Some((latest, catch_up)) = self.return_from_disk() else {
            return Ok(());
        };
        let before = self.pending.len();
        let sent = self.send(vec![catch_up]).await;
        if self.disk.is_none() {
            // The turns' text is `latest` already: what the buffer has beyond it (the
            // user typed at once, or the edit did not land) is someone else's change.
            self.pending.truncate(before);
            self.pending.extend(Change::between(&latest, &self.view));
        }
        sent.map(|_| ())
    }

    /// Leaves the file for the reopened buffer. When the buffer holds an older text
    /// of the file than its latest, answers with the latest and the edit that turns the
    /// buffer into it (not yet sent).
    fn return_from_disk(&mut self) -> Option<(String, (ByteRange, String))> {
        let file = self.disk.as_mut()?;
        let mut state = lock(&self.state);
        let doc = state.documents.get(&self.uri)?;
        let text = doc.flat().to_string();
        let journal = state.journals.entry(self.uri.clone()).or_default();
        self.cursor = journal.skip_to_end(self.reader);
        drop(state);
        let latest = file.current().to_string();
        self.disk = None;
        let read_late = text != latest && self.knows_disk_text(&text);
        if read_late && let Some(edit) = catch_up(&text, &latest) {
            self.view = text;
            tracing::debug!(
                uri = self.uri.as_str(),
                "reopened with an older text of the file: bringing it up to date"
            );
            return Some((latest, edit));
        }
        // Drain the file's own pending changes first: they precede the reopening.
        self.pending.extend(Change::between(&latest, &text));
        self.view = text;
        None
    }
}
