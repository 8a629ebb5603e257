//! The CLI probe: the program lookup and `--version`, never for programs in the workspace.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use chatmd::agents::probe::probe_version;
use chatmd::agents::program::{find_program, search_path};
use pretty_assertions::assert_eq;

use crate::{Workspace, outside};

/// Writes an executable shell script.
fn script(path: PathBuf, body: &str) -> PathBuf {
    fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    fs::write(&path, format!("#!/bin/sh\n{body}\n")).expect("write");
    fs::set_permissions(&path, fs::Permissions::from_mode(0o755)).expect("chmod");
    path
}

#[test]
fn find_on_path_finds_real_programs_only() {
    let elsewhere = tempfile::tempdir().expect("temp dir");
    let find_on_path =
        |name: &str| find_program(name, elsewhere.path(), search_path(None, None).as_deref()).ok();
    let sh = find_on_path("sh").expect("sh is on PATH");
    assert!(sh.is_absolute() && sh.ends_with("sh"), "{}", sh.display());
    assert_eq!(find_on_path("chatmd-surely-not-installed-anywhere"), None);
    // Paths are not names: nothing is looked up relative to chatmd's current folder.
    assert_eq!(find_on_path("./sh"), None);
    assert_eq!(find_on_path(""), None);
}

#[test]
fn probe_version_reads_the_first_line_of_a_program_outside_the_workspace() {
    let ws = Workspace::create();
    let tools = outside();
    let counter = tools.path().join("runs");
    let fake = script(
        tools.path().join("fake-claude"),
        &format!(
            "echo run >> '{}'\necho '  2.1.197 (Claude Code)  '\necho second line",
            counter.display()
        ),
    );

    assert_eq!(
        probe_version(&fake, Some(ws.root())),
        Some("2.1.197 (Claude Code)".to_owned())
    );
    // Cached: the program ran once.
    assert_eq!(
        probe_version(&fake, Some(ws.root())),
        Some("2.1.197 (Claude Code)".to_owned())
    );
    assert_eq!(fs::read_to_string(&counter).ok(), Some("run\n".to_owned()));
}

#[test]
fn probe_version_never_runs_a_program_the_workspace_ships() {
    let ws = Workspace::create();
    let marker = ws.path("ran");
    let body = format!("touch '{}'\necho 6.6.6", marker.display());
    let shipped = script(ws.path("node_modules/.bin/claude"), &body);
    // Also when reached through a link from outside the workspace.
    let tools = outside();
    let link = tools.path().join("claude");
    std::os::unix::fs::symlink(&shipped, &link).expect("symlink");

    assert_eq!(probe_version(&shipped, Some(ws.root())), None);
    assert_eq!(probe_version(&link, Some(ws.root())), None);
    assert!(!marker.exists(), "the shipped program ran");
}

#[test]
fn probe_version_is_none_for_failing_or_missing_programs() {
    let tools = outside();
    let failing = script(tools.path().join("broken"), "echo 'oops'\nexit 3");
    let silent = script(tools.path().join("silent"), "exit 0");
    assert_eq!(probe_version(&failing, None), None);
    assert_eq!(probe_version(&silent, None), None);
    assert_eq!(
        probe_version(Path::new("/nonexistent/chatmd-x"), None),
        None
    );
}
