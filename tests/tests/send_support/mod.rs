//! A workspace for running the built `chatmd send` against the fake agents: a git
//! repository with a claude reviewer and a codex tester, the fake installed as `claude`,
//! `codex` and `gemini` first on `PATH`, and the user's config inside the workspace.
#![allow(dead_code)] // each test binary uses a different part

use std::path::PathBuf;
use std::process::{Command, Stdio};

/// Declares `struct Setup(Workspace)`, which derefs to the workspace, for a test file to
/// add its own setup and commands to.
macro_rules! setup_around_workspace {
    ($(#[$doc:meta])*) => {
        $(#[$doc])*
        struct Setup(send_support::Workspace);

        impl std::ops::Deref for Setup {
            type Target = send_support::Workspace;
            fn deref(&self) -> &send_support::Workspace {
                &self.0
            }
        }
    };
}
pub(crate) use setup_around_workspace;

pub struct Workspace {
    pub dir: tempfile::TempDir,
    pub bin: PathBuf,
}

impl Workspace {
    pub fn new() -> Workspace {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join(".git")).unwrap();
        let fake = PathBuf::from(env!("CARGO_BIN_EXE_fake-agent"));
        let bin = chatmd_tests::fake_agent::install(&fake, &dir.path().join("bin")).unwrap();
        let s = Workspace { dir, bin };
        s.write("team/reviewer/CLAUDE.md", "# Reviews Rust code\n");
        s.write("team/tester/AGENTS.md", "# Writes tests\n");
        s
    }

    pub fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    pub fn write(&self, rel: &str, text: &str) {
        let p = self.path(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }

    pub fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.path(rel)).unwrap()
    }

    /// Each line of the JSON Lines file `rel` (a fake agent's record of its runs),
    /// oldest first; none when the file is not there.
    pub fn json_lines(&self, rel: &str) -> Vec<serde_json::Value> {
        std::fs::read_to_string(self.path(rel))
            .unwrap_or_default()
            .lines()
            .map(|l| serde_json::from_str(l).expect("a JSON line"))
            .collect()
    }

    /// Writes a `chatmd.toml` (or any file) the user wrote: it is trusted in the
    /// workspace's user config, so its `args`, `env` and `home` apply.
    pub fn write_trusted(&self, rel: &str, text: &str) {
        self.write(rel, text);
        chatmd::team::UserConfig::with_config_home(&self.path("config"))
            .trust_file(&self.path(rel), text.as_bytes())
            .expect("trust the file");
    }

    /// `chatmd send ARGS` in the workspace with the fake's `knobs`.
    pub fn command(&self, args: &[&str], knobs: &[(&str, &str)]) -> Command {
        let mut c = self.chatmd(&["send"]);
        c.args(args);
        for (k, v) in knobs {
            c.env(k, v);
        }
        c
    }

    /// `chatmd ARGS` as the user of this workspace, from its folder: the fakes first on
    /// `PATH`, `HOME` and the user's config inside the workspace, output captured.
    pub fn chatmd(&self, args: &[&str]) -> Command {
        let mut c = Command::new(assert_cmd::cargo::cargo_bin("chatmd"));
        c.args(args)
            .current_dir(self.dir.path())
            .env("PATH", format!("{}:/usr/bin:/bin", self.bin.display()))
            .env("HOME", self.dir.path())
            .env("XDG_CONFIG_HOME", self.dir.path().join("config"))
            .env("IS_SANDBOX", "")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        c
    }
}
