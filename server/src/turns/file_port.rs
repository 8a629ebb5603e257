//! The document as a file on disk, for `chatmd send`: edits are applied to the text and
//! written atomically (a temporary file renamed over it), and a change someone else
//! saved meanwhile is taken in, never overwritten.

use std::io::Write;
use std::path::{Path, PathBuf};

use super::{Applied, Change, EditorPort, Level, PortError};
use crate::document::ByteRange;

pub struct FilePort {
    path: PathBuf,
    /// The text as chatmd last wrote (or read) it.
    text: String,
    /// Where streamed answers are echoed (a terminal), if anywhere.
    echo: Option<Box<dyn Write + Send>>,
    /// The member whose text was echoed last, to print a heading when it changes.
    echoing: Option<String>,
    /// Where progress lines go (`@reviewer: retrying (3/10): ...`), if anywhere.
    notes: Option<Box<dyn Write + Send>>,
    /// chatmd's own edits since the engine last asked for the changes.
    ours: Vec<Change>,
    /// The file as `text` was last read from or written to it: the file is read again
    /// only when this changed (every write of the answer would otherwise read it twice).
    stamp: Option<Stamp>,
    /// Messages for the user, in order (the CLI prints them).
    pub messages: Vec<(Level, String)>,
}

impl FilePort {
    /// Opens `path`; a file that is not UTF-8 is refused with the place of the bad byte.
    pub fn open(path: &Path, echo: Option<Box<dyn Write + Send>>) -> Result<FilePort, PortError> {
        let stamp = Stamp::of(path);
        let text = read(path)?;
        Ok(FilePort {
            path: path.to_path_buf(),
            text,
            echo,
            echoing: None,
            notes: None,
            ours: Vec::new(),
            stamp,
            messages: Vec::new(),
        })
    }

    /// Prints progress lines (a CLI's retries) to `notes` (a terminal's stderr).
    pub fn with_notes(mut self, notes: Box<dyn Write + Send>) -> FilePort {
        self.notes = Some(notes);
        self
    }

    /// Whether any answer text was echoed.
    pub fn echoed(&self) -> bool {
        self.echoing.is_some()
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The text as chatmd last wrote or read it.
    pub fn current(&self) -> &str {
        &self.text
    }

    /// The file's text when it may differ from `text` (its stamp changed), else `None`.
    fn read_if_changed(&mut self) -> Result<Option<String>, PortError> {
        let stamp = Stamp::of(&self.path);
        if stamp.is_some() && stamp == self.stamp {
            return Ok(None);
        }
        let text = read(&self.path)?;
        self.stamp = stamp;
        Ok(Some(text))
    }

    fn write(&mut self) -> Result<(), PortError> {
        let name = self
            .path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("chat.md");
        let temp = self
            .path
            .with_file_name(format!(".{name}.chatmd-{}", std::process::id()));
        let err = |source| PortError::Write {
            path: self.path.display().to_string(),
            source,
        };
        std::fs::write(&temp, &self.text).map_err(err)?;
        if let Ok(meta) = std::fs::metadata(&self.path) {
            let _ = std::fs::set_permissions(&temp, meta.permissions());
        }
        // The stamp of the file written, taken before it replaces the chat: a change
        // made right after the rename then still shows.
        let stamp = Stamp::of(&temp);
        std::fs::rename(&temp, &self.path).map_err(|e| {
            let _ = std::fs::remove_file(&temp);
            err(e)
        })?;
        self.stamp = stamp;
        Ok(())
    }
}

/// What tells a file's content changed without reading it: its inode (a save that
/// renames a new file over it), size and modification time (a write in place).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Stamp {
    inode: u64,
    len: u64,
    modified: std::time::SystemTime,
}

impl Stamp {
    fn of(path: &Path) -> Option<Stamp> {
        use std::os::unix::fs::MetadataExt;
        let meta = std::fs::metadata(path).ok()?;
        Some(Stamp {
            inode: meta.ino(),
            len: meta.len(),
            modified: meta.modified().ok()?,
        })
    }
}

fn read(path: &Path) -> Result<String, PortError> {
    let bytes = std::fs::read(path).map_err(|source| PortError::Read {
        path: path.display().to_string(),
        source,
    })?;
    crate::document::decode(&bytes)
        .map(str::to_owned)
        .map_err(|e| PortError::Other(format!("{}: {e}", path.display())))
}

/// The one region where `new` differs from `old`: (range in `old`, length in `new`).
pub fn difference(old: &str, new: &str) -> Option<(ByteRange, usize)> {
    if old == new {
        return None;
    }
    let (a, b) = (old.as_bytes(), new.as_bytes());
    let mut prefix = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    while !old.is_char_boundary(prefix) || !new.is_char_boundary(prefix) {
        prefix -= 1;
    }
    let max_suffix = a.len().min(b.len()) - prefix;
    let mut suffix = a
        .iter()
        .rev()
        .zip(b.iter().rev())
        .take(max_suffix)
        .take_while(|(x, y)| x == y)
        .count();
    while !old.is_char_boundary(a.len() - suffix) || !new.is_char_boundary(b.len() - suffix) {
        suffix -= 1;
    }
    Some((prefix..a.len() - suffix, b.len() - suffix - prefix))
}

impl EditorPort for FilePort {
    async fn text(&mut self) -> Result<String, PortError> {
        self.stamp = Stamp::of(&self.path);
        self.text = read(&self.path)?;
        self.ours.clear();
        Ok(self.text.clone())
    }

    async fn apply(&mut self, edits: Vec<(ByteRange, String)>) -> Result<Applied, PortError> {
        // A change saved by someone else since the engine computed the edit would make
        // its offsets wrong: take it in first.
        if let Some(on_disk) = self.read_if_changed()?
            && on_disk != self.text
        {
            // Keep the stamp of the text chatmd knows: `changes` reads the file again.
            self.stamp = None;
            return Ok(Applied::Stale);
        }
        for (range, text) in edits.iter().rev() {
            self.text.replace_range(range.clone(), text);
            self.ours.push(Change {
                range: range.clone(),
                new_len: text.len(),
                ours: true,
            });
        }
        self.write()?;
        Ok(Applied::Done)
    }

    async fn notify(&mut self, level: Level, message: &str) {
        self.messages.push((level, message.to_string()));
    }

    async fn changes(&mut self) -> Result<Vec<Change>, PortError> {
        let mut changes = std::mem::take(&mut self.ours);
        if let Some(on_disk) = self.read_if_changed()? {
            if let Some((range, new_len)) = difference(&self.text, &on_disk) {
                changes.push(Change::theirs(range, new_len));
            }
            self.text = on_disk;
        }
        Ok(changes)
    }

    fn on_text(&mut self, member: &str, text: &str) {
        let Some(out) = self.echo.as_mut() else {
            return;
        };
        if self.echoing.as_deref() != Some(member) {
            let _ = write!(out, "\n── @{member} ──\n");
            self.echoing = Some(member.to_string());
        }
        let _ = out.write_all(text.as_bytes());
        let _ = out.flush();
    }

    fn on_retry(&mut self, member: &str, retry: &crate::agents::Retry) {
        if let Some(notes) = self.notes.as_mut() {
            let _ = writeln!(notes, "@{member}: {retry}");
            let _ = notes.flush();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn the_difference_is_one_region() {
        assert_eq!(difference("abc", "abc"), None);
        assert_eq!(difference("abcdef", "abXYdef"), Some((2..3, 2)));
        assert_eq!(difference("aaa", "aaaa"), Some((3..3, 1)));
        assert_eq!(difference("é", "è"), Some((0..2, 2)));
        assert_eq!(difference("x😀y", "x😁y"), Some((1..5, 4)));
    }

    #[tokio::test]
    async fn edits_land_on_disk_and_outside_changes_are_kept() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.chat.md");
        std::fs::write(&path, "## @me\nhi\n").unwrap();
        let mut port = FilePort::open(&path, None).unwrap();
        let applied = port.apply(vec![(10..10, "\n## @a\n".into())]).await;
        assert_eq!(applied.unwrap(), Applied::Done);
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "## @me\nhi\n\n## @a\n"
        );
        std::fs::write(&path, "## @me\nhi there\n\n## @a\n").unwrap();
        let stale = port.apply(vec![(17..17, "answer\n".into())]).await;
        assert_eq!(stale.unwrap(), Applied::Stale, "the file changed under it");
        assert_eq!(
            port.changes().await.unwrap(),
            vec![
                Change {
                    range: 10..10,
                    new_len: 7,
                    ours: true
                },
                Change::theirs(9..9, 6)
            ]
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

    #[test]
    fn a_file_that_is_not_utf8_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.chat.md");
        std::fs::write(&path, b"## @me\n\xff").unwrap();
        let error = FilePort::open(&path, None).err().unwrap();
        assert!(error.to_string().contains("line 2, column 1"), "{error}");
    }
}
