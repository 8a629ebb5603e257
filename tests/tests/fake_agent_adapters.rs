//! The adapters' command lines against the fake CLIs: each planned invocation is accepted,
//! the prompt arrives whole where the CLI reads it, and the output parses back.

mod fake_support;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use chatmd::agents::{AgentEvent, ExitInfo, Invocation, Registry, Stdin, parser_for, plan_turn};
use chatmd::team::Member;
use fake_support::{Sandbox, run};
use pretty_assertions::assert_eq;
use serde_json::Value;

const SYSTEM: &str = "- You are Alice.\n- Quote \"exactly\"; keep C:\\paths.";
const SESSION: &str = "0a0b0c0d-1e2f-4a5b-8c7d-9e0f1a2b3c4d";

fn member(sandbox: &Sandbox, agent: &str) -> Member {
    Member {
        handle: "alice".into(),
        agent: agent.into(),
        preset: None,
        folder: sandbox.work.clone(),
        role_file: None,
        role_text: None,
        role_error: None,
        instructions: None,
        workdir: sandbox.work.clone(),
        home: None,
        env: BTreeMap::new(),
        args: Vec::new(),
        command: None,
        timeout: None,
        idle_timeout: None,
        resume: false,
        thoughts: Default::default(),
        session: Default::default(),
        permissions: Vec::new(),
    }
}

/// What a turn produced: the fake's record, the answer text, the session, the outcome.
struct Turn {
    record: Value,
    text: String,
    session: Option<String>,
    done: bool,
}

/// Runs `invocation` the way the runner will: its folders created, its program from the
/// sandbox's `bin`, its env, cwd and stdin; then its stdout through the parser.
fn execute(sandbox: &Sandbox, agent: &str, invocation: &Invocation) -> Turn {
    for dir in &invocation.create_dirs {
        std::fs::create_dir_all(dir).expect("create_dirs");
    }
    let record = sandbox.path("record.json");
    let mut command = sandbox.command(&invocation.program, &[]);
    command
        .args(&invocation.args)
        .envs(invocation.env.iter().map(|(k, v)| (k, v)))
        .current_dir(&invocation.cwd)
        .env("FAKE_AGENT_RECORD", &record);
    let stdin = match &invocation.stdin {
        Stdin::Null => None,
        Stdin::Prompt(prompt) => Some(prompt.as_bytes()),
    };
    let output = run(command, stdin);
    let record: Value =
        serde_json::from_slice(&std::fs::read(&record).expect("record")).expect("JSON");
    assert_eq!(
        record["refused"],
        Value::Null,
        "{agent}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let mut parser = parser_for(Registry::builtin().entry(agent).expect("entry"));
    let mut events = Vec::new();
    for line in String::from_utf8_lossy(&output.stdout).lines() {
        parser.line(line, &mut events);
    }
    let exit = ExitInfo {
        code: output.status.code(),
        stderr_tail: String::from_utf8_lossy(&output.stderr).into_owned(),
    };
    parser.finish(&exit, &mut events);
    let mut turn = Turn {
        record,
        text: String::new(),
        session: None,
        done: false,
    };
    for event in events {
        match event {
            AgentEvent::Started { session, .. } => turn.session = session,
            AgentEvent::Text(text) => turn.text.push_str(&text),
            AgentEvent::Done { .. } => turn.done = true,
            _ => {}
        }
    }
    turn
}

fn answer(agent: &str) -> &'static str {
    match agent {
        "claude" => "I'll run a command.\n\nThe command printed `hello-from-tool`.",
        "codex" => "The command printed hello-from-tool.",
        _ => "I'll run a command.\n\nThe command printed hello-from-tool.",
    }
}

/// The prompt as each CLI receives it: claude and codex get the role apart.
fn seen_prompt(agent: &str, system: &str, body: &str) -> String {
    match agent {
        "gemini" if !system.is_empty() => format!("[SYSTEM]\n{system}\n{body}"),
        _ => body.to_owned(),
    }
}

#[test]
fn plain_turns_are_accepted_and_parse_back() {
    let sandbox = Sandbox::new();
    let body = "[CONTEXT]\nme: hi\n[MESSAGE]\nme: @alice run echo\n";
    for agent in ["claude", "codex", "gemini"] {
        for system in [SYSTEM, ""] {
            let entry = Registry::builtin().entry(agent).expect("entry").clone();
            let invocation = plan_turn(&entry, &member(&sandbox, agent), system, body, None);
            let turn = execute(&sandbox, agent, &invocation);
            assert_eq!(
                turn.record["prompt"],
                seen_prompt(agent, system, body),
                "{agent}"
            );
            assert_eq!(
                (turn.text.as_str(), turn.done),
                (answer(agent), true),
                "{agent}"
            );
        }
    }
}

#[test]
fn home_env_args_and_large_prompts_reach_the_cli() {
    let sandbox = Sandbox::new();
    let large = format!(
        "[CONTEXT]\n{}[MESSAGE]\nme: go\n",
        "me: lorem ipsum dolor\n".repeat(7000)
    );
    assert!(large.len() > 128 * 1024, "over one argument's limit");
    for agent in ["claude", "codex", "gemini"] {
        let mut alice = member(&sandbox, agent);
        let home = sandbox.path(&format!("{agent}-home"));
        alice.home = Some(home.clone());
        alice.args = vec!["--model".into(), "some-model".into()];
        alice.timeout = Some(Duration::from_secs(5));
        let entry = Registry::builtin().entry(agent).expect("entry").clone();
        let invocation = plan_turn(&entry, &alice, SYSTEM, &large, None);
        assert!(
            matches!(invocation.stdin, Stdin::Prompt(_)),
            "{agent}: large prompt on stdin"
        );
        let turn = execute(&sandbox, agent, &invocation);
        let variable =
            chatmd::agents::kinds::spec_of(entry.adapter.kind().expect("kind")).state_env_var;
        assert_eq!(
            turn.record["env"][variable],
            home.to_str().expect("UTF-8"),
            "{agent}"
        );
        assert_eq!(
            turn.record["prompt"],
            seen_prompt(agent, SYSTEM, &large),
            "{agent}"
        );
        let argv: Vec<&str> = turn.record["argv"]
            .as_array()
            .expect("argv")
            .iter()
            .filter_map(Value::as_str)
            .collect();
        assert!(
            argv.windows(2).any(|w| w == ["--model", "some-model"]),
            "{agent}: {argv:?}"
        );
        assert!(turn.done, "{agent}");
    }
}

#[test]
fn resumed_turns_keep_the_session_and_awkward_prompts_survive() {
    let sandbox = Sandbox::new();
    for agent in ["claude", "codex", "gemini"] {
        let mut alice = member(&sandbox, agent);
        alice.resume = true;
        let entry = Registry::builtin().entry(agent).expect("entry").clone();
        let invocation = plan_turn(
            &entry,
            &alice,
            SYSTEM,
            "[CONTEXT]\n[MESSAGE]\nme: more\n",
            Some(SESSION),
        );
        let turn = execute(&sandbox, agent, &invocation);
        assert_eq!(turn.record["resume"], SESSION, "{agent}");
        assert_eq!(turn.session.as_deref(), Some(SESSION), "{agent}");
        assert!(turn.done, "{agent}");

        // A body that looks like an option goes on stdin, where no parser reads it as one.
        let dashed = "--help\n[MESSAGE]\nme: -x\n";
        let invocation = plan_turn(&entry, &member(&sandbox, agent), "", dashed, None);
        let turn = execute(&sandbox, agent, &invocation);
        assert_eq!(turn.record["prompt"], dashed, "{agent}");
    }
}

#[test]
fn a_command_kind_gets_its_prompt_on_stdin_or_as_an_argument() {
    let sandbox = Sandbox::new();
    // `cat` answers with its stdin; `echo` with its arguments: plain text lines back.
    let text = "[agents.cat]\ntype = \"command\"\ncommand = \"cat\"\n\n\
                [agents.echo]\ntype = \"command\"\ncommand = \"echo\"\nprompt = \"argument\"\n";
    let (registry, problems) = Registry::parse("agents.toml".as_ref(), text);
    assert_eq!(problems, vec![]);
    for (name, expected) in [
        ("cat", "[SYSTEM]\nrole\nline one\nline two\n"),
        ("echo", "[SYSTEM]\nrole\nline one\nline two\n\n"),
    ] {
        let entry = registry.entry(name).expect("entry");
        let invocation = plan_turn(
            entry,
            &member(&sandbox, name),
            "role",
            "line one\nline two\n",
            None,
        );
        let program = which(&invocation.program);
        let mut command = std::process::Command::new(program);
        command
            .args(&invocation.args)
            .current_dir(&invocation.cwd)
            .stdout(std::process::Stdio::piped());
        let stdin = match &invocation.stdin {
            Stdin::Null => None,
            Stdin::Prompt(prompt) => Some(prompt.as_bytes()),
        };
        let output = run(command, stdin);
        let mut parser = parser_for(entry);
        let mut got = String::new();
        let mut events = Vec::new();
        for line in String::from_utf8_lossy(&output.stdout).lines() {
            parser.line(line, &mut events);
            for event in events.drain(..) {
                if let AgentEvent::Text(text) = event {
                    got.push_str(&text);
                }
            }
        }
        let mut end = Vec::new();
        let exit = ExitInfo {
            code: output.status.code(),
            stderr_tail: String::new(),
        };
        parser.finish(&exit, &mut end);
        assert_eq!(got, expected, "{name}");
        assert!(
            matches!(end.as_slice(), [AgentEvent::Done { .. }]),
            "{name}: {end:?}"
        );
    }
}

/// A program on the test's own `PATH` (cat and echo are everywhere the tests run).
fn which(program: &str) -> PathBuf {
    std::env::var_os("PATH")
        .iter()
        .flat_map(std::env::split_paths)
        .map(|dir| dir.join(program))
        .find(|path| path.is_file())
        .unwrap_or_else(|| panic!("{program} is not on PATH"))
}
