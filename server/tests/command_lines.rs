//! The command line of a turn for each kind and member setup, as insta snapshots of
//! argv, env and cwd, plus the rules every kind must keep (role once, no approval bypass).

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use chatmd::agents::acp::PRESETS;
use chatmd::agents::program::find_invoked;
use chatmd::agents::{AgentEntry, Invocation, Registry, Stdin, plan_turn};
use chatmd::runner::RunError;
use chatmd::team::Member;
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

const SYSTEM: &str = "You are Alice, the reviewer.\nQuote \"exactly\"; paths like C:\\tmp stay.";
const BODY: &str = "[CONTEXT]\nme: hi\n[MESSAGE]\nme: @alice review src/lib.rs\n";
const SESSION: &str = "ba6318a6-8ff6-4537-9fb3-78cdd30bb441";

fn member(agent: &str) -> Member {
    Member {
        workdir: PathBuf::from("/team/alice/work"),
        ..Member::new("alice", agent, PathBuf::from("/team/alice"))
    }
}

/// A long text shown by its size and ends, so snapshots stay readable.
fn short(text: &str) -> Value {
    if text.len() <= 200 {
        return json!(text);
    }
    let head: String = text.chars().take(30).collect();
    let tail: String = text
        .chars()
        .rev()
        .take(20)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    json!(format!("<{} bytes: {head:?} … {tail:?}>", text.len()))
}

fn render(invocation: &Invocation) -> Value {
    json!({
        "program": invocation.program,
        "args": invocation.args.iter().map(|a| short(a)).collect::<Vec<_>>(),
        "env": invocation.env.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>(),
        "create_dirs": invocation.create_dirs,
        "cwd": invocation.cwd,
        "stdin": match &invocation.stdin {
            Stdin::Null => json!("/dev/null"),
            Stdin::Prompt(prompt) => json!({ "prompt": short(prompt) }),
        },
        "limits": {
            "idle_secs": invocation.limits.idle.map(|d| d.as_secs_f64()),
            "total_secs": invocation.limits.total.as_secs_f64(),
            "has_completion_event": invocation.limits.has_completion_event,
        },
        "install_hint": invocation.install_hint,
    })
}

/// One member setup a kind is planned for.
struct Setup {
    name: &'static str,
    member: Member,
    system: &'static str,
    body: String,
    session: Option<&'static str>,
}

impl Setup {
    fn new(
        name: &'static str,
        member: &Member,
        system: &'static str,
        body: &str,
        session: Option<&'static str>,
    ) -> Setup {
        Setup {
            name,
            member: member.clone(),
            system,
            body: body.to_owned(),
            session,
        }
    }

    /// The turn `entry` plans for this setup.
    fn plan(&self, entry: &AgentEntry) -> Invocation {
        plan_turn(entry, &self.member, self.system, &self.body, self.session)
    }
}

/// The member setups every kind is planned for.
fn setups(agent: &str) -> Vec<Setup> {
    let plain = member(agent);
    let mut home = member(agent);
    home.home = Some(PathBuf::from("/team/alice/.state"));
    let mut custom = member(agent);
    custom.env = BTreeMap::from([("ANTHROPIC_BASE_URL".into(), "http://127.0.0.1:9".into())]);
    custom.args = vec!["--model".into(), "big-model".into()];
    custom.timeout = Some(Duration::from_secs(90));
    custom.idle_timeout = Some(Duration::from_millis(2500));
    let mut resuming = member(agent);
    resuming.resume = true;
    // `resume = false` in chatmd.toml: a member resumes unless it says so.
    let mut not_resuming = member(agent);
    not_resuming.resume = false;
    let large = format!(
        "[CONTEXT]\n{}[MESSAGE]\nme: go\n",
        "me: words words words\n".repeat(6000)
    );
    vec![
        Setup::new("plain", &plain, SYSTEM, BODY, None),
        Setup::new("no system text", &plain, "", BODY, None),
        Setup::new("with home", &home, SYSTEM, BODY, None),
        Setup::new("with env, args and timeouts", &custom, SYSTEM, BODY, None),
        Setup::new(
            "resume with a session",
            &resuming,
            SYSTEM,
            BODY,
            Some(SESSION),
        ),
        Setup::new(
            "resume, first turn (no session yet)",
            &resuming,
            SYSTEM,
            BODY,
            None,
        ),
        Setup::new(
            "session given but resume off",
            &not_resuming,
            SYSTEM,
            BODY,
            Some(SESSION),
        ),
        Setup::new("large prompt on stdin", &plain, SYSTEM, &large, None),
        Setup::new(
            "prompt starting with a dash",
            &plain,
            "",
            "--help me\n",
            None,
        ),
    ]
}

/// Runs `check` with the snapshot's keys sorted: JSON objects keep their insertion
/// order (serde_json's `preserve_order`, which the ACP crate turns on), and a snapshot
/// must not depend on the order a `json!` lists them in.
fn sorted(check: impl FnOnce()) {
    let mut settings = insta::Settings::clone_current();
    settings.set_sort_maps(true);
    settings.bind(check);
}

fn snapshot(entry: &AgentEntry) -> Value {
    let mut cases = serde_json::Map::new();
    for setup in setups(&entry.name) {
        cases.insert(setup.name.into(), render(&setup.plan(entry)));
    }
    Value::Object(cases)
}

fn registry() -> Registry {
    let text = r#"
[agents.llm]
type = "command"
command = "/usr/local/bin/llm"
args = ["-m", "small"]

[agents.streamer]
type = "command"
command = "streamer"
prompt = "argument"
output = "jsonl"
text = "/text"
done = "/done"
"#;
    let (registry, problems) = Registry::parse("agents.toml".as_ref(), text);
    assert_eq!(problems, vec![]);
    registry
}

#[test]
fn command_lines() {
    let registry = registry();
    for name in ["claude", "codex", "gemini", "llm", "streamer"] {
        let entry = registry.entry(name).expect("entry");
        sorted(|| insta::assert_json_snapshot!(name, snapshot(entry)));
    }
}

/// Where the system text and the body ended up, all arguments and stdin together.
fn delivered(invocation: &Invocation) -> String {
    let mut all = invocation.args.join("\u{0}");
    if let Stdin::Prompt(prompt) = &invocation.stdin {
        all.push('\u{0}');
        all.push_str(prompt);
    }
    all
}

#[test]
fn the_role_reaches_each_agent_exactly_once() {
    let registry = registry();
    let marker = "ROLE-MARKER-7d1e";
    for name in ["claude", "codex", "gemini", "llm", "streamer", "acp"] {
        for setup in setups(name) {
            let system = if setup.system.is_empty() { "" } else { marker };
            let setup = Setup { system, ..setup };
            let sent = delivered(&setup.plan(registry.entry(name).expect("entry")));
            let resumed = setup.member.resume && setup.session.is_some();
            // On resume codex, gemini and an ACP agent keep the role in their session
            // (`held=` says when they do not: the prompt builder puts it in the body
            // then); claude's is a flag of each run.
            let expected = match (system.is_empty(), resumed, name) {
                (true, _, _) => 0,
                (false, true, "codex" | "gemini" | "acp") => 0,
                _ => 1,
            };
            let case = setup.name;
            assert_eq!(sent.matches(marker).count(), expected, "{name}: {case}");
            assert_eq!(
                sent.matches(setup.body.as_str()).count(),
                1,
                "{name}: {case}: body once"
            );
        }
    }
}

#[test]
fn a_huge_role_moves_inline_and_onto_stdin() {
    let registry = registry();
    let role = format!("ROLE {}", "x".repeat(120 * 1024));
    for name in ["claude", "codex"] {
        let invocation = plan_turn(
            registry.entry(name).expect("entry"),
            &member(name),
            &role,
            BODY,
            None,
        );
        assert!(
            invocation.args.iter().all(|a| a.len() < 1024),
            "{name}: no huge argument"
        );
        assert_eq!(
            invocation.stdin,
            Stdin::Prompt(format!("[SYSTEM]\n{role}\n{BODY}")),
            "{name}"
        );
    }
}

#[test]
fn approvals_are_never_bypassed_unless_the_member_asks() {
    const BYPASS: [&str; 7] = [
        "--dangerously-skip-permissions",
        "--yolo",
        "-y",
        "--dangerously-bypass-approvals-and-sandbox",
        "bypassPermissions",
        "yolo",
        "danger-full-access",
    ];
    let registry = registry();
    // Each CLI is told the mode that refuses what needs approval, whatever its own
    // default is (a new version may change it, as claude-agent-acp did to `auto`).
    let asking = |name: &str| -> [&str; 2] {
        match name {
            "claude" => ["--permission-mode", "default"],
            "codex" => ["--sandbox", "read-only"],
            _ => ["--approval-mode", "default"],
        }
    };
    for name in ["claude", "codex", "gemini"] {
        for setup in setups(name) {
            let invocation = setup.plan(registry.entry(name).expect("entry"));
            let flags: Vec<_> = invocation
                .args
                .iter()
                .filter(|a| BYPASS.contains(&a.as_str()))
                .collect();
            assert_eq!(flags, Vec::<&String>::new(), "{name}: {}", setup.name);
        }
        let plain = plan_turn(
            registry.entry(name).expect("entry"),
            &member(name),
            "",
            BODY,
            None,
        );
        assert!(
            plain.args.windows(2).any(|w| w == asking(name)),
            "{name}: {:?}",
            plain.args
        );
        let mut asked = member(name);
        asked.args = vec!["--yolo".into()];
        let invocation = plan_turn(registry.entry(name).expect("entry"), &asked, "", BODY, None);
        assert!(
            invocation.args.contains(&"--yolo".to_owned()),
            "{name}: member args pass through"
        );
    }
    // The member's own choice of mode stands alone: chatmd adds none of its own.
    let mut chose = member("gemini");
    chose.args = vec!["--yolo".into()];
    let gemini = plan_turn(
        registry.entry("gemini").expect("entry"),
        &chose,
        "",
        BODY,
        None,
    );
    assert!(
        !gemini.args.contains(&"--approval-mode".to_owned()),
        "{:?}",
        gemini.args
    );
    let mut chose = member("codex");
    chose.args = vec!["-s".into(), "workspace-write".into()];
    let codex = plan_turn(
        registry.entry("codex").expect("entry"),
        &chose,
        "",
        BODY,
        None,
    );
    assert!(
        !codex.args.contains(&"read-only".to_owned()),
        "{:?}",
        codex.args
    );
    let mut chose = member("claude");
    chose.args = vec!["--permission-mode=acceptEdits".into()];
    let claude = plan_turn(
        registry.entry("claude").expect("entry"),
        &chose,
        "",
        BODY,
        None,
    );
    assert!(
        !claude.args.contains(&"--permission-mode".to_owned()),
        "{:?}",
        claude.args
    );
}

/// `codex exec resume` refuses `--sandbox` and `-C` (they belong to the thread's first
/// `exec`): a member's sandbox becomes `-c sandbox_mode=…` and its folder the cwd.
#[test]
fn codex_resume_takes_the_member_sandbox_and_folder_in_forms_it_accepts() {
    let registry = Registry::builtin();
    let entry = registry.entry("codex").expect("codex");
    let mut alice = member("codex");
    alice.resume = true;
    alice.args = ["--sandbox", "workspace-write", "-C", "sub", "-m", "gpt-5.5"]
        .map(String::from)
        .to_vec();
    let first = plan_turn(entry, &alice, "", BODY, None);
    assert_eq!(
        first.args,
        [
            "exec",
            "--json",
            "--skip-git-repo-check",
            "--sandbox",
            "workspace-write",
            "-C",
            "sub",
            "-m",
            "gpt-5.5",
            BODY
        ]
    );
    assert_eq!(first.cwd, PathBuf::from("/team/alice/work"));
    let resumed = plan_turn(entry, &alice, SYSTEM, BODY, Some(SESSION));
    assert_eq!(
        resumed.args,
        [
            "exec",
            "resume",
            SESSION,
            "--json",
            "--skip-git-repo-check",
            "-c",
            "sandbox_mode=\"workspace-write\"",
            "-m",
            "gpt-5.5",
            BODY
        ]
    );
    assert_eq!(resumed.cwd, PathBuf::from("/team/alice/work/sub"));
}

/// An ACP member of each preset, plain: the command line each agent is started with.
/// The prompt is the session's to send (stdin stays a pipe), whatever its size.
#[test]
fn acp_presets() {
    let registry = Registry::builtin();
    let acp = registry.entry("acp").expect("the acp entry");
    let mut cases = serde_json::Map::new();
    for preset in PRESETS {
        let mut alice = member("acp");
        alice.preset = Some(preset.name.into());
        let invocation = plan_turn(acp, &alice, SYSTEM, BODY, None);
        // Permission requests must reach the user: no preset turns approvals off.
        let said = format!("{:?} {:?}", invocation.args, invocation.env).to_lowercase();
        for bypass in [
            "yolo",
            "skip-permissions",
            "bypass",
            "full-access",
            "dontask",
        ] {
            assert!(!said.contains(bypass), "{}: {said}", preset.name);
        }
        cases.insert(preset.name.into(), render(&invocation));
    }
    sorted(|| insta::assert_json_snapshot!("acp_presets", Value::Object(cases)));
}

/// The member setups for ACP members of the three proven presets, and a member's own
/// `command`: `home` becomes the state folder of the CLI behind the preset, the
/// member's `env` wins over the preset's, its `args` come after the preset's, and a
/// session id to resume is not used (every turn is a new ACP session for now).
#[test]
fn acp_members() {
    let registry = Registry::builtin();
    let acp = registry.entry("acp").expect("the acp entry");
    for preset in ["gemini", "claude", "codex"] {
        let mut cases = serde_json::Map::new();
        for mut setup in setups("acp") {
            setup.member.preset = Some(preset.into());
            if setup.name == "with env, args and timeouts" {
                let mode = ("INITIAL_AGENT_MODE".into(), "read-only".into());
                setup.member.env.extend([mode]);
            }
            cases.insert(setup.name.into(), render(&setup.plan(acp)));
        }
        let mut own = member("acp");
        own.command = Some("/opt/agents/my-acp".into());
        own.args = vec!["serve".into(), "--stdio".into()];
        let invocation = plan_turn(acp, &own, SYSTEM, BODY, None);
        cases.insert("own command, no preset".into(), render(&invocation));
        own.preset = Some(preset.into());
        let invocation = plan_turn(acp, &own, SYSTEM, BODY, None);
        cases.insert("own command with the preset".into(), render(&invocation));
        let name = format!("acp_{preset}");
        sorted(|| insta::assert_json_snapshot!(name, Value::Object(cases)));
    }
}

/// What a user reads when a preset's program is not installed: its name, and how to
/// install it where that is known.
#[test]
fn a_missing_preset_says_how_to_install_it() {
    let registry = Registry::builtin();
    let acp = registry.entry("acp").expect("the acp entry");
    let empty = tempfile::tempdir().expect("tempdir");
    let mut messages = Vec::new();
    for preset in PRESETS {
        let mut alice = member("acp");
        alice.preset = Some(preset.name.into());
        alice
            .env
            .insert("PATH".into(), empty.path().display().to_string());
        let invocation = plan_turn(acp, &alice, "", BODY, None);
        let missing = find_invoked(&invocation).expect_err("nothing on PATH");
        assert_eq!(
            missing.to_string(),
            format!("`{}` is not installed (not found on PATH)", preset.program)
        );
        let error = RunError::NotInstalled {
            program: invocation.program.clone(),
            install_hint: invocation.install_hint.clone(),
        };
        messages.push(format!("{}: {error}", preset.name));
    }
    insta::assert_snapshot!("acp_missing", messages.join("\n"));
}
