//! The fake's other ACP behaviours: how it is started, what it checks of the client,
//! the errors each agent gives (unknown session, no credentials, gemini's failed load),
//! a crash mid-prompt, an `fs/read_text_file` request, and the text knobs.

use std::path::PathBuf;
use std::process::{Command, Stdio};

use serde_json::json;

use super::client::{Agent, Sandbox, kinds, text};
use super::replay::{Ids, replay};
use super::{FLAVORS, TOOL_PROMPT};

fn stderr_of(agent: Agent) -> String {
    let output = agent.close();
    assert_eq!(output.status.code(), Some(0));
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[test]
fn each_invocation_picks_its_flavor() {
    let sandbox = Sandbox::new();
    let cases = [
        (
            "claude-agent-acp",
            vec![],
            None,
            "@agentclientprotocol/claude-agent-acp",
        ),
        ("codex-acp", vec![], None, "@agentclientprotocol/codex-acp"),
        ("gemini", vec!["--acp"], None, "gemini-cli"),
        ("gemini", vec!["--experimental-acp"], None, "gemini-cli"),
        (
            "fake-agent",
            vec!["--acp"],
            Some("codex"),
            "@agentclientprotocol/codex-acp",
        ),
    ];
    for (program, args, as_cli, name) in cases {
        let path = match program {
            "fake-agent" => PathBuf::from(env!("CARGO_BIN_EXE_fake-agent")),
            _ => sandbox.bin.join(program),
        };
        let mut command = Command::new(path);
        command
            .args(&args)
            .current_dir(&sandbox.work)
            .env_clear()
            .env("PATH", &sandbox.bin)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        if let Some(cli) = as_cli {
            command.env("FAKE_AGENT_AS", cli);
        }
        let record = sandbox.path("record.json");
        command.env("FAKE_AGENT_RECORD", &record);
        let mut agent = Agent::spawn(command);
        assert_eq!(
            agent.initialize()["result"]["agentInfo"]["name"],
            name,
            "{program}"
        );
        assert_eq!(stderr_of(agent), "");
        let record: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&record).unwrap()).unwrap();
        assert_eq!(record["acp"], true);
        assert_eq!(
            record["argv"].as_array().unwrap()[1..],
            args[..],
            "{program}"
        );
    }
    // Claude Code itself has no --acp.
    let output = Command::new(sandbox.bin.join("claude"))
        .arg("--acp")
        .env_clear()
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&output.stderr),
        "error: unknown option '--acp'\n"
    );
}

#[test]
fn the_client_must_start_with_initialize_asking_version_1() {
    let sandbox = Sandbox::new();
    let mut agent = sandbox.start("claude", &[]);
    agent.send(&json!({"jsonrpc": "2.0", "id": 1, "method": "session/new",
        "params": {"cwd": sandbox.work, "mcpServers": []}}));
    assert_eq!(agent.recv()["error"]["code"], -32600);
    agent.send(&json!({"jsonrpc": "2.0", "id": 2, "method": "initialize",
        "params": {"protocolVersion": 2, "clientCapabilities": {}}}));
    assert_eq!(
        agent.recv()["result"]["protocolVersion"],
        1,
        "the agent's version"
    );
    assert_eq!(
        stderr_of(agent),
        "fake-agent: the first message must be `initialize`, got session/new\n\
         fake-agent: initialize asked protocolVersion 2, expected 1\n"
    );
}

#[test]
fn a_line_that_is_not_json_gets_no_answer_like_the_sdk() {
    let sandbox = Sandbox::new();
    let log = sandbox.path("log.jsonl");
    let mut agent = sandbox.start("gemini", &[("FAKE_ACP_LOG", &log.display().to_string())]);
    agent.send_line("{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": ");
    assert_eq!(
        agent.initialize()["id"],
        1,
        "the next message is the first answer"
    );
    let stderr = stderr_of(agent);
    assert!(
        stderr.starts_with("Failed to parse JSON message: {\"jsonrpc\""),
        "{stderr}"
    );
    let logged = std::fs::read_to_string(&log).unwrap();
    // The log's first line says which process wrote it; the message comes after.
    let first: serde_json::Value = serde_json::from_str(logged.lines().nth(1).unwrap()).unwrap();
    assert_eq!(
        first,
        json!({"malformed": "{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\":"})
    );
}

#[test]
fn a_prompt_for_an_unknown_session_fails_in_each_agents_words() {
    for flavor in FLAVORS {
        let sandbox = Sandbox::new();
        let mut agent = sandbox.start(flavor, &[]);
        agent.initialize();
        agent.prompt(3, "nope", "hi");
        let error = agent.recv()["error"].clone();
        let details = match flavor {
            "claude" => "Session not found",
            "codex" => "Session nope not found",
            _ => "Session not found: nope",
        };
        assert_eq!(
            error,
            json!({"code": -32603, "message": "Internal error", "data": {"details": details}})
        );
        assert_eq!(stderr_of(agent), "");
    }
}

#[test]
fn missing_credentials_fail_where_each_agent_fails() {
    for flavor in FLAVORS {
        let sandbox = Sandbox::new();
        let mut agent = sandbox.start(flavor, &[("FAKE_ACP_NO_AUTH", "1")]);
        agent.initialize();
        agent.send(&json!({"jsonrpc": "2.0", "id": 2, "method": "session/new",
            "params": {"cwd": sandbox.work, "mcpServers": []}}));
        let error = match flavor {
            "claude" => {
                // claude-agent-acp opens the session; the prompt fails.
                let got = agent.until_response(2);
                let sid = got.last().unwrap()["result"]["sessionId"]
                    .as_str()
                    .unwrap()
                    .to_string();
                agent.recv();
                agent.prompt(3, &sid, "hi");
                agent.recv()["error"].clone()
            }
            _ => agent.until_response(2).pop().unwrap()["error"].clone(),
        };
        let message = match flavor {
            "gemini" => "Gemini API key is missing or not configured.",
            _ => "Authentication required",
        };
        assert_eq!(
            error,
            json!({"code": -32000, "message": message}),
            "{flavor}"
        );
        assert_eq!(stderr_of(agent), "");
    }
}

#[test]
fn a_crash_mid_prompt_ends_the_process_after_some_chunks() {
    for flavor in FLAVORS {
        let sandbox = Sandbox::new();
        let mut agent = sandbox.start(flavor, &[]);
        agent.initialize();
        let sid = agent.new_session(&sandbox.work);
        agent.prompt(3, &sid, "MOCK-MODE=crash go");
        let got = agent.drain();
        let answer = "ANSWER-";
        assert!(
            text(&got).starts_with(answer) && !got.iter().any(|m| m.get("result").is_some()),
            "{flavor}: {got:?}"
        );
        let output = agent.close();
        assert_eq!(output.status.code(), Some(1), "{flavor}");
        assert_eq!(
            String::from_utf8_lossy(&output.stderr),
            "fake-agent: the agent crashed in the middle of the prompt (MOCK-MODE=crash)\n"
        );
    }
}

#[test]
fn a_read_file_request_gets_the_clients_error() {
    let sandbox = Sandbox::new();
    let mut agent = sandbox.start("claude", &[]);
    agent.initialize();
    let sid = agent.new_session(&sandbox.work);
    agent.prompt(3, &sid, "MOCK-MODE=readfile READ=notes.md");
    let request = agent.until_request().pop().unwrap();
    let path = sandbox.work.join("notes.md");
    assert_eq!(
        request,
        json!({"jsonrpc": "2.0", "id": 0, "method": "fs/read_text_file",
            "params": {"sessionId": sid, "path": path}})
    );
    agent.send(&json!({"jsonrpc": "2.0", "id": 0,
        "error": {"code": -32601, "message": "Method not found"}}));
    let got = agent.until_response(3);
    assert!(
        text(&got).ends_with("tool_result=\"error -32601: Method not found\""),
        "{got:?}"
    );
    assert_eq!(stderr_of(agent), "");
}

#[test]
fn gemini_load_can_fail_as_it_does_within_the_minute() {
    let sandbox = Sandbox::new();
    let mut ids = Ids::default();
    let mut first = sandbox.start("gemini", &[]);
    // The recording's session is the one of its own run, not of the hello run.
    replay(&mut first, "gemini-hello", &mut ids, &sandbox.work);
    stderr_of(first);
    let recorded = "9ef40089-9628-473c-b000-31df5b7658c4";
    let sid = ids_session(&mut ids);
    let mut ids = Ids::default();
    ids.rename(recorded, &sid);
    let mut agent = sandbox.start("gemini", &[("FAKE_ACP_GEMINI_LOAD_FAILS", "1")]);
    replay(
        &mut agent,
        "gemini-load-same-minute-fails",
        &mut ids,
        &sandbox.work,
    );
    assert_eq!(stderr_of(agent), "");
    // The session is gone for good.
    let mut agent = sandbox.start("gemini", &[]);
    agent.initialize();
    agent.send(&json!({"jsonrpc": "2.0", "id": 2, "method": "session/load",
        "params": {"sessionId": sid, "cwd": sandbox.work, "mcpServers": []}}));
    assert_eq!(
        agent.recv()["error"]["data"]["details"],
        "No previous sessions found for this project."
    );
    stderr_of(agent);
}

/// The fake's session id in the hello replay.
fn ids_session(ids: &mut Ids) -> String {
    ids.actual("ef168092-7ca8-4fec-98a0-fcca31c937e9")
}

#[test]
fn a_session_resumes_only_from_its_own_folder() {
    let sandbox = Sandbox::new();
    let mut agent = sandbox.start("claude", &[]);
    agent.initialize();
    let sid = agent.new_session(&sandbox.work);
    stderr_of(agent);
    let elsewhere = sandbox.path("elsewhere");
    let mut agent = sandbox.start("claude", &[]);
    agent.initialize();
    agent.send(
        &json!({"jsonrpc": "2.0", "id": 2, "method": "session/resume",
        "params": {"sessionId": sid, "cwd": elsewhere, "mcpServers": []}}),
    );
    assert_eq!(
        agent.recv()["error"],
        json!({"code": -32002, "message": "Resource not found", "data": {"uri": sid}})
    );
    stderr_of(agent);
}

#[test]
fn the_text_knobs_replace_the_answer() {
    let sandbox = Sandbox::new();
    let mut agent = sandbox.start(
        "codex",
        &[("FAKE_AGENT_PROMPT_KNOBS", "1"), ("FAKE_AGENT_CHUNKS", "2")],
    );
    agent.initialize();
    let sid = agent.new_session(&sandbox.work);
    agent.prompt(
        3,
        &sid,
        "[MESSAGE]\nme: hi\nfake-agent: FAKE_AGENT_TEXT=Hello there.",
    );
    let got = agent.until_response(3);
    assert_eq!(text(&got), "Hello there.");
    let chunks = kinds(&got)
        .iter()
        .filter(|k| *k == "agent_message_chunk")
        .count();
    assert_eq!(chunks, 2);
    // The tool prompt still asks with the text knob set.
    agent.prompt(4, &sid, TOOL_PROMPT);
    assert_eq!(agent.until_request().pop().unwrap()["id"], 0);
    let stderr = stderr_of(agent);
    assert_eq!(
        stderr,
        "fake-agent: session/request_permission 0 was never answered\n"
    );
}

#[test]
fn claude_offers_bypass_permissions_only_when_allowed() {
    let sandbox = Sandbox::new();
    let modes = |is_sandbox: Option<&str>| {
        let mut command = sandbox.command("claude");
        command.env_remove("IS_SANDBOX");
        if let Some(value) = is_sandbox {
            command.env("IS_SANDBOX", value);
        }
        let mut agent = Agent::spawn(command);
        agent.initialize();
        agent.send(&json!({"jsonrpc": "2.0", "id": 2, "method": "session/new",
            "params": {"cwd": sandbox.work, "mcpServers": []}}));
        let result = agent.until_response(2).pop().unwrap()["result"].clone();
        agent.recv();
        stderr_of(agent);
        let ids: Vec<String> = result["modes"]["availableModes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["id"].as_str().unwrap().to_string())
            .collect();
        ids
    };
    assert!(modes(Some("1")).contains(&"bypassPermissions".to_string()));
    // As root without IS_SANDBOX, claude-agent-acp leaves the mode out.
    let root = crate::fake_support::is_root();
    assert_eq!(
        !modes(None).contains(&"bypassPermissions".to_string()),
        root
    );
}
