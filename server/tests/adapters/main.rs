//! Adapters' output parsing: every recorded transcript
//! (`tests/fixtures/agents/<kind>/*.jsonl`) through its kind's parser, and hygiene cases.

mod claude;
mod codex;
mod details;
mod gemini;
mod hygiene;

use std::fs;
use std::path::{Path, PathBuf};

use chatmd::agents::{AgentEvent, ExitInfo, Registry, ToolStatus, Usage, parser_for};
use pretty_assertions::assert_eq;
use serde_json::Value;

pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/agents")
}

/// What a user would see of one turn.
#[derive(Debug, PartialEq)]
pub struct Seen {
    pub session: Option<String>,
    pub model: Option<String>,
    pub text: String,
    pub tools: Vec<(String, ToolStatus)>,
    pub notices: Vec<String>,
    pub outcome: Outcome,
}

#[derive(Debug, PartialEq)]
pub enum Outcome {
    Done(Option<String>, Option<Usage>),
    Failed(String),
}

pub fn usage(input_tokens: u64, output_tokens: u64) -> Option<Usage> {
    Some(Usage {
        input_tokens,
        output_tokens,
    })
}

/// The transcript's stdout through the parser, then its exit (a `hang` transcript
/// ends as a process killed by a signal, as the runner's timeout would end it).
pub fn replay(kind: &str, name: &str) -> Vec<AgentEvent> {
    let base = fixtures().join(kind).join(name);
    let stdout = fs::read_to_string(base.with_extension("jsonl")).expect("transcript");
    let meta: Value = fs::read_to_string(base.with_extension("meta.json"))
        .map(|text| serde_json::from_str(&text).expect("meta JSON"))
        .unwrap_or(Value::Null);
    let hang = meta["hang"].as_bool() == Some(true);
    let exit = ExitInfo {
        code: if hang {
            None
        } else {
            Some(meta["code"].as_i64().unwrap_or(0) as i32)
        },
        stderr_tail: meta["stderr"].as_str().unwrap_or("").to_owned(),
    };
    let registry = Registry::builtin();
    let mut parser = parser_for(registry.entry(kind).expect("built-in kind"));
    let mut events = Vec::new();
    for line in stdout.lines() {
        parser.line(line, &mut events);
    }
    parser.finish(&exit, &mut events);
    let ended = events.len();
    parser.finish(&exit, &mut events);
    assert_eq!(events.len(), ended, "finish twice adds nothing");
    events
}

pub fn seen(events: Vec<AgentEvent>) -> Seen {
    let mut seen = Seen {
        session: None,
        model: None,
        text: String::new(),
        tools: Vec::new(),
        notices: Vec::new(),
        outcome: Outcome::Failed("no outcome".into()),
    };
    let mut outcomes = 0;
    for event in events {
        match event {
            AgentEvent::Started { session, model } => {
                assert!(seen.session.is_none(), "one Started per turn");
                seen.session = session;
                seen.model = model;
            }
            // The model that answered, when the CLI names it only at the end.
            AgentEvent::Model(model) => seen.model = Some(model),
            AgentEvent::Text(text) => seen.text.push_str(&text),
            AgentEvent::Tool {
                summary, status, ..
            } => seen.tools.push((summary, status)),
            AgentEvent::Notice(notice) => seen.notices.push(notice),
            AgentEvent::SessionNotFound { message } => {
                seen.notices.push(format!("session not found: {message}"))
            }
            // Retries and refusals are shown as the user reads them.
            AgentEvent::Retry(retry) => seen.notices.push(retry.to_string()),
            AgentEvent::Denied { denials, allow } => {
                for denial in denials {
                    let input = denial.input.map(|i| format!(": {i}")).unwrap_or_default();
                    seen.notices
                        .push(format!("not allowed: {}{input}", denial.tool));
                }
                seen.notices
                    .push(format!("allow with: {}", allow.join(" ")));
            }
            AgentEvent::Usage(_) | AgentEvent::Cost(_) | AgentEvent::RunningTotals(_) => {}
            AgentEvent::Permission(request) => panic!("a headless CLI cannot ask: {request:?}"),
            AgentEvent::File(request) => panic!("a headless CLI has no client files: {request:?}"),
            other @ (AgentEvent::Commands(_)
            | AgentEvent::Options(_)
            | AgentEvent::Mode(_)
            | AgentEvent::LoginNeeded { .. }
            | AgentEvent::Thought(_)
            | AgentEvent::Plan(_)
            | AgentEvent::Call(_)
            | AgentEvent::Context(_)
            | AgentEvent::Steered { .. }
            | AgentEvent::SessionNotResumable) => {
                panic!("only ACP agents tell about themselves: {other:?}")
            }
            AgentEvent::Done { stop_reason, usage } => {
                outcomes += 1;
                seen.outcome = Outcome::Done(stop_reason, usage);
            }
            AgentEvent::Failed { message } => {
                outcomes += 1;
                seen.outcome = Outcome::Failed(message);
            }
        }
    }
    assert_eq!(outcomes, 1, "exactly one Done or Failed");
    seen
}

pub fn s(text: &str) -> Option<String> {
    Some(text.to_owned())
}

pub fn tool(summary: &str, status: ToolStatus) -> (String, ToolStatus) {
    (summary.to_owned(), status)
}

/// Every transcript on disk, against its expectation below (a new transcript without
/// one fails here).
#[test]
fn every_transcript_parses_to_what_a_user_should_see() {
    let mut count = 0;
    for kind in ["claude", "codex", "gemini"] {
        let mut names: Vec<String> = fs::read_dir(fixtures().join(kind))
            .expect("fixture folder")
            .filter_map(|entry| {
                let name = entry
                    .expect("entry")
                    .file_name()
                    .into_string()
                    .expect("UTF-8");
                name.strip_suffix(".jsonl").map(str::to_owned)
            })
            .collect();
        names.sort();
        for name in names {
            let expected = expected(kind, &name);
            assert_eq!(seen(replay(kind, &name)), expected, "{kind}/{name}");
            count += 1;
        }
    }
    assert_eq!(count, 37, "transcripts checked");
}

fn expected(kind: &str, name: &str) -> Seen {
    match kind {
        "claude" => claude::expected(name),
        "codex" => codex::expected(name),
        "gemini" => gemini::expected(name),
        _ => unreachable!(),
    }
}

/// A turn that ended before any JSON: only the failure is seen.
pub fn failed_early(message: &str) -> Seen {
    Seen {
        session: None,
        model: None,
        text: String::new(),
        tools: vec![],
        notices: vec![],
        outcome: Outcome::Failed(message.into()),
    }
}
