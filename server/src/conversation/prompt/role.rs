//! Whether a member's CLI loads its role file by itself, so the prompt need not carry it.

use std::path::{Path, PathBuf};

use crate::team::Member;

/// Whether `member`'s role file is one its own CLI loads by itself: its name is the
/// one of the member's kind (claude does not read `AGENTS.md`) and it lies in the
/// workdir or a folder above it (a `work` link elsewhere moves the CLI away from it).
/// Then the prompt does not carry the role again; otherwise it goes into `[SYSTEM]`.
pub fn role_loaded_by_cli(member: &Member, workspace_root: &Path) -> bool {
    let (Some(kind), Some(role_file)) = (crate::agents::cli_kind(member), &member.role_file) else {
        return false;
    };
    if role_file.file_name().and_then(|n| n.to_str()) != Some(kind.role_file_name()) {
        return false;
    }
    let role_file = canonical(role_file);
    crate::agents::role_files_loaded(member, workspace_root)
        .iter()
        .any(|loaded| canonical(loaded) == role_file)
}

fn canonical(path: &Path) -> PathBuf {
    path.canonicalize().unwrap_or_else(|_| path.to_path_buf())
}
