//! The one list holds every kind once, and a kind added the way docs/architecture.md
//! says (the unit tests' `fixture`: its folder and its entry in the one list of kinds,
//! `agent_config/kind.rs`) runs through every path a built-in CLI does.

use std::path::{Path, PathBuf};

use pretty_assertions::assert_eq;

use super::*;
use crate::agents::{
    AgentEvent, ExitInfo, Registry, Stdin, auth, parser_for, plan_turn, session_for, transcripts,
};
use crate::team::Member;

#[test]
fn every_kind_is_listed_once_in_order() {
    let listed: Vec<AgentKind> = KINDS.iter().map(|spec| spec.kind).collect();
    assert_eq!(listed, AgentKind::ALL);
    for &kind in AgentKind::ALL {
        assert_eq!(spec_of(kind).kind, kind);
    }
}

fn fixture_member(home: Option<PathBuf>) -> Member {
    let mut member = Member::new("fix", "fixture", PathBuf::from("/work/team/fix"));
    member.home = home;
    member.args = vec!["--fast".to_owned()];
    member
}

#[test]
fn a_new_kind_is_a_built_in_agent_by_its_name() {
    let registry = Registry::builtin();
    let entry = registry
        .entry("fixture")
        .expect("the fixture is a built-in entry");
    assert_eq!(entry.adapter.kind(), Some(AgentKind::Fixture));
    assert_eq!(entry.program, "fixture");
    assert_eq!(
        entry.install_hint.as_deref(),
        Some("cargo install fixture-cli")
    );
    assert!(entry.adapter.can_resume());
    assert!(!entry.adapter.two_way());
    assert!(!entry.adapter.reads_further_prompts());
    assert_eq!(fixture_member(None).kind(), Some(AgentKind::Fixture));
    assert_eq!(
        AgentKind::from_role_file_name("FIXTURE.md"),
        Some(AgentKind::Fixture)
    );

    // `agents.toml` can set up another agent of the kind by its `type`.
    let toml = "[agents.fast-fixture]\ntype = \"fixture\"\nargs = [\"--fast\"]\n";
    let (registry, problems) = Registry::parse(Path::new("agents.toml"), toml);
    assert_eq!(problems, vec![]);
    let entry = registry.entry("fast-fixture").expect("the entry");
    assert_eq!(entry.adapter.kind(), Some(AgentKind::Fixture));
    assert_eq!(entry.args, vec!["--fast".to_owned()]);
}

#[test]
fn a_new_kind_plans_its_turns_and_reads_their_output() {
    let registry = Registry::builtin();
    let entry = registry.entry("fixture").expect("the fixture entry");
    let member = fixture_member(Some(PathBuf::from("/homes/fix")));
    let session = "3f7eefe2-57ee-4a6c-9cd8-00cbb786ee3f";
    let invocation = plan_turn(entry, &member, "You review.", "hello", Some(session));
    assert_eq!(invocation.program, "fixture");
    assert_eq!(
        invocation.args,
        [
            "--json",
            "--resume",
            session,
            "--role",
            "You review.",
            "--asks",
            "default",
            "--fast",
            "hello"
        ]
    );
    assert_eq!(
        invocation.env,
        vec![("FIXTURE_HOME".to_owned(), "/homes/fix".to_owned())]
    );
    assert_eq!(invocation.cwd, PathBuf::from("/work/team/fix"));
    assert_eq!(invocation.stdin, Stdin::Null);

    // The user's own choice of the mode stands.
    let mut asks_never = fixture_member(None);
    asks_never.args = vec!["--never-ask".to_owned()];
    let invocation = plan_turn(entry, &asks_never, "", "hello", None);
    assert_eq!(invocation.args, ["--json", "--never-ask", "hello"]);

    // A headless session, read by the kind's own parser.
    let _session = session_for(entry, &invocation);
    let mut parser = parser_for(entry);
    let mut events = Vec::new();
    for line in [
        format!(r#"{{"session": "{session}"}}"#),
        r#"{"text": "Hi there."}"#.to_owned(),
        r#"{"end": "ok"}"#.to_owned(),
    ] {
        parser.line(&line, &mut events);
    }
    let exit = ExitInfo {
        code: Some(0),
        stderr_tail: String::new(),
    };
    parser.finish(&exit, &mut events);
    assert_eq!(
        events,
        vec![
            AgentEvent::Started {
                session: Some(session.to_owned()),
                model: None
            },
            AgentEvent::Text("Hi there.".to_owned()),
            AgentEvent::Done {
                stop_reason: None,
                usage: None
            },
        ]
    );
}

#[test]
fn a_new_kind_brings_its_hints_and_no_session_store() {
    let spec = spec_of(AgentKind::Fixture);
    assert_eq!(spec.login.phrase(""), "`fixture auth`");
    assert_eq!(
        spec.login.phrase("FIXTURE_HOME=/homes/fix "),
        "`FIXTURE_HOME=/homes/fix fixture auth`"
    );
    assert_eq!(
        auth::login_hint(AgentKind::Fixture),
        "Log in with `fixture auth` (with FIXTURE_HOME set to the member's `home` if it has \
         one)."
    );
    // It stores no sessions: `chatmd import` names only the kinds that do.
    assert_eq!(stored_kinds_in_words(), "claude, codex or gemini");
    assert_eq!(
        transcripts::sessions_in(AgentKind::Fixture, Path::new("/nowhere"), &[]),
        vec![]
    );
    assert_eq!(
        transcripts::state_dir(AgentKind::Fixture, None, Path::new("/home/u")),
        PathBuf::from("/home/u/.fixture")
    );
}
