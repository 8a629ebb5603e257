//! The protocol's edges no recording shows: a cancel while a permission request waits,
//! ids of every shape, requests chatmd does not implement, updates it does not know,
//! refused logins, a process that dies mid-turn, answers that are not taken, and the
//! order of chatmd's own requests.

use std::path::PathBuf;

use chatmd::agents::acp::AcpSession;
use chatmd::agents::{
    AgentEntry, AgentEvent, ExitInfo, PermissionOutcome, Registry, RequestId, SessionCommand,
    Stdin, plan_turn, session_for,
};
use chatmd::team::Member;
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use crate::{Trace, replay_until_permission, session, shown, start, transcript};

fn answer(request: &str, outcome: PermissionOutcome) -> SessionCommand {
    SessionCommand::Answer {
        request: RequestId(request.into()),
        outcome,
    }
}

fn selected(option: &str) -> PermissionOutcome {
    PermissionOutcome::Selected(option.into())
}

/// A gemini session past `session/new`, its prompt sent (session id `s-1`).
fn prompted() -> (AcpSession, Trace) {
    let mut session = session("gemini");
    let mut trace = start(&mut session, "hi");
    trace.line(
        &mut session,
        r#"{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":1}}"#,
    );
    trace.line(
        &mut session,
        r#"{"jsonrpc":"2.0","id":2,"result":{"sessionId":"s-1"}}"#,
    );
    assert_eq!(
        trace.sent.len(),
        3,
        "initialize, session/new, session/prompt"
    );
    (session, trace)
}

const CANCELLED: &str = r#"{"jsonrpc":"2.0","id":3,"result":{"stopReason":"cancelled"}}"#;

/// The protocol requires it: after `session/cancel`, every waiting request is answered
/// `cancelled` (and the agent then ends the prompt with `cancelled`).
#[test]
fn a_cancel_answers_the_waiting_permission_request_cancelled() {
    for (agent, session_id) in [
        ("gemini", "f50b7ab2-722c-4e2d-85ec-cc2d834ed452"),
        ("claude", "0c31665a-149e-4dd9-a093-447a9b33e88f"),
        ("codex", "01a20c72-bdb4-7062-988c-d56fe426389b"),
    ] {
        let (mut session, mut trace) = replay_until_permission(&format!("{agent}-tool-allow_once"));
        assert!(
            matches!(trace.events.last(), Some(AgentEvent::Permission(r)) if r.id == RequestId("0".into())),
            "{agent}: {:?}",
            trace.events.last()
        );
        let before = trace.sent.len();
        assert!(
            trace.command(&mut session, SessionCommand::Cancel),
            "{agent}"
        );
        assert_eq!(
            trace.sent_since(before),
            [
                json!({"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": session_id}}),
                json!({"jsonrpc": "2.0", "id": 0, "result": {"outcome": {"outcome": "cancelled"}}}),
            ],
            "{agent}"
        );
        // Answered already: a late answer from the file is not taken.
        assert!(
            !trace.command(&mut session, answer("0", selected("allow"))),
            "{agent}"
        );
        trace.line(&mut session, CANCELLED);
        assert_eq!(
            shown(&trace.events).last().map(String::as_str),
            Some("done cancelled tokens=-")
        );
        assert!(trace.closed, "{agent}");
    }
}

/// A request that comes after the cancel is answered `cancelled` at once, unasked.
#[test]
fn a_permission_request_after_a_cancel_is_answered_cancelled_at_once() {
    let (mut session, mut trace) = prompted();
    assert!(trace.command(&mut session, SessionCommand::Cancel));
    let (before, events) = (trace.sent.len(), trace.events.len());
    trace.line(&mut session, &permission_request(json!(4)));
    assert_eq!(
        trace.sent_since(before),
        [json!({"jsonrpc": "2.0", "id": 4, "result": {"outcome": {"outcome": "cancelled"}}})]
    );
    assert_eq!(trace.events.len(), events, "nobody is asked");
}

fn permission_request(id: Value) -> String {
    json!({
        "jsonrpc": "2.0", "id": id, "method": "session/request_permission",
        "params": {
            "sessionId": "s-1",
            "toolCall": {"toolCallId": "t-1", "title": "rm -rf build", "kind": "execute", "status": "pending"},
            "options": [
                {"optionId": "yes", "name": "Allow", "kind": "allow_once"},
                {"optionId": "later", "name": "Ask me tomorrow", "kind": "ask_tomorrow"},
                {"optionId": "never", "name": "Never", "kind": "reject_always"},
            ],
        },
    })
    .to_string()
}

/// Ids are echoed exactly as they came: 0 is an id, and so is a string; an option of a
/// kind chatmd does not know is not offered.
#[test]
fn request_ids_are_echoed_exactly_whatever_their_shape() {
    for (id, key) in [
        (json!(0), "0"),
        (json!("perm-7"), "perm-7"),
        (json!(12), "12"),
    ] {
        let (mut session, mut trace) = prompted();
        trace.line(&mut session, &permission_request(id.clone()));
        assert_eq!(
            shown(&trace.events).last().map(String::as_str),
            Some(format!(
                "permission #{key} \"run `rm -rf build` (execute)\" tool=t-1 [yes=allow_once \"Allow\", never=reject_always \"Never\"]"
            ).as_str())
        );
        let before = trace.sent.len();
        assert!(trace.command(&mut session, answer(key, selected("never"))));
        assert_eq!(
            trace.sent_since(before),
            [
                json!({"jsonrpc": "2.0", "id": id, "result": {"outcome": {"outcome": "selected", "optionId": "never"}}})
            ]
        );
    }
}

#[test]
fn answers_that_are_not_taken() {
    let (mut session, mut trace) = prompted();
    trace.line(&mut session, &permission_request(json!(0)));
    let before = trace.sent.len();
    assert!(
        !trace.command(&mut session, answer("1", selected("yes"))),
        "unknown request"
    );
    assert!(
        !trace.command(&mut session, answer("0", selected("later"))),
        "not offered"
    );
    assert!(
        !trace.command(&mut session, SessionCommand::Input("more".into())),
        "no steering advertised"
    );
    assert_eq!(trace.sent.len(), before, "nothing written");
    assert!(trace.command(&mut session, answer("0", PermissionOutcome::Cancelled)));
    assert_eq!(
        trace.sent_since(before),
        [json!({"jsonrpc": "2.0", "id": 0, "result": {"outcome": {"outcome": "cancelled"}}})]
    );
    assert!(
        !trace.command(&mut session, answer("0", selected("yes"))),
        "answered twice"
    );
}

/// Unknown methods: "method not found", with the request's own id; the turn goes on.
/// (`fs/*`, `terminal/*` and `elicitation/create` are answered: `fs.rs`, `terminal.rs`,
/// `elicitation.rs`.)
#[test]
fn requests_chatmd_does_not_implement_are_method_not_found() {
    let (mut session, mut trace) = prompted();
    let methods = ["_vendor/anything", "fs/delete_file"];
    for (n, method) in methods.iter().enumerate() {
        let before = trace.sent.len();
        let request = json!({"jsonrpc": "2.0", "id": n, "method": method, "params": {"sessionId": "s-1", "path": "/etc/passwd"}});
        trace.line(&mut session, &request.to_string());
        assert_eq!(
            trace.sent_since(before),
            [
                json!({"jsonrpc": "2.0", "id": n, "error": {"code": -32601, "message": "Method not found"}})
            ],
            "{method}"
        );
    }
    assert!(
        trace
            .events
            .iter()
            .all(|e| matches!(e, AgentEvent::Started { .. } | AgentEvent::RunningTotals(_)))
    );
    trace.line(
        &mut session,
        r#"{"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn"}}"#,
    );
    assert_eq!(
        shown(&trace.events).last().map(String::as_str),
        Some("done end_turn tokens=-")
    );
}

/// Noise on stdout, unknown notifications, updates of kinds not shown (or not known to
/// this version), and a known update that does not read: nothing, and the turn goes on
/// (thoughts, a plan and usage are shown).
#[test]
fn what_is_not_understood_is_ignored() {
    let (mut session, mut trace) = prompted();
    let update = |update: Value| {
        json!({"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": "s-1", "update": update}})
            .to_string()
    };
    for line in [
        "[STARTUP] Phase 'cli_startup' was started but never ended".to_owned(),
        "{not json".to_owned(),
        r#"{"jsonrpc":"2.0","method":"_auth/status_update","params":{"authStatus":{"kind":"gateway"}}}"#.to_owned(),
        r#"{"jsonrpc":"2.0","id":99,"result":{}}"#.to_owned(),
        update(json!({"sessionUpdate": "agent_thought_chunk", "content": {"type": "text", "text": "hmm"}})),
        update(json!({"sessionUpdate": "plan", "entries": []})),
        update(json!({"sessionUpdate": "usage_update", "used": 5, "size": 10})),
        update(json!({"sessionUpdate": "a_kind_from_the_future", "x": 1})),
        update(json!({"sessionUpdate": "agent_message_chunk", "content": {"type": "hologram"}})),
        update(json!({"sessionUpdate": "tool_call", "title": "no id"})),
        "{\"jsonrpc\":\"2.0\",\"method\":\"session/update\",\"params\":{\"sessionId\":\"s-1\"}}".to_owned(),
    ] {
        trace.line(&mut session, &line);
    }
    trace.line(&mut session, &update(json!({"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "still here"}})));
    assert_eq!(
        shown(&trace.events),
        [
            "started s-1 model=-",
            "thought \"hmm\"",
            "Plan([])",
            "context 5/10 cost=-",
            "text \"still here\""
        ]
    );
    assert_eq!(trace.sent.len(), 3, "nothing written");
}

/// Our requests go one after the other: `session/new` only on `initialize`'s result,
/// `session/prompt` only on `session/new`'s; a response to another id changes nothing.
#[test]
fn the_prompt_waits_for_the_session() {
    let mut session = session("claude");
    let mut trace = start(&mut session, "the prompt");
    let methods = |trace: &Trace| -> Vec<String> {
        trace
            .sent
            .iter()
            .map(|m| m["method"].as_str().unwrap_or("-").to_owned())
            .collect()
    };
    assert_eq!(methods(&trace), ["initialize"]);
    assert!(
        !trace.command(&mut session, SessionCommand::Cancel),
        "nothing to cancel yet"
    );
    trace.line(
        &mut session,
        r#"{"jsonrpc":"2.0","id":2,"result":{"sessionId":"early"}}"#,
    );
    assert_eq!(methods(&trace), ["initialize"]);
    trace.line(
        &mut session,
        r#"{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":1,"authMethods":[]}}"#,
    );
    assert_eq!(methods(&trace), ["initialize", "session/new"]);
    trace.line(&mut session, r#"{"jsonrpc":"2.0","id":2,"result":{"sessionId":"s-9","configOptions":[{"id":"model","category":"model","currentValue":"sonnet"}]}}"#);
    assert_eq!(
        methods(&trace),
        ["initialize", "session/new", "session/prompt"]
    );
    assert_eq!(
        trace.sent[2]["params"],
        json!({"sessionId": "s-9", "prompt": [{"type": "text", "text": "the prompt"}]})
    );
    assert_eq!(shown(&trace.events), ["started s-9 model=sonnet"]);
    assert!(!trace.closed);
}

/// claude-agent-acp without a key: `session/prompt` is refused with -32000.
#[test]
fn a_refused_login_says_how_to_log_in() {
    let mut claude = session("claude");
    let mut trace = start(&mut claude, "hi");
    trace.line(
        &mut claude,
        r#"{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":1,"authMethods":[]}}"#,
    );
    trace.line(
        &mut claude,
        r#"{"jsonrpc":"2.0","id":2,"result":{"sessionId":"s-2"}}"#,
    );
    trace.line(
        &mut claude,
        r#"{"jsonrpc":"2.0","id":3,"error":{"code":-32000,"message":"Authentication required"}}"#,
    );
    assert_eq!(
        shown(&trace.events),
        [
            "started s-2 model=-".to_owned(),
            "login-needed \"Authentication required. Log in with `claude /login` in a terminal \
             (with CLAUDE_CONFIG_DIR set to the member's `home` if it has one), or export \
             ANTHROPIC_API_KEY before chatmd starts.\" methods=[]"
                .to_owned(),
            "failed \"Authentication required. Log in with `claude /login` in a terminal (with \
             CLAUDE_CONFIG_DIR set to the member's `home` if it has one), or export \
             ANTHROPIC_API_KEY before chatmd starts.\""
                .to_owned(),
        ]
    );
    assert!(trace.closed);

    // gemini with `gemini-api-key` selected and no key refuses the session itself.
    let recorded = transcript("gemini-hello");
    let mut gemini = session("gemini");
    let mut trace = start(&mut gemini, "hi");
    trace.line(&mut gemini, &recorded[1].1.to_string());
    trace.line(&mut gemini, r#"{"jsonrpc":"2.0","id":2,"error":{"code":-32000,"message":"Gemini API key is missing or not configured."}}"#);
    assert_eq!(
        shown(&trace.events),
        [
            "login-needed \"Gemini API key is missing or not configured. Run `gemini` once in a \
          terminal to log in (with GEMINI_CLI_HOME set to the member's `home` if it has one), or \
          export GEMINI_API_KEY before chatmd starts.\" \
          methods=[oauth-personal, gemini-api-key, vertex-ai, gateway]",
            "failed \"Gemini API key is missing or not configured. Run `gemini` once in a terminal \
          to log in (with GEMINI_CLI_HOME set to the member's `home` if it has one), or export \
          GEMINI_API_KEY before chatmd starts.\""
        ]
    );
    assert_eq!(trace.sent.len(), 2, "no prompt after a refused session");
    assert!(trace.closed);
}

/// The process dies before the prompt's result: its stderr (without the startup
/// noise) is the failure; with nothing on stderr, the last stray stdout line; else the
/// exit. Once the result came, an exit adds nothing.
#[test]
fn a_process_that_exits_without_the_result_fails_with_its_words() {
    let exit = |code, stderr: &str| ExitInfo {
        code,
        stderr_tail: stderr.into(),
    };
    let (mut session, mut trace) = prompted();
    trace.finish(
        &mut session,
        &exit(
            Some(1),
            "[STARTUP] Phase 'cli_startup' was started but never ended\nError: socket hang up\n",
        ),
    );
    assert_eq!(
        shown(&trace.events).last().map(String::as_str),
        Some("failed \"Error: socket hang up\"")
    );

    let (mut session, mut trace) = prompted();
    trace.line(&mut session, "panic: out of cheese");
    trace.finish(&mut session, &exit(None, ""));
    assert_eq!(
        shown(&trace.events).last().map(String::as_str),
        Some("failed \"panic: out of cheese\"")
    );

    let (mut session, mut trace) = prompted();
    trace.finish(&mut session, &exit(Some(0), ""));
    assert_eq!(
        shown(&trace.events).last().map(String::as_str),
        Some("failed \"gemini exited with code 0 but never reported the end of its turn\"")
    );

    let (mut session, mut trace) = prompted();
    trace.line(
        &mut session,
        r#"{"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn"}}"#,
    );
    let events = trace.events.len();
    trace.finish(&mut session, &exit(Some(1), "Error: late"));
    assert_eq!(trace.events.len(), events);
}

/// What a planned turn's session sends: the member's workdir as the session's `cwd`,
/// the planned prompt as the prompt.
#[test]
fn a_planned_turn_sends_the_member_workdir_and_the_planned_prompt() {
    let registry = Registry::builtin();
    let entry: &AgentEntry = registry.entry("acp").expect("the acp entry");
    let mut member = Member::new("alice", "acp", PathBuf::from("/team/alice/work"));
    member.preset = Some("claude".into());
    let invocation = plan_turn(entry, &member, "Be brief.", "[MESSAGE]\nme: hi\n", None);
    let Stdin::Prompt(prompt) = invocation.stdin.clone() else {
        panic!("an ACP prompt is the session's to send");
    };
    let mut session = session_for(entry, &invocation);
    let mut trace = Trace::default();
    let mut out = chatmd::agents::Outbox::default();
    session.start(Some(prompt), &mut out);
    trace.take(&mut out);
    for line in [
        r#"{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":1}}"#,
        r#"{"jsonrpc":"2.0","id":2,"result":{"sessionId":"s"}}"#,
    ] {
        let mut out = chatmd::agents::Outbox::default();
        session.line(line, &mut out);
        trace.take(&mut out);
    }
    assert_eq!(
        trace.sent[1]["params"],
        json!({"cwd": "/team/alice/work", "mcpServers": []})
    );
    assert_eq!(
        trace.sent[2]["params"]["prompt"],
        json!([{"type": "text", "text": "[SYSTEM]\nBe brief.\n[MESSAGE]\nme: hi\n"}])
    );
}
