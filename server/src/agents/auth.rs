//! Authentication failures: telling them from other errors in any CLI's words, and
//! the failure that ends the turn at once with how to log in. Every CLI retries a
//! refused key like a server error (claude ten times over about three minutes), so
//! waiting for its own end only makes the user wait.

use super::AgentEvent;
use crate::agents::AgentKind;

/// Words that only an authentication failure uses (compared in lowercase).
const AUTH_WORDS: [&str; 12] = [
    "authentication_failed",
    "authentication failed",
    "failed to authenticate",
    "not logged in",
    "invalid api key",
    "invalid_api_key",
    "invalid x-api-key",
    "incorrect api key",
    "api key not valid",
    "api_key_invalid",
    "unauthorized",
    "unauthenticated",
];

/// Whether `text` (an error or retry notice of a CLI) says the key or login was
/// refused: HTTP 401 or 403 as a word of its own, or the wording of the CLIs and APIs
/// (`authentication_failed`, "invalid api key", "not logged in", ...).
pub fn is_auth_failure(text: &str) -> bool {
    let lower = text.to_lowercase();
    AUTH_WORDS.iter().any(|words| lower.contains(words)) || has_status(&lower)
}

/// Whether `status` is an HTTP status that refuses the credentials.
pub fn is_auth_status(status: u64) -> bool {
    matches!(status, 401 | 403)
}

/// `401` or `403` standing alone (not inside a longer number or word).
fn has_status(text: &str) -> bool {
    text.split(|c: char| !c.is_ascii_alphanumeric())
        .any(|word| word == "401" || word == "403")
}

/// What to do about it, per CLI: its own login command, or the key it reads.
pub fn login_hint(kind: AgentKind) -> &'static str {
    super::kinds::spec_of(kind).login_advice
}

/// The CLI's own words with the login hint after them, on one line (the status
/// comment keeps the first line of an error).
pub fn with_hint(words: &str, kind: AgentKind) -> String {
    let words = words.trim();
    let mut message = String::with_capacity(words.len() + 200);
    message.push_str(words.lines().next().unwrap_or(""));
    if !message.ends_with(['.', '!', '?', '…']) {
        message.push('.');
    }
    message.push(' ');
    message.push_str(login_hint(kind));
    message
}

/// The failure that ends a turn whose credentials were refused.
pub fn failed(words: &str, kind: AgentKind) -> AgentEvent {
    AgentEvent::Failed {
        message: with_hint(words, kind),
    }
}

/// The failure of a turn in the CLI's own words, with how to log in when they are
/// about the login.
pub fn failure(message: String, kind: AgentKind) -> AgentEvent {
    if is_auth_failure(&message) {
        failed(&message, kind)
    } else {
        AgentEvent::Failed { message }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn auth_failures_are_told_by_status_or_wording() {
        for text in [
            "401 authentication_failed",
            "Not logged in · Please run /login",
            "unexpected status 401 Unauthorized: Incorrect API key provided",
            "[API Error: 400 INVALID_ARGUMENT: API key not valid. Please pass a valid API key.]",
            "Reconnecting... 1/5 (unexpected status 403 Forbidden)",
            "Invalid API key · Fix external API key",
        ] {
            assert!(is_auth_failure(text), "{text}");
        }
        for text in [
            "529 Overloaded",
            "Reconnecting... 2/5 (stream disconnected before completion: error sending request)",
            "attempt 4010 failed",
            "invalid_request_error: mock upstream failure",
        ] {
            assert!(!is_auth_failure(text), "{text}");
        }
        assert!(is_auth_status(401) && is_auth_status(403) && !is_auth_status(429));
    }

    #[test]
    fn the_hint_follows_the_cli_words_on_one_line() {
        assert_eq!(
            with_hint("Not logged in · Please run /login\nmore", AgentKind::Claude),
            "Not logged in · Please run /login. Log in with `claude /login` in a terminal \
             (with CLAUDE_CONFIG_DIR set to the member's `home` if it has one), or export ANTHROPIC_API_KEY before chatmd starts."
        );
        assert!(
            with_hint("bad key.", AgentKind::Codex)
                .starts_with("bad key. Log in with `codex login`")
        );
    }
}
