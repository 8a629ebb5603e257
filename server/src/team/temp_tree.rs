//! For tests: a temporary folder to build workspaces and user configs in.

use std::path::PathBuf;

use super::trust::UserConfig;

/// A temporary folder, removed when dropped.
pub struct TempTree {
    dir: tempfile::TempDir,
}

impl TempTree {
    pub fn new() -> TempTree {
        TempTree {
            dir: tempfile::tempdir().expect("temp dir"),
        }
    }

    pub fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    /// Writes `text` at `rel`, making its folders; returns its path.
    pub fn write(&self, rel: &str, text: &str) -> PathBuf {
        let path = self.path(rel);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(&path, text).expect("write");
        path
    }

    /// The user's config whose home is `config/` in this folder.
    pub fn user(&self) -> UserConfig {
        UserConfig::with_config_home(&self.path("config"))
    }
}
