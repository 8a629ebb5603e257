//! Unit tests of `chatmd.toml` parsing: every key, every bad value with its range, and
//! the key-by-key overlay.

use super::*;
use pretty_assertions::assert_eq;

fn parse(text: &str) -> (FileConfig, Vec<TeamProblem>) {
    let mut problems = Vec::new();
    let config = parse_config(
        Path::new("/ws"),
        Path::new("/ws/team/chatmd.toml"),
        text,
        &mut problems,
    );
    (config, problems)
}

fn ranges(text: &str, problems: &[TeamProblem]) -> Vec<(String, Severity)> {
    problems
        .iter()
        .map(|p| {
            let range = p.range.clone().unwrap_or(0..0);
            (text[range].to_owned(), p.severity)
        })
        .collect()
}

#[test]
fn members_keep_file_order_and_every_key() {
    let text = r#"
human = "lead"
[members.zed]
agent = "gemini"
[members.amy]
agent = "acp"
instructions = "Be brief."
env = { A = "1", B = "two" }
args = ["--model", "x"]
timeout = 90
idle_timeout = 2.5
resume = true
"#;
    let (config, problems) = parse(text);
    assert_eq!(problems, vec![]);
    assert_eq!(config.human, Some(("lead".to_owned(), 9..15)));
    let names: Vec<_> = config.members.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(names, vec!["zed", "amy"]);
    let amy = &config.members[1];
    assert_eq!(amy.agent.as_deref(), Some("acp"));
    assert_eq!(amy.instructions.as_deref(), Some("Be brief."));
    assert_eq!(
        amy.env,
        BTreeMap::from([("A".into(), "1".into()), ("B".into(), "two".into())])
    );
    assert_eq!(amy.args, Some(vec!["--model".into(), "x".into()]));
    assert_eq!(amy.timeout, Some(Duration::from_secs(90)));
    assert_eq!(amy.idle_timeout, Some(Duration::from_millis(2500)));
    assert_eq!(amy.resume, Some(true));
    let (file, range) = amy.declared_at.clone().unwrap_or_default();
    assert_eq!(
        (file, &text[range]),
        (PathBuf::from("/ws/team/chatmd.toml"), "amy")
    );
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
            ("\"no way\"".to_owned(), Severity::Error),
            ("0".to_owned(), Severity::Error),
            ("-1.5".to_owned(), Severity::Error),
            ("\" \"".to_owned(), Severity::Error),
            ("\"../../etc\"".to_owned(), Severity::Error),
            ("\"/tmp\"".to_owned(), Severity::Error),
            ("\"b b\"".to_owned(), Severity::Error),
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
            ("9223372036854775807".to_owned(), Severity::Error),
            ("1e300".to_owned(), Severity::Error),
            ("inf".to_owned(), Severity::Error),
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
    assert_eq!(
        ranges(text, &problems),
        vec![("modle".to_owned(), Severity::Error)]
    );
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
fn command_is_refused_with_its_whole_assignment() {
    let text = "[members.bob]\nagent = \"codex\"\n  \"command\"  =  [\"rm\", \"-rf\"]\n";
    let (config, problems) = parse(text);
    assert_eq!(
        ranges(text, &problems),
        vec![(
            "\"command\"  =  [\"rm\", \"-rf\"]".to_owned(),
            Severity::Error
        )]
    );
    assert_eq!(
        problems[0].message,
        "`command` is not allowed here: a workspace file may not choose which program \
             runs. Define an agent kind in ~/.config/chatmd/agents.toml and name it with \
             `agent = \"...\"` instead"
    );
    // The rest of the table still applies.
    assert_eq!(config.members[0].agent.as_deref(), Some("codex"));
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
