//! The session's settings: what a real agent's session offers (the recordings), the
//! member's mode, model and options sent one request at a time before the prompt, a
//! value not offered or refused failing the turn before any prompt, the workspace root
//! as an additional root where the agent takes them, and changes the agent reports.

use std::path::PathBuf;

use chatmd::agents::acp::{SessionSettings, SessionSetup, SettingValue};
use chatmd::agents::{AgentEvent, ConfigChoice};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use crate::{CWD, Trace, replay, session, shown, start};

/// The settings each `Options` event told: `id=current` for each choice.
fn options(events: &[AgentEvent]) -> Vec<Vec<String>> {
    let told = |choices: &Vec<ConfigChoice>| {
        choices
            .iter()
            .map(|c| format!("{}={}", c.id, c.current.as_deref().unwrap_or("-")))
            .collect()
    };
    events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::Options(choices) => Some(told(choices)),
            _ => None,
        })
        .collect()
}

#[test]
fn each_agent_tells_what_its_session_offers() {
    for (name, expected) in [
        (
            "claude-hello",
            vec!["mode=default", "model=default", "effort=default"],
        ),
        (
            "codex-hello",
            vec![
                "mode=workspace-write",
                "collaboration_mode=default",
                "model=gpt-5.5",
            ],
        ),
        // gemini has no config options: its legacy modes and models stand in.
        ("gemini-hello", vec!["mode=default", "model=auto"]),
    ] {
        let (_, trace, _) = replay(name);
        assert_eq!(options(&trace.events), [expected], "{name}");
    }
}

const INITIALIZED: &str = r#"{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":1,"authMethods":[],"agentCapabilities":{"sessionCapabilities":{"additionalDirectories":{},"resume":{}}}}}"#;

const CREATED: &str = r#"{"jsonrpc":"2.0","id":2,"result":{"sessionId":"s-1","configOptions":[
    {"id":"mode","name":"Mode","category":"mode","type":"select","currentValue":"default","options":[{"value":"default","name":"Default"},{"value":"plan","name":"Plan"}]},
    {"id":"model","name":"Model","category":"model","type":"select","currentValue":"default","options":[{"value":"default","name":"Default"},{"value":"sonnet","name":"Sonnet"}]},
    {"id":"fast","name":"Fast","type":"boolean","currentValue":false}]}}"#;

/// A session whose member asks `settings`, in a member folder below the workspace
/// root, started and initialized.
fn set_up(settings: SessionSettings) -> (chatmd::agents::acp::AcpSession, Trace) {
    let setup = SessionSetup {
        settings,
        workspace: Some(PathBuf::from("/home/dev")),
        ..SessionSetup::default()
    };
    let mut session = session("claude").with_setup(setup);
    let mut trace = start(&mut session, "the prompt");
    trace.line(&mut session, INITIALIZED);
    (session, trace)
}

fn methods(trace: &Trace) -> Vec<&str> {
    trace
        .sent
        .iter()
        .filter_map(|m| m["method"].as_str())
        .collect()
}

/// The agent's answer `id` to a `set_config_option`: the whole list, with `values`
/// current.
fn answer(id: u64, values: &[(&str, Value)]) -> String {
    let created: Value = serde_json::from_str(CREATED).expect("JSON");
    let mut options = created["result"]["configOptions"].clone();
    for option in options.as_array_mut().expect("a list") {
        if let Some((_, value)) = values.iter().find(|(k, _)| option["id"] == *k) {
            option["currentValue"] = value.clone();
        }
    }
    json!({"jsonrpc": "2.0", "id": id, "result": {"configOptions": options}}).to_string()
}

fn one_line(json: &str) -> String {
    serde_json::from_str::<Value>(json)
        .expect("JSON")
        .to_string()
}

#[test]
fn settings_are_sent_one_at_a_time_before_the_prompt() {
    let settings = SessionSettings {
        mode: Some("plan".into()),
        model: Some("default".into()),
        options: vec![("fast".into(), SettingValue::Flag(true))],
        asking_mode: None,
        mcp_servers: Vec::new(),
    };
    let (mut session, mut trace) = set_up(settings);
    assert_eq!(
        trace.sent[1]["params"],
        json!({"cwd": CWD, "additionalDirectories": ["/home/dev"], "mcpServers": []}),
        "the workspace root as a second root"
    );
    trace.line(&mut session, &one_line(CREATED));
    assert_eq!(
        trace.sent[2]["params"],
        json!({"sessionId": "s-1", "configId": "mode", "value": "plan"}),
        "the model in force is not sent"
    );
    trace.line(
        &mut session,
        r#"{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s-1","update":{"sessionUpdate":"current_mode_update","currentModeId":"plan"}}}"#,
    );
    trace.line(&mut session, &answer(3, &[("mode", json!("plan"))]));
    assert_eq!(
        trace.sent[3]["params"],
        json!({"sessionId": "s-1", "configId": "fast", "type": "boolean", "value": true})
    );
    assert_eq!(methods(&trace).len(), 4, "one request at a time");
    trace.line(
        &mut session,
        &answer(4, &[("mode", json!("plan")), ("fast", json!(true))]),
    );
    assert_eq!(
        methods(&trace),
        [
            "initialize",
            "session/new",
            "session/set_config_option",
            "session/set_config_option",
            "session/prompt"
        ]
    );
    assert_eq!(
        shown(&trace.events),
        ["started s-1 model=default", "Mode(\"plan\")"]
    );
    assert!(!trace.closed);
}

#[test]
fn a_value_not_offered_or_refused_fails_the_turn_before_the_prompt() {
    let plan = |mode: &str| SessionSettings {
        mode: Some(mode.into()),
        ..SessionSettings::default()
    };
    let (mut session, mut trace) = set_up(plan("yolo"));
    trace.line(&mut session, &one_line(CREATED));
    assert_eq!(methods(&trace), ["initialize", "session/new"]);
    assert_eq!(
        shown(&trace.events),
        [
            "failed \"mode = \\\"yolo\\\" is not offered by claude-agent-acp; its modes: default, plan\""
        ]
    );
    assert!(trace.closed, "stdin closed: the agent exits");

    let (mut session, mut trace) = set_up(plan("plan"));
    trace.line(&mut session, &one_line(CREATED));
    trace.line(
        &mut session,
        r#"{"jsonrpc":"2.0","id":3,"error":{"code":-32603,"message":"Internal error","data":{"details":"Invalid Mode"}}}"#,
    );
    assert_eq!(
        shown(&trace.events),
        ["failed \"claude-agent-acp refused `mode = \\\"plan\\\"`: Internal error: Invalid Mode\""]
    );
    assert_eq!(methods(&trace).last(), Some(&"session/set_config_option"));
    assert!(trace.closed);
}

#[test]
fn an_agent_with_legacy_modes_gets_set_mode() {
    let settings = SessionSettings {
        mode: Some("yolo".into()),
        ..SessionSettings::default()
    };
    let mut session = session("gemini").with_setup(SessionSetup {
        settings,
        workspace: Some(PathBuf::from("/home/dev")),
        ..SessionSetup::default()
    });
    let mut trace = start(&mut session, "the prompt");
    // gemini advertises no additional directories.
    trace.line(&mut session, r#"{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":1,"agentCapabilities":{"loadSession":true}}}"#);
    assert_eq!(
        trace.sent[1]["params"],
        json!({"cwd": CWD, "mcpServers": []})
    );
    trace.line(&mut session, r#"{"jsonrpc":"2.0","id":2,"result":{"sessionId":"g-1","modes":{"availableModes":[{"id":"default","name":"Default"},{"id":"yolo","name":"YOLO"}],"currentModeId":"default"},"models":{"availableModels":[{"modelId":"auto","name":"Auto"}],"currentModelId":"auto"}}}"#);
    assert_eq!(
        trace.sent[2],
        json!({"jsonrpc": "2.0", "id": 3, "method": "session/set_mode", "params": {"sessionId": "g-1", "modeId": "yolo"}})
    );
    trace.line(&mut session, r#"{"jsonrpc":"2.0","id":3,"result":{}}"#);
    assert_eq!(methods(&trace).last(), Some(&"session/prompt"));
    assert_eq!(
        shown(&trace.events),
        ["started g-1 model=auto", "Mode(\"yolo\")"]
    );
    assert_eq!(
        options(&trace.events),
        [
            vec!["mode=default", "model=auto"],
            vec!["mode=yolo", "model=auto"]
        ]
    );
}

#[test]
fn a_member_in_the_workspace_root_and_a_resumed_session_get_the_roots_right() {
    // In the root itself: no second root.
    let mut session = session("codex").with_setup(SessionSetup {
        workspace: Some(PathBuf::from(CWD)),
        ..SessionSetup::default()
    });
    let mut trace = start(&mut session, "p");
    trace.line(&mut session, INITIALIZED);
    assert_eq!(
        trace.sent[1]["params"],
        json!({"cwd": CWD, "mcpServers": []})
    );

    // A resumed session gets the same roots as a new one.
    let setup = SessionSetup {
        workspace: Some(PathBuf::from("/home/dev")),
        ..SessionSetup::default()
    };
    let mut session = crate::session("claude")
        .with_setup(setup)
        .resuming("s-0".into(), "what is new".into());
    let mut trace = start(&mut session, "the whole chat");
    trace.line(&mut session, INITIALIZED);
    assert_eq!(
        trace.sent[1],
        json!({"jsonrpc": "2.0", "id": 2, "method": "session/resume", "params": {
            "sessionId": "s-0", "cwd": CWD, "mcpServers": [], "additionalDirectories": ["/home/dev"]}})
    );
}

#[test]
fn a_change_the_agent_reports_during_the_turn_is_told() {
    let (mut session, mut trace) = set_up(SessionSettings::default());
    trace.line(&mut session, &one_line(CREATED));
    assert_eq!(methods(&trace).last(), Some(&"session/prompt"));
    trace.line(
        &mut session,
        r#"{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s-1","update":{"sessionUpdate":"config_option_update","configOptions":[{"id":"mode","name":"Mode","category":"mode","type":"select","currentValue":"plan","options":[{"value":"plan","name":"Plan"}]}]}}}"#,
    );
    assert_eq!(
        options(&trace.events),
        [
            vec!["mode=default", "model=default", "fast=false"],
            vec!["mode=plan"]
        ]
    );
}

/// The prompt's content blocks a session sends after `initialize` answers `result`,
/// with one file attached.
fn prompt_blocks_after(initialized: &str) -> Value {
    use chatmd::agents::acp::PromptAttachment;
    let attachment = PromptAttachment {
        title: "#file:src/a.rs (src/a.rs, 1 line)".into(),
        file: Some(PathBuf::from("/home/dev/src/a.rs")),
        lines: None,
        text: "fn a() {}\n".into(),
        as_text: "attached #file:src/a.rs (src/a.rs, 1 line):\n```\nfn a() {}\n```\n".into(),
        uri: String::new(),
    };
    let mut session = session("gemini").with_setup(SessionSetup {
        attachments: vec![attachment],
        ..SessionSetup::default()
    });
    let mut trace = start(&mut session, "the prompt");
    trace.line(&mut session, initialized);
    trace.line(
        &mut session,
        r#"{"jsonrpc":"2.0","id":2,"result":{"sessionId":"s-1"}}"#,
    );
    let prompt = trace.sent.last().expect("the prompt");
    assert_eq!(prompt["method"], "session/prompt");
    prompt["params"]["prompt"].clone()
}

#[test]
fn attachments_are_resources_where_the_agent_takes_embedded_context_else_links() {
    let embedded = r#"{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":1,"agentCapabilities":{"promptCapabilities":{"embeddedContext":true}}}}"#;
    assert_eq!(
        prompt_blocks_after(embedded),
        json!([
            {"type": "text", "text": "the prompt"},
            {"type": "resource", "resource": {"uri": "file:///home/dev/src/a.rs",
                "text": "fn a() {}\n", "mimeType": "text/plain"}},
        ])
    );
    let plain = r#"{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":1,"agentCapabilities":{}}}"#;
    assert_eq!(
        prompt_blocks_after(plain),
        json!([
            {"type": "text", "text": "the prompt"},
            {"type": "resource_link", "name": "a.rs", "uri": "file:///home/dev/src/a.rs",
                "description": "#file:src/a.rs (src/a.rs, 1 line)"},
        ])
    );
}
