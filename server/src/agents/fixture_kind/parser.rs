//! The fixture CLI's JSON lines as events (see `fixture_kind.rs` for its format).

use serde_json::Value;

use crate::agents::{AgentEvent, ExitInfo, OutputParser};

/// One fixture turn's output.
pub(super) struct FixtureParser {
    agent: String,
    ended: bool,
}

impl FixtureParser {
    pub(super) fn new(agent: &str) -> Self {
        FixtureParser {
            agent: agent.to_owned(),
            ended: false,
        }
    }
}

impl OutputParser for FixtureParser {
    fn line(&mut self, line: &str, out: &mut Vec<AgentEvent>) {
        let Ok(value) = serde_json::from_str::<Value>(line) else {
            out.push(AgentEvent::Notice(format!(
                "{}: not JSON: {line}",
                self.agent
            )));
            return;
        };
        let text = |key: &str| value.get(key).and_then(Value::as_str).map(str::to_owned);
        if let Some(session) = text("session") {
            out.push(AgentEvent::Started {
                session: Some(session),
                model: None,
            });
        } else if let Some(answer) = text("text") {
            out.push(AgentEvent::Text(answer));
        } else if let Some(end) = text("end") {
            self.ended = true;
            out.push(match end.as_str() {
                "ok" => AgentEvent::Done {
                    stop_reason: None,
                    usage: None,
                },
                _ => AgentEvent::Failed {
                    message: text("message").unwrap_or(end),
                },
            });
        }
    }

    fn finish(&mut self, exit: &ExitInfo, out: &mut Vec<AgentEvent>) {
        if !self.ended {
            out.push(AgentEvent::Failed {
                message: format!(
                    "{} ended without an answer (exit {:?})",
                    self.agent, exit.code
                ),
            });
        }
    }
}
