//! The fake claude reading user messages on stdin (`--input-format stream-json`), as the
//! real 2.1.197 and 2.1.332 did (fixtures/agents/claude/stream-input): a whole run's
//! lines per message, from `init` (same session) to `result`; `usage` per turn,
//! `total_cost_usd` running over the process; exit 0 when stdin closes.

use pretty_assertions::assert_eq;
use serde_json::Value;

use crate::fake_support::{Sandbox, run};

const ARGS: [&str; 7] = [
    "-p",
    "--input-format",
    "stream-json",
    "--output-format",
    "stream-json",
    "--verbose",
    "--include-partial-messages",
];

fn message(text: &str) -> String {
    format!(r#"{{"type":"user","message":{{"role":"user","content":"{text}"}}}}"#) + "\n"
}

#[test]
fn each_message_is_a_turn_with_its_own_usage_and_a_running_cost() {
    let s = Sandbox::new();
    let mut command = s.command("claude", &ARGS);
    command
        .env("FAKE_AGENT_TEXT", "ok")
        .env("FAKE_AGENT_COST", "0.01")
        .env("FAKE_AGENT_TOKENS", "100/3");
    let stdin = message("one") + &message("two");
    let out = run(command, Some(stdin.as_bytes()));
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let lines: Vec<Value> = String::from_utf8(out.stdout)
        .expect("UTF-8")
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON"))
        .collect();
    let of = |kind: &str| -> Vec<&Value> { lines.iter().filter(|l| l["type"] == kind).collect() };
    let inits: Vec<_> = of("system")
        .into_iter()
        .filter(|l| l["subtype"] == "init")
        .collect();
    assert_eq!(inits.len(), 2, "one init line per turn");
    assert_eq!(inits[0]["session_id"], inits[1]["session_id"]);
    assert_eq!(
        inits[1]["model"], "claude-opus-4-8[1m]",
        "the process's model"
    );
    let results = of("result");
    let seen: Vec<(String, String, u64)> = results
        .iter()
        .map(|r| {
            (
                r["result"].as_str().unwrap_or("").to_owned(),
                r["total_cost_usd"].to_string(),
                r["usage"]["input_tokens"].as_u64().unwrap_or(0),
            )
        })
        .collect();
    assert_eq!(
        seen,
        [
            ("ok".to_owned(), "0.01".to_owned(), 100),
            ("ok".to_owned(), "0.02".to_owned(), 100)
        ]
    );
    assert_eq!(
        lines.last().map(|l| &l["type"]),
        Some(&Value::from("result"))
    );
}

#[test]
fn stream_input_needs_stream_json_output() {
    let s = Sandbox::new();
    let out = run(
        s.command(
            "claude",
            &["-p", "--input-format", "stream-json", "--verbose"],
        ),
        Some(b""),
    );
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "Error: --input-format=stream-json requires output-format=stream-json.\n"
    );
}

#[test]
fn closed_stdin_before_any_message_exits_at_once_printing_nothing() {
    let s = Sandbox::new();
    let out = run(s.command("claude", &ARGS), Some(b""));
    assert_eq!(out.status.code(), Some(0));
    assert!(out.stdout.is_empty(), "{out:?}");
}
