//! Which of the new team's CLIs this machine has, and whether they are logged in, so
//! `chatmd init` can say what is missing and the commands that fix it. Nothing inside
//! the workspace is run (the version probe refuses), and "logged in" is said only
//! where a file or variable shows it without running the CLI: otherwise "unknown".

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use super::spec::{MemberSpec, Runs};
use crate::agents::AgentKind;
use crate::agents::kinds::spec_of;
use crate::agents::probe::{inside_workspace, probe_version, version_unknown};
use crate::agents::program::{find_program, search_path};
use crate::team::trust::shell_word;

/// Where the variables and files that show a login are read: the environment, passed
/// in so tests can choose it.
pub(super) struct Machine {
    pub path: Option<OsString>,
    pub home: Option<PathBuf>,
    pub vars: Vec<(String, String)>,
}

impl Machine {
    pub(super) fn from_env() -> Machine {
        Machine {
            path: std::env::var_os("PATH"),
            home: std::env::var_os("HOME").map(PathBuf::from),
            vars: std::env::vars().collect(),
        }
    }

    fn var(&self, name: &str) -> Option<&str> {
        self.vars
            .iter()
            .find(|(n, v)| n == name && !v.is_empty())
            .map(|(_, v)| v.as_str())
    }
}

/// One line per member: its CLI, installed or how to install it, and its login. `root`
/// is the workspace, whose programs are never run; `homes` is where members' own homes
/// are (`<folder>/.state`, absolute) when they have them.
pub(super) fn cli_lines(
    members: &[MemberSpec],
    root: &Path,
    machine: &Machine,
    homes: Option<&Path>,
) -> Vec<String> {
    let width = members.iter().map(|m| m.handle.len()).max().unwrap_or(0);
    members
        .iter()
        .map(|m| {
            let home = homes
                .filter(|_| m.runs.kind().is_some())
                .map(|h| h.join(&m.handle));
            format!(
                "  @{:width$}  {}",
                m.handle,
                status(m.runs, root, machine, home.as_deref()),
                width = width
            )
        })
        .collect()
}

fn status(runs: Runs, root: &Path, machine: &Machine, home: Option<&Path>) -> String {
    let program = runs.program();
    let search = search_path(None, machine.path.as_deref());
    let Ok(path) = find_program(program, root, search.as_deref()) else {
        let install = runs
            .install()
            .map_or_else(|| "install it".to_owned(), |c| format!("`{c}`"));
        let login = runs
            .kind()
            .map(|kind| format!(", then {}", login_command(kind, home)))
            .unwrap_or_default();
        return format!("`{program}` is not installed: {install}{login}");
    };
    let version = if inside_workspace(&path, root) {
        // The probe refuses it; say why rather than "failed".
        format!(
            "not run to read its version: it is inside the workspace {}",
            root.display()
        )
    } else {
        probe_version(&path, Some(root)).unwrap_or_else(|| version_unknown(program))
    };
    let login = match runs.kind() {
        Some(kind) => login(kind, machine, home),
        None => "login: see the agent's own docs".to_owned(),
    };
    format!("`{program}` {version} ({}); {login}", path.display())
}

/// The command that logs the CLI in: into the member's own `home` when it has one,
/// through the variable that points the CLI there.
fn login_command(kind: AgentKind, home: Option<&Path>) -> String {
    let spec = spec_of(kind);
    let prefix = match home {
        Some(home) => format!(
            "{}={} ",
            spec.state_env_var,
            shell_word(&home.display().to_string())
        ),
        None => String::new(),
    };
    format!("log in: {}", spec.login.phrase(&prefix))
}

fn login(kind: AgentKind, machine: &Machine, home: Option<&Path>) -> String {
    let spec = spec_of(kind);
    if let Some(var) = spec.key_vars.iter().find(|v| machine.var(v).is_some()) {
        return format!("logged in: {var} is set");
    }
    // Where the kind's spec names the file that holds its login (codex's `auth.json`),
    // its presence tells; elsewhere only a run could.
    if let Some(login_file) = spec.login_file {
        // A member's own home wins: chatmd points the state variable there.
        let state = home
            .map(Path::to_path_buf)
            .or_else(|| machine.var(spec.state_env_var).map(PathBuf::from))
            .or_else(|| machine.home.as_ref().map(|h| spec.default_state_in(h)));
        if let Some(auth) = state.map(|h| h.join(login_file)) {
            return if auth.is_file() {
                format!("logged in ({})", auth.display())
            } else {
                format!(
                    "not logged in ({} is missing): {}",
                    auth.display(),
                    login_command(kind, home)
                )
            };
        }
    }
    format!(
        "login unknown (chatmd cannot tell without running it); if a turn says it is not \
         logged in, {}",
        login_command(kind, home)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::init::spec::parse_members;
    use pretty_assertions::assert_eq;

    #[test]
    fn says_how_to_install_and_log_in_and_what_is_known_of_a_login() {
        let home = tempfile::tempdir().expect("home");
        let bin = tempfile::tempdir().expect("bin");
        let codex = bin.path().join("codex");
        std::fs::write(&codex, "#!/bin/sh\nexit 1\n").expect("write");
        let mut permissions = std::fs::metadata(&codex).expect("meta").permissions();
        std::os::unix::fs::PermissionsExt::set_mode(&mut permissions, 0o755);
        std::fs::set_permissions(&codex, permissions).expect("chmod");
        let members = parse_members(["reviewer=claude", "tester=codex", "w=gemini"]).unwrap();
        let machine = Machine {
            path: Some(bin.path().into()),
            home: Some(home.path().to_path_buf()),
            vars: vec![("GEMINI_API_KEY".into(), "k".into())],
        };
        let lines = cli_lines(&members, home.path(), &machine, None);
        let auth = home.path().join(".codex/auth.json");
        assert_eq!(
            lines,
            [
                "  @reviewer  `claude` is not installed: `npm install -g \
                 @anthropic-ai/claude-code`, then log in: run `claude` and type `/login`"
                    .to_owned(),
                format!(
                    "  @tester    `codex` version unknown: `codex --version` failed, or printed \
                     nothing within 10 s ({}); not logged in ({} is \
                     missing): log in: `codex login`",
                    codex.display(),
                    auth.display()
                ),
                "  @w         `gemini` is not installed: `npm install -g @google/gemini-cli`, \
                 then log in: run `gemini` and pick a login method"
                    .to_owned(),
            ]
        );
        std::fs::create_dir_all(auth.parent().unwrap()).unwrap();
        std::fs::write(&auth, "{}").unwrap();
        assert!(
            cli_lines(&members[1..2], home.path(), &machine, None)[0]
                .ends_with(&format!("; logged in ({})", auth.display()))
        );
        // With homes: the login goes into the member's own, and is looked for there.
        let homes = home.path().join(".state");
        let lines = cli_lines(&members, home.path(), &machine, Some(&homes));
        assert!(
            lines[0].ends_with(&format!(
                ", then log in: run `CLAUDE_CONFIG_DIR={} claude` and type `/login`",
                homes.join("reviewer").display()
            )),
            "{}",
            lines[0]
        );
        assert!(
            lines[1].ends_with(&format!(
                "; not logged in ({}/auth.json is missing): log in: `CODEX_HOME={} codex login`",
                homes.join("tester").display(),
                homes.join("tester").display()
            )),
            "{}",
            lines[1]
        );
    }
}
