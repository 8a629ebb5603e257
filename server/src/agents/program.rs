//! Which program runs a member's agent and where it is found: the one rule that the
//! diagnostics, hover, `chatmd members` and the turns themselves share, so a CLI that
//! runs is never reported missing and the other way round.
//!
//! The rule:
//! - the program is the member's own `command` (a trusted `chatmd.toml`), else, for an
//!   ACP member, its `preset`'s, else its agent kind's (`agents.toml`, else the
//!   built-in name such as `codex`);
//! - a program with a `/` is a path, relative ones taken from the member's working
//!   folder (where the turn runs);
//! - a bare name is the first executable file of that name in the editor's
//!   `agentPath` folders, then in the `PATH` the agent gets (the member's `env`
//!   `PATH`, else chatmd's own). Only absolute folders count: an empty or relative
//!   entry would name a folder that depends on where a turn runs.

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};

use super::Invocation;
use super::registry::{Adapter, AgentEntry};
use crate::team::Member;

/// Why a program cannot be run.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProgramError {
    /// A bare name that no searched folder holds.
    #[error("`{program}` is not installed (not found on PATH)")]
    NotInstalled { program: String },
    /// A path that does not exist.
    #[error("the program `{}` does not exist", .path.display())]
    NotFound { path: PathBuf },
    /// A path that exists but is not an executable file.
    #[error("the program `{}` is not an executable file", .path.display())]
    NotExecutable { path: PathBuf },
}

/// The program `member` runs: its own `command`, else its ACP preset's, else its agent
/// kind's.
pub fn member_program<'a>(entry: &'a AgentEntry, member: &'a Member) -> &'a str {
    if let Adapter::Acp(_) = entry.adapter {
        return super::acp::program(entry, member);
    }
    member.command.as_deref().unwrap_or(&entry.program)
}

/// How to install what [`member_program`] names, for the "not installed" message:
/// nothing for a program of the member's own.
pub fn member_install_hint<'a>(entry: &'a AgentEntry, member: &'a Member) -> Option<&'a str> {
    if let Adapter::Acp(_) = entry.adapter {
        return super::acp::install_hint(entry, member);
    }
    match member.command {
        Some(_) => None,
        None => entry.install_hint.as_deref(),
    }
}

/// Where a turn of `member`, run by `entry`, finds its program, with the editor's
/// `agent_path` (if any) searched first.
pub fn find_member_program(
    entry: &AgentEntry,
    member: &Member,
    agent_path: Option<&OsStr>,
) -> Result<PathBuf, ProgramError> {
    let path = member.env.get("PATH").map(OsString::from);
    let search = search_path(agent_path, path.as_deref());
    find_program(
        member_program(entry, member),
        &member.workdir,
        search.as_deref(),
    )
}

/// Where a turn's `invocation` finds its program: in the `PATH` it runs with (the last
/// one its environment sets, else chatmd's own), which already starts with the
/// editor's `agentPath` (see [`search_path`]).
pub fn find_invoked(invocation: &Invocation) -> Result<PathBuf, ProgramError> {
    let search = search_path(None, invoked_path(invocation).as_deref());
    find_program(&invocation.program, &invocation.cwd, search.as_deref())
}

/// Puts the editor's `agent_path` before the `PATH` a turn's agent gets (its `env`'s,
/// else chatmd's own), so [`find_invoked`] searches it first, as the rule says, and
/// so do the programs the agent starts by name.
pub fn put_first_on_path(invocation: &mut Invocation, agent_path: &OsStr) {
    let path = invoked_path(invocation);
    let joined = search_path(Some(agent_path), path.as_deref()).unwrap_or_default();
    invocation.env.retain(|(name, _)| name != "PATH");
    let joined = joined.to_string_lossy().into_owned();
    invocation.env.push(("PATH".to_owned(), joined));
}

/// The last `PATH` a turn's environment sets.
fn invoked_path(invocation: &Invocation) -> Option<OsString> {
    let (_, path) = invocation
        .env
        .iter()
        .rev()
        .find(|(name, _)| name == "PATH")?;
    Some(OsString::from(path))
}

/// The folders searched for a bare name: `agent_path` first, then `path` (the `PATH`
/// the agent gets; chatmd's own when `None`). This is also the `PATH` a turn's agent
/// runs with, so what it starts by name is found the same way.
pub fn search_path(agent_path: Option<&OsStr>, path: Option<&OsStr>) -> Option<OsString> {
    let own = std::env::var_os("PATH");
    let path = path.or(own.as_deref()).filter(|p| !p.is_empty());
    match (agent_path.filter(|p| !p.is_empty()), path) {
        (Some(first), Some(then)) => {
            let mut joined = first.to_owned();
            joined.push(":");
            joined.push(then);
            Some(joined)
        }
        (Some(only), None) | (None, Some(only)) => Some(only.to_owned()),
        (None, None) => None,
    }
}

/// Finds `program` as the rule says: a name with a `/` is a path (relative to `cwd`);
/// a bare name is the first executable file of that name in the absolute folders of
/// `search` (a `PATH`-style list), in order.
pub fn find_program(
    program: &str,
    cwd: &Path,
    search: Option<&OsStr>,
) -> Result<PathBuf, ProgramError> {
    if program.contains('/') {
        let path = cwd.join(program);
        return match std::fs::metadata(&path) {
            Err(_) => Err(ProgramError::NotFound { path }),
            Ok(_) if is_executable(&path) => Ok(path),
            Ok(_) => Err(ProgramError::NotExecutable { path }),
        };
    }
    let not_installed = || ProgramError::NotInstalled {
        program: program.to_owned(),
    };
    if program.is_empty() {
        return Err(not_installed());
    }
    std::env::split_paths(search.ok_or_else(not_installed)?)
        .filter(|dir| dir.is_absolute())
        .map(|dir| dir.join(program))
        .find(|candidate| is_executable(candidate))
        .ok_or_else(not_installed)
}

fn is_executable(file: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    file.metadata()
        .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;
    use std::os::unix::fs::PermissionsExt;

    fn script(dir: &Path, name: &str, mode: u32) -> PathBuf {
        let path = dir.join(name);
        fs::write(&path, "#!/bin/sh\n").expect("write");
        fs::set_permissions(&path, fs::Permissions::from_mode(mode)).expect("chmod");
        path
    }

    #[test]
    fn a_bare_name_is_the_first_executable_file_in_an_absolute_folder() {
        let first = tempfile::tempdir().unwrap();
        let second = tempfile::tempdir().unwrap();
        script(first.path(), "codex", 0o644);
        fs::create_dir(first.path().join("gemini")).unwrap();
        let codex = script(second.path(), "codex", 0o755);
        let gemini = script(second.path(), "gemini", 0o755);
        let list = std::env::join_paths([
            Path::new("relative"),
            Path::new(""),
            first.path(),
            second.path(),
        ])
        .unwrap();
        let find = |name: &str| find_program(name, first.path(), Some(&list));
        assert_eq!(find("codex"), Ok(codex));
        assert_eq!(find("gemini"), Ok(gemini));
        assert_eq!(
            find("claude"),
            Err(ProgramError::NotInstalled {
                program: "claude".into()
            })
        );
        assert_eq!(
            find(""),
            Err(ProgramError::NotInstalled { program: "".into() })
        );
        assert_eq!(
            find_program("codex", first.path(), None),
            Err(ProgramError::NotInstalled {
                program: "codex".into()
            })
        );
    }

    #[test]
    fn a_relative_folder_on_the_list_is_never_searched() {
        let cwd = tempfile::tempdir().unwrap();
        fs::create_dir(cwd.path().join("bin")).unwrap();
        script(&cwd.path().join("bin"), "codex", 0o755);
        let list = OsString::from("bin");
        assert_eq!(
            find_program("codex", cwd.path(), Some(&list)),
            Err(ProgramError::NotInstalled {
                program: "codex".into()
            })
        );
    }

    #[test]
    fn agent_path_comes_before_path() {
        let agent_path = OsString::from("/opt/agents");
        let path = OsString::from("/usr/bin:/bin");
        assert_eq!(
            search_path(Some(&agent_path), Some(&path)),
            Some(OsString::from("/opt/agents:/usr/bin:/bin"))
        );
        assert_eq!(
            search_path(None, Some(&path)),
            Some(OsString::from("/usr/bin:/bin"))
        );
        assert_eq!(
            search_path(Some(&agent_path), Some(OsStr::new(""))),
            Some(agent_path.clone())
        );
    }

    #[test]
    fn a_member_finds_its_own_command_first_then_its_kind_on_agent_path_then_path() {
        let agents = tempfile::tempdir().unwrap();
        let path = tempfile::tempdir().unwrap();
        let work = tempfile::tempdir().unwrap();
        let on_path = script(path.path(), "codex", 0o755);
        let entry = AgentEntry::builtin(super::super::AgentKind::Codex);
        let mut member = Member::new("bob", "codex", work.path().to_path_buf());
        member
            .env
            .insert("PATH".into(), path.path().to_string_lossy().into_owned());
        let agent_path = agents.path().as_os_str();
        assert_eq!(
            find_member_program(&entry, &member, Some(agent_path)),
            Ok(on_path)
        );
        let first = script(agents.path(), "codex", 0o755);
        assert_eq!(
            find_member_program(&entry, &member, Some(agent_path)),
            Ok(first)
        );
        let own = script(work.path(), "my-codex", 0o755);
        member.command = Some("./my-codex".into());
        assert_eq!(
            find_member_program(&entry, &member, Some(agent_path)),
            Ok(work.path().join("./my-codex"))
        );
        assert!(own.is_file());
    }
}
