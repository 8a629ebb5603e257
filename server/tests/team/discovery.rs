//! Member discovery from folders: kinds, precedence, skipped folders, unreadable roles.

use std::fs;

use chatmd::agents::AgentKind;
use chatmd::team::Severity;
use pretty_assertions::assert_eq;

use crate::{Workspace, outside};

#[test]
fn every_kind_of_role_file_makes_a_member() {
    let ws = Workspace::create();
    ws.files(&[
        ("Team_A/alice/CLAUDE.md", "# Alice, the reviewer\nStrict."),
        ("Team_A/bob/AGENTS.md", "\n## Bob writes the billing code\n"),
        ("Team_A/john/GEMINI.md", "John documents."),
        ("Team_A/team_instruction.md", "We ship on Fridays."),
        ("Team_A/standup.chat.md", "## @me\nhi\n"),
        ("Team_A/notes/README.md", "not a member"),
        ("Team_A/.hidden/CLAUDE.md", "hidden"),
        ("Team_A/my folder/CLAUDE.md", "bad name"),
        ("Team_A/CLAUDE.md", "the team folder itself is no member"),
    ]);

    let team = ws.load("Team_A");

    assert_eq!(
        ws.members(&team),
        vec![
            "alice claude role=Team_A/alice/CLAUDE.md folder=Team_A/alice workdir=Team_A/alice",
            "bob codex role=Team_A/bob/AGENTS.md folder=Team_A/bob workdir=Team_A/bob",
            "john gemini role=Team_A/john/GEMINI.md folder=Team_A/john workdir=Team_A/john",
        ]
    );
    let kinds: Vec<_> = team.members.iter().map(|m| m.kind()).collect();
    assert_eq!(
        kinds,
        vec![
            Some(AgentKind::Claude),
            Some(AgentKind::Codex),
            Some(AgentKind::Gemini)
        ]
    );
    let summaries: Vec<_> = team.members.iter().map(|m| m.role_summary()).collect();
    assert_eq!(
        summaries,
        vec![
            Some("Alice, the reviewer"),
            Some("Bob writes the billing code"),
            Some("John documents.")
        ]
    );
    assert_eq!(team.instruction.as_deref(), Some("We ship on Fridays."));
    assert_eq!(team.human, "me");
    assert_eq!(team.folder, ws.path("Team_A"));
    assert_eq!(
        ws.problems(&team),
        vec![
            "info Team_A/my folder: folder `my folder` holds CLAUDE.md but is not a member: \
             `my folder` is not a valid handle. Rename the folder with letters, digits, `_`, \
             `.` or `-`, starting with a letter or digit"
        ]
    );
    assert_eq!(
        team.member("ALICE").map(|m| m.handle.as_str()),
        Some("alice")
    );
}

#[test]
fn several_role_files_pick_claude_then_codex_then_gemini_with_a_warning() {
    let ws = Workspace::create();
    ws.files(&[
        ("t/bob/AGENTS.md", "codex role"),
        ("t/bob/GEMINI.md", "gemini role"),
        ("t/carol/GEMINI.md", "gemini role"),
        ("t/carol/CLAUDE.md", "claude role"),
        ("t/carol/AGENTS.md", "codex role"),
    ]);

    let team = ws.load("t");

    assert_eq!(
        ws.members(&team),
        vec![
            "bob codex role=t/bob/AGENTS.md folder=t/bob workdir=t/bob",
            "carol claude role=t/carol/CLAUDE.md folder=t/carol workdir=t/carol",
        ]
    );
    assert_eq!(team.members[1].role_text.as_deref(), Some("claude role"));
    assert_eq!(
        ws.problems(&team),
        vec![
            "warning t/bob: folder `bob` holds several role files (AGENTS.md, GEMINI.md); \
             AGENTS.md wins, so bob is a codex member. Keep one role file per member folder",
            "warning t/carol: folder `carol` holds several role files (CLAUDE.md, AGENTS.md, \
             GEMINI.md); CLAUDE.md wins, so carol is a claude member. Keep one role file per \
             member folder",
        ]
    );
}

#[test]
fn unreadable_role_files_are_problems_not_panics() {
    let ws = Workspace::create();
    ws.write("t/latin/AGENTS.md", b"# R\xe9viseur\n");
    ws.mkdir("t/dir/CLAUDE.md");
    ws.symlink("nowhere.md", "t/dangling/GEMINI.md");
    ws.write("t/team_instruction.md", b"\xff\xfe");

    let team = ws.load("t");

    let roles: Vec<_> = team
        .members
        .iter()
        .map(|m| (m.handle.as_str(), m.role_text.clone(), m.role_error.clone()))
        .collect();
    assert_eq!(
        roles,
        vec![
            (
                "dangling",
                None,
                Some(
                    "cannot read role file GEMINI.md: No such file or directory (os error 2)"
                        .to_owned()
                )
            ),
            (
                "dir",
                None,
                Some("cannot read role file CLAUDE.md: it is a folder, not a file".to_owned())
            ),
            (
                "latin",
                None,
                Some(
                    "cannot read role file AGENTS.md: it is not valid UTF-8 (invalid byte at \
                     offset 3); save it as UTF-8"
                        .to_owned()
                )
            ),
        ]
    );
    assert_eq!(team.instruction, None);
    assert_eq!(
        ws.problems(&team),
        vec![
            "error t/team_instruction.md[\u{fffd}]: cannot read team_instruction.md: it is not \
             valid UTF-8 (invalid byte at offset 0); save it as UTF-8; no member gets it until \
             then",
            "error t/dangling/GEMINI.md: cannot read role file GEMINI.md: No such file or \
             directory (os error 2); dangling has no role until then",
            "error t/dir/CLAUDE.md: cannot read role file CLAUDE.md: it is a folder, not a \
             file; dir has no role until then",
            "error t/latin/AGENTS.md[\u{fffd}]: cannot read role file AGENTS.md: it is not \
             valid UTF-8 (invalid byte at offset 3); save it as UTF-8; latin has no role until \
             then",
        ]
    );
}

#[test]
fn a_role_file_linked_out_of_the_workspace_leaves_its_member_out() {
    // chatmd would not read it, but the CLI in that folder would load it by itself.
    let ws = Workspace::create();
    let secret_dir = outside();
    let secret = secret_dir.path().join("id_rsa");
    fs::write(&secret, "PRIVATE KEY").expect("write");
    ws.symlink(&secret, "t/mallory/CLAUDE.md");

    let team = ws.load("t");

    assert!(team.member("mallory").is_none());
    assert_eq!(
        ws.problems(&team),
        vec![format!(
            "warning t/mallory: @mallory is left out: <ws>/t/mallory/CLAUDE.md is a link to {}, \
             outside the workspace, and its CLI would load it. A repository could ship such a \
             link; if you made it, accept it with `chatmd trust <ws>/t/mallory/CLAUDE.md`",
            secret.canonicalize().expect("canonical").display()
        )]
    );
    assert_eq!(team.problems[0].severity, Severity::Warning);
}

#[test]
fn links_out_of_the_workspace_leave_members_out_until_the_user_accepts_them() {
    let ws = Workspace::create();
    let elsewhere = outside();
    fs::create_dir(elsewhere.path().join("eve")).expect("mkdir");
    fs::write(elsewhere.path().join("eve/AGENTS.md"), "eve").expect("write");
    fs::create_dir(elsewhere.path().join("billing")).expect("mkdir");
    ws.symlink(elsewhere.path().join("eve"), "t/eve");
    ws.write("shared/dan/CLAUDE.md", "dan");
    ws.symlink(ws.path("shared/dan"), "t/dan");
    ws.write("t/bob/AGENTS.md", "bob");
    ws.symlink(elsewhere.path().join("billing"), "t/bob/work");
    ws.write("t/carl/CLAUDE.md", "carl");
    ws.mkdir("t/carl/work");
    ws.write("t/dora/CLAUDE.md", "dora");
    ws.symlink("gone", "t/dora/work");

    let team = ws.load("t");

    let billing = elsewhere.path().join("billing");
    let real = |path: &std::path::Path| path.canonicalize().expect("canonical");
    assert_eq!(
        ws.members(&team),
        vec![
            "carl claude role=t/carl/CLAUDE.md folder=t/carl workdir=t/carl/work",
            "dan claude role=t/dan/CLAUDE.md folder=t/dan workdir=t/dan",
            "dora claude role=t/dora/CLAUDE.md folder=t/dora workdir=t/dora",
        ]
    );
    assert_eq!(
        ws.problems(&team),
        vec![
            format!(
                "warning t/eve: member folder `eve` is skipped: it is a symlink to {}, outside \
                 the workspace. A repository could ship such a link; if you made it, accept it \
                 with `chatmd trust <ws>/t/eve`, else move the folder into the workspace",
                real(&elsewhere.path().join("eve")).display()
            ),
            format!(
                "warning t/bob/work: @bob is left out: `work` is a link to {}, outside the \
                 workspace, and a repository could ship such a link. If you made it, accept it \
                 with `chatmd trust <ws>/t/bob/work`",
                real(&billing).display()
            ),
            "warning t/dora/work: `work` is a symlink to gone, which is not a folder; the \
             member works in <ws>/t/dora until the link is fixed"
                .to_owned(),
        ]
    );

    // The user made these links.
    ws.accept("t/eve");
    ws.accept("t/bob/work");
    let team = ws.load("t");
    assert_eq!(
        ws.members(&team),
        vec![
            "bob codex role=t/bob/AGENTS.md folder=t/bob workdir=t/bob/work",
            "carl claude role=t/carl/CLAUDE.md folder=t/carl workdir=t/carl/work",
            "dan claude role=t/dan/CLAUDE.md folder=t/dan workdir=t/dan",
            "dora claude role=t/dora/CLAUDE.md folder=t/dora workdir=t/dora",
            "eve codex role=t/eve/AGENTS.md folder=t/eve workdir=t/eve",
        ]
    );
    assert_eq!(real(&team.members[0].workdir), real(&billing));
    assert_eq!(
        team.member("eve").and_then(|e| e.role_text.as_deref()),
        Some("eve")
    );
}

#[test]
fn handles_differing_only_in_case_keep_the_first() {
    let ws = Workspace::create();
    ws.write("t/Bob/CLAUDE.md", "upper");
    ws.write("t/bob/AGENTS.md", "lower");

    let team = ws.load("t");

    assert_eq!(
        ws.members(&team),
        vec!["Bob claude role=t/Bob/CLAUDE.md folder=t/Bob workdir=t/Bob"]
    );
    assert_eq!(
        ws.problems(&team),
        vec![
            "warning t/bob: folder `bob` is skipped: handles ignore case, and `Bob` already is \
             a member. Rename one of the folders"
        ]
    );
}

#[test]
fn a_missing_team_folder_is_a_problem() {
    let ws = Workspace::create();
    let team = ws.load("nope");
    assert_eq!(team.members, vec![]);
    assert_eq!(
        ws.problems(&team),
        vec!["error nope: cannot list the team folder: No such file or directory (os error 2)"]
    );
}
