//! The document as a file on disk, for `chatmd send` and for a chat closed in the
//! editor while a turn writes into it: edits are applied to the text and written
//! atomically (see `disk.rs`), and a change someone else saved meanwhile is taken in,
//! never overwritten. Only the disk: what a terminal shows is `cli/send`'s.

pub mod create;
mod disk;

use std::path::{Path, PathBuf};

use self::disk::{Stamp, Written};
use super::{Applied, Change, EditorPort, Edits, Level, PortError, Snapshot};

pub use self::disk::kind;

pub struct FilePort {
    path: PathBuf,
    /// The text as chatmd last wrote (or read) it.
    text: String,
    /// The text before chatmd's last write: a file found back at it was saved by a
    /// program that had read it before that write, and holds nothing new.
    previous: Option<String>,
    /// The file's text, read (settled) and found different, not taken in yet.
    seen: Option<String>,
    /// The last snapshot handed out: parsed once per text.
    snapshot: Option<Snapshot>,
    /// chatmd's own edits since the engine last asked for the changes.
    ours: Vec<Change>,
    /// The file as `text` was last read from or written to it: a file whose stamp is
    /// the same and old enough is not read again.
    stamp: Option<Stamp>,
}

impl FilePort {
    /// Opens `path`; a file that is not a regular file, or not UTF-8 (refused with the
    /// place of the bad byte), cannot be opened.
    pub fn open(path: &Path) -> Result<FilePort, PortError> {
        let (text, stamp) = disk::read_settled(path, None)?;
        Ok(FilePort {
            path: path.to_path_buf(),
            text,
            previous: None,
            seen: None,
            snapshot: None,
            ours: Vec::new(),
            stamp,
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The text as chatmd last wrote or read it.
    pub fn current(&self) -> &str {
        &self.text
    }

    /// Replaces the whole text with `text` (someone else's change as far as this port
    /// is concerned: it is not reported by `changes`). `Stale` when the file changed
    /// since it was read: read it again (`reload`) and compute `text` anew.
    pub fn replace_all(&mut self, text: String) -> Result<Applied, PortError> {
        if let Some(on_disk) = self.look()? {
            self.seen = Some(on_disk);
            return Ok(Applied::Stale);
        }
        match self.write(&text)? {
            Applied::Done => {
                self.previous = None;
                self.text = text;
                Ok(Applied::Done)
            }
            Applied::Stale => Ok(Applied::Stale),
        }
    }

    /// Takes in the file's text as it is now; what [`EditorPort::changes`] returns next
    /// happened after it.
    pub fn reload(&mut self) -> Result<&str, PortError> {
        if let Some(on_disk) = self.look()? {
            self.text = on_disk;
            self.previous = None;
        }
        self.ours.clear();
        Ok(&self.text)
    }

    /// The file's text when it differs from `text` (read again only when its stamp
    /// changed or is too recent to tell), else `None`.
    fn look(&mut self) -> Result<Option<String>, PortError> {
        if let Some(seen) = self.seen.take() {
            return Ok(Some(seen));
        }
        let stamp = Stamp::of(&self.path);
        if stamp.is_some_and(|s| s.is_settled()) && stamp == self.stamp {
            return Ok(None);
        }
        let (on_disk, stamp) = disk::read_settled(&self.path, Some(&self.text))?;
        self.stamp = stamp;
        if on_disk == self.text {
            return Ok(None);
        }
        if self.previous.as_deref() == Some(on_disk.as_str()) {
            // Saved by a program that read the file before chatmd's last write: it
            // holds nothing of its own. Put chatmd's write back.
            let text = self.text.clone();
            self.text = on_disk.clone();
            match self.write(&text)? {
                Applied::Done => {
                    self.text = text;
                    return Ok(None);
                }
                Applied::Stale => {
                    self.text = text;
                    return self.look();
                }
            }
        }
        Ok(Some(on_disk))
    }

    /// Writes `new` over the file, which must still hold `text`.
    fn write(&mut self, new: &str) -> Result<Applied, PortError> {
        match disk::write(&self.path, &self.text, new)? {
            Written::Done(stamp) => {
                self.stamp = stamp;
                Ok(Applied::Done)
            }
            Written::Changed => {
                self.stamp = None;
                Ok(Applied::Stale)
            }
            Written::Raced(theirs) => {
                // Another program saved into the file being replaced: its text goes
                // back on disk, and the edit is made again on top of it.
                tracing::info!(path = %self.path.display(), "another program saved the chat as chatmd wrote it");
                if let Ok(Written::Done(stamp)) = disk::write(&self.path, new, &theirs) {
                    self.stamp = stamp;
                } else {
                    self.stamp = None;
                }
                Ok(Applied::Stale)
            }
        }
    }
}

impl EditorPort for FilePort {
    async fn snapshot(&mut self) -> Result<Snapshot, PortError> {
        self.reload()?;
        let version = match &self.snapshot {
            Some(last) if *last.text == *self.text => return Ok(last.clone()),
            Some(last) => last.version + 1,
            None => 0,
        };
        let snapshot = Snapshot::parse(self.text.as_str(), version);
        self.snapshot = Some(snapshot.clone());
        Ok(snapshot)
    }

    async fn apply(&mut self, edits: Edits) -> Result<Applied, PortError> {
        // A change saved by someone else since the engine computed the edit would make
        // its offsets wrong: take it in first.
        if let Some(on_disk) = self.look()? {
            self.seen = Some(on_disk);
            return Ok(Applied::Stale);
        }
        let mut new = self.text.clone();
        for (range, text) in edits.iter().rev() {
            new.replace_range(range.clone(), text);
        }
        if self.write(&new)? == Applied::Stale {
            return Ok(Applied::Stale);
        }
        for (range, text) in edits.iter().rev() {
            self.ours.push(Change {
                range: range.clone(),
                new_len: text.len(),
                ours: true,
            });
        }
        self.previous = Some(std::mem::replace(&mut self.text, new));
        Ok(Applied::Done)
    }

    /// Alone, a file has nobody to tell: the message goes to the log (`chatmd send`
    /// prints it, the editor shows it, through their own ports).
    async fn notify(&mut self, level: Level, message: &str) {
        tracing::info!(?level, path = %self.path.display(), "{message}");
    }

    fn current_text(&self) -> Option<&str> {
        Some(&self.text)
    }

    fn writes_are_costly(&self) -> bool {
        true
    }

    async fn changes(&mut self) -> Result<Vec<Change>, PortError> {
        let mut changes = std::mem::take(&mut self.ours);
        if let Some(on_disk) = self.look()? {
            changes.extend(Change::between(&self.text, &on_disk));
            self.text = on_disk;
            self.previous = None;
        }
        Ok(changes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    /// `a.chat.md` holding `## @me\nhi\n`, and a port on it after chatmd appended
    /// `## @a` (checked on disk).
    async fn after_one_write() -> (tempfile::TempDir, PathBuf, FilePort) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.chat.md");
        std::fs::write(&path, "## @me\nhi\n").unwrap();
        let mut port = FilePort::open(&path).unwrap();
        let applied = port.apply(vec![(10..10, "\n## @a\n".into())]).await;
        assert_eq!(applied.unwrap(), Applied::Done);
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "## @me\nhi\n\n## @a\n"
        );
        (dir, path, port)
    }

    /// That append, as the port reports it.
    const OUR_APPEND: Change = Change {
        range: 10..10,
        new_len: 7,
        ours: true,
    };

    #[tokio::test]
    async fn edits_land_on_disk_and_outside_changes_are_kept() {
        let (dir, path, mut port) = after_one_write().await;
        std::fs::write(&path, "## @me\nhi there\n\n## @a\n").unwrap();
        let stale = port.apply(vec![(17..17, "answer\n".into())]).await;
        assert_eq!(stale.unwrap(), Applied::Stale, "the file changed under it");
        assert_eq!(
            port.changes().await.unwrap(),
            vec![OUR_APPEND, Change::theirs(9..9, 6)]
        );
        let applied = port.apply(vec![(23..23, "answer\n".into())]).await;
        assert_eq!(applied.unwrap(), Applied::Done);
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "## @me\nhi there\n\n## @a\nanswer\n"
        );
        assert_eq!(
            std::fs::read_dir(dir.path()).unwrap().count(),
            1,
            "no temporary file left"
        );
    }

    #[tokio::test]
    async fn a_save_of_the_text_before_chatmds_last_write_is_undone() {
        let (_dir, path, mut port) = after_one_write().await;
        // A program that read the file before that write saves what it read.
        std::fs::write(&path, "## @me\nhi\n").unwrap();
        assert_eq!(
            port.changes().await.unwrap(),
            vec![OUR_APPEND],
            "nothing of someone else's"
        );
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "## @me\nhi\n\n## @a\n"
        );
    }

    #[test]
    fn a_file_that_is_not_utf8_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.chat.md");
        std::fs::write(&path, b"## @me\n\xff").unwrap();
        let error = FilePort::open(&path).err().unwrap();
        assert!(error.to_string().contains("line 2, column 1"), "{error}");
    }
}
