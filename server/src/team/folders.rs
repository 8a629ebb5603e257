//! Member folders and the text files in them: which subfolders of a team hold a role
//! file, and reading role files without panicking, blocking or leaving the workspace.

use std::fs;
use std::io::Read;
use std::ops::Range;
use std::path::{Path, PathBuf};

use super::model::is_valid_handle;
use super::paths::leads_outside;
use super::problem::{ConfigProblem, Severity};
use super::trust::{UserTrust, trust_command};
use crate::agent_config::AgentKind;

/// A subfolder of the team folder that holds at least one role file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct MemberFolder {
    pub handle: String,
    pub folder: PathBuf,
    /// The kind chosen by the role-file precedence (claude > codex > gemini).
    pub kind: AgentKind,
    pub role_file: PathBuf,
}

/// Why a text file could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ReadError {
    /// For the user, with the OS error when there is one.
    pub message: String,
    /// The offending bytes, for a file that is not UTF-8.
    pub range: Option<Range<usize>>,
}

impl ReadError {
    fn new(message: impl Into<String>) -> ReadError {
        ReadError {
            message: message.into(),
            range: None,
        }
    }
}

/// The largest role file, team instruction or `chatmd.toml` read: far above any real
/// one (a 1 GiB role file of zeros, 1 MB in a git pack, took the server to 2 GB).
pub(crate) const MAX_TEXT_FILE: u64 = 256 << 10;

/// Reads a UTF-8 text file of the workspace. Refuses symlinks that lead outside the
/// workspace (a cloned repository could link `CLAUDE.md` to a secret), anything that
/// is not a regular file (reading a FIFO would block the server) and files over
/// [`MAX_TEXT_FILE`].
pub(crate) fn read_text(workspace_root: &Path, file: &Path) -> Result<String, ReadError> {
    if let Some(target) = leads_outside(workspace_root, file) {
        return Err(ReadError::new(format!(
            "it leads outside the workspace (to {}); chatmd only reads files inside it",
            target.display()
        )));
    }
    read_text_anywhere(file)
}

/// [`read_text`] without the workspace check: for a file behind a link the user
/// accepted.
pub(crate) fn read_text_anywhere(file: &Path) -> Result<String, ReadError> {
    let meta = fs::metadata(file).map_err(|e| ReadError::new(e.to_string()))?;
    if meta.is_dir() {
        return Err(ReadError::new("it is a folder, not a file"));
    }
    if !meta.is_file() {
        return Err(ReadError::new("it is not a regular file"));
    }
    let too_large = || {
        ReadError::new(format!(
            "it is larger than {} KiB, the most chatmd reads; shorten it",
            MAX_TEXT_FILE >> 10
        ))
    };
    if meta.len() > MAX_TEXT_FILE {
        return Err(too_large());
    }
    // The size can change after it was looked at: the read is bounded too.
    let mut bytes = Vec::new();
    fs::File::open(file)
        .and_then(|f| f.take(MAX_TEXT_FILE + 1).read_to_end(&mut bytes))
        .map_err(|e| ReadError::new(e.to_string()))?;
    if bytes.len() as u64 > MAX_TEXT_FILE {
        return Err(too_large());
    }
    String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        let len = e.utf8_error().error_len().unwrap_or(1);
        ReadError {
            message: format!(
                "it is not valid UTF-8 (invalid byte at offset {at}); save it as UTF-8"
            ),
            range: Some(at..at + len),
        }
    })
}

/// The direct subfolders of `team_folder` that are members, sorted by handle
/// (case-insensitively). Skipped folders are reported: invalid names (info), symlinks
/// leading out of the workspace that the user did not accept and handles differing
/// only in case (warnings).
pub(crate) fn find_member_folders(
    workspace_root: &Path,
    team_folder: &Path,
    trust: &UserTrust,
    problems: &mut Vec<ConfigProblem>,
) -> Vec<MemberFolder> {
    let entries = match fs::read_dir(team_folder) {
        Ok(entries) => entries,
        Err(error) => {
            problems.push(ConfigProblem::new(
                team_folder,
                None,
                Severity::Error,
                format!("cannot list the team folder: {error}"),
            ));
            return Vec::new();
        }
    };
    let mut folders: Vec<(String, PathBuf)> = entries
        .filter_map(Result::ok)
        .map(|entry| {
            (
                entry.file_name().to_string_lossy().into_owned(),
                entry.path(),
            )
        })
        .filter(|(name, path)| !name.starts_with('.') && path.is_dir())
        .collect();
    folders.sort_by_key(|(name, _)| (name.to_lowercase(), name.clone()));

    let mut members: Vec<MemberFolder> = Vec::new();
    for (name, folder) in folders {
        let role_files: Vec<(AgentKind, PathBuf)> = AgentKind::ALL
            .iter()
            .copied()
            .map(|kind| (kind, folder.join(kind.role_file_name())))
            .filter(|(_, file)| file.symlink_metadata().is_ok())
            .collect();
        let Some((kind, role_file)) = role_files.first().cloned() else {
            continue;
        };
        let names = role_files
            .iter()
            .map(|(kind, _)| kind.role_file_name())
            .collect::<Vec<_>>()
            .join(", ");
        let skip = |severity, message: String| ConfigProblem::new(&folder, None, severity, message);
        if !is_valid_handle(&name) {
            problems.push(skip(
                Severity::Info,
                format!(
                    "folder `{name}` holds {names} but is not a member: `{name}` is not a valid \
                     handle. Rename the folder with letters, digits, `_`, `.` or `-`, starting \
                     with a letter or digit"
                ),
            ));
            continue;
        }
        if let Some(target) = leads_outside(workspace_root, &folder)
            && !trust.allows_link(&folder, &target)
        {
            problems.push(skip(
                Severity::Warning,
                format!(
                    "member folder `{name}` is skipped: it is a symlink to {}, outside the \
                     workspace. A repository could ship such a link; if you made it, accept \
                     it with `{}`, else move the folder into the workspace",
                    target.display(),
                    trust_command(&folder)
                ),
            ));
            continue;
        }
        if let Some(other) = members
            .iter()
            .find(|m| m.handle.eq_ignore_ascii_case(&name))
        {
            problems.push(skip(
                Severity::Warning,
                format!(
                    "folder `{name}` is skipped: handles ignore case, and `{}` already is a \
                     member. Rename one of the folders",
                    other.handle
                ),
            ));
            continue;
        }
        if role_files.len() > 1 {
            problems.push(skip(
                Severity::Warning,
                format!(
                    "folder `{name}` holds several role files ({names}); {} wins, so {name} is \
                     a {kind} member. Keep one role file per member folder",
                    kind.role_file_name()
                ),
            ));
        }
        members.push(MemberFolder {
            handle: name,
            folder,
            kind,
            role_file,
        });
    }
    members
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn read_text_explains_every_failure() -> std::io::Result<()> {
        let ws = tempfile::tempdir()?;
        let root = ws.path();
        fs::write(root.join("ok.md"), "hello")?;
        fs::write(root.join("latin1.md"), b"caf\xe9!")?;
        fs::create_dir(root.join("dir.md"))?;
        let read = |name: &str| read_text(root, &root.join(name));
        assert_eq!(read("ok.md"), Ok("hello".to_owned()));
        assert_eq!(
            read("latin1.md"),
            Err(ReadError {
                message: "it is not valid UTF-8 (invalid byte at offset 3); save it as UTF-8"
                    .to_owned(),
                range: Some(3..4),
            })
        );
        assert_eq!(
            read("dir.md"),
            Err(ReadError::new("it is a folder, not a file"))
        );
        assert_eq!(
            read("missing.md"),
            Err(ReadError::new("No such file or directory (os error 2)"))
        );
        Ok(())
    }

    #[test]
    fn a_role_file_over_the_limit_is_refused_unread() -> std::io::Result<()> {
        let ws = tempfile::tempdir()?;
        let root = ws.path();
        // 1 GiB of zeros, sparse: reading it whole would take 1 GiB.
        fs::File::create(root.join("CLAUDE.md"))?.set_len(1 << 30)?;
        fs::write(root.join("fits.md"), "a".repeat(MAX_TEXT_FILE as usize))?;
        let read = |name: &str| read_text(root, &root.join(name));
        assert_eq!(
            read("CLAUDE.md"),
            Err(ReadError::new(
                "it is larger than 256 KiB, the most chatmd reads; shorten it"
            ))
        );
        assert_eq!(read("fits.md").map(|t| t.len()), Ok(MAX_TEXT_FILE as usize));
        Ok(())
    }
}
