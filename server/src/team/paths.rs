//! Path containment: every path a workspace file names (`team:`, `workdir`, `home`)
//! must stay inside the workspace, lexically and after following symlinks.

use std::path::{Component, Path, PathBuf};

use super::error::TeamError;

/// Removes `.` and resolves `..` without touching the file system. `..` never climbs
/// above the root of an absolute path.
pub(crate) fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => match out.components().next_back() {
                Some(Component::Normal(_)) => {
                    out.pop();
                }
                Some(Component::RootDir | Component::Prefix(_)) => {}
                _ => out.push(".."),
            },
            other => out.push(other),
        }
    }
    if out.as_os_str().is_empty() {
        out.push(".");
    }
    out
}

/// The path with every symlink resolved, as far as it exists: the longest existing
/// prefix is canonicalized and the rest appended as written.
pub(crate) fn resolve_existing(path: &Path) -> PathBuf {
    let path = normalize(path);
    for ancestor in path.ancestors() {
        if let Ok(real) = ancestor.canonicalize() {
            let rest = path.strip_prefix(ancestor).unwrap_or(Path::new(""));
            return normalize(&real.join(rest));
        }
    }
    path
}

/// Where `path` really leads when that is outside `root`, following symlinks.
pub(crate) fn leads_outside(root: &Path, path: &Path) -> Option<PathBuf> {
    let real_root = resolve_existing(root);
    let real = resolve_existing(path);
    (!real.starts_with(&real_root)).then_some(real)
}

/// Resolves `raw` (relative to `base`) and checks that it stays inside `root`, both as
/// written and after following symlinks. Returns the normalized path as written.
pub(crate) fn contain(root: &Path, base: &Path, raw: &Path) -> Result<PathBuf, TeamError> {
    if raw.as_os_str().is_empty() {
        return Err(TeamError::EmptyPath);
    }
    let root = normalize(root);
    let path = normalize(&base.join(raw));
    if !path.starts_with(&root) {
        return Err(TeamError::OutsideWorkspace { path, root });
    }
    match leads_outside(&root, &path) {
        Some(target) => Err(TeamError::SymlinkOutside { path, target }),
        None => Ok(path),
    }
}

/// The team folder of a chat: its front matter's `team:` (relative to the chat file's
/// folder), else the chat's own folder. It must exist and stay inside the workspace.
pub fn resolve_team_folder(
    workspace_root: &Path,
    chat_file: &Path,
    front_matter_team: Option<&str>,
) -> Result<PathBuf, TeamError> {
    let chat_folder = chat_file.parent().unwrap_or(Path::new(""));
    let raw = match front_matter_team {
        Some(team) if team.trim().is_empty() => return Err(TeamError::EmptyPath),
        Some(team) => Path::new(team.trim()),
        None => Path::new("."),
    };
    let folder = contain(workspace_root, chat_folder, raw)?;
    match std::fs::metadata(&folder) {
        Ok(meta) if meta.is_dir() => Ok(folder),
        Ok(_) => Err(TeamError::NotAFolder { path: folder }),
        Err(source) => Err(TeamError::TeamFolderMissing {
            path: folder,
            source,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn normalize_resolves_dots_lexically() {
        let cases = [
            ("/a/b/../c/./d", "/a/c/d"),
            ("/a/../../x", "/x"),
            ("a/../../x", "../x"),
            ("./", "."),
            ("/", "/"),
        ];
        for (input, expected) in cases {
            assert_eq!(
                normalize(Path::new(input)),
                PathBuf::from(expected),
                "{input}"
            );
        }
    }

    #[test]
    fn contain_rejects_escapes_and_keeps_inside_paths() {
        let root = Path::new("/nonexistent-ws");
        assert_eq!(
            contain(
                root,
                Path::new("/nonexistent-ws/team"),
                Path::new("bob/./x")
            )
            .map_err(|e| e.to_string()),
            Ok(PathBuf::from("/nonexistent-ws/team/bob/x"))
        );
        assert_eq!(
            contain(
                root,
                Path::new("/nonexistent-ws/team"),
                Path::new("../../etc")
            )
            .map_err(|e| e.to_string()),
            Err(
                "`/etc` is outside the workspace /nonexistent-ws; use a path inside the workspace"
                    .to_owned()
            )
        );
        assert!(matches!(
            contain(root, Path::new("/nonexistent-ws"), Path::new("/tmp")),
            Err(TeamError::OutsideWorkspace { .. })
        ));
        assert!(matches!(
            contain(root, Path::new("/nonexistent-ws"), Path::new("")),
            Err(TeamError::EmptyPath)
        ));
    }
}
