//! What resuming a session needs from each CLI: the options `codex exec resume` refuses
//! (rewritten into forms it takes), and each CLI's words for a session it cannot find
//! (turned into [`AgentEvent::SessionNotFound`], so the turn can run again as a new
//! session instead of failing).
//!
//! The words are the real CLIs' (`shared/reference/agent-clis.md`, and gemini-cli's
//! sources for its message):
//! - claude prints `No conversation found with session ID: <id>` on stdout, then a
//!   `result` with `subtype:"error_during_execution"`, and exits 1;
//! - codex prints `Error: thread/resume: thread/resume failed: no rollout found for
//!   thread id <id> (code -32600)` on stderr and exits 1, with no JSON;
//! - gemini prints `Error resuming session: Invalid session identifier "<id>". …` (or
//!   `… No previous sessions found for this project.` when it has none) on stderr and
//!   exits 42, with no JSON.

use std::path::PathBuf;

use super::output::sanitize;
use super::{AgentEvent, ExitInfo};

const CLAUDE_NOT_FOUND: &str = "No conversation found with session ID:";
const CODEX_NOT_FOUND: &str = "no rollout found for thread id";
const GEMINI_NOT_FOUND: &str = "Error resuming session:";
/// gemini's exit code for bad input, a bad `--resume` among them.
const GEMINI_INPUT_ERROR: i32 = 42;

/// claude's stdout line for an unknown `--resume` id, as an event.
pub fn claude_not_found(line: &str) -> Option<AgentEvent> {
    let line = line.trim();
    line.starts_with(CLAUDE_NOT_FOUND).then(|| lost(line))
}

/// codex's exit after an unknown `exec resume` id, as an event.
pub fn codex_not_found(exit: &ExitInfo) -> Option<AgentEvent> {
    if exit.code == Some(0) {
        return None;
    }
    stderr_line(exit, |line| line.contains(CODEX_NOT_FOUND)).map(lost)
}

/// gemini's exit after a `--resume` it cannot resolve, as an event.
pub fn gemini_not_found(exit: &ExitInfo) -> Option<AgentEvent> {
    if exit.code != Some(GEMINI_INPUT_ERROR) {
        return None;
    }
    stderr_line(exit, |line| line.trim_start().starts_with(GEMINI_NOT_FOUND)).map(lost)
}

fn stderr_line(exit: &ExitInfo, wanted: impl Fn(&str) -> bool) -> Option<&str> {
    exit.stderr_tail.lines().rev().find(|line| wanted(line))
}

fn lost(words: &str) -> AgentEvent {
    AgentEvent::SessionNotFound {
        message: sanitize(words.trim()),
    }
}

/// A member's extra codex arguments, fit for `codex exec resume`, which refuses
/// `--sandbox` and `-C/--cd` (they belong to the thread's first `exec`): the sandbox
/// becomes `-c sandbox_mode="…"` and the folder becomes the process's working folder
/// (returned; relative to the member's workdir). Everything else is kept as it is.
pub fn codex_resume_args(args: &[String]) -> (Vec<String>, Option<PathBuf>) {
    let mut out = Vec::with_capacity(args.len());
    let mut cwd = None;
    let mut i = 0;
    while i < args.len() {
        let arg = &args[i];
        i += 1;
        if arg == "--" {
            out.extend(args[i - 1..].iter().cloned());
            break;
        }
        let (flag, inline) = match arg.split_once('=') {
            Some((flag, value)) if arg.starts_with("--") => (flag, Some(value.to_owned())),
            _ => (arg.as_str(), None),
        };
        let value = |i: &mut usize| {
            inline.clone().or_else(|| {
                let value = args.get(*i).cloned();
                *i += 1;
                value
            })
        };
        match flag {
            "--sandbox" | "-s" => {
                if let Some(mode) = value(&mut i) {
                    out.push("-c".to_owned());
                    out.push(format!(
                        "sandbox_mode={}",
                        crate::document::quoted::toml_string(&mode)
                    ));
                }
            }
            "--cd" | "-C" => cwd = value(&mut i).map(PathBuf::from),
            _ => out.push(arg.clone()),
        }
    }
    (out, cwd)
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn exit(code: i32, stderr: &str) -> ExitInfo {
        ExitInfo {
            code: Some(code),
            stderr_tail: stderr.to_owned(),
        }
    }

    fn lost(message: &str) -> Option<AgentEvent> {
        Some(AgentEvent::SessionNotFound {
            message: message.to_owned(),
        })
    }

    #[test]
    fn each_cli_words_for_an_unknown_session_are_recognised() {
        assert_eq!(
            claude_not_found("No conversation found with session ID: 0f1e2d3c\n"),
            lost("No conversation found with session ID: 0f1e2d3c")
        );
        assert_eq!(claude_not_found("{\"type\":\"result\"}"), None);
        let codex = "WARNING: proceeding, even though we could not update PATH\n\
                     Error: thread/resume: thread/resume failed: no rollout found for thread id 01a2 (code -32600)\n";
        assert_eq!(
            codex_not_found(&exit(1, codex)),
            lost(
                "Error: thread/resume: thread/resume failed: no rollout found for thread id 01a2 (code -32600)"
            )
        );
        assert_eq!(codex_not_found(&exit(1, "Error: something else\n")), None);
        let gemini = "Warning: 256-color support not detected.\n\
                      Error resuming session: Invalid session identifier \"9cb1\".\n  \
                      Searched for sessions in /h/.gemini/tmp/w/chats.\n";
        assert_eq!(
            gemini_not_found(&exit(42, gemini)),
            lost("Error resuming session: Invalid session identifier \"9cb1\".")
        );
        let none = "Error resuming session: No previous sessions found for this project.\n";
        assert_eq!(
            gemini_not_found(&exit(42, none)),
            lost("Error resuming session: No previous sessions found for this project.")
        );
        // The same words with another exit code are not gemini's resume error.
        assert_eq!(gemini_not_found(&exit(1, gemini)), None);
        // A duplicate --session-id is exit 42 too, but not a lost session.
        assert_eq!(
            gemini_not_found(&exit(
                42,
                "Error starting session: Session ID \"x\" already exists.\n"
            )),
            None
        );
    }

    #[test]
    fn codex_resume_rewrites_the_options_resume_refuses() {
        let args = |list: &[&str]| list.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            codex_resume_args(&args(&["-m", "gpt-5.5", "--sandbox", "workspace-write"])),
            (
                args(&["-m", "gpt-5.5", "-c", "sandbox_mode=\"workspace-write\""]),
                None
            )
        );
        assert_eq!(
            codex_resume_args(&args(&["-s", "read-only", "--cd=sub", "--json"])),
            (
                args(&["-c", "sandbox_mode=\"read-only\"", "--json"]),
                Some(PathBuf::from("sub"))
            )
        );
        assert_eq!(
            codex_resume_args(&args(&["-C", "/abs", "-c", "model=\"o3\""])),
            (args(&["-c", "model=\"o3\""]), Some(PathBuf::from("/abs")))
        );
    }
}
