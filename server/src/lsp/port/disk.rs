//! Leaving the editor buffer for the file on disk when the chat is closed (carrying
//! this port's sections into the file when it is not the editor's last text), and
//! coming back when it is opened again.

use super::{LspPort, closed, lock};
use crate::turns::file_port::FilePort;
use crate::turns::{Applied, Change, PortError};

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
        Ok(())
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

    /// Goes back to the editor buffer when the document was opened again.
    pub(super) fn return_from_disk(&mut self) -> Result<(), PortError> {
        let Some(file) = self.disk.as_mut() else {
            return Ok(());
        };
        let mut state = lock(&self.state);
        let Some(doc) = state.documents.get(&self.uri) else {
            return Ok(());
        };
        let text = doc.flat().to_string();
        // Drain the file's own pending changes first: they precede the reopening.
        self.pending.extend(Change::between(file.current(), &text));
        let journal = state.journals.entry(self.uri.clone()).or_default();
        self.cursor = journal.skip_to_end(self.reader);
        self.view = text;
        drop(state);
        self.disk = None;
        Ok(())
    }
}
