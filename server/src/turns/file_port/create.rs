//! A new chat file next to others, never over one: `<stem>.chat.md`, else
//! `<stem>-2.chat.md`, and so on (Fork from here, New Chat, `chatmd send --on-edit fork`).

use std::io::Write;
use std::path::{Path, PathBuf};

/// Why no new chat file was written.
#[derive(Debug, thiserror::Error)]
pub enum CreateError {
    #[error("cannot create {}: {source}", .path.display())]
    Create {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot write {}: {source}", .path.display())]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("too many chats named {stem} in {}", .folder.display())]
    TooMany { stem: String, folder: PathBuf },
}

/// Writes `text` to the first free name for `stem` in `folder`; returns its path.
pub fn create_unique(folder: &Path, stem: &str, text: &str) -> Result<PathBuf, CreateError> {
    for n in 1..1000 {
        let name = if n == 1 {
            format!("{stem}.chat.md")
        } else {
            format!("{stem}-{n}.chat.md")
        };
        let path = folder.join(name);
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
        {
            Ok(mut file) => {
                return match file.write_all(text.as_bytes()) {
                    Ok(()) => Ok(path),
                    Err(source) => Err(CreateError::Write { path, source }),
                };
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(source) => return Err(CreateError::Create { path, source }),
        }
    }
    Err(CreateError::TooMany {
        stem: stem.to_owned(),
        folder: folder.to_path_buf(),
    })
}
