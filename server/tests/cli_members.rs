//! `chatmd members` as a user runs it: the built binary on a real team folder, with a
//! fake `claude` on PATH, asserting the exact table, the exact JSON and the exit codes.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use assert_cmd::cargo_bin_cmd;
use pretty_assertions::assert_eq;

struct Setup {
    ws: tempfile::TempDir,
    tools: tempfile::TempDir,
    /// The user's config home, which trusts the team's chatmd.toml.
    config: tempfile::TempDir,
}

impl Setup {
    /// A repository with a team of three and a chat pointing at it; PATH holds only a
    /// fake `claude`.
    fn create() -> Setup {
        let setup = Setup {
            ws: tempfile::tempdir().expect("temp dir"),
            tools: tempfile::tempdir().expect("temp dir"),
            config: tempfile::tempdir().expect("temp dir"),
        };
        setup.write(".git/HEAD", "ref: refs/heads/main\n");
        setup.write("AGENTS.md", "# Project rules\n");
        setup.write("Team_A/alice/CLAUDE.md", "# Alice reviews\n");
        setup.write("Team_A/bob/AGENTS.md", "## Bob writes billing code\n");
        setup.write("Team_A/john/GEMINI.md", "John documents.\n");
        setup.write("Team_A/team_instruction.md", "Ship on Fridays.\n");
        let config = setup.write(
            "Team_A/chatmd.toml",
            "human = \"lead\"\n\n[members.bob]\nargs = [\"--model\", \"o3\", \"-s\", \"workspace-write\"]\nenv = { TOKEN = \"secret\" }\ntimeout = 0\n",
        );
        // The user wrote it: its `args` and `env` apply.
        chatmd::team::UserConfig::with_config_home(setup.config.path())
            .trust_file(&config, &fs::read(&config).expect("read"))
            .expect("trust");
        setup.write(
            "chats/standup.chat.md",
            "---\nteam: ../Team_A\n---\n## @lead\nhi\n",
        );
        setup.script(
            &setup.tools.path().join("claude"),
            "echo '2.1.197 (Claude Code)'",
        );
        setup
    }

    fn root(&self) -> PathBuf {
        self.ws.path().canonicalize().expect("canonical")
    }

    fn tools(&self) -> PathBuf {
        self.tools.path().canonicalize().expect("canonical")
    }

    fn write(&self, relative: &str, text: &str) -> PathBuf {
        let path = self.ws.path().join(relative);
        fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        fs::write(&path, text).expect("write");
        path
    }

    fn script(&self, path: &Path, body: &str) {
        fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        fs::write(path, format!("#!/bin/sh\n{body}\n")).expect("write");
        fs::set_permissions(path, fs::Permissions::from_mode(0o755)).expect("chmod");
    }

    /// Runs `chatmd <args>` in the workspace with PATH = the tools folder.
    fn run(&self, args: &[&str]) -> (i32, String, String) {
        self.run_in(self.ws.path(), &self.tools(), args)
    }

    fn run_in(&self, dir: &Path, path: &Path, args: &[&str]) -> (i32, String, String) {
        let output = cargo_bin_cmd!("chatmd")
            .args(args)
            .current_dir(dir)
            .env("PATH", path)
            .env("XDG_CONFIG_HOME", self.config.path())
            .env_remove("CHATMD_LOG")
            .env_remove("RUST_LOG")
            .output()
            .expect("run chatmd");
        let clean = |bytes: &[u8]| {
            String::from_utf8_lossy(bytes)
                .replace(&self.root().display().to_string(), "<ws>")
                .replace(&self.tools().display().to_string(), "<tools>")
        };
        (
            output.status.code().unwrap_or(-1),
            clean(&output.stdout),
            clean(&output.stderr),
        )
    }
}

const TABLE: &str = "\
workspace         <ws>
team              Team_A
human             lead
team instruction  Team_A/team_instruction.md

HANDLE  AGENT   ROLE FILE               WORKDIR       CLI
bob     codex   Team_A/bob/AGENTS.md    Team_A/bob    not installed — npm install -g @openai/codex
alice   claude  Team_A/alice/CLAUDE.md  Team_A/alice  2.1.197 (Claude Code) (<tools>/claude)
john    gemini  Team_A/john/GEMINI.md   Team_A/john   not installed — npm install -g @google/gemini-cli

Role files each CLI also loads by itself (parents first):
  bob    AGENTS.md, Team_A/bob/AGENTS.md
  alice  Team_A/alice/CLAUDE.md
  john   Team_A/john/GEMINI.md

Permission modes:
  bob    `-s workspace-write` (its `args`)
  alice  default, which refuses what needs approval (set by chatmd: `--permission-mode default`)
  john   default, which refuses what needs approval (set by chatmd: `--approval-mode default`)

Problems:
  error: Team_A/chatmd.toml:6:11: `timeout` must be a number of seconds greater than 0 (fractions allowed), like 600 or 2.5
";

#[test]
fn members_prints_the_team_as_a_table() {
    let setup = Setup::create();
    assert_eq!(
        setup.run(&["members", "Team_A"]),
        (0, TABLE.to_owned(), String::new())
    );
}

#[test]
fn members_defaults_to_the_current_folder() {
    let setup = Setup::create();
    let (code, stdout, stderr) =
        setup.run_in(&setup.root().join("Team_A"), &setup.tools(), &["members"]);
    assert_eq!((code, stdout, stderr), (0, TABLE.to_owned(), String::new()));
}

#[test]
fn members_of_a_chat_follow_its_front_matter_and_print_json() {
    let setup = Setup::create();
    // The exact JSON, byte for byte, as `chatmd members --json` prints it.
    let expected = include_str!("fixtures/members/standup.json");
    assert_eq!(
        setup.run(&["members", "chats/standup.chat.md", "--json"]),
        (0, expected.to_owned(), String::new())
    );
}

#[test]
fn a_cli_shipped_inside_the_workspace_is_never_run() {
    let setup = Setup::create();
    let marker = setup.root().join("ran");
    let bin = setup.root().join("node_modules/.bin");
    setup.script(
        &bin.join("gemini"),
        &format!("touch '{}'\necho 6.6.6", marker.display()),
    );
    let (code, stdout, _) = setup.run_in(setup.ws.path(), &bin, &["members", "Team_A"]);
    assert_eq!(code, 0);
    assert!(
        stdout.contains(
            "john    gemini  Team_A/john/GEMINI.md   Team_A/john   version not checked: \
             chatmd never runs a program inside the workspace on its own \
             (<ws>/node_modules/.bin/gemini)\n"
        ),
        "{stdout}"
    );
    assert!(!marker.exists(), "the workspace's program ran");
}

#[test]
fn an_empty_folder_says_how_to_make_members() {
    let setup = Setup::create();
    fs::create_dir(setup.root().join("empty")).expect("mkdir");
    assert_eq!(
        setup.run(&["members", "empty"]),
        (
            0,
            "workspace         <ws>\nteam              empty\nhuman             me\n\
             team instruction  none\n\nNo members: add a folder holding CLAUDE.md, AGENTS.md \
             or GEMINI.md to the team folder.\n\nNo problems.\n"
                .to_owned(),
            String::new()
        )
    );
}

#[test]
fn bad_paths_exit_2_with_a_message() {
    let setup = Setup::create();
    setup.write("notes.md", "# not a chat\n");
    setup.write("escape.chat.md", "---\nteam: ../..\n---\n");
    let parent = setup.root().parent().expect("parent").display().to_string();

    assert_eq!(
        setup.run(&["members", "missing"]),
        (
            2,
            String::new(),
            "chatmd members: cannot read missing: No such file or directory (os error 2)\n"
                .to_owned()
        )
    );
    assert_eq!(
        setup.run(&["members", "notes.md"]),
        (
            2,
            String::new(),
            "chatmd members: <ws>/notes.md is neither a folder nor a .chat.md file; give a team \
             folder or a chat\n"
                .to_owned()
        )
    );
    let (code, stdout, stderr) = setup.run(&["members", "escape.chat.md"]);
    let outside = Path::new(&parent)
        .parent()
        .expect("grandparent")
        .display()
        .to_string();
    assert_eq!(
        (code, stdout, stderr),
        (
            2,
            String::new(),
            format!(
                "chatmd members: the team of <ws>/escape.chat.md cannot be used: `{outside}` is \
                 outside the workspace <ws>; use a path inside the workspace\n"
            )
        )
    );
}

#[test]
fn version_help_and_usage_errors() {
    let setup = Setup::create();
    assert_eq!(
        setup.run(&["--version"]),
        (
            0,
            format!("chatmd {}\n", env!("CARGO_PKG_VERSION")),
            String::new()
        )
    );
    let (code, stdout, _) = setup.run(&["--help"]);
    assert_eq!(code, 0);
    assert!(
        stdout.contains("members") && stdout.contains("lsp"),
        "{stdout}"
    );
    let (code, stdout, stderr) = setup.run(&[]);
    assert_eq!((code, stdout.is_empty()), (2, true));
    assert!(stderr.contains("Usage: chatmd <COMMAND>"), "{stderr}");
    let (code, _, stderr) = setup.run(&["members", "--jsn"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("unexpected argument '--jsn'"), "{stderr}");
}
