//! Unit tests of `chatmd.toml` parsing: every key, every bad value with its range, and
//! the key-by-key overlay.

use super::*;
use crate::team::Severity;
use pretty_assertions::assert_eq;

fn parse(text: &str) -> (FileConfig, Vec<ConfigProblem>) {
    parse_in(Path::new("/ws"), text)
}

/// `text` parsed as `team/chatmd.toml` of the workspace `root`.
fn parse_in(root: &Path, text: &str) -> (FileConfig, Vec<ConfigProblem>) {
    let mut problems = Vec::new();
    let config = parse_config(
        root,
        &root.join("team/chatmd.toml"),
        text,
        &UserTrust::default(),
        &mut problems,
    );
    (config, problems)
}

/// Each problem as the text it underlines and its severity.
fn ranges<'t>(text: &'t str, problems: &[ConfigProblem]) -> Vec<(&'t str, Severity)> {
    problems
        .iter()
        .map(|p| (&text[p.range.clone().unwrap_or(0..0)], p.severity))
        .collect()
}

#[test]
fn members_keep_file_order_and_every_key() {
    let text = include_str!("../../../tests/fixtures/team/every_key.toml");
    // A real workspace: `workdir` must exist (`home` is created at the first turn).
    let ws = tempfile::tempdir().unwrap();
    let root = ws.path().canonicalize().unwrap();
    std::fs::create_dir_all(root.join("team/repo")).unwrap();
    let (config, problems) = parse_in(&root, text);
    assert_eq!(problems, vec![]);
    let (human, range) = config.human.clone().unwrap_or_default();
    assert_eq!((human.as_str(), &text[range]), ("lead", "\"lead\""));
    let names: Vec<_> = config.members.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(names, vec!["zed", "bob"]);
    let bob = &config.members[1];
    assert_eq!(bob.agent.as_deref(), Some("claude"));
    assert_eq!(bob.instructions.as_deref(), Some("Answer in French."));
    assert_eq!(bob.workdir, Some(root.join("team/repo")));
    assert_eq!(bob.home, Some(root.join("team/bob/state")));
    assert_eq!(
        bob.env,
        BTreeMap::from([
            ("RUST_LOG".into(), "debug".into()),
            ("TOKEN_FILE".into(), "/run/x".into())
        ])
    );
    assert_eq!(bob.args, Some(vec!["--model".into(), "opus".into()]));
    assert_eq!(bob.timeout, Some(Duration::from_secs(120)));
    assert_eq!(bob.idle_timeout, Some(Duration::from_millis(500)));
    assert_eq!(bob.resume, Some(true));
    let (file, range) = bob.declared_at.clone().unwrap_or_default();
    assert_eq!((file, &text[range]), (root.join("team/chatmd.toml"), "bob"));
}

#[test]
fn bad_values_are_reported_at_their_range_and_dropped() {
    let text = "human = \"no way\"\n[members.bob]\ntimeout = 0\nidle_timeout = -1.5\n\
                    agent = \" \"\nworkdir = \"../../etc\"\nhome = \"/tmp\"\nresume = false\n\
                    [members.\"b b\"]\nagent = \"codex\"\n";
    let (config, problems) = parse(text);
    assert_eq!(
        ranges(text, &problems),
        vec![
            ("\"no way\"", Severity::Error),
            ("0", Severity::Error),
            ("-1.5", Severity::Error),
            ("\" \"", Severity::Error),
            ("\"../../etc\"", Severity::Error),
            ("\"/tmp\"", Severity::Error),
            ("\"b b\"", Severity::Error),
        ]
    );
    assert_eq!(config.human, None);
    assert_eq!(config.members.len(), 1);
    let bob = &config.members[0];
    assert_eq!(
        (
            bob.agent.clone(),
            bob.workdir.clone(),
            bob.home.clone(),
            bob.timeout,
            bob.resume
        ),
        (None, None, None, None, Some(false))
    );
    assert_eq!(
        problems[4].message,
        "`workdir`: `/etc` is outside the workspace /ws; use a path inside the workspace"
    );
}

#[test]
fn a_huge_idle_timeout_is_refused_not_a_panic() {
    let text = "[members.bob]\nagent = \"codex\"\nidle_timeout = 9223372036854775807\n\
                timeout = 1e300\n[members.amy]\nagent = \"codex\"\ntimeout = 2592000\n\
                idle_timeout = inf\n";
    let (config, problems) = parse(text);
    assert_eq!(
        ranges(text, &problems),
        vec![
            ("9223372036854775807", Severity::Error),
            ("1e300", Severity::Error),
            ("inf", Severity::Error),
        ]
    );
    assert_eq!(
        problems[0].message,
        "`idle_timeout` is too large: at most 2592000 seconds (30 days)"
    );
    let (bob, amy) = (&config.members[0], &config.members[1]);
    assert_eq!((bob.idle_timeout, bob.timeout), (None, None));
    assert_eq!(
        (amy.timeout, amy.idle_timeout),
        (Some(Duration::from_secs(2_592_000)), None)
    );
}

#[test]
fn syntax_errors_and_unknown_keys_carry_the_toml_span() {
    let text = "[members.bob]\nagent = \"codex\"\nmodle = \"x\"\n";
    let (config, problems) = parse(text);
    assert_eq!(config, FileConfig::default());
    assert_eq!(ranges(text, &problems), vec![("modle", Severity::Error)]);
    assert!(
        problems[0]
            .message
            .starts_with("unknown field `modle`, expected one of `agent`, "),
        "{}",
        problems[0].message
    );
    assert!(problems[0].message.ends_with(
        "; remove it or fix its spelling. chatmd ignores this chatmd.toml until it is fixed"
    ));

    let text = "[members.bob]\nagent = \"codex\n";
    let (_, problems) = parse(text);
    assert_eq!(problems.len(), 1);
    // An unterminated string: toml points at the end of the line.
    assert_eq!(problems[0].range, Some(28..28));
    assert!(
        problems[0]
            .message
            .ends_with(". chatmd ignores this chatmd.toml until it is fixed"),
        "{}",
        problems[0].message
    );
}

#[test]
fn a_top_level_command_is_refused_with_its_whole_assignment() {
    let text = "  \"command\"  =  [\"rm\", \"-rf\"]\n[members.bob]\nagent = \"codex\"\n";
    let (config, problems) = parse(text);
    assert_eq!(
        ranges(text, &problems),
        vec![("\"command\"  =  [\"rm\", \"-rf\"]", Severity::Error)]
    );
    assert_eq!(
        problems[0].message,
        "`command` at the top of chatmd.toml applies to no member; put it in a \
         `[members.NAME]` table"
    );
    // The rest of the file still applies.
    assert_eq!(config.members[0].agent.as_deref(), Some("codex"));
}

#[test]
fn a_member_command_is_one_program_resolved_against_the_file() {
    let (config, problems) =
        parse("[members.a]\ncommand = \"./bin/agent\"\n[members.b]\ncommand = \"llm\"\n");
    assert_eq!(problems, vec![]);
    assert_eq!(
        config.members[0].command.as_deref(),
        Some("/ws/team/bin/agent")
    );
    assert_eq!(config.members[1].command.as_deref(), Some("llm"));

    let text = "[members.a]\ncommand = [\"rm\", \"-rf\"]\n";
    let (config, problems) = parse(text);
    assert_eq!(
        ranges(text, &problems),
        vec![("[\"rm\", \"-rf\"]", Severity::Error)]
    );
    assert_eq!(
        problems[0].message,
        "`command` must be one program: a name looked up on PATH or a path, like \
         \"./bin/agent\"; put its arguments in `args`"
    );
    assert_eq!(config.members[0].command, None);
    assert_eq!(config.trust, vec![]);
}

#[test]
fn settings_that_can_run_code_are_listed_for_trust_at_their_place() {
    let text = "[members.bob]\nagent = \"codex\"\ninstructions = \"Be brief.\"\n\
                args = [\"--dangerously-bypass-approvals-and-sandbox\"]\n\
                command = \"./bin/agent\"\nhome = \".state/bob\"\ntimeout = 60\n\
                [members.bob.env]\nLD_PRELOAD = \"./evil.so\"\nNODE_OPTIONS = \"--require x\"\n\
                [members.amy]\nenv = { PYTHONPATH = \".\" }\nargs = []\n";
    let (config, problems) = parse(text);
    assert_eq!(problems, vec![], "a missing home is made at the first turn");
    let listed: Vec<(&str, &str, &str, Vec<&str>)> = config
        .trust
        .iter()
        .map(|item| {
            (
                item.member.as_str(),
                item.key.name(),
                &text[item.range.clone()],
                item.shown.iter().map(String::as_str).collect(),
            )
        })
        .collect();
    assert_eq!(
        listed,
        vec![
            (
                "bob",
                "args",
                "args = [\"--dangerously-bypass-approvals-and-sandbox\"]",
                vec!["args = [\"--dangerously-bypass-approvals-and-sandbox\"]"]
            ),
            (
                "bob",
                "command",
                "command = \"./bin/agent\"",
                vec!["command = \"/ws/team/bin/agent\""]
            ),
            (
                "bob",
                "home",
                "home = \".state/bob\"",
                vec!["home = \"/ws/team/.state/bob\""]
            ),
            (
                "bob",
                "env",
                "[members.bob.env]",
                vec![
                    "env LD_PRELOAD = \"./evil.so\"",
                    "env NODE_OPTIONS = \"--require x\""
                ]
            ),
            (
                "amy",
                "env",
                "env = { PYTHONPATH = \".\" }",
                vec!["env PYTHONPATH = \".\""]
            ),
        ],
        "empty `args` run nothing and need no trust"
    );
    let mut untrusted = config.clone();
    untrusted.drop_trusted_keys();
    let bob = &untrusted.members[0];
    assert_eq!(
        (
            &bob.args,
            &bob.command,
            &bob.env,
            &bob.home,
            &bob.instructions
        ),
        (
            &None,
            &None,
            &BTreeMap::new(),
            &None,
            &Some("Be brief.".to_owned())
        )
    );
    assert_eq!(bob.timeout, Some(Duration::from_secs(60)));
}

#[test]
fn overlay_is_key_by_key() {
    let mut far = MemberSettings {
        agent: Some("claude".into()),
        timeout: Some(Duration::from_secs(5)),
        env: BTreeMap::from([("A".into(), "far".into()), ("B".into(), "far".into())]),
        ..MemberSettings::default()
    };
    far.overlay(MemberSettings {
        agent: Some("codex".into()),
        env: BTreeMap::from([("B".into(), "near".into())]),
        ..MemberSettings::default()
    });
    assert_eq!(far.agent.as_deref(), Some("codex"));
    assert_eq!(far.timeout, Some(Duration::from_secs(5)));
    assert_eq!(
        far.env,
        BTreeMap::from([("A".into(), "far".into()), ("B".into(), "near".into())])
    );
}

#[test]
fn thoughts_are_folded_or_hidden() {
    let text = "[members.a]\nthoughts = \"hidden\"\n[members.b]\nthoughts = \"shown\"\n";
    let (config, problems) = parse(text);
    assert_eq!(
        config.members[0].thoughts,
        Some(crate::team::Thoughts::Hidden)
    );
    assert_eq!(config.members[1].thoughts, None, "a bad value is dropped");
    assert_eq!(ranges(text, &problems), [("\"shown\"", Severity::Error)]);
    assert_eq!(
        problems[0].message,
        "`thoughts = \"shown\"` is not a choice: use \"folded\" (the agent's thoughts in a \
         folded block, the default) or \"hidden\""
    );
}
