//! The document as a file on disk, for `chatmd send`: edits are applied to the text and
//! written atomically (a temporary file renamed over it), and a change someone else
//! saved meanwhile is taken in, never overwritten.

use std::io::Write;
use std::path::{Path, PathBuf};

use super::{EditorPort, Level, PortError};
use crate::document::ByteRange;

pub struct FilePort {
    path: PathBuf,
    /// The text as chatmd last wrote (or read) it.
    text: String,
    /// Where streamed answers are echoed (a terminal), if anywhere.
    echo: Option<Box<dyn Write + Send>>,
    /// The member whose text was echoed last, to print a heading when it changes.
    echoing: Option<String>,
    /// Messages for the user, in order (the CLI prints them).
    pub messages: Vec<(Level, String)>,
}

impl FilePort {
    /// Opens `path`; a file that is not UTF-8 is refused with the place of the bad byte.
    pub fn open(path: &Path, echo: Option<Box<dyn Write + Send>>) -> Result<FilePort, PortError> {
        let text = read(path)?;
        Ok(FilePort {
            path: path.to_path_buf(),
            text,
            echo,
            echoing: None,
            messages: Vec::new(),
        })
    }

    /// Whether any answer text was echoed.
    pub fn echoed(&self) -> bool {
        self.echoing.is_some()
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    fn write(&self) -> Result<(), PortError> {
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
        std::fs::rename(&temp, &self.path).map_err(|e| {
            let _ = std::fs::remove_file(&temp);
            err(e)
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
fn difference(old: &str, new: &str) -> Option<(ByteRange, usize)> {
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
        Ok(self.text.clone())
    }

    async fn apply(&mut self, edits: Vec<(ByteRange, String)>) -> Result<(), PortError> {
        for (range, text) in edits.iter().rev() {
            self.text.replace_range(range.clone(), text);
        }
        self.write()
    }

    async fn notify(&mut self, level: Level, message: &str) {
        self.messages.push((level, message.to_string()));
    }

    async fn external_changes(&mut self) -> Result<Vec<(ByteRange, usize)>, PortError> {
        let on_disk = read(&self.path)?;
        let change = difference(&self.text, &on_disk);
        self.text = on_disk;
        Ok(change.into_iter().collect())
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
        port.apply(vec![(10..10, "\n## @a\n".into())])
            .await
            .unwrap();
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "## @me\nhi\n\n## @a\n"
        );
        std::fs::write(&path, "## @me\nhi there\n\n## @a\n").unwrap();
        assert_eq!(port.external_changes().await.unwrap(), vec![(9..9, 6)]);
        port.apply(vec![(23..23, "answer\n".into())]).await.unwrap();
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
