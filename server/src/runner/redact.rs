//! Credentials never reach the chat: the values of the secret-looking variables an
//! agent runs with (the member's `env` and chatmd's own environment, which the agent
//! inherits) are cut out of what the runner passes on about a turn: error messages,
//! notices, tool summaries, permission requests and the stderr tail that error
//! messages quote. A CLI that echoes its API key in an error ("invalid key sk-…") does
//! not put it in a status comment. Answer text is the agent's own and is passed on as it is.

use crate::agents::{AgentEvent, AskedPlan, PermissionRequest};

/// What replaces a secret value.
pub(crate) const REDACTED: &str = "<redacted>";

/// Parts of variable names that mark their value as a credential.
const SECRET_NAMES: [&str; 7] = [
    "KEY",
    "TOKEN",
    "SECRET",
    "PASSWORD",
    "PASSWD",
    "CREDENTIAL",
    "AUTH",
];

/// Shorter values are not cut: they would match ordinary words.
const MIN_LEN: usize = 8;

/// The secret values of one turn.
#[derive(Debug, Default)]
pub(crate) struct Secrets {
    values: Vec<String>,
}

impl Secrets {
    /// The secrets among the turn's variables (`env`, set on top of this process's).
    pub(crate) fn of(env: &[(String, String)]) -> Secrets {
        let inherited = std::env::vars_os()
            .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)));
        Secrets::from_vars(env.iter().cloned().chain(inherited))
    }

    fn from_vars(vars: impl Iterator<Item = (String, String)>) -> Secrets {
        let mut values: Vec<String> = vars
            .filter(|(name, value)| is_secret_name(name) && value.trim().len() >= MIN_LEN)
            .map(|(_, value)| value.trim().to_string())
            .collect();
        // Longest first: a secret that contains another is cut whole.
        values.sort_by_key(|v| std::cmp::Reverse(v.len()));
        values.dedup();
        Secrets { values }
    }

    /// `text` with every secret value replaced.
    pub(crate) fn redact(&self, text: &str) -> String {
        let mut text = text.to_string();
        for value in &self.values {
            if text.contains(value.as_str()) {
                text = text.replace(value.as_str(), REDACTED);
            }
        }
        text
    }

    /// The event with secrets cut from what it says about the turn.
    pub(crate) fn event(&self, event: AgentEvent) -> AgentEvent {
        if self.values.is_empty() {
            return event;
        }
        match event {
            AgentEvent::Failed { message } => AgentEvent::Failed {
                message: self.redact(&message),
            },
            AgentEvent::Notice(notice) => AgentEvent::Notice(self.redact(&notice)),
            AgentEvent::Tool {
                id,
                summary,
                status,
                detail,
            } => AgentEvent::Tool {
                id,
                summary: self.redact(&summary),
                status,
                detail: detail.map(|d| self.redact(&d)),
            },
            AgentEvent::Retry(retry) => AgentEvent::Retry(crate::agents::Retry {
                reason: self.redact(&retry.reason),
                ..retry
            }),
            AgentEvent::Denied { denials, allow } => AgentEvent::Denied {
                denials: denials
                    .into_iter()
                    .map(|d| crate::agents::Denial {
                        input: d.input.map(|i| self.redact(&i)),
                        ..d
                    })
                    .collect(),
                allow,
            },
            AgentEvent::SessionNotFound { message } => AgentEvent::SessionNotFound {
                message: self.redact(&message),
            },
            // What the agent wants to do is shown to the user, like a tool summary.
            AgentEvent::Permission(request) => {
                AgentEvent::Permission(Box::new(PermissionRequest {
                    summary: self.redact(&request.summary),
                    title: self.redact(&request.title),
                    plan: request.plan.map(|plan| match plan {
                        AskedPlan::Text(text) => AskedPlan::Text(self.redact(&text)),
                        AskedPlan::Steps(steps) => {
                            AskedPlan::Steps(steps.iter().map(|s| self.redact(s)).collect())
                        }
                    }),
                    ..*request
                }))
            }
            other => other,
        }
    }
}

fn is_secret_name(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    SECRET_NAMES.iter().any(|part| upper.contains(part))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn secrets(vars: &[(&str, &str)]) -> Secrets {
        Secrets::from_vars(
            vars.iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect::<Vec<_>>()
                .into_iter(),
        )
    }

    #[test]
    fn secret_values_are_cut_and_others_kept() {
        let s = secrets(&[
            ("ANTHROPIC_API_KEY", "sk-ant-0123456789"),
            ("github_token", "ghp_abcdefgh"),
            ("RUST_LOG", "debug,hyper=info"),
            ("SHORT_TOKEN", "abc"),
        ]);
        assert_eq!(
            s.redact(
                "invalid x-api-key sk-ant-0123456789 (ghp_abcdefgh); RUST_LOG=debug,hyper=info abc"
            ),
            "invalid x-api-key <redacted> (<redacted>); RUST_LOG=debug,hyper=info abc"
        );
    }

    #[test]
    fn a_longer_secret_is_cut_whole() {
        let s = secrets(&[("A_KEY", "secret-12"), ("B_KEY", "secret-1234")]);
        assert_eq!(s.redact("key secret-1234"), "key <redacted>");
    }

    #[test]
    fn events_about_the_turn_are_redacted_answers_are_not() {
        let s = secrets(&[("OPENAI_API_KEY", "sk-proj-99999999")]);
        let failed = s.event(AgentEvent::Failed {
            message: "401: sk-proj-99999999 is not valid".into(),
        });
        assert!(
            matches!(&failed, AgentEvent::Failed { message } if message == "401: <redacted> is not valid")
        );
        let text = s.event(AgentEvent::Text("sk-proj-99999999".into()));
        assert!(matches!(&text, AgentEvent::Text(t) if t == "sk-proj-99999999"));
    }
}
