//! Permission flows beyond the recordings: a cancel while a request waits (the client
//! must answer it `cancelled`), two requests in one turn, "always" answers remembered
//! where each real agent keeps them, codex's default mode that never asks, and an
//! answer that names no offered option.

use serde_json::{Value, json};

use super::client::{Agent, Sandbox, kinds, text};
use super::{FLAVORS, TOOL_PROMPT};

/// Starts `flavor`, opens a session and sends the tool prompt `prompt` as request 3;
/// returns the agent, the session and the first permission request.
fn ask(sandbox: &Sandbox, flavor: &str, prompt: &str) -> (Agent, String, Value) {
    let mut agent = sandbox.start(flavor, &[]);
    agent.initialize();
    let sid = agent.new_session(&sandbox.work);
    agent.prompt(3, &sid, prompt);
    let request = agent.until_request().pop().expect("a request");
    (agent, sid, request)
}

/// The optionId of kind `kind` among the request's options.
fn option(request: &Value, kind: &str) -> String {
    request["params"]["options"]
        .as_array()
        .and_then(|o| o.iter().find(|o| o["kind"] == kind))
        .and_then(|o| o["optionId"].as_str())
        .unwrap_or_else(|| panic!("no {kind} option in {request}"))
        .to_string()
}

fn stderr_of(agent: Agent) -> String {
    let output = agent.close();
    assert_eq!(output.status.code(), Some(0));
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[test]
fn a_cancel_while_a_permission_waits_needs_the_request_answered_cancelled() {
    for flavor in FLAVORS {
        for answer in [None, Some("selected"), Some("never")] {
            let sandbox = Sandbox::new();
            let (mut agent, sid, request) = ask(&sandbox, flavor, TOOL_PROMPT);
            assert_eq!(request["id"], 0, "{flavor}: requests count from 0");
            agent.cancel(&sid);
            let got = agent.until_response(3);
            assert_eq!(
                got.last().unwrap()["result"]["stopReason"],
                "cancelled",
                "{flavor}"
            );
            if flavor == "claude" {
                // claude-agent-acp reports the turn's cost after the result.
                assert_eq!(kinds(&[agent.recv()]), ["usage_update"]);
            }
            match answer {
                None => agent.answer(&request["id"], None),
                Some("selected") => {
                    agent.answer(&request["id"], Some(&option(&request, "allow_once")))
                }
                _ => {}
            }
            let stderr = stderr_of(agent);
            let expected = match answer {
                None => String::new(),
                Some("selected") => "the client must answer it {\"outcome\":\"cancelled\"}".into(),
                _ => "session/request_permission 0 was never answered".into(),
            };
            assert!(
                stderr.contains(&expected) && (answer.is_some() || stderr.is_empty()),
                "{flavor} {answer:?}: {stderr}"
            );
            assert!(!sandbox.work.join("tool-wrote.txt").exists(), "{flavor}");
        }
    }
}

#[test]
fn two_permission_requests_in_one_turn() {
    for flavor in FLAVORS {
        let sandbox = Sandbox::new();
        let prompt = "MOCK-MODE=toolwrite2 WRITE=a.txt WRITE=b.txt go";
        let (mut agent, _, first) = ask(&sandbox, flavor, prompt);
        assert_eq!(
            first["params"]["toolCall"]["title"], "touch a.txt",
            "{flavor}"
        );
        agent.answer(&first["id"], Some(&option(&first, "allow_once")));
        let second = agent.until_request().pop().unwrap();
        assert_eq!(second["id"], 1, "{flavor}");
        assert_eq!(
            second["params"]["toolCall"]["title"], "touch b.txt",
            "{flavor}"
        );
        agent.answer(&second["id"], Some(&option(&second, "allow_once")));
        let got = agent.until_response(3);
        assert_eq!(
            got.last().unwrap()["result"]["stopReason"],
            "end_turn",
            "{flavor}"
        );
        assert!(sandbox.work.join("a.txt").is_file() && sandbox.work.join("b.txt").is_file());
        assert_eq!(stderr_of(agent), "", "{flavor}");
    }
}

/// Runs the tool prompt in a new process and session; whether the agent asked.
fn asks_again(sandbox: &Sandbox, flavor: &str) -> bool {
    let mut agent = sandbox.start(flavor, &[]);
    agent.initialize();
    let sid = agent.new_session(&sandbox.work);
    agent.prompt(3, &sid, TOOL_PROMPT);
    let mut asked = false;
    loop {
        let msg = agent.recv();
        if msg["method"] == "session/request_permission" {
            asked = true;
            agent.answer(&msg["id"], Some(&option(&msg, "reject_once")));
        }
        if msg["id"] == 3 && msg.get("method").is_none() {
            break;
        }
    }
    assert_eq!(stderr_of(agent), "", "{flavor}");
    asked
}

#[test]
fn allow_always_is_remembered_where_each_agent_keeps_it() {
    for flavor in FLAVORS {
        let sandbox = Sandbox::new();
        let (mut agent, sid, request) = ask(&sandbox, flavor, TOOL_PROMPT);
        agent.answer(&request["id"], Some(&option(&request, "allow_always")));
        agent.until_response(3);
        // The same command again in the same session.
        agent.prompt(4, &sid, TOOL_PROMPT);
        let again = agent.until_response(4);
        assert!(
            !kinds(&again).contains(&"session/request_permission".into()),
            "{flavor}: {again:?}"
        );
        assert_eq!(stderr_of(agent), "", "{flavor}");
        // A new process: gemini's "for this session" is gone, the others wrote it down.
        assert_eq!(asks_again(&sandbox, flavor), flavor == "gemini", "{flavor}");
    }
    let sandbox = Sandbox::new();
    let (mut agent, _, request) = ask(&sandbox, "claude", TOOL_PROMPT);
    agent.answer(&request["id"], Some("allow_always"));
    agent.until_response(3);
    stderr_of(agent);
    let settings =
        std::fs::read_to_string(sandbox.work.join(".claude/settings.local.json")).unwrap();
    let settings: Value = serde_json::from_str(&settings).unwrap();
    assert_eq!(
        settings,
        json!({"permissions": {"allow": ["Bash(touch tool-wrote.txt)"]}})
    );
    let (mut agent, _, request) = ask(&sandbox, "codex", TOOL_PROMPT);
    agent.answer(&request["id"], Some("accept_execpolicy_amendment"));
    agent.until_response(3);
    stderr_of(agent);
    assert_eq!(
        std::fs::read_to_string(sandbox.state("codex").join("rules/default.rules")).unwrap(),
        "prefix_rule(pattern=[\"touch\", \"tool-wrote.txt\"], decision=\"allow\")\n"
    );
}

#[test]
fn codex_in_its_default_mode_runs_the_command_without_asking() {
    let sandbox = Sandbox::new();
    let mut command = sandbox.command("codex");
    command.env_remove("INITIAL_AGENT_MODE");
    let mut agent = Agent::spawn(command);
    agent.initialize();
    agent.send(&json!({"jsonrpc": "2.0", "id": 2, "method": "session/new",
        "params": {"cwd": sandbox.work, "mcpServers": []}}));
    let got = agent.until_response(2);
    let result = &got.last().unwrap()["result"];
    assert_eq!(result["modes"]["currentModeId"], "agent");
    let sid = result["sessionId"].as_str().unwrap().to_string();
    agent.recv(); // the slash commands
    agent.prompt(3, &sid, TOOL_PROMPT);
    let got = agent.until_response(3);
    assert_eq!(
        kinds(&got)[..3],
        ["session_info_update", "tool_call", "tool_call_update"]
    );
    assert!(sandbox.work.join("tool-wrote.txt").is_file());
    // Switched to workspace-write, it asks.
    agent.send(
        &json!({"jsonrpc": "2.0", "id": 4, "method": "session/set_mode",
        "params": {"sessionId": sid, "modeId": "workspace-write"}}),
    );
    let got = agent.until_response(4);
    assert_eq!(kinds(&got), ["config_option_update", "result"]);
    agent.prompt(5, &sid, "MOCK-MODE=toolwrite WRITE=other.txt");
    let request = agent.until_request().pop().unwrap();
    assert_eq!(request["method"], "session/request_permission");
    agent.answer(&request["id"], Some("cancel"));
    let got = agent.until_response(5);
    assert_eq!(got.last().unwrap()["result"]["stopReason"], "cancelled");
    assert_eq!(text(&got), "", "codex says nothing after a refusal");
    assert_eq!(stderr_of(agent), "");
}

#[test]
fn an_answer_naming_no_offered_option_is_a_refusal_and_reported() {
    let sandbox = Sandbox::new();
    // A kind is not an option id: gemini's allow-once option is `proceed_once`.
    let (mut agent, _, request) = ask(&sandbox, "gemini", TOOL_PROMPT);
    agent.answer(&request["id"], Some("allow_once"));
    let got = agent.until_response(3);
    assert!(text(&got).contains("was canceled by the user"), "{got:?}");
    assert!(!sandbox.work.join("tool-wrote.txt").exists());
    let stderr = stderr_of(agent);
    assert!(
        stderr.contains("optionId \"allow_once\", which was not offered"),
        "{stderr}"
    );
}
