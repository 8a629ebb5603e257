//! Before a spawn: find the program ourselves, by the rule every other part of chatmd
//! uses (so "not installed" is a clear error, not an `ENOENT`), create the folders the
//! CLI needs, and check the working folder.

use std::path::PathBuf;

use crate::agents::Invocation;
use crate::agents::program::{self, ProgramError};

use super::error::RunError;

/// Checks everything that can be checked without spawning; returns the program's path.
/// The program is resolved first so a missing CLI creates no folder.
pub(crate) fn prepare(invocation: &Invocation) -> Result<PathBuf, RunError> {
    let program = program::find_invoked(invocation)
        .map_err(|error| run_error(error, invocation.install_hint.as_deref()))?;
    for dir in &invocation.create_dirs {
        std::fs::create_dir_all(dir).map_err(|source| RunError::CreateDir {
            path: dir.clone(),
            source,
        })?;
    }
    if !invocation.cwd.is_dir() {
        return Err(RunError::MissingCwd {
            cwd: invocation.cwd.clone(),
        });
    }
    Ok(program)
}

/// A program that cannot be run, as the runner reports it (with how to install a
/// missing CLI).
fn run_error(error: ProgramError, install_hint: Option<&str>) -> RunError {
    match error {
        ProgramError::NotInstalled { program } => RunError::NotInstalled {
            program,
            install_hint: install_hint.map(str::to_string),
        },
        ProgramError::NotFound { path } => RunError::NotFound { path },
        ProgramError::NotExecutable { path } => RunError::NotExecutable { path },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::OsString;
    use std::os::unix::fs::PermissionsExt;
    use std::path::Path;

    /// The one rule, reported as the runner reports it.
    fn resolve_program(
        program: &str,
        path_var: Option<&std::ffi::OsStr>,
        cwd: &Path,
        install_hint: Option<&str>,
    ) -> Result<PathBuf, RunError> {
        program::find_program(program, cwd, path_var).map_err(|e| run_error(e, install_hint))
    }

    fn write_file(path: &Path, mode: u32) {
        std::fs::write(path, "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
    }

    #[test]
    fn bare_names_are_searched_on_path_skipping_non_executables() {
        let dir = tempfile::tempdir().unwrap();
        let first = dir.path().join("first");
        let second = dir.path().join("second");
        std::fs::create_dir_all(&first).unwrap();
        std::fs::create_dir_all(&second).unwrap();
        write_file(&first.join("agent"), 0o644);
        write_file(&second.join("agent"), 0o755);
        let path_var = std::env::join_paths([&first, &second]).unwrap();
        let found = resolve_program("agent", Some(&path_var), dir.path(), None).unwrap();
        assert_eq!(found, second.join("agent"));
    }

    #[test]
    fn a_missing_bare_name_is_not_installed() {
        let dir = tempfile::tempdir().unwrap();
        let path_var = OsString::from(dir.path());
        let error =
            resolve_program("codex", Some(&path_var), dir.path(), Some("npm i -g x")).unwrap_err();
        assert!(matches!(error, RunError::NotInstalled { .. }), "{error:?}");
        let error = resolve_program("codex", None, dir.path(), None).unwrap_err();
        assert!(matches!(error, RunError::NotInstalled { .. }), "{error:?}");
    }

    #[test]
    fn paths_are_relative_to_the_working_folder() {
        let dir = tempfile::tempdir().unwrap();
        write_file(&dir.path().join("run.sh"), 0o755);
        write_file(&dir.path().join("data.txt"), 0o644);
        assert_eq!(
            resolve_program("./run.sh", None, dir.path(), None).unwrap(),
            dir.path().join("./run.sh")
        );
        assert!(matches!(
            resolve_program("./data.txt", None, dir.path(), None),
            Err(RunError::NotExecutable { .. })
        ));
        assert!(matches!(
            resolve_program("./absent", None, dir.path(), None),
            Err(RunError::NotFound { .. })
        ));
        assert!(matches!(
            resolve_program("/bin", None, dir.path(), None),
            Err(RunError::NotExecutable { .. })
        ));
    }
}
