//! How an ACP turn ends: the `session/prompt` result (its `stopReason` and token
//! usage), an error the agent answered one of our requests with (in its own words, with
//! how to log in when it is about the login), or a process that exits before either.

use serde_json::Value;

use super::rpc::AgentError;
use crate::agents::auth::{is_auth_failure, with_hint};
use crate::agents::output::sanitized;
use crate::agents::reader::Turn;
use crate::agents::{AgentEvent, AgentKind, ExitInfo, Usage};

/// The ACP error code for "Authentication required".
const AUTH_REQUIRED: i64 = -32000;

/// Lines ACP agents print on stderr on every run (reference: acp-real-runs.md), left
/// out of a failure's words.
const STDERR_NOISE: [&str; 3] = [
    "[STARTUP]",
    "Refusing to create helper binaries",
    "could not find bubblewrap",
];

/// Who to tell the user to log in to, when the agent says it needs a login.
#[derive(Debug, Clone, Default)]
pub struct Login {
    /// The built-in CLI behind the agent, whose login chatmd knows.
    pub kind: Option<AgentKind>,
    /// The program, named in the generic advice.
    pub program: String,
    /// The agent's `authMethods` (their names), from its `initialize` result.
    pub methods: Vec<String>,
}

impl Login {
    /// `words` with what to do about the login after them, on one line.
    pub fn hint(&self, words: &str) -> String {
        if let Some(kind) = self.kind {
            return with_hint(words, kind);
        }
        let mut message = words.lines().next().unwrap_or("").trim().to_owned();
        if !message.ends_with(['.', '!', '?', '…']) {
            message.push('.');
        }
        message.push_str(&format!(
            " Log in once with `{}` in a terminal, or give it its API key (in the member's \
             `env`, or exported before chatmd starts).",
            self.program
        ));
        if !self.methods.is_empty() {
            message.push_str(&format!(" It offers: {}.", self.methods.join(", ")));
        }
        message
    }
}

/// The end of a turn the `session/prompt` result announces.
pub fn done(result: &Value) -> AgentEvent {
    AgentEvent::Done {
        stop_reason: result
            .get("stopReason")
            .and_then(Value::as_str)
            .map(str::to_owned),
        usage: usage(result),
    }
}

/// The turn's tokens: `usage` (claude-agent-acp, codex-acp), else gemini's
/// `_meta.quota.token_count`.
fn usage(result: &Value) -> Option<Usage> {
    let tokens = |value: &Value, input: &str, output: &str| {
        Some(Usage {
            input_tokens: value.get(input)?.as_u64()?,
            output_tokens: value.get(output)?.as_u64()?,
        })
    };
    result
        .get("usage")
        .and_then(|u| tokens(u, "inputTokens", "outputTokens"))
        .or_else(|| {
            let quota = result.pointer("/_meta/quota/token_count")?;
            tokens(quota, "input_tokens", "output_tokens")
                .or_else(|| tokens(quota, "inputTokens", "outputTokens"))
        })
}

/// The failure of a turn whose request `step` the agent answered with `error`.
pub fn refused(step: &str, agent: &str, error: &AgentError, login: &Login) -> AgentEvent {
    let mut words = sanitized(error.message.trim()).into_owned();
    if let Some(detail) = detail(error.data.as_ref()) {
        if words.is_empty() {
            words = detail;
        } else {
            words.push_str(": ");
            words.push_str(&detail);
        }
    }
    if words.is_empty() {
        words = format!("{agent} refused `{step}`");
    }
    let about_login = error.code == Some(AUTH_REQUIRED)
        || words.to_lowercase().contains("api key is missing")
        || is_auth_failure(&words);
    AgentEvent::Failed {
        message: if about_login {
            login.hint(&words)
        } else {
            words
        },
    }
}

/// The words an error's `data` adds: a string, or its `details` or `message`.
fn detail(data: Option<&Value>) -> Option<String> {
    let text = match data? {
        Value::String(text) => text.as_str(),
        data => ["details", "message"]
            .iter()
            .find_map(|key| data.get(key).and_then(Value::as_str))?,
    };
    let text = sanitized(text).trim().to_owned();
    (!text.is_empty()).then_some(text)
}

/// The failure of a turn whose process exited before the prompt's result: what it said
/// on stderr (or the last stray stdout line, or how it exited), with how to log in when
/// those words are about the login.
pub fn exited(turn: &Turn, exit: &ExitInfo, login: &Login) -> AgentEvent {
    match turn.failure(None, &STDERR_NOISE, exit) {
        AgentEvent::Failed { message } if is_auth_failure(&message) => AgentEvent::Failed {
            message: login.hint(&message),
        },
        failed => failed,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    #[test]
    fn usage_comes_from_the_result_or_gemini_quota() {
        let claude =
            json!({"stopReason": "end_turn", "usage": {"inputTokens": 3, "outputTokens": 4}});
        let gemini = json!({"stopReason": "end_turn", "_meta": {"quota": {"token_count": {"input_tokens": 5, "output_tokens": 6}}}});
        let cancelled = json!({"stopReason": "cancelled", "usage": null, "_meta": {"quota": {"token_count": null}}});
        let done = |stop: &str, usage: Option<(u64, u64)>| AgentEvent::Done {
            stop_reason: Some(stop.into()),
            usage: usage.map(|(input_tokens, output_tokens)| Usage {
                input_tokens,
                output_tokens,
            }),
        };
        assert_eq!(super::done(&claude), done("end_turn", Some((3, 4))));
        assert_eq!(super::done(&gemini), done("end_turn", Some((5, 6))));
        assert_eq!(super::done(&cancelled), done("cancelled", None));
    }

    #[test]
    fn errors_keep_their_details_and_a_generic_login_hint_names_the_methods() {
        let error = AgentError {
            code: Some(-32603),
            message: "Internal error".into(),
            data: Some(json!({"details": "No previous sessions found for this project."})),
        };
        let login = Login {
            kind: None,
            program: "goose".into(),
            methods: vec!["Log in with Google".into(), "API key".into()],
        };
        assert_eq!(
            refused("session/load", "gemini", &error, &login),
            AgentEvent::Failed {
                message: "Internal error: No previous sessions found for this project.".into()
            }
        );
        let error = AgentError {
            code: Some(AUTH_REQUIRED),
            message: "Authentication required".into(),
            data: None,
        };
        assert_eq!(
            refused("session/prompt", "goose", &error, &login),
            AgentEvent::Failed {
                message: "Authentication required. Log in once with `goose` in a terminal, or \
                          give it its API key (in the member's `env`, or exported before chatmd \
                          starts). It offers: Log in with Google, API key."
                    .into()
            }
        );
    }
}
