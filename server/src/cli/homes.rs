//! Member homes that git would commit. A member's `home` holds its CLI's state: session
//! transcripts (every prompt and answer, tool output included) and, after a login
//! there, its credentials. Inside a repository it must be ignored by git.
//!
//! Whether git ignores a path is git's call (nested `.gitignore` files, negations,
//! `info/exclude`, the global excludes file, tracked files), so `chatmd members` asks
//! `git check-ignore`. It runs a program, so only this command does it, never the
//! language server; without git the warning says it could not check.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use super::report::ProblemReport;
use crate::team::{Member, Team};

/// How to run git.
pub(super) struct Git {
    program: PathBuf,
}

impl Git {
    /// `git` from `PATH`.
    pub(super) fn on_path() -> Git {
        Git::at("git")
    }

    pub(super) fn at(program: impl Into<PathBuf>) -> Git {
        Git {
            program: program.into(),
        }
    }

    /// Whether git ignores the folder `home` of the work tree at `root`.
    fn ignores(&self, root: &Path, home: &Path) -> Ignored {
        // The trailing slash: a folder not created yet still matches `dir/` patterns.
        let mut folder = home.as_os_str().to_owned();
        folder.push("/");
        let status = Command::new(&self.program)
            .arg("-C")
            .arg(root)
            .args(["check-ignore", "-q", "--"])
            .arg(folder)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
        match status.map(|s| s.code()) {
            Ok(Some(0)) => Ignored::Yes,
            Ok(Some(1)) => Ignored::No,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ignored::NoGit,
            // 128: not in a git work tree; anything else: git could not tell.
            _ => Ignored::Unknown,
        }
    }
}

#[derive(Debug, PartialEq, Eq)]
enum Ignored {
    Yes,
    No,
    NoGit,
    Unknown,
}

/// A warning for each member whose `home` is in the git work tree at `root` and not
/// ignored (or, without git, in a repository at all).
pub(super) fn unignored(team: &Team, root: &Path, git: &Git) -> Vec<ProblemReport> {
    team.members
        .iter()
        .filter_map(|member| {
            let home = member.home.as_deref()?;
            let message = match git.ignores(root, home) {
                Ignored::No => not_ignored(member, root, home),
                Ignored::NoGit if root.join(".git").exists() => no_git(member, root, home),
                _ => return None,
            };
            Some(ProblemReport {
                severity: "warning".to_owned(),
                file: home.display().to_string(),
                line: None,
                column: None,
                range: None,
                message,
            })
        })
        .collect()
}

/// `home` relative to the workspace root, as a .gitignore line anchored at the root.
fn ignore_line(root: &Path, home: &Path) -> String {
    match home.strip_prefix(root) {
        Ok(rel) => format!("/{}/", rel.display()),
        Err(_) => format!("{}/", home.display()),
    }
}

const WHY: &str =
    "the CLI keeps its session transcripts there, and its login once you log in there";

fn not_ignored(member: &Member, root: &Path, home: &Path) -> String {
    format!(
        "@{}'s home is inside the git work tree and git does not ignore it: {WHY}; add `{}` to .gitignore",
        member.handle,
        ignore_line(root, home)
    )
}

fn no_git(member: &Member, root: &Path, home: &Path) -> String {
    format!(
        "@{}'s home is inside the repository and git is not installed to check that it is ignored: {WHY}; make sure .gitignore lists `{}`",
        member.handle,
        ignore_line(root, home)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_gitignore_line_is_anchored_at_the_root() {
        assert_eq!(
            ignore_line(Path::new("/ws"), Path::new("/ws/.state/bob")),
            "/.state/bob/"
        );
    }

    #[test]
    fn a_missing_git_is_told_apart() {
        let git = Git::at("/nonexistent/git");
        assert_eq!(
            git.ignores(Path::new("/"), Path::new("/tmp/x")),
            Ignored::NoGit
        );
    }
}
