//! `chatmd init`, run as a user runs it: an empty folder gets a team whose files are
//! shown here whole, `chatmd members` then sees that team with no problem but the
//! missing CLIs, a second `init` changes nothing and says so, `--dry-run` writes
//! nothing, a file that exists is never overwritten, a bad `--member` is exit 2 with
//! what is wrong, on a terminal `init` asks who is on the team, and `--home` gives
//! members homes that apply at once and git ignores.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use pretty_assertions::assert_eq;

/// A scratch machine: a home with no agent logins and a `PATH` with no agent CLI.
struct Machine {
    dir: tempfile::TempDir,
}

impl Machine {
    fn new() -> Machine {
        Machine {
            dir: tempfile::tempdir().expect("temp dir"),
        }
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    /// `chatmd ARGS` from the machine's folder, with no terminal.
    fn command(&self, args: &[&str]) -> Command {
        let mut c = Command::new(assert_cmd::cargo::cargo_bin("chatmd"));
        c.args(args)
            .current_dir(self.dir.path())
            .env("PATH", "/usr/bin:/bin")
            .env("HOME", self.dir.path())
            .env("XDG_CONFIG_HOME", self.path("config"))
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        for key in [
            "ANTHROPIC_API_KEY",
            "CODEX_API_KEY",
            "OPENAI_API_KEY",
            "CODEX_HOME",
            "GEMINI_API_KEY",
            "GOOGLE_API_KEY",
        ] {
            c.env_remove(key);
        }
        c
    }

    fn run(&self, args: &[&str]) -> Output {
        self.command(args).output().expect("run chatmd")
    }
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Every file under `dir`, sorted, as `== path ==` and its content.
fn files(dir: &Path) -> String {
    let mut paths = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).expect("read dir") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                stack.push(path);
            } else {
                paths.push(path);
            }
        }
    }
    paths.sort();
    paths
        .iter()
        .map(|p| {
            let rel = p.strip_prefix(dir).expect("under dir").display();
            format!("== {rel} ==\n{}", std::fs::read_to_string(p).expect("read"))
        })
        .collect()
}

const CLIS: &str = "\nThe agent CLIs on this machine:
  @reviewer  `claude` is not installed: `npm install -g @anthropic-ai/claude-code`, then log in: run `claude` and type `/login`
  @tester    `codex` is not installed: `npm install -g @openai/codex`, then log in: `codex login`
  @writer    `gemini` is not installed: `npm install -g @google/gemini-cli`, then log in: run `gemini` and pick a login method
";

#[test]
fn an_empty_folder_gets_a_team_that_members_shows_and_a_second_init_keeps() {
    let m = Machine::new();
    std::fs::create_dir_all(m.path("proj")).expect("mkdir");

    let out = m.run(&["init", "proj"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stderr), "");
    assert_eq!(
        text(&out.stdout),
        format!(
            "Made the team in proj:
  created  reviewer/CLAUDE.md   @reviewer's role; @reviewer runs Claude Code (`claude`)
  created  tester/AGENTS.md     @tester's role; @tester runs Codex (`codex`)
  created  writer/GEMINI.md     @writer's role; @writer runs Gemini CLI (`gemini`)
  created  team_instruction.md  what every member is told
  created  chatmd.toml          every member works in this folder
  created  first.chat.md        your first chat
  created  .gitignore           keeps member homes and CLI state out of git
{CLIS}
Next: `chatmd members proj` shows the team; `chatmd send proj/first.chat.md` (or Send in your editor) asks it.
"
        )
    );
    let written = files(&m.path("proj"));
    insta::assert_snapshot!("init_default_team", written);

    // The team as chatmd sees it: no problem but the CLIs this machine lacks.
    let members = m.run(&["members", "proj"]);
    assert_eq!(members.status.code(), Some(0), "{}", text(&members.stderr));
    let shown = text(&members.stdout);
    let table = shown
        .split_once("\n\n")
        .map(|(_, rest)| rest)
        .expect("a header, then the table");
    assert_eq!(
        table,
        "HANDLE    AGENT   ROLE FILE           WORKDIR  CLI
reviewer  claude  reviewer/CLAUDE.md  .        not installed — npm install -g @anthropic-ai/claude-code
tester    codex   tester/AGENTS.md    .        not installed — npm install -g @openai/codex
writer    gemini  writer/GEMINI.md    .        not installed — npm install -g @google/gemini-cli

Role files each CLI also loads by itself (parents first):
  reviewer  nothing
  tester    nothing
  writer    nothing

Permission modes:
  reviewer  default, which refuses what needs approval (set by chatmd: `--permission-mode default`)
  tester    read-only, which runs nothing outside a read-only sandbox (set by chatmd: `--sandbox read-only`)
  writer    default, which refuses what needs approval (set by chatmd: `--approval-mode default`)

No problems.
"
    );

    // Again: nothing changes, and it says so.
    let again = m.run(&["init", "proj"]);
    assert_eq!(again.status.code(), Some(0), "{}", text(&again.stderr));
    assert_eq!(
        text(&again.stdout),
        format!(
            "The team in proj is already set up: nothing written (init never overwrites a file).
  kept     reviewer/CLAUDE.md   exists
  kept     tester/AGENTS.md     exists
  kept     writer/GEMINI.md     exists
  kept     team_instruction.md  exists
  kept     chatmd.toml          exists
  kept     first.chat.md        exists
  kept     .gitignore           has the ignore rules
{CLIS}
Next: `chatmd members proj` shows the team; `chatmd send proj/first.chat.md` (or Send in your editor) asks it.
"
        )
    );
    assert_eq!(files(&m.path("proj")), written);
}

#[test]
fn dry_run_shows_the_files_and_writes_nothing() {
    let m = Machine::new();
    let out = m.run(&["init", "new", "--dry-run", "--member", "ops=acp:goose"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        !m.path("new").exists(),
        "nothing is made, not even the folder"
    );
    let said = text(&out.stdout);
    assert!(
        said.starts_with(
            "Would make the team in new (--dry-run: nothing written):
  would create  ops/AGENTS.md        @ops's role; @ops runs `goose` over ACP
"
        ),
        "{said}"
    );
    assert!(
        said.contains(
            "\nchatmd.toml:
    # chatmd settings for this team (see docs/teams.md in chatmd). Every member works in
    # this folder, the project, rather than in its own folder. A member's `home` (a
    # folder of its own for its CLI's login, sessions and settings) is ignored by git
    # under .state/; it applies once you trust this file (`chatmd trust`). Each member
    # continues its CLI's own session from turn to turn; `resume = false` in its table
    # makes every turn a new session given the whole chat.

    [members.ops]
    agent = \"acp\"
    preset = \"goose\"
    workdir = \".\"
"
        ),
        "{said}"
    );
    assert!(
        said.contains(
            "\n\nThe agent CLIs on this machine:\n  @ops  `goose` is not installed: `curl "
        ),
        "{said}"
    );
}

#[test]
fn a_file_that_exists_is_kept_and_missing_ignore_rules_are_added() {
    let m = Machine::new();
    std::fs::create_dir_all(m.path("p/reviewer")).expect("mkdir");
    std::fs::write(m.path("p/reviewer/AGENTS.md"), "my own role\n").expect("write");
    std::fs::write(m.path("p/first.chat.md"), "## @me\nmine\n").expect("write");
    std::fs::write(m.path("p/.gitignore"), "/target").expect("write");

    let out = m.run(&["init", "p", "--member", "reviewer=claude"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let said = text(&out.stdout);
    assert!(
        said.starts_with(
            "Made the team in p:
  kept     reviewer/CLAUDE.md   its folder already has a role file
  created  team_instruction.md  what every member is told
  created  chatmd.toml          every member works in this folder
  kept     first.chat.md        exists
  added    .gitignore           the ignore rules it lacked
"
        ),
        "{said}"
    );
    assert_eq!(
        std::fs::read_to_string(m.path("p/reviewer/AGENTS.md")).expect("read"),
        "my own role\n"
    );
    assert!(!m.path("p/reviewer/CLAUDE.md").exists());
    assert_eq!(
        std::fs::read_to_string(m.path("p/first.chat.md")).expect("read"),
        "## @me\nmine\n"
    );
    assert_eq!(
        std::fs::read_to_string(m.path("p/.gitignore")).expect("read"),
        "/target\n\n# chatmd: member homes (a CLI's login and sessions) and CLI state\n\
         /.state/\n.claude/settings.local.json\nCLAUDE.local.md\n"
    );
}

#[test]
fn a_bad_member_is_exit_2_with_what_is_wrong() {
    let m = Machine::new();
    for (member, message) in [
        (
            "tester=cdex",
            "chatmd init: error: --member `cdex` (for @tester) is not an agent: use claude, \
             codex, gemini or acp:<preset>\n",
        ),
        (
            "reviewer",
            "chatmd init: error: --member `reviewer` is not HANDLE=AGENT (for example \
             `reviewer=claude`)\n",
        ),
        (
            "re/viewer=claude",
            "chatmd init: error: --member `re/viewer` is not a handle: a handle starts with a \
             letter or digit and holds only letters, digits, `_`, `.` and `-`\n",
        ),
    ] {
        let out = m.run(&["init", "t", "--member", member]);
        assert_eq!(out.status.code(), Some(2), "{member}");
        assert_eq!(text(&out.stderr), message);
        assert_eq!(text(&out.stdout), "");
        assert!(!m.path("t").exists(), "nothing made for {member}");
    }
    std::fs::write(m.path("file"), "").expect("write");
    let out = m.run(&["init", "file"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        text(&out.stderr),
        "chatmd init: error: file is not a folder; give a folder for the team (it is made when \
         missing)\n"
    );
}

#[test]
fn on_a_terminal_init_asks_who_is_on_the_team() {
    let m = Machine::new();
    let pty = nix::pty::openpty(None, None).expect("a pseudo-terminal");
    let stdout = m.path("init.stdout");
    let mut child = m
        .command(&["init", "asked"])
        .stdin(Stdio::from(pty.slave))
        .stdout(std::fs::File::create(&stdout).expect("stdout file"))
        .spawn()
        .expect("run chatmd init");
    // A mistake first: asked again, then a team of two.
    let mut keyboard = std::fs::File::from(pty.master);
    keyboard
        .write_all(b"bob=cladue\nbob=claude ann=gemini\n")
        .expect("type");
    let status = chatmd_tests::wait_or_kill(&mut child, Duration::from_secs(60))
        .expect("chatmd init ends within a minute");
    let said = std::fs::read_to_string(&stdout).expect("stdout");
    assert_eq!(status.code(), Some(0), "{said}");
    assert!(
        said.starts_with(
            "Who is on the team? Type handle=agent words, agent one of claude, codex, gemini or \
             acp:<preset>\n(for example `reviewer=claude tester=codex`); Enter alone for \
             reviewer=claude tester=codex writer=gemini.\nmembers> `cladue` (for @bob) is not \
             an agent: use claude, codex, gemini or acp:<preset>\nmembers> Made the team in \
             asked:\n"
        ),
        "{said}"
    );
    assert!(m.path("asked/bob/CLAUDE.md").is_file());
    assert!(m.path("asked/ann/GEMINI.md").is_file());
    assert_eq!(
        std::fs::read_to_string(m.path("asked/first.chat.md")).expect("read"),
        "---\ntitle: First chat\nmembers: [bob, ann]\n---\n\n## @me\n@bob what does this \
         project do, and what would you look at first?\n"
    );
}

#[test]
fn with_home_each_member_gets_a_home_that_applies_at_once_and_git_ignores() {
    let m = Machine::new();
    let repo = m.path("repo");
    std::fs::create_dir_all(&repo).expect("mkdir");
    let git = Command::new("git")
        .args(["init", "-q"])
        .arg(&repo)
        .status()
        .expect("run git");
    assert!(git.success());

    let out = m.run(&[
        "init",
        "repo",
        "--home",
        "--member",
        "reviewer=claude",
        "--member",
        "tester=codex",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let said = text(&out.stdout);
    let homes = m
        .dir
        .path()
        .canonicalize()
        .expect("real path")
        .join("repo/.state");
    let config = homes.parent().expect("repo").join("chatmd.toml");
    assert!(
        said.contains(&format!(
            "  created  chatmd.toml          every member works in this folder, with a home of its own
  created  first.chat.md        your first chat
  created  .gitignore           keeps member homes and CLI state out of git

Trusted chatmd.toml (its `home` settings apply only in a trusted file; `chatmd trust --revoke {}` takes it back). A change to it needs `chatmd trust` again.

The agent CLIs on this machine:
  @reviewer  `claude` is not installed: `npm install -g @anthropic-ai/claude-code`, then log in: run `CLAUDE_CONFIG_DIR={} claude` and type `/login`
  @tester    `codex` is not installed: `npm install -g @openai/codex`, then log in: `CODEX_HOME={} codex login`
",
            config.display(),
            homes.join("reviewer").display(),
            homes.join("tester").display()
        )),
        "{said}"
    );
    assert_eq!(
        std::fs::read_to_string(m.path("repo/chatmd.toml")).expect("read"),
        "# chatmd settings for this team (see docs/teams.md in chatmd). Every member works in
# this folder, the project, rather than in its own folder. A member's `home` (a
# folder of its own for its CLI's login, sessions and settings) is ignored by git
# under .state/; it applies once you trust this file (`chatmd trust`). Each member
# continues its CLI's own session from turn to turn; `resume = false` in its table
# makes every turn a new session given the whole chat.

[members.reviewer]
workdir = \".\"
home = \".state/reviewer\"

[members.tester]
workdir = \".\"
home = \".state/tester\"
"
    );
    assert!(homes.join("reviewer").is_dir() && homes.join("tester").is_dir());

    // The homes apply (no trust warning) and git ignores them (no warning either).
    let members = m.run(&["members", "repo", "--json"]);
    let report: serde_json::Value = serde_json::from_slice(&members.stdout).expect("JSON");
    assert_eq!(report["problems"], serde_json::json!([]), "{report}");
    let home_of = |i: usize| report["members"][i]["home"].as_str().map(str::to_owned);
    assert_eq!(
        (home_of(0), home_of(1)),
        (
            Some(homes.join("reviewer").display().to_string()),
            Some(homes.join("tester").display().to_string())
        )
    );

    // Again: the file is kept, and trusted as it was; nothing is said about trust.
    let again = m.run(&["init", "repo", "--home"]);
    assert_eq!(again.status.code(), Some(0));
    assert!(!text(&again.stdout).contains("Trusted"));
}

/// `chatmd init team` from a project folder that is not a repository: the workspace is
/// that folder, as for `chatmd send` run there (team/place.rs), so a `claude` in the
/// project's own `bin` on PATH is not run to read its version (it once was: init took
/// the team folder as the workspace).
#[test]
fn without_a_repository_a_cli_in_the_folder_init_runs_in_is_not_run() {
    let m = Machine::new();
    let bin = m.path("bin");
    std::fs::create_dir_all(&bin).expect("mkdir");
    let claude = bin.join("claude");
    std::fs::write(
        &claude,
        "#!/bin/sh\ntouch \"$(dirname \"$0\")/../probed\"\necho '2.1.0 (Claude Code)'\n",
    )
    .expect("write");
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&claude, std::fs::Permissions::from_mode(0o755)).expect("chmod");

    let out = m
        .command(&["init", "team", "--member", "reviewer=claude"])
        .env("PATH", format!("{}:/usr/bin:/bin", bin.display()))
        .output()
        .expect("run chatmd");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stderr), "");
    let said = text(&out.stdout);
    let root = m.dir.path().canonicalize().expect("real path");
    assert!(
        said.contains(&format!(
            "\nThe agent CLIs on this machine:
  @reviewer  `claude` not run to read its version: it is inside the workspace {} ({}); login unknown (chatmd cannot tell without running it); if a turn says it is not logged in, log in: run `claude` and type `/login`
\n",
            root.display(),
            claude.display()
        )),
        "{said}"
    );
    assert!(!m.path("probed").exists(), "the workspace's claude ran");
    assert!(m.path("team/chatmd.toml").is_file());
}
