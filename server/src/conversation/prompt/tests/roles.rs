//! Each member gets its role exactly once: from its own CLI when that CLI loads the
//! role file from the workdir or above, else in `[SYSTEM]`. Real folders in temp dirs.

use super::*;
use crate::team::{UserTrust, load_team_with};

struct Workspace {
    dir: tempfile::TempDir,
    /// Where `work` links point: a repository outside the workspace.
    outside: tempfile::TempDir,
}

impl Workspace {
    /// A team `t` in a workspace with `.git`:
    /// alice (claude, CLAUDE.md), bob (codex, AGENTS.md, with instructions),
    /// carol (claude, CLAUDE.md, workdir a `work` link to a repository elsewhere),
    /// dave (AGENTS.md but `agent = "claude"`), john (gemini, GEMINI.md),
    /// olga (AGENTS.md and AGENTS.override.md), pat (chatmd.toml only, no role file).
    fn create() -> Workspace {
        let ws = Workspace {
            dir: tempfile::tempdir().expect("temp dir"),
            outside: tempfile::tempdir().expect("temp dir"),
        };
        fs::create_dir_all(ws.root().join(".git")).expect("mkdir");
        ws.write(
            "t/team_instruction.md",
            "Team rule: small, reviewed changes.\n",
        );
        ws.write("t/alice/CLAUDE.md", "# Alice\nReviews security.\n");
        ws.write("t/bob/AGENTS.md", "# Bob\nWrites tests.\n");
        ws.write(
            "t/carol/CLAUDE.md",
            "# Carol\nKeeps the billing repo tidy.\n",
        );
        ws.write(
            "t/dave/AGENTS.md",
            "# Dave\nA codex role file, run by claude.\n",
        );
        ws.write("t/john/GEMINI.md", "# John\nWrites the docs.\n");
        ws.write("t/olga/AGENTS.md", "# Olga\nHidden by the override.\n");
        ws.write("t/olga/AGENTS.override.md", "# Override\n");
        ws.write(
            "t/chatmd.toml",
            "[members.bob]\ninstructions = \"Run the tests before you answer.\"\n\n\
             [members.dave]\nagent = \"claude\"\n\n\
             [members.pat]\nagent = \"codex\"\ninstructions = \"You are Pat, defined in chatmd.toml.\"\n",
        );
        let repo = ws.outside.path().join("billing");
        fs::create_dir_all(repo.join(".git")).expect("mkdir");
        std::os::unix::fs::symlink(&repo, ws.root().join("t/carol/work")).expect("symlink");
        ws
    }

    fn root(&self) -> &Path {
        self.dir.path()
    }

    fn write(&self, relative: &str, contents: &str) {
        let path = self.root().join(relative);
        fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        fs::write(path, contents).expect("write");
    }

    /// The team as a user who made carol's `work` link sees it.
    fn team(&self) -> Team {
        let work = self.root().join("t/carol/work");
        load_team_with(
            self.root(),
            &self.root().join("t"),
            &UserTrust::with_links(&[&work]),
        )
    }
}

#[test]
fn role_loaded_by_cli_follows_what_each_cli_reads() {
    let ws = Workspace::create();
    let team = ws.team();
    let loaded = |handle: &str| role_loaded_by_cli(team.member(handle).expect(handle), ws.root());
    assert!(loaded("alice"), "claude reads CLAUDE.md in its workdir");
    assert!(loaded("bob"), "codex reads AGENTS.md in its workdir");
    assert!(loaded("john"), "gemini reads GEMINI.md in its workdir");
    assert!(
        !loaded("carol"),
        "claude runs in the linked repository, away from CLAUDE.md"
    );
    assert!(!loaded("dave"), "claude does not read AGENTS.md");
    assert!(!loaded("olga"), "codex reads AGENTS.override.md instead");
    assert!(!loaded("pat"), "no role file at all");
}

#[test]
fn each_member_gets_its_role_exactly_once() {
    let ws = Workspace::create();
    let team = ws.team();
    let text = "## @me\n@alice @bob @carol @dave @john what do you each see?\n";
    let chat = Chat::parse(text);
    let roster = Roster::new(&team, chat.front_matter.as_ref());
    let mut out = String::new();
    for handle in ["alice", "bob", "carol", "dave", "john", "olga", "pat"] {
        let member = team.member(handle).expect(handle);
        let request = PromptRequest {
            text,
            chat: &chat,
            roster: &roster,
            member,
            message: 0,
            role_loaded_by_cli: role_loaded_by_cli(member, ws.root()),
            since: None,
            attached: "",
            correction: "",
            instructions_again: false,
        };
        let prompt = build_prompt(&request).expect("prompt");
        let role_file = member.role_file.as_ref().and_then(|f| f.file_name());
        let role_file = role_file.map_or("none".into(), |f| f.to_string_lossy());
        out.push_str(&format!(
            "===== @{handle}: agent {}, role file {role_file}, loaded by its CLI: {}\n{}\n",
            member.agent,
            request.role_loaded_by_cli,
            prompt.inline()
        ));
    }
    insta::assert_snapshot!(out);
}
