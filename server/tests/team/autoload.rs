//! `role_files_loaded`: what each CLI reads by itself, parents included.

use std::fs;

use chatmd::agents::role_files_loaded;
use pretty_assertions::assert_eq;

use crate::{Workspace, outside};

#[test]
fn parent_role_files_leak_into_every_member_of_their_kind() {
    let ws = Workspace::create();
    ws.files(&[
        ("AGENTS.md", "project rules for codex"),
        ("CLAUDE.md", "project rules for claude"),
        ("GEMINI.md", "project rules for gemini"),
        ("teams/AGENTS.md", "teams folder, replaced by the override"),
        ("teams/AGENTS.override.md", "teams override"),
        ("teams/t/alice/CLAUDE.md", "alice"),
        ("teams/t/alice/CLAUDE.local.md", "alice, local"),
        ("teams/t/bob/AGENTS.md", "bob"),
        ("teams/t/john/GEMINI.md", "john"),
        ("teams/t/olga/AGENTS.md", "olga"),
        ("teams/t/ivan/GEMINI.md", "ivan"),
        (
            "teams/t/chatmd.toml",
            "[members.olga]\nagent = \"acp\"\npreset = \"goose\"\n\
             [members.ivan]\nagent = \"acp\"\npreset = \"gemini\"\n",
        ),
    ]);

    let team = ws.load("teams/t");
    let loaded = |handle: &str| -> Vec<String> {
        let member = team.member(handle).expect("member");
        role_files_loaded(member, ws.root())
            .iter()
            .map(|f| ws.show(f))
            .collect()
    };

    assert_eq!(
        loaded("alice"),
        vec![
            "CLAUDE.md",
            "teams/t/alice/CLAUDE.md",
            "teams/t/alice/CLAUDE.local.md"
        ]
    );
    assert_eq!(
        loaded("bob"),
        vec![
            "AGENTS.md",
            "teams/AGENTS.override.md",
            "teams/t/bob/AGENTS.md"
        ]
    );
    assert_eq!(loaded("john"), vec!["GEMINI.md", "teams/t/john/GEMINI.md"]);
    // Not a built-in kind: chatmd knows of no file it loads.
    assert_eq!(loaded("olga"), Vec::<String>::new());
    // `gemini --acp` is gemini: it loads what `gemini -p` loads.
    assert_eq!(loaded("ivan"), vec!["GEMINI.md", "teams/t/ivan/GEMINI.md"]);
}

#[test]
fn a_work_link_moves_the_walk_to_where_the_workdir_really_is() {
    let ws = Workspace::create();
    ws.write("AGENTS.md", "project rules");
    ws.write("t/bob/AGENTS.md", "bob");
    let elsewhere = outside();
    let repo = elsewhere.path().join("billing");
    fs::create_dir_all(repo.join(".git")).expect("mkdir");
    fs::create_dir_all(repo.join("src")).expect("mkdir");
    fs::write(repo.join("AGENTS.md"), "billing rules").expect("write");
    fs::write(repo.join("src/AGENTS.md"), "src rules").expect("write");
    fs::write(elsewhere.path().join("AGENTS.md"), "above the repo").expect("write");
    ws.symlink(repo.join("src"), "t/bob/work");
    ws.accept("t/bob/work");

    let team = ws.load("t");
    let bob = team.member("bob").expect("bob");

    // bob/AGENTS.md is not on the walk: the prompt must carry bob's role itself.
    let real = repo.canonicalize().expect("canonical");
    assert_eq!(
        role_files_loaded(bob, ws.root()),
        vec![real.join("AGENTS.md"), real.join("src/AGENTS.md")]
    );
}
