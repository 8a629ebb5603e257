//! Gemini runs that end before the model loop (auth, bad input, configuration, trust):
//! they print no JSON, only stderr and an exit code, which become a message that says
//! what went wrong and what to do.

use crate::agents::AgentKind;
use crate::agents::reader::stderr_message;
use crate::agents::{ExitInfo, auth};

/// stderr lines gemini prints on ordinary runs.
pub(super) const STDERR_NOISE: [&str; 3] = [
    "YOLO mode is enabled",
    "Warning: 256-color support not detected",
    "Approval mode overridden",
];

/// The message for an exit before the model loop, which prints no JSON: what went
/// wrong (from the exit code), gemini's own words, and what to do.
pub(super) fn early_exit(agent: &str, exit: &ExitInfo) -> Option<String> {
    let (what, todo) = match exit.code? {
        41 => ("cannot log in", auth::login_hint(AgentKind::Gemini)),
        42 => (
            "rejected its input",
            "If it is about the session to resume, that session is gone and the next turn \
             must start a new one; otherwise check the member's `args`.",
        ),
        44 => (
            "could not start its sandbox",
            "Check the sandbox setting (GEMINI_SANDBOX or --sandbox in the member's `args`).",
        ),
        52 => (
            "found an error in its configuration",
            "Fix the settings file it names (in the member's `home`, or ~/.gemini).",
        ),
        53 => ("reached its turn limit", ""),
        54 => ("stopped on a fatal tool error", ""),
        55 => (
            "does not trust the working folder",
            "chatmd passes --skip-trust; if a wrapper program drops it, set \
             GEMINI_CLI_TRUST_WORKSPACE=true in the member's `env`.",
        ),
        _ => return None,
    };
    let code = exit.code?;
    let stderr = stderr_message(exit, &STDERR_NOISE);
    let mut message = format!("{} {what} (exit {code})", agent);
    if !stderr.is_empty() {
        message.push_str(": ");
        message.push_str(&stderr);
    }
    if !message.ends_with(['.', '!', '?', '…']) {
        message.push('.');
    }
    if !todo.is_empty() {
        message.push(' ');
        message.push_str(todo);
    }
    Some(message)
}
