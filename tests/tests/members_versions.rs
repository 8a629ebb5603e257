//! `chatmd members` and the versions of the agent CLIs: a version outside the tested
//! set is a warning that says which versions were tested, and a CLI slow to say its
//! version (gemini took 5 s on a loaded machine) still has one. The fake agent plays
//! the CLIs, from a folder outside the workspace (chatmd never runs a program inside
//! it), reporting `FAKE_AGENT_VERSION` after `FAKE_AGENT_DELAY_MS`.

use std::path::PathBuf;
use std::process::{Command, Stdio};

use pretty_assertions::assert_eq;

struct Machine {
    workspace: tempfile::TempDir,
    tools: tempfile::TempDir,
}

impl Machine {
    /// A workspace whose team has a claude reviewer and a gemini writer; the fake
    /// installed as the CLIs in a folder of its own.
    fn new() -> Machine {
        let m = Machine {
            workspace: tempfile::tempdir().expect("temp dir"),
            tools: tempfile::tempdir().expect("temp dir"),
        };
        for (file, text) in [
            (".git/HEAD", "ref: refs/heads/main\n"),
            ("team/reviewer/CLAUDE.md", "# Reviews\n"),
            ("team/writer/GEMINI.md", "# Writes\n"),
        ] {
            let path = m.workspace.path().join(file);
            std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
            std::fs::write(path, text).expect("write");
        }
        let fake = PathBuf::from(env!("CARGO_BIN_EXE_fake-agent"));
        chatmd_tests::fake_agent::install(&fake, m.tools.path()).expect("install");
        m
    }

    /// `chatmd members team` with the fake's `knobs`; stdout with the folders named.
    fn members(&self, knobs: &[(&str, &str)]) -> String {
        let mut c = Command::new(assert_cmd::cargo::cargo_bin("chatmd"));
        c.args(["members", "team"])
            .current_dir(self.workspace.path())
            .env(
                "PATH",
                format!("{}:/usr/bin:/bin", self.tools.path().display()),
            )
            .env("HOME", self.workspace.path())
            .env("XDG_CONFIG_HOME", self.workspace.path().join("config"))
            .stdin(Stdio::null());
        for (k, v) in knobs {
            c.env(k, v);
        }
        let out = c.output().expect("run chatmd members");
        assert_eq!(out.status.code(), Some(0), "{out:?}");
        String::from_utf8_lossy(&out.stdout)
            .replace(&self.tools.path().display().to_string(), "<tools>")
            .replace(&self.workspace.path().display().to_string(), "<ws>")
    }
}

/// The table's rows of members and what follows them.
fn from_members(table: &str) -> &str {
    &table[table.find("HANDLE").expect("the members")..]
}

#[test]
fn a_cli_newer_than_the_tested_ones_is_a_warning_that_names_them() {
    let m = Machine::new();
    let table = m.members(&[("FAKE_AGENT_VERSION", "2.1.400")]);
    assert_eq!(
        from_members(&table),
        "HANDLE    AGENT   ROLE FILE                WORKDIR        CLI\n\
         reviewer  claude  team/reviewer/CLAUDE.md  team/reviewer  2.1.400 (Claude Code) (<tools>/claude)\n\
         writer    gemini  team/writer/GEMINI.md    team/writer    2.1.400 (<tools>/gemini)\n\
         \n\
         Role files each CLI also loads by itself (parents first):\n  \
           reviewer  team/reviewer/CLAUDE.md\n  \
           writer    team/writer/GEMINI.md\n\
         \n\
         Permission modes:\n  \
           reviewer  default, which refuses what needs approval (set by chatmd: `--permission-mode default`)\n  \
           writer    default, which refuses what needs approval (set by chatmd: `--approval-mode default`)\n\
         \n\
         Problems:\n  \
           warning: <tools>/claude: @reviewer: tested with claude 2.1.197 and 2.1.332; this is \
         2.1.400, newer: what chatmd reads from it may have changed\n  \
           warning: <tools>/gemini: @writer: tested with gemini 0.61.0; this is 2.1.400, newer: \
         what chatmd reads from it may have changed\n"
    );
}

#[test]
fn a_cli_slow_to_say_its_version_still_has_one_and_a_tested_one_no_warning() {
    let m = Machine::new();
    // Over the 3 s chatmd used to wait; gemini took up to 5.4 s on a loaded machine.
    let table = m.members(&[("FAKE_AGENT_DELAY_MS", "4500")]);
    assert_eq!(
        from_members(&table),
        "HANDLE    AGENT   ROLE FILE                WORKDIR        CLI\n\
         reviewer  claude  team/reviewer/CLAUDE.md  team/reviewer  2.1.197 (Claude Code) (<tools>/claude)\n\
         writer    gemini  team/writer/GEMINI.md    team/writer    0.61.0 (<tools>/gemini)\n\
         \n\
         Role files each CLI also loads by itself (parents first):\n  \
           reviewer  team/reviewer/CLAUDE.md\n  \
           writer    team/writer/GEMINI.md\n\
         \n\
         Permission modes:\n  \
           reviewer  default, which refuses what needs approval (set by chatmd: `--permission-mode default`)\n  \
           writer    default, which refuses what needs approval (set by chatmd: `--approval-mode default`)\n\
         \n\
         No problems.\n"
    );
}
