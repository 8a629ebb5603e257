//! Errors of the team layer that a caller must handle (as opposed to `ConfigProblem`s,
//! which are collected and shown): mostly paths that lead outside the workspace.

use std::io;
use std::path::PathBuf;

/// A path from a workspace file that chatmd refuses or cannot use.
#[derive(Debug, thiserror::Error)]
pub enum TeamError {
    #[error(
        "`{}` is outside the workspace {}; use a path inside the workspace",
        path.display(),
        root.display()
    )]
    OutsideWorkspace { path: PathBuf, root: PathBuf },

    #[error(
        "`{}` goes through a symlink that leads outside the workspace (to {}); \
         point it at a folder inside the workspace",
        path.display(),
        target.display()
    )]
    SymlinkOutside { path: PathBuf, target: PathBuf },

    #[error("the path is empty; name a folder or remove the setting")]
    EmptyPath,

    #[error(
        "team folder {} cannot be opened ({source}); create it or fix `team:` in the front matter",
        path.display()
    )]
    TeamFolderMissing {
        path: PathBuf,
        #[source]
        source: io::Error,
    },

    #[error(
        "team folder {} is a file, not a folder; point `team:` at a folder",
        path.display()
    )]
    NotAFolder { path: PathBuf },
}
