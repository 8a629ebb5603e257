//! The ACP session against real agents' recorded sessions (`fixtures/acp/`): every line
//! the agent sent goes into chatmd's `AcpSession`, the recorded client's answers go in
//! as commands, and what the session writes must be the recorded client's side, message
//! by message (only `clientInfo` differs). Plus the protocol's edges no recording shows.

mod commands;
mod edges;
mod sessions;
mod transcripts;

use std::fs;
use std::path::{Path, PathBuf};

use chatmd::agents::acp::{AcpSession, Login};
use chatmd::agents::{
    AgentEvent, AgentKind, CallStatus, ExitInfo, Outbox, PermissionOutcome, RequestId, Session,
    SessionCommand, ToolStatus,
};
use serde_json::{Value, json};

/// The working folder of every recorded session.
pub const CWD: &str = "/home/dev/proj";

/// A recorded session: `(from the client, message)` in order.
pub fn transcript(name: &str) -> Vec<(bool, Value)> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/acp")
        .join(format!("{name}.jsonl"));
    fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .lines()
        .map(|line| {
            let entry: Value = serde_json::from_str(line).expect("a JSON line");
            (entry["dir"] == "C->A", entry["msg"].clone())
        })
        .collect()
}

/// A session for the agent a recording is named after, as chatmd would start it.
pub fn session(agent: &str) -> AcpSession {
    let (kind, program) = match agent {
        "gemini" => (AgentKind::Gemini, "gemini"),
        "claude" => (AgentKind::Claude, "claude-agent-acp"),
        "codex" => (AgentKind::Codex, "codex-acp"),
        other => panic!("no recording of {other}"),
    };
    let login = Login {
        kind: Some(kind),
        program: program.into(),
        methods: Vec::new(),
    };
    AcpSession::new(program, PathBuf::from(CWD), login)
}

/// What a session did: its events and the messages it wrote, in order.
#[derive(Debug, Default)]
pub struct Trace {
    pub events: Vec<AgentEvent>,
    pub sent: Vec<Value>,
    /// Bytes written but not yet a whole line (must stay empty).
    partial: Vec<u8>,
    pub closed: bool,
}

impl Trace {
    /// Takes what the session put in `out`.
    pub fn take(&mut self, out: &mut Outbox) {
        self.events.append(&mut out.events);
        self.partial.append(&mut out.input);
        while let Some(end) = self.partial.iter().position(|b| *b == b'\n') {
            let line: Vec<u8> = self.partial.drain(..=end).collect();
            let message = serde_json::from_slice(&line).expect("one JSON message per line");
            self.sent.push(message);
        }
        assert!(self.partial.is_empty(), "a message without its line break");
        if std::mem::take(&mut out.close_input) {
            self.closed = true;
        }
    }

    /// Feeds one line to `session`.
    pub fn line(&mut self, session: &mut AcpSession, line: &str) {
        let mut out = Outbox::default();
        session.line(line, &mut out);
        self.take(&mut out);
    }

    /// Gives `command` to `session`; whether it took it.
    pub fn command(&mut self, session: &mut AcpSession, command: SessionCommand) -> bool {
        let mut out = Outbox::default();
        let taken = session.command(command, &mut out);
        self.take(&mut out);
        taken
    }

    pub fn finish(&mut self, session: &mut AcpSession, exit: &ExitInfo) {
        let mut out = Outbox::default();
        session.finish(exit, &mut out);
        self.take(&mut out);
    }

    /// The messages written after the first `from`.
    pub fn sent_since(&self, from: usize) -> &[Value] {
        &self.sent[from..]
    }
}

/// Starts `session` with `prompt`.
pub fn start(session: &mut AcpSession, prompt: &str) -> Trace {
    let mut trace = Trace::default();
    let mut out = Outbox::default();
    session.start(Some(prompt.to_owned()), &mut out);
    trace.take(&mut out);
    trace
}

/// The recorded client's messages with its `clientInfo` replaced by chatmd's: the one
/// thing the two clients say differently.
pub fn as_chatmd_sends(mut message: Value) -> Value {
    if message["method"] == "initialize" {
        message["params"]["clientInfo"] = json!({
            "name": "chatmd",
            "version": env!("CARGO_PKG_VERSION"),
        });
        // The recordings were made offering no files, no terminal, no questions and no
        // plan operations; chatmd now offers all four (`fs.rs`, `terminal.rs`,
        // `elicitation.rs`, `plan_updates.rs`).
        let capabilities = &mut message["params"]["clientCapabilities"];
        capabilities["fs"] = json!({"readTextFile": true, "writeTextFile": true});
        capabilities["terminal"] = json!(true);
        capabilities["elicitation"] = json!({"form": {}, "url": {}});
        capabilities["plan"] = json!({});
    }
    message
}

/// Replays recording `name` through a fresh session until the prompt's result: each
/// agent line is fed in, the recorded answers to permission requests and the recorded
/// `session/cancel` become commands (each must be taken). Returns the session, what it
/// did, and the recorded client messages it should have written.
pub fn replay(name: &str) -> (AcpSession, Trace, Vec<Value>) {
    let agent = name.split('-').next().expect("agent name");
    let messages = transcript(name);
    let prompt = messages
        .iter()
        .find(|(_, m)| m["method"] == "session/prompt")
        .and_then(|(_, m)| m["params"]["prompt"][0]["text"].as_str())
        .expect("a prompt");
    let mut session = session(agent);
    let mut trace = start(&mut session, prompt);
    let mut expected = Vec::new();
    for (from_client, message) in messages {
        if from_client {
            if message["method"] == "session/cancel" {
                assert!(
                    trace.command(&mut session, SessionCommand::Cancel),
                    "{name}: cancel taken"
                );
            } else if message.get("method").is_none() {
                let command = answer(&message);
                assert!(trace.command(&mut session, command), "{name}: answer taken");
            }
            expected.push(as_chatmd_sends(message));
            continue;
        }
        let ends = message["id"] == 3 && message.get("method").is_none();
        trace.line(&mut session, &message.to_string());
        if ends {
            break;
        }
    }
    (session, trace, expected)
}

/// Replays recording `name` until its first permission request has been fed in (our
/// own requests and the agent's other lines included, as in [`replay`]).
pub fn replay_until_permission(name: &str) -> (AcpSession, Trace) {
    let agent = name.split('-').next().expect("agent name");
    let messages = transcript(name);
    let mut session = session(agent);
    let mut trace = start(
        &mut session,
        "MOCK-MODE=toolwrite please create the file. ASK-TOOL",
    );
    for (from_client, message) in messages {
        if from_client {
            continue;
        }
        trace.line(&mut session, &message.to_string());
        if message["method"] == "session/request_permission" {
            return (session, trace);
        }
    }
    panic!("{name} asks no permission");
}

/// The recorded client's answer to a permission request, as the user's command.
fn answer(message: &Value) -> SessionCommand {
    let request = match &message["id"] {
        Value::String(id) => id.clone(),
        id => id.to_string(),
    };
    let outcome = &message["result"]["outcome"];
    SessionCommand::Answer {
        request: RequestId(request),
        outcome: match outcome["outcome"].as_str() {
            Some("selected") => {
                PermissionOutcome::Selected(outcome["optionId"].as_str().expect("id").into())
            }
            _ => PermissionOutcome::Cancelled,
        },
    }
}

/// Events as lines a reader can check at a glance.
pub fn shown(events: &[AgentEvent]) -> Vec<String> {
    events
        .iter()
        // What the session offers to be set is checked on its own (`sessions.rs`), and
        // so are its commands (`commands.rs`) and how its costs count (`acp/costs.rs`,
        // the chatmd-tests `send_acp_sessions`).
        .filter(|event| {
            !matches!(
                event,
                AgentEvent::Options(_) | AgentEvent::Commands(_) | AgentEvent::RunningTotals(_)
            )
        })
        .map(|event| match event {
            AgentEvent::Started { session, model } => {
                format!("started {} model={}", show(session), show(model))
            }
            AgentEvent::Text(text) => format!("text {text:?}"),
            AgentEvent::Tool {
                id,
                summary,
                status,
                detail,
            } => {
                let status = match status {
                    ToolStatus::Started => "started",
                    ToolStatus::Completed => "completed",
                    ToolStatus::Failed => "failed",
                };
                format!("tool {status} {} {summary:?} {}", show(id), show(detail))
            }
            AgentEvent::Permission(request) => {
                let options: Vec<String> = request
                    .options
                    .iter()
                    .map(|o| format!("{}={} {:?}", o.id, o.kind.as_str(), o.name))
                    .collect();
                format!(
                    "permission #{} {:?} tool={} [{}]",
                    request.id,
                    request.summary,
                    show(&request.tool),
                    options.join(", ")
                )
            }
            AgentEvent::Done { stop_reason, usage } => format!(
                "done {} tokens={}",
                show(stop_reason),
                usage.map_or("-".into(), |u| format!(
                    "{}/{}",
                    u.input_tokens, u.output_tokens
                ))
            ),
            AgentEvent::Failed { message } => format!("failed {message:?}"),
            AgentEvent::LoginNeeded { advice, methods } => {
                let ids: Vec<&str> = methods.iter().map(|m| m.id.as_str()).collect();
                format!("login-needed {advice:?} methods=[{}]", ids.join(", "))
            }
            AgentEvent::Call(call) => {
                let status = match call.status {
                    CallStatus::Pending => "pending",
                    CallStatus::InProgress => "in_progress",
                    CallStatus::Completed => "completed",
                    CallStatus::Failed => "failed",
                };
                let mut line = format!(
                    "call {status} {} {:?} {}",
                    call.id,
                    call.summary,
                    show(&call.detail)
                );
                for place in &call.locations {
                    line.push_str(&format!(" at={place}"));
                }
                for diff in &call.diffs {
                    line.push_str(&format!(" diff={}", diff.path));
                }
                line
            }
            AgentEvent::Context(usage) => format!(
                "context {}/{} cost={}",
                usage.used,
                usage.size,
                show(&usage.cost)
            ),
            AgentEvent::Thought(text) => format!("thought {text:?}"),
            other => format!("{other:?}"),
        })
        .collect()
}

fn show(value: &Option<String>) -> &str {
    value.as_deref().unwrap_or("-")
}
