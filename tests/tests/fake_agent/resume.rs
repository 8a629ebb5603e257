//! Resume: arguments checked like the real CLIs, the session store, each CLI's own
//! "not found" for a session it does not know, and the record of every run.

use pretty_assertions::assert_eq;
use serde_json::Value;

use super::fake_support::{Sandbox, run};

const KNOWN: &str = "11111111-2222-4333-8444-555555555555";
const LOST: &str = "99999999-8888-4777-8666-555555555555";

/// The command line chatmd sends to resume `id` (prompt `more`).
fn resume_args(cli: &str, id: &'static str) -> Vec<&'static str> {
    match cli {
        "claude" => vec![
            "-p",
            "more",
            "--output-format",
            "stream-json",
            "--verbose",
            "--resume",
            id,
        ],
        "codex" => vec![
            "exec",
            "resume",
            id,
            "--json",
            "--skip-git-repo-check",
            "more",
        ],
        "gemini" => vec![
            "-p",
            "more",
            "--output-format",
            "stream-json",
            "--skip-trust",
            "--resume",
            id,
        ],
        _ => unreachable!(),
    }
}

/// An unknown session: exactly what the real CLI prints (the reference's words, with
/// the id asked for), its exit code, and chatmd's parser reporting it as not found.
#[test]
fn an_unknown_session_fails_like_the_real_cli() {
    let sandbox = Sandbox::new();
    let store = sandbox.path("sessions");
    std::fs::create_dir_all(store.join("gemini")).expect("store");
    // gemini says "no sessions" when it has none at all: give it one.
    std::fs::write(store.join("gemini").join(KNOWN), "").expect("known");
    let home = sandbox.path("gemini-home");
    for cli in ["claude", "codex", "gemini"] {
        let mut command = sandbox.command(cli, &resume_args(cli, LOST));
        command
            .env("FAKE_AGENT_SESSIONS", &store)
            .env("GEMINI_CLI_HOME", &home);
        let output = run(command, None);
        let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
        let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
        match cli {
            "claude" => {
                let mut lines = stdout.lines();
                assert_eq!(
                    lines.next(),
                    Some(format!("No conversation found with session ID: {LOST}").as_str())
                );
                let result: Value = serde_json::from_str(lines.next().expect("result")).unwrap();
                assert_eq!(result["subtype"], "error_during_execution");
                assert_eq!(result["is_error"], true);
                assert_eq!(result["num_turns"], 0);
                assert_eq!(lines.next(), None);
                assert_eq!(stderr, "");
                assert_eq!(output.status.code(), Some(1));
            }
            "codex" => {
                assert_eq!(stdout, "");
                assert_eq!(
                    stderr,
                    format!(
                        "Reading additional input from stdin...\n\
                         Error: thread/resume: thread/resume failed: no rollout found for thread id {LOST} (code -32600)\n"
                    )
                );
                assert_eq!(output.status.code(), Some(1));
            }
            _ => {
                assert_eq!(stdout, "");
                assert_eq!(
                    stderr,
                    format!(
                        "Error resuming session: Invalid session identifier \"{LOST}\".\n  \
                         Searched for sessions in {}/.gemini/tmp/work/chats.\n  \
                         Use --list-sessions to see available sessions, then use --resume {{number}}, --resume {{uuid}}, or --resume latest.\n",
                        home.display()
                    )
                );
                assert_eq!(output.status.code(), Some(42));
            }
        }
        let events = super::events(cli, &output);
        assert!(
            matches!(
                events.first(),
                Some(chatmd::agents::AgentEvent::SessionNotFound { .. })
            ),
            "{cli}: {events:?}"
        );
    }
}

#[test]
fn gemini_with_no_session_at_all_says_so() {
    let sandbox = Sandbox::new();
    let mut command = sandbox.command("gemini", &resume_args("gemini", LOST));
    command.env("FAKE_AGENT_SESSIONS", sandbox.path("empty-store"));
    let output = run(command, None);
    assert_eq!(
        String::from_utf8_lossy(&output.stderr),
        "Error resuming session: No previous sessions found for this project.\n"
    );
    assert_eq!(output.status.code(), Some(42));
}

/// A fresh run adds its session to the store; resuming it then works and keeps the id.
#[test]
fn the_store_learns_the_sessions_it_prints() {
    let sandbox = Sandbox::new();
    let store = sandbox.path("sessions");
    for cli in ["claude", "codex", "gemini"] {
        let mut fresh = sandbox.command(cli, super::good_args(cli));
        fresh
            .env("FAKE_AGENT_SESSIONS", &store)
            .env("FAKE_AGENT_SESSION", KNOWN)
            .env("FAKE_AGENT_TEXT", "first");
        assert_eq!(run(fresh, None).status.code(), Some(0), "{cli}");
        assert!(store.join(cli).join(KNOWN).is_file(), "{cli}");
        let mut resumed = sandbox.command(cli, &resume_args(cli, KNOWN));
        resumed
            .env("FAKE_AGENT_SESSIONS", &store)
            .env("FAKE_AGENT_TEXT", "second");
        let output = run(resumed, None);
        assert_eq!(output.status.code(), Some(0), "{cli}");
        assert!(
            String::from_utf8_lossy(&output.stdout).contains(KNOWN),
            "{cli}: the same id"
        );
    }
}

#[test]
fn resume_arguments_are_checked_like_the_real_cli() {
    let sandbox = Sandbox::new();
    // codex takes no -C after `resume` (clap's words).
    let codex = run(
        sandbox.command(
            "codex",
            &["exec", "resume", KNOWN, "--json", "-C", "sub", "more"],
        ),
        None,
    );
    assert_eq!(
        String::from_utf8_lossy(&codex.stderr),
        "error: unexpected argument '-C' found\n\n  tip: to pass '-C' as a value, use '-- -C'\n\n\
         Usage: codex exec resume [OPTIONS] [SESSION_ID] [PROMPT]\n\nFor more information, try '--help'.\n"
    );
    assert_eq!(codex.status.code(), Some(2));
    // claude headless needs the id: a bare --resume would open a picker.
    let claude = run(
        sandbox.command(
            "claude",
            &[
                "-p",
                "more",
                "--output-format",
                "stream-json",
                "--verbose",
                "--resume",
            ],
        ),
        None,
    );
    assert_eq!(claude.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&claude.stderr).contains("--resume without a session id"),
        "{claude:?}"
    );
}

/// A `.jsonl` record gets a line per run, with the session each run resumed.
#[test]
fn a_jsonl_record_keeps_every_run() {
    let sandbox = Sandbox::new();
    let record = sandbox.path("runs.jsonl");
    for args in [
        resume_args("gemini", KNOWN),
        super::good_args("gemini").to_vec(),
    ] {
        let mut command = sandbox.command("gemini", &args);
        command.env("FAKE_AGENT_RECORD", &record);
        assert_eq!(run(command, None).status.code(), Some(0));
    }
    let text = std::fs::read_to_string(&record).expect("record");
    let runs: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON line"))
        .collect();
    assert_eq!(runs.len(), 2);
    assert_eq!(runs[0]["resume"], KNOWN);
    assert_eq!(runs[1]["resume"], Value::Null);
    assert_eq!(runs[0]["prompt"], "more");
}

/// claude's system text across a resume, as the reference observed it
/// (agents-2026-12.md): 2.1.197 takes each run's `--append-system-prompt`; 2.1.332
/// keeps the first run's (B1 after B2 was passed) and a session started without one
/// gets none on resume.
#[test]
fn claude_2_1_332_keeps_its_first_system_text_on_resume() {
    for (version, second, bare) in [
        (None, Some("B2"), Some("B2")),
        (Some("2.1.332"), Some("B1"), None),
    ] {
        let sandbox = Sandbox::new();
        let store = sandbox.path("sessions");
        let record = sandbox.path("runs.jsonl");
        let claude = |args: &[&str], session: &str| {
            let mut command = sandbox.command("claude", args);
            command
                .env("FAKE_AGENT_SESSIONS", &store)
                .env("FAKE_AGENT_SESSION", session)
                .env("FAKE_AGENT_TEXT", "ok")
                .env("FAKE_AGENT_RECORD", &record);
            if let Some(version) = version {
                command.env("FAKE_AGENT_VERSION", version);
            }
            let output = run(command, None);
            assert!(output.status.success(), "{output:?}");
            output
        };
        let first = ["-p", "hi", "--output-format", "stream-json", "--verbose"];
        let system = |text: &'static str| ["--append-system-prompt", text];
        claude(&[&first[..], &system("B1")].concat(), KNOWN);
        claude(
            &[&resume_args("claude", KNOWN)[..], &system("B2")].concat(),
            KNOWN,
        );
        claude(&first, LOST);
        claude(
            &[&resume_args("claude", LOST)[..], &system("B2")].concat(),
            LOST,
        );
        let runs: Vec<Value> = std::fs::read_to_string(&record)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let systems: Vec<&Value> = runs.iter().map(|r| &r["system"]).collect();
        let text = |t: Option<&str>| t.map_or(Value::Null, Value::from);
        assert_eq!(
            systems,
            [&text(Some("B1")), &text(second), &Value::Null, &text(bare)],
            "{version:?}"
        );
        let mut asked = sandbox.command("claude", &["--version"]);
        if let Some(version) = version {
            asked.env("FAKE_AGENT_VERSION", version);
        }
        let version_line = run(asked, None);
        let printed = match version {
            Some(version) => format!("{version} (Claude Code)\n"),
            None => "2.1.197 (Claude Code)\n".to_owned(),
        };
        assert_eq!(String::from_utf8_lossy(&version_line.stdout), printed);
    }
}
