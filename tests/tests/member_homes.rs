//! A member's `home` holds its CLI's transcripts and maybe its login: `chatmd members`
//! warns when git would commit it. And chatmd never writes a credential into a chat.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use pretty_assertions::assert_eq;

struct Setup {
    dir: tempfile::TempDir,
    bin: PathBuf,
}

impl Setup {
    /// A git repository with a team: a claude reviewer whose `home` is `.state/reviewer`
    /// and whose `env` holds a token, and the fake agent installed as `claude`.
    fn new() -> Setup {
        let dir = tempfile::tempdir().unwrap();
        let git = Command::new("git")
            .args(["init", "-q"])
            .current_dir(dir.path())
            .status()
            .expect("these tests need git");
        assert!(git.success());
        let fake = PathBuf::from(env!("CARGO_BIN_EXE_fake-agent"));
        let bin = chatmd_tests::fake_agent::install(&fake, &dir.path().join("bin")).unwrap();
        let s = Setup { dir, bin };
        s.write("team/reviewer/CLAUDE.md", "# Reviews Rust code\n");
        s.write(
            "team/chatmd.toml",
            "[members.reviewer]\nhome = \".state/reviewer\"\nenv = { SERVICE_TOKEN = \"tok-0123456789abcdef\" }\n",
        );
        std::fs::create_dir_all(s.path("team/.state/reviewer")).unwrap();
        // The user wrote it: its `home` and `env` apply.
        let config = s.path("team/chatmd.toml");
        chatmd::team::UserConfig::with_config_home(&s.path("config"))
            .trust_file(&config, &std::fs::read(&config).unwrap())
            .expect("trust chatmd.toml");
        s
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    fn write(&self, rel: &str, text: &str) {
        let p = self.path(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }

    fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.path(rel)).unwrap()
    }

    /// `chatmd <args>` with `path` as its whole search path.
    fn chatmd(&self, args: &[&str], path: &str, knobs: &[(&str, &str)]) -> Output {
        let mut c = Command::new(assert_cmd::cargo::cargo_bin("chatmd"));
        c.args(args)
            .current_dir(self.dir.path())
            .env("PATH", path)
            .env("HOME", self.dir.path())
            .env("XDG_CONFIG_HOME", self.dir.path().join("config"))
            .env("IS_SANDBOX", "")
            .stdin(Stdio::null());
        for (k, v) in knobs {
            c.env(k, v);
        }
        c.output().expect("run chatmd")
    }

    /// The fake CLIs, then the system's programs (git among them).
    fn full_path(&self) -> String {
        format!("{}:/usr/local/bin:/usr/bin:/bin", self.bin.display())
    }

    fn problems(&self, path: &str) -> String {
        let out = self.chatmd(&["members", "team"], path, &[]);
        assert_eq!(out.status.code(), Some(0));
        let table = String::from_utf8(out.stdout).unwrap();
        table[table.rfind("\n\n").unwrap() + 2..].to_string()
    }
}

#[test]
fn a_home_git_would_commit_is_a_warning_until_it_is_ignored() {
    let s = Setup::new();
    assert_eq!(
        s.problems(&s.full_path()),
        "Problems:\n  warning: team/.state/reviewer: @reviewer's home is inside the git work tree and git does not ignore it: the CLI keeps its session transcripts there, and its login once you log in there; add `/team/.state/reviewer/` to .gitignore\n"
    );
    s.write(".gitignore", ".state/\n");
    assert_eq!(s.problems(&s.full_path()), "No problems.\n");
}

#[test]
fn without_git_the_warning_says_it_could_not_check() {
    let s = Setup::new();
    s.write(".gitignore", ".state/\n");
    // Only the fake CLIs: no git.
    let only_fakes = s.bin.display().to_string();
    assert!(!Path::new(&only_fakes).join("git").exists());
    assert_eq!(
        s.problems(&only_fakes),
        "Problems:\n  warning: team/.state/reviewer: @reviewer's home is inside the repository and git is not installed to check that it is ignored: the CLI keeps its session transcripts there, and its login once you log in there; make sure .gitignore lists `/team/.state/reviewer/`\n"
    );
}

#[test]
fn outside_a_git_work_tree_a_home_is_no_concern() {
    let s = Setup::new();
    std::fs::remove_dir_all(s.path(".git")).unwrap();
    assert_eq!(s.problems(&s.full_path()), "No problems.\n");
}

#[test]
fn credentials_never_reach_the_chat() {
    let s = Setup::new();
    s.write("team/c.chat.md", "## @me\n@reviewer hi\n");
    // The CLI fails at once and its error quotes the member's token and the API key
    // it inherited from chatmd's environment.
    let out = s.chatmd(
        &["send", "team/c.chat.md"],
        &s.full_path(),
        &[
            ("ANTHROPIC_API_KEY", "sk-ant-api03-0123456789"),
            (
                "FAKE_AGENT_STDERR",
                "error: token tok-0123456789abcdef refused for key sk-ant-api03-0123456789",
            ),
            ("FAKE_AGENT_CRASH_AT", "0"),
        ],
    );
    assert_eq!(out.status.code(), Some(1));
    let chat = s.read("team/c.chat.md");
    let everything = format!(
        "{chat}{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    for secret in ["tok-0123456789abcdef", "sk-ant-api03-0123456789"] {
        assert!(
            !everything.contains(secret),
            "{secret} leaked: {everything}"
        );
    }
    assert!(
        chat.contains(" error=\"error: token <redacted> refused for key <redacted>\" -->\n"),
        "{chat}"
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "chatmd send: error: @reviewer: error: token <redacted> refused for key <redacted>\n@reviewer: error\n"
    );
}
