//! The built fake agent, run under each CLI's name: transcripts byte for byte, sessions,
//! generated answers; command lines and fault knobs in the submodules.

#[path = "fake_agent/command_lines.rs"]
mod command_lines;
mod fake_support;
#[path = "fake_agent/faults.rs"]
mod faults;
#[path = "fake_agent/resume.rs"]
mod resume;
#[path = "fake_agent/stream_input.rs"]
mod stream_input;

use std::os::unix::process::ExitStatusExt;

use chatmd::agents::{AgentEvent, ExitInfo, Registry, parser_for};
use fake_support::{Sandbox, kill, lines, next_line, run, wait};
use pretty_assertions::assert_eq;
use serde_json::Value;

/// The command line each adapter sends (without the prompt variations).
fn good_args(cli: &str) -> &'static [&'static str] {
    match cli {
        "claude" => &[
            "-p",
            "hi",
            "--output-format",
            "stream-json",
            "--verbose",
            "--include-partial-messages",
        ],
        "codex" => &["exec", "--json", "--skip-git-repo-check", "hi"],
        "gemini" => &["-p", "hi", "--output-format", "stream-json", "--skip-trust"],
        _ => unreachable!(),
    }
}

fn fixture(cli: &str, name: &str) -> (String, Value) {
    let dir = chatmd_tests::fake_agent::default_fixtures().join(cli);
    let stdout = std::fs::read_to_string(dir.join(format!("{name}.jsonl"))).expect("transcript");
    let meta = std::fs::read_to_string(dir.join(format!("{name}.meta.json")))
        .map(|m| serde_json::from_str(&m).expect("meta"))
        .unwrap_or(Value::Null);
    (stdout, meta)
}

fn names(cli: &str) -> Vec<String> {
    let dir = chatmd_tests::fake_agent::default_fixtures().join(cli);
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .expect("fixtures")
        .filter_map(|e| {
            e.ok()?
                .file_name()
                .into_string()
                .ok()?
                .strip_suffix(".jsonl")
                .map(str::to_owned)
        })
        .collect();
    names.sort();
    names
}

/// What codex prints on stderr when a prompt argument comes with a non-terminal stdin.
const CODEX_STDIN_NOTE: &str = "Reading additional input from stdin...\n";

#[test]
fn every_transcript_is_printed_byte_for_byte() {
    let sandbox = Sandbox::new();
    let mut count = 0;
    for cli in ["claude", "codex", "gemini"] {
        for name in names(cli) {
            let (stdout, meta) = fixture(cli, &name);
            let mut command = sandbox.command(cli, good_args(cli));
            command.env("FAKE_AGENT_TRANSCRIPT", &name);
            let mut expected_stderr = meta["stderr"].as_str().unwrap_or("").to_owned();
            if cli == "codex" {
                expected_stderr.insert_str(0, CODEX_STDIN_NOTE);
            }
            if meta["hang"] == true {
                // Like the real CLI offline: all its lines, then nothing, never an exit.
                let mut child = command.spawn().expect("spawn");
                let rx = lines(&mut child);
                let printed: Vec<Vec<u8>> = stdout.lines().map(|_| next_line(&rx)).collect();
                let expected: Vec<&[u8]> = stdout.lines().map(str::as_bytes).collect();
                assert_eq!(printed, expected, "{cli}/{name}");
                kill(child.id(), "KILL");
                let output = wait(child);
                assert_eq!(output.status.signal(), Some(9), "{cli}/{name} kept running");
            } else {
                let output = run(command, None);
                assert_eq!(
                    String::from_utf8_lossy(&output.stdout),
                    stdout,
                    "{cli}/{name}"
                );
                assert_eq!(
                    String::from_utf8_lossy(&output.stderr),
                    expected_stderr,
                    "{cli}/{name}"
                );
                let code = meta["code"].as_i64().unwrap_or(0) as i32;
                assert_eq!(output.status.code(), Some(code), "{cli}/{name}");
            }
            count += 1;
        }
    }
    assert_eq!(count, 37);
}

/// The session id on the first line of `stdout` (each CLI names it differently).
fn first_session(stdout: &[u8]) -> String {
    let first = String::from_utf8_lossy(stdout)
        .lines()
        .next()
        .unwrap_or("")
        .to_owned();
    let value: Value = serde_json::from_str(&first).expect("JSON first line");
    value["session_id"]
        .as_str()
        .or(value["thread_id"].as_str())
        .unwrap_or("")
        .to_owned()
}

#[test]
fn resuming_keeps_the_given_session_id() {
    let sandbox = Sandbox::new();
    let id = "11111111-2222-4333-8444-555555555555";
    let cases: [(&str, Vec<&str>); 3] = [
        (
            "claude",
            vec![
                "-p",
                "more",
                "--output-format",
                "stream-json",
                "--verbose",
                "--resume",
                id,
            ],
        ),
        (
            "codex",
            vec![
                "exec",
                "resume",
                id,
                "--json",
                "--skip-git-repo-check",
                "more",
            ],
        ),
        (
            "gemini",
            vec![
                "-p",
                "more",
                "--output-format",
                "stream-json",
                "--skip-trust",
                "--resume",
                id,
            ],
        ),
    ];
    for (cli, args) in cases {
        let output = run(sandbox.command(cli, &args), None);
        assert_eq!(output.status.code(), Some(0), "{cli}");
        assert_eq!(first_session(&output.stdout), id, "{cli}");
        let (resume, _) = fixture(cli, "resume");
        let original = first_session(resume.as_bytes());
        assert!(
            !String::from_utf8_lossy(&output.stdout).contains(&original),
            "{cli}: every id replaced"
        );
        let mut chosen = sandbox.command(cli, good_args(cli));
        chosen.env("FAKE_AGENT_SESSION", "chosen-id");
        assert_eq!(
            first_session(&run(chosen, None).stdout),
            "chosen-id",
            "{cli}"
        );
    }
}

/// A whole run of the fake through chatmd's own parser for `cli`: every event.
fn events(cli: &str, output: &std::process::Output) -> Vec<AgentEvent> {
    let mut parser = parser_for(Registry::builtin().entry(cli).expect("entry"));
    let mut events = Vec::new();
    for line in String::from_utf8_lossy(&output.stdout).lines() {
        parser.line(line, &mut events);
    }
    let exit = ExitInfo {
        code: output.status.code(),
        stderr_tail: String::from_utf8_lossy(&output.stderr).into_owned(),
    };
    parser.finish(&exit, &mut events);
    events
}

/// `stdout` through chatmd's own parser for `cli`: (text, outcome).
fn parse(cli: &str, stdout: &[u8], code: Option<i32>) -> (String, AgentEvent) {
    let mut parser = parser_for(Registry::builtin().entry(cli).expect("entry"));
    let mut events = Vec::new();
    for line in stdout.split(|b| *b == b'\n').filter(|l| !l.is_empty()) {
        parser.line(&String::from_utf8_lossy(line), &mut events);
    }
    let exit = ExitInfo {
        code,
        stderr_tail: String::new(),
    };
    parser.finish(&exit, &mut events);
    let text = events.iter().filter_map(|e| match e {
        AgentEvent::Text(t) => Some(t.as_str()),
        _ => None,
    });
    let text: String = text.collect();
    let outcome = events
        .into_iter()
        .find(|e| matches!(e, AgentEvent::Done { .. } | AgentEvent::Failed { .. }));
    (text, outcome.expect("an outcome"))
}

#[test]
fn the_text_knob_streams_an_answer_in_each_format() {
    let sandbox = Sandbox::new();
    let answer = "Hello, streaming world!\n\n```sh\necho \"quoted\" \\ back\n```";
    for cli in ["claude", "codex", "gemini"] {
        let mut command = sandbox.command(cli, good_args(cli));
        command
            .env("FAKE_AGENT_TEXT", answer)
            .env("FAKE_AGENT_CHUNKS", "5");
        let output = run(command, None);
        let (text, outcome) = parse(cli, &output.stdout, output.status.code());
        assert_eq!(text, answer, "{cli}");
        assert!(
            matches!(outcome, AgentEvent::Done { .. }),
            "{cli}: {outcome:?}"
        );
        let deltas = String::from_utf8_lossy(&output.stdout)
            .matches("\"delta\"")
            .count();
        let expected = match cli {
            "claude" => 5 + 1, // five text deltas and message_delta
            "codex" => 0,      // --json has no deltas
            _ => 5,
        };
        assert_eq!(deltas, expected, "{cli}");
    }
}
