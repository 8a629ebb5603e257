//! The fake agent's knobs, read once from the environment (the table of all of them is
//! in the module docs of `fake_agent`); a malformed knob is an error, never ignored.

use std::path::PathBuf;
use std::time::Duration;

use super::cli::Cli;

/// Every knob, parsed.
#[derive(Debug, Default, Clone)]
pub struct Knobs {
    pub cli: Option<Cli>,
    pub transcript: Option<String>,
    pub fixtures: Option<PathBuf>,
    pub session: Option<String>,
    pub text: Option<String>,
    pub chunks: Option<usize>,
    pub delay: Option<Duration>,
    pub crash_at: Option<usize>,
    pub hang: bool,
    pub hang_after: Option<usize>,
    pub exit: Option<i32>,
    pub flood_mb: Option<usize>,
    pub garbage: bool,
    pub stderr: Option<String>,
    pub ignore_term: bool,
    pub grandchild: bool,
    pub grandchild_pid: Option<PathBuf>,
    pub record: Option<PathBuf>,
    /// Where the sessions the fake knows are kept; `None`: every session is known.
    pub sessions: Option<PathBuf>,
}

impl Knobs {
    /// The knobs of this process's environment.
    pub fn from_env() -> Result<Knobs, String> {
        Knobs::from_lookup(|name| std::env::var(name).ok())
    }

    /// The knobs from `get` (a variable name → its value), for tests.
    pub fn from_lookup(get: impl Fn(&str) -> Option<String>) -> Result<Knobs, String> {
        let text = |name: &str| get(name).filter(|v| !v.is_empty());
        let flag = |name: &str| text(name).is_some_and(|v| v != "0");
        let number = |name: &str| -> Result<Option<u64>, String> {
            text(name)
                .map(|v| {
                    v.trim()
                        .parse::<u64>()
                        .map_err(|_| format!("{name}={v:?} is not a whole number"))
                })
                .transpose()
        };
        let cli = text("FAKE_AGENT_AS")
            .map(|name| {
                Cli::from_name(&name).ok_or_else(|| {
                    format!("FAKE_AGENT_AS={name:?}: expected claude, codex or gemini")
                })
            })
            .transpose()?;
        let exit = text("FAKE_AGENT_EXIT")
            .map(|v| {
                v.trim()
                    .parse::<i32>()
                    .map_err(|_| format!("FAKE_AGENT_EXIT={v:?} is not an exit code"))
            })
            .transpose()?;
        Ok(Knobs {
            cli,
            transcript: text("FAKE_AGENT_TRANSCRIPT"),
            fixtures: text("FAKE_AGENT_FIXTURES").map(PathBuf::from),
            session: text("FAKE_AGENT_SESSION"),
            text: get("FAKE_AGENT_TEXT"),
            chunks: number("FAKE_AGENT_CHUNKS")?.map(|n| n.max(1) as usize),
            delay: number("FAKE_AGENT_DELAY_MS")?.map(Duration::from_millis),
            crash_at: number("FAKE_AGENT_CRASH_AT")?.map(|n| n as usize),
            hang: flag("FAKE_AGENT_HANG"),
            hang_after: number("FAKE_AGENT_HANG_AFTER")?.map(|n| n as usize),
            exit,
            flood_mb: number("FAKE_AGENT_FLOOD_MB")?.map(|n| n as usize),
            garbage: flag("FAKE_AGENT_GARBAGE"),
            stderr: text("FAKE_AGENT_STDERR"),
            ignore_term: flag("FAKE_AGENT_IGNORE_TERM"),
            grandchild: flag("FAKE_AGENT_GRANDCHILD"),
            grandchild_pid: text("FAKE_AGENT_GRANDCHILD_PID").map(PathBuf::from),
            record: text("FAKE_AGENT_RECORD").map(PathBuf::from),
            sessions: text("FAKE_AGENT_SESSIONS").map(PathBuf::from),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn knobs(vars: &[(&str, &str)]) -> Result<Knobs, String> {
        let vars: HashMap<String, String> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        Knobs::from_lookup(|name| vars.get(name).cloned())
    }

    #[test]
    fn knobs_parse_and_bad_values_are_errors() {
        let k = knobs(&[
            ("FAKE_AGENT_AS", "codex"),
            ("FAKE_AGENT_DELAY_MS", "15"),
            ("FAKE_AGENT_HANG", "1"),
            ("FAKE_AGENT_GARBAGE", "0"),
            ("FAKE_AGENT_EXIT", "-3"),
        ])
        .expect("valid");
        assert_eq!(k.cli, Some(Cli::Codex));
        assert_eq!(k.delay, Some(Duration::from_millis(15)));
        assert!(k.hang);
        assert!(!k.garbage);
        assert_eq!(k.exit, Some(-3));
        assert_eq!(
            knobs(&[("FAKE_AGENT_CRASH_AT", "soon")]).unwrap_err(),
            "FAKE_AGENT_CRASH_AT=\"soon\" is not a whole number"
        );
        assert!(knobs(&[("FAKE_AGENT_AS", "copilot")]).is_err());
    }
}
