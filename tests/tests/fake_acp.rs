//! The fake agent's ACP mode against the real agents' recordings
//! (`fixtures/acp/recorded/`): for gemini, claude and codex, each recorded conversation
//! replayed message by message (hello, a tool call allowed once and rejected once, a
//! cancel, resume and load in new processes). More flows in the submodules.

#[path = "fake_acp/client.rs"]
mod client;
mod fake_support;
#[path = "fake_acp/flows.rs"]
mod flows;
#[path = "fake_acp/permissions.rs"]
mod permissions;
#[path = "fake_acp/replay.rs"]
mod replay;
#[path = "fake_acp/steering.rs"]
mod steering;

use client::{Sandbox, text};
use replay::{Ids, replay};

const FLAVORS: [&str; 3] = ["gemini", "claude", "codex"];

/// The recordings' prompt for a permission-gated `touch tool-wrote.txt`.
const TOOL_PROMPT: &str = "MOCK-MODE=toolwrite please create the file. ASK-TOOL";

/// Replays `<flavor>-<scenario>` in a fresh process; returns the agent's messages and
/// its stderr, after checking it exits 0 when stdin closes.
fn replay_one(
    sandbox: &Sandbox,
    flavor: &str,
    scenario: &str,
    env: &[(&str, &str)],
) -> (Vec<serde_json::Value>, String) {
    let mut agent = sandbox.start(flavor, env);
    let got = replay(
        &mut agent,
        &format!("{flavor}-{scenario}"),
        &mut Ids::default(),
        &sandbox.work,
    );
    let output = agent.close();
    assert_eq!(output.status.code(), Some(0), "{flavor} {scenario}: exit");
    (got, String::from_utf8_lossy(&output.stderr).into_owned())
}

#[test]
fn hello_streams_the_recorded_messages() {
    for flavor in FLAVORS {
        let sandbox = Sandbox::new();
        let (got, stderr) = replay_one(&sandbox, flavor, "hello", &[]);
        assert_eq!(stderr, "", "{flavor}");
        let api = match flavor {
            "claude" => "anthropic",
            "codex" => "openai",
            _ => "gemini",
        };
        let user_msgs = if flavor == "codex" { 2 } else { 1 };
        assert_eq!(
            text(&got),
            format!(
                "ANSWER-{api} role_seen=no marker_count=0 roles=none team=0 turn=0 user_msgs={user_msgs} assistant_msgs=0 ask=-"
            ),
            "{flavor}"
        );
    }
}

#[test]
fn a_tool_call_allowed_once_creates_the_file() {
    for flavor in FLAVORS {
        let sandbox = Sandbox::new();
        let log = sandbox.path("received.jsonl");
        let log_env = log.display().to_string();
        let (_, stderr) = replay_one(
            &sandbox,
            flavor,
            "tool-allow_once",
            &[("FAKE_ACP_LOG", &log_env)],
        );
        assert_eq!(stderr, "", "{flavor}");
        assert!(
            sandbox.work.join("tool-wrote.txt").is_file(),
            "{flavor}: the file"
        );
        // The log holds what the client sent, the permission answer included.
        let received = std::fs::read_to_string(&log).expect("log");
        let answer = received
            .lines()
            .map(|l| serde_json::from_str::<serde_json::Value>(l).expect("JSON line"))
            .find(|m| m["id"] == 0 && m.get("result").is_some())
            .expect("the permission answer in the log");
        let option = match flavor {
            "gemini" => "proceed_once",
            "claude" => "allow",
            _ => "allow_once",
        };
        assert_eq!(answer["result"]["outcome"]["optionId"], option);
        assert_eq!(
            received.lines().count(),
            5,
            "{flavor}: started, initialize, new, prompt, answer"
        );
    }
}

#[test]
fn a_tool_call_rejected_once_leaves_no_file() {
    for flavor in FLAVORS {
        let sandbox = Sandbox::new();
        let (got, stderr) = replay_one(&sandbox, flavor, "tool-reject_once", &[]);
        assert_eq!(stderr, "", "{flavor}");
        assert!(
            !sandbox.work.join("tool-wrote.txt").exists(),
            "{flavor}: no file"
        );
        let stop = &got.last().expect("a result")["result"]["stopReason"];
        // codex aborts the turn; the others tell the model and answer.
        assert_eq!(
            stop,
            if flavor == "codex" {
                "cancelled"
            } else {
                "end_turn"
            },
            "{flavor}"
        );
    }
}

#[test]
fn a_cancel_during_a_slow_answer_ends_the_prompt_cancelled() {
    for flavor in FLAVORS {
        let sandbox = Sandbox::new();
        // Chunks 600 ms apart: the cancel sent after the third one always arrives in time.
        let (got, stderr) = replay_one(
            &sandbox,
            flavor,
            "cancel",
            &[("FAKE_AGENT_DELAY_MS", "600")],
        );
        assert_eq!(stderr, "", "{flavor}");
        let cancelled = got
            .iter()
            .find(|m| m["id"] == 3)
            .expect("prompt 3 answered");
        assert_eq!(cancelled["result"]["stopReason"], "cancelled", "{flavor}");
    }
}

#[test]
fn resume_and_load_work_in_new_processes() {
    for flavor in FLAVORS {
        let sandbox = Sandbox::new();
        let mut ids = Ids::default();
        let mut first = sandbox.start(flavor, &[]);
        replay(
            &mut first,
            &format!("{flavor}-hello"),
            &mut ids,
            &sandbox.work,
        );
        assert_eq!(first.close().status.code(), Some(0));
        for scenario in ["resume", "load"] {
            // The same ids throughout: the session of the hello run, and a load replays
            // the message ids of the earlier runs.
            let mut agent = sandbox.start(flavor, &[]);
            let got = replay(
                &mut agent,
                &format!("{flavor}-{scenario}"),
                &mut ids,
                &sandbox.work,
            );
            let output = agent.close();
            assert_eq!(output.status.code(), Some(0), "{flavor} {scenario}");
            assert_eq!(
                String::from_utf8_lossy(&output.stderr),
                "",
                "{flavor} {scenario}"
            );
            if flavor == "gemini" && scenario == "resume" {
                assert_eq!(got[1]["error"]["code"], -32601);
            }
        }
    }
}
