//! The trust store on disk: `trusted.toml` in the user's config folder, read strictly
//! (a damaged store trusts nothing) and replaced whole through a temporary file, so a
//! crash never leaves half a store.

use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// What the store holds.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct StoreFile {
    #[serde(default, rename = "file", skip_serializing_if = "Vec::is_empty")]
    pub(super) files: Vec<TrustedFile>,
    #[serde(default, rename = "link", skip_serializing_if = "Vec::is_empty")]
    pub(super) links: Vec<TrustedLink>,
    /// Chats whose own allow rules the user trusts (`chat.rs`).
    #[serde(default, rename = "chat", skip_serializing_if = "Vec::is_empty")]
    pub(super) chats: Vec<super::TrustedChat>,
}

/// A trusted workspace file: its path (symlinks resolved) and the SHA-256 of the
/// content the user trusted.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TrustedFile {
    pub path: PathBuf,
    pub sha256: String,
}

/// An accepted symlink out of a workspace: the link and where it led (resolved).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TrustedLink {
    pub path: PathBuf,
    pub target: PathBuf,
}

/// Why the trust store could not be used.
#[derive(Debug, thiserror::Error)]
pub enum TrustError {
    #[error(
        "neither XDG_CONFIG_HOME nor HOME is set, so chatmd has no config folder to record \
         trust in"
    )]
    NoConfigFolder,

    #[error("cannot read {}: {source}", path.display())]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },

    #[error(
        "{} is damaged ({message}); chatmd trusts nothing until it is fixed or removed",
        path.display()
    )]
    Malformed { path: PathBuf, message: String },

    #[error("cannot write {}: {source}", path.display())]
    Write {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },

    #[error("cannot record {}: chatmd records only paths that are valid UTF-8", path.display())]
    NotUtf8 { path: PathBuf },
}

const HEADER: &str = "\
# Workspace files and links you trust, written by `chatmd trust`.
# A file is trusted while its content has this sha256; a link while it leads to this
# target. `chatmd trust --list` shows them, `chatmd trust --revoke PATH` removes one.
";

/// Reads the store; a missing store is an empty one.
pub(super) fn read(path: &Path) -> Result<StoreFile, TrustError> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            return Ok(StoreFile::default());
        }
        Err(source) => {
            return Err(TrustError::Read {
                path: path.to_path_buf(),
                source,
            });
        }
    };
    toml::from_str(&text).map_err(|error| TrustError::Malformed {
        path: path.to_path_buf(),
        message: error.message().trim().to_owned(),
    })
}

/// Reads the store, lets `change` edit it, and writes it back.
pub(super) fn update(path: &Path, change: impl FnOnce(&mut StoreFile)) -> Result<(), TrustError> {
    let mut store = read(path)?;
    change(&mut store);
    let entries = store
        .files
        .iter()
        .map(|f| &f.path)
        .chain(store.links.iter().flat_map(|l| [&l.path, &l.target]))
        .chain(store.chats.iter().map(|c| &c.path));
    for entry in entries {
        if entry.to_str().is_none() {
            return Err(TrustError::NotUtf8 {
                path: entry.clone(),
            });
        }
    }
    let body = toml::to_string(&store).map_err(|error| TrustError::Malformed {
        path: path.to_path_buf(),
        message: error.to_string(),
    })?;
    write_whole(path, &format!("{HEADER}\n{body}"))
}

/// Writes `text` to a temporary file beside `path`, then renames it over `path`.
fn write_whole(path: &Path, text: &str) -> Result<(), TrustError> {
    let failed = |source| TrustError::Write {
        path: path.to_path_buf(),
        source,
    };
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(failed)?;
    let name = path
        .file_name()
        .map_or("trusted.toml".into(), |n| n.to_string_lossy().into_owned());
    let temporary = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    let written = std::fs::File::create(&temporary)
        .and_then(|mut file| {
            file.write_all(text.as_bytes())?;
            file.sync_all()
        })
        .and_then(|()| std::fs::rename(&temporary, path));
    if let Err(error) = written {
        let _ = std::fs::remove_file(&temporary);
        return Err(failed(error));
    }
    Ok(())
}
