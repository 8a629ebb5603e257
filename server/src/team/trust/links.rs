//! Finding the symlink that takes a path out of the workspace, so the user can be told
//! which link to accept (and the trust store can name it).

use std::path::{Path, PathBuf};

use crate::team::paths::{leads_outside, normalize, resolve_existing};

/// The first symlink on `path`, from `root` down, that leads outside `root`, with where
/// it leads (resolved). `None` when `path` stays inside, or is not under `root` as
/// written (that is an escape in the path itself, not a link).
pub(crate) fn link_out(root: &Path, path: &Path) -> Option<(PathBuf, PathBuf)> {
    let root = normalize(root);
    let path = normalize(path);
    let inside = path.strip_prefix(&root).ok()?;
    let mut prefix = root.clone();
    for component in inside.components() {
        prefix.push(component);
        let is_link = prefix
            .symlink_metadata()
            .is_ok_and(|meta| meta.file_type().is_symlink());
        if is_link && leads_outside(&root, &prefix).is_some() {
            return Some((prefix.clone(), resolve_existing(&prefix)));
        }
    }
    None
}
