//! How an ACP turn ends: the `session/prompt` result (its `stopReason` and token
//! usage), an error the agent answered one of our requests with (in its own words, with
//! how to log in when it is about the login), or a process that exits before either.
//! A failure about the login comes after a [`AgentEvent::LoginNeeded`] with the same
//! advice and the agent's `authMethods`, for the editor's diagnostic on the member.

use serde_json::Value;

use super::rpc::AgentError;
use crate::agents::auth::{is_auth_failure, with_hint};
use crate::agents::output::sanitized;
use crate::agents::reader::Turn;
use crate::agents::{AgentEvent, AgentKind, AuthMethod, ExitInfo, Outbox, Usage};

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
    /// The agent's `authMethods`, from its `initialize` result.
    pub methods: Vec<AuthMethod>,
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
            let names: Vec<&str> = self.methods.iter().map(|m| m.name.as_str()).collect();
            message.push_str(&format!(" It offers: {}.", names.join(", ")));
        }
        message
    }

    /// The failure with `words` about the login: [`AgentEvent::LoginNeeded`] goes to
    /// `events`, the `Failed` with the same advice is returned.
    fn failed(&self, words: &str, events: &mut Vec<AgentEvent>) -> AgentEvent {
        let advice = self.hint(words);
        events.push(AgentEvent::LoginNeeded {
            advice: advice.clone(),
            methods: self.methods.clone(),
        });
        AgentEvent::Failed { message: advice }
    }
}

/// The `authMethods` of an `initialize` result (`id`, `name`, `description`); an entry
/// without an id or a name is left out.
pub fn auth_methods(result: &Value) -> Vec<AuthMethod> {
    let Some(methods) = result.get("authMethods").and_then(Value::as_array) else {
        return Vec::new();
    };
    let text = |m: &Value, key: &str| {
        m.get(key)
            .and_then(Value::as_str)
            .map(|s| sanitized(s).trim().to_owned())
            .filter(|s| !s.is_empty())
    };
    methods
        .iter()
        .filter_map(|m| {
            Some(AuthMethod {
                id: text(m, "id")?,
                name: text(m, "name")?,
                description: text(m, "description"),
            })
        })
        .collect()
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

/// The failure of a turn whose request `step` the agent answered with `error` (a
/// failure about the login puts its [`AgentEvent::LoginNeeded`] in `events` first).
pub fn refused(
    step: &str,
    agent: &str,
    error: &AgentError,
    login: &Login,
    events: &mut Vec<AgentEvent>,
) -> AgentEvent {
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
    if about_login {
        login.failed(&words, events)
    } else {
        AgentEvent::Failed { message: words }
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
/// on stderr (or the last stray stdout line, or how it exited), with how to log in (and
/// a [`AgentEvent::LoginNeeded`] before it) when those words are about the login.
pub fn exited(turn: &Turn, exit: &ExitInfo, login: &Login, out: &mut Outbox) {
    let failed = match turn.failure(None, &STDERR_NOISE, exit) {
        AgentEvent::Failed { message } if is_auth_failure(&message) => {
            login.failed(&message, &mut out.events)
        }
        failed => failed,
    };
    out.push(failed);
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
        let method = |id: &str, name: &str| AuthMethod {
            id: id.into(),
            name: name.into(),
            description: None,
        };
        let login = Login {
            kind: None,
            program: "goose".into(),
            methods: vec![
                method("google", "Log in with Google"),
                method("key", "API key"),
            ],
        };
        let mut events = Vec::new();
        assert_eq!(
            refused("session/load", "gemini", &error, &login, &mut events),
            AgentEvent::Failed {
                message: "Internal error: No previous sessions found for this project.".into()
            }
        );
        assert_eq!(events, [], "not about the login");
        let error = AgentError {
            code: Some(AUTH_REQUIRED),
            message: "Authentication required".into(),
            data: None,
        };
        let advice = "Authentication required. Log in once with `goose` in a terminal, or \
                      give it its API key (in the member's `env`, or exported before chatmd \
                      starts). It offers: Log in with Google, API key.";
        assert_eq!(
            refused("session/prompt", "goose", &error, &login, &mut events),
            AgentEvent::Failed {
                message: advice.into()
            }
        );
        assert_eq!(
            events,
            [AgentEvent::LoginNeeded {
                advice: advice.into(),
                methods: login.methods.clone()
            }]
        );
    }

    #[test]
    fn the_auth_methods_come_from_the_initialize_result() {
        // gemini --acp 0.61's, with `_meta` on some; claude-agent-acp's list is empty.
        let gemini = json!({"protocolVersion": 1, "authMethods": [
            {"id": "oauth-personal", "name": "Log in with Google", "description": "Log in with your Google account"},
            {"id": "gemini-api-key", "name": "Gemini API key", "description": "Use an API key with Gemini Developer API",
             "_meta": {"api-key": {"provider": "google"}}},
            {"name": "no id"},
        ]});
        assert_eq!(
            auth_methods(&gemini),
            [
                AuthMethod {
                    id: "oauth-personal".into(),
                    name: "Log in with Google".into(),
                    description: Some("Log in with your Google account".into()),
                },
                AuthMethod {
                    id: "gemini-api-key".into(),
                    name: "Gemini API key".into(),
                    description: Some("Use an API key with Gemini Developer API".into()),
                },
            ]
        );
        assert_eq!(auth_methods(&json!({"authMethods": []})), []);
        assert_eq!(auth_methods(&json!({})), []);
    }
}
