//! Which of the new team's CLIs this machine has, and whether they are logged in, so
//! `chatmd init` can say what is missing and the commands that fix it. Nothing inside
//! the workspace is run (the version probe refuses), and "logged in" is said only
//! where a file or variable shows it without running the CLI: otherwise "unknown".

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use super::spec::{MemberSpec, Runs};
use crate::agents::AgentKind;
use crate::agents::probe::{probe_version, version_unknown};
use crate::agents::program::{find_program, search_path};

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

/// One line per member: its CLI, installed or how to install it, and its login.
pub(super) fn cli_lines(members: &[MemberSpec], folder: &Path, machine: &Machine) -> Vec<String> {
    let width = members.iter().map(|m| m.handle.len()).max().unwrap_or(0);
    members
        .iter()
        .map(|m| {
            format!(
                "  @{:width$}  {}",
                m.handle,
                status(m.runs, folder, machine),
                width = width
            )
        })
        .collect()
}

fn status(runs: Runs, folder: &Path, machine: &Machine) -> String {
    let program = runs.program();
    let search = search_path(None, machine.path.as_deref());
    let Ok(path) = find_program(program, folder, search.as_deref()) else {
        let install = runs
            .install()
            .map_or_else(|| "install it".to_owned(), |c| format!("`{c}`"));
        let login = runs
            .kind()
            .map(|kind| format!(", then {}", login_command(kind)))
            .unwrap_or_default();
        return format!("`{program}` is not installed: {install}{login}");
    };
    let version = probe_version(&path, Some(folder)).unwrap_or_else(|| version_unknown(program));
    let login = match runs.kind() {
        Some(kind) => login(kind, machine),
        None => "login: see the agent's own docs".to_owned(),
    };
    format!("`{program}` {version} ({}); {login}", path.display())
}

/// The command that logs the CLI in.
fn login_command(kind: AgentKind) -> String {
    format!("log in: {}", kind.login_command())
}

/// The variables each CLI takes a key from (agent-clis.md: claude `ANTHROPIC_API_KEY`,
/// codex `CODEX_API_KEY` or `OPENAI_API_KEY`, gemini `GEMINI_API_KEY` or
/// `GOOGLE_API_KEY`).
fn key_vars(kind: AgentKind) -> &'static [&'static str] {
    match kind {
        AgentKind::Claude => &["ANTHROPIC_API_KEY"],
        AgentKind::Codex => &["CODEX_API_KEY", "OPENAI_API_KEY"],
        AgentKind::Gemini => &["GEMINI_API_KEY", "GOOGLE_API_KEY"],
    }
}

fn login(kind: AgentKind, machine: &Machine) -> String {
    if let Some(var) = key_vars(kind).iter().find(|v| machine.var(v).is_some()) {
        return format!("logged in: {var} is set");
    }
    // codex keeps its login in `$CODEX_HOME/auth.json` (agent-clis.md); claude and
    // gemini keep theirs in files the reference does not name, so only a run could tell.
    if kind == AgentKind::Codex {
        let codex_home = machine
            .var("CODEX_HOME")
            .map(PathBuf::from)
            .or_else(|| machine.home.as_ref().map(|h| h.join(".codex")));
        if let Some(auth) = codex_home.map(|h| h.join("auth.json")) {
            return if auth.is_file() {
                format!("logged in ({})", auth.display())
            } else {
                format!(
                    "not logged in ({} is missing): `codex login`",
                    auth.display()
                )
            };
        }
    }
    format!(
        "login unknown (chatmd cannot tell without running it); if a turn says it is not \
         logged in, {}",
        login_command(kind)
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
        let lines = cli_lines(&members, home.path(), &machine);
        let auth = home.path().join(".codex/auth.json");
        assert_eq!(
            lines,
            [
                "  @reviewer  `claude` is not installed: `npm install -g \
                 @anthropic-ai/claude-code`, then log in: run `claude` and type `/login`"
                    .to_owned(),
                format!(
                    "  @tester    `codex` version unknown: `codex --version` failed, or printed \
                     nothing within 3 s ({}); not logged in ({} is \
                     missing): `codex login`",
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
            cli_lines(&members[1..2], home.path(), &machine)[0]
                .ends_with(&format!("; logged in ({})", auth.display()))
        );
    }
}
