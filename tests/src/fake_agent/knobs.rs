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
    /// `FAKE_AGENT_SPREAD_MS` with the number of chunks it spreads.
    pub spread: Option<(Duration, usize)>,
    pub crash_at: Option<usize>,
    pub hang: bool,
    pub hang_after: Option<usize>,
    pub exit: Option<i32>,
    pub flood_mb: Option<usize>,
    /// `FAKE_AGENT_RESIDENT_MB`: memory held resident for the process's life.
    pub resident_mb: Option<usize>,
    pub garbage: bool,
    pub stderr: Option<String>,
    pub ignore_term: bool,
    pub grandchild: bool,
    pub grandchild_pid: Option<PathBuf>,
    pub record: Option<PathBuf>,
    /// What a generated claude answer says it cost (`total_cost_usd`), default 0.
    pub cost: Option<String>,
    /// What the model billed a generated answer, tokens in and out (`billing.rs`).
    pub tokens: Option<(u64, u64)>,
    /// The version the CLI says it is (`--version`, claude's init line), and behaves as
    /// (claude from 2.1.332: running costs on resume, the first system text kept).
    pub version: Option<String>,
    /// Where the sessions the fake knows are kept; `None`: every session is known.
    pub sessions: Option<PathBuf>,
    /// Knobs may also come from the prompt (see [`Knobs::with_prompt`]).
    pub prompt_knobs: bool,
}

impl Knobs {
    /// Whether the impersonated claude keeps its session's first system text on
    /// resume (2.1.332 and later).
    pub fn keeps_first_system(&self) -> bool {
        self.is_at_least(super::claude::KEEPS_FIRST_SYSTEM)
    }

    /// Whether the impersonated version (`FAKE_AGENT_VERSION`) is `version` or later.
    pub fn is_at_least(&self, version: &str) -> bool {
        let parts = |v: &str| -> Vec<u64> { v.split('.').filter_map(|p| p.parse().ok()).collect() };
        self.version
            .as_deref()
            .is_some_and(|v| parts(v) >= parts(version))
    }
}

/// Starts the line of a prompt that gives knobs for one run (`FAKE_AGENT_PROMPT_KNOBS`).
pub const PROMPT_KNOBS_TAG: &str = "fake-agent:";

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
            spread: number("FAKE_AGENT_SPREAD_MS")?
                .map(Duration::from_millis)
                .zip(number("FAKE_AGENT_CHUNKS")?.map(|n| n.max(1) as usize)),
            crash_at: number("FAKE_AGENT_CRASH_AT")?.map(|n| n as usize),
            hang: flag("FAKE_AGENT_HANG"),
            hang_after: number("FAKE_AGENT_HANG_AFTER")?.map(|n| n as usize),
            exit,
            flood_mb: number("FAKE_AGENT_FLOOD_MB")?.map(|n| n as usize),
            resident_mb: number("FAKE_AGENT_RESIDENT_MB")?.map(|n| n as usize),
            garbage: flag("FAKE_AGENT_GARBAGE"),
            stderr: text("FAKE_AGENT_STDERR"),
            ignore_term: flag("FAKE_AGENT_IGNORE_TERM"),
            grandchild: flag("FAKE_AGENT_GRANDCHILD"),
            grandchild_pid: text("FAKE_AGENT_GRANDCHILD_PID").map(PathBuf::from),
            record: text("FAKE_AGENT_RECORD").map(PathBuf::from),
            cost: text("FAKE_AGENT_COST")
                .map(|v| {
                    v.trim()
                        .parse::<f64>()
                        .map(|_| v.trim().to_owned())
                        .map_err(|_| format!("FAKE_AGENT_COST={v:?} is not a number"))
                })
                .transpose()?,
            tokens: text("FAKE_AGENT_TOKENS")
                .map(|v| {
                    let pair = v.trim().split_once('/');
                    pair.and_then(|(i, o)| Some((i.parse().ok()?, o.parse().ok()?)))
                        .ok_or_else(|| format!("FAKE_AGENT_TOKENS={v:?} is not <in>/<out>"))
                })
                .transpose()?,
            version: text("FAKE_AGENT_VERSION")
                .map(|v| {
                    let v = v.trim();
                    let numbers = v.split('.').filter(|p| p.parse::<u64>().is_ok()).count();
                    (numbers == 3 && v.split('.').count() == 3)
                        .then(|| v.to_owned())
                        .ok_or_else(|| format!("FAKE_AGENT_VERSION={v:?} is not N.N.N"))
                })
                .transpose()?,
            sessions: text("FAKE_AGENT_SESSIONS").map(PathBuf::from),
            prompt_knobs: flag("FAKE_AGENT_PROMPT_KNOBS"),
        })
    }

    /// The knobs of `get`, with those of the prompt's last `fake-agent:` line taking
    /// precedence: `fake-agent: FAKE_AGENT_TEXT=some words, FAKE_AGENT_DELAY_MS=40`
    /// (pairs separated by commas, so a value has none). One member can then behave
    /// differently on every turn, as the message that asks it says.
    pub fn with_prompt(
        prompt: &str,
        get: impl Fn(&str) -> Option<String>,
    ) -> Result<Knobs, String> {
        let given = prompt_knobs(prompt)?;
        Knobs::from_lookup(|name| {
            given
                .iter()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.clone())
                .or_else(|| get(name))
        })
    }
}

/// The `NAME=value` pairs of the prompt's last `fake-agent:` line (the message being
/// answered comes last; earlier messages in the context may have their own).
fn prompt_knobs(prompt: &str) -> Result<Vec<(String, String)>, String> {
    let Some(at) = prompt.rfind(PROMPT_KNOBS_TAG) else {
        return Ok(Vec::new());
    };
    let line = prompt[at + PROMPT_KNOBS_TAG.len()..]
        .lines()
        .next()
        .unwrap_or("");
    line.split(',')
        .map(str::trim)
        .filter(|pair| !pair.is_empty())
        .map(|pair| match pair.split_once('=') {
            Some((name, value)) if name.trim().starts_with("FAKE_AGENT_") => {
                Ok((name.trim().to_string(), value.trim().to_string()))
            }
            _ => Err(format!(
                "{PROMPT_KNOBS_TAG} {pair:?} in the prompt is not FAKE_AGENT_<NAME>=<value>"
            )),
        })
        .collect()
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

    #[test]
    fn the_prompts_last_knob_line_overrides_the_environment() {
        let env = |name: &str| match name {
            "FAKE_AGENT_TEXT" => Some("from env".to_string()),
            "FAKE_AGENT_CHUNKS" => Some("2".to_string()),
            _ => None,
        };
        let prompt = "me: fake-agent: FAKE_AGENT_TEXT=older\n[MESSAGE]\nme: @reviewer go\n\
                      fake-agent: FAKE_AGENT_TEXT=ça va: yes, FAKE_AGENT_DELAY_MS=40 \nthanks\n";
        let k = Knobs::with_prompt(prompt, env).expect("valid");
        assert_eq!(k.text.as_deref(), Some("ça va: yes"));
        assert_eq!(k.delay, Some(Duration::from_millis(40)));
        assert_eq!(k.chunks, Some(2), "the environment's other knobs stay");
        let k = Knobs::with_prompt("no knobs here", env).expect("valid");
        assert_eq!(k.text.as_deref(), Some("from env"));
        assert!(Knobs::with_prompt("fake-agent: PATH=/x", env).is_err());
        assert!(Knobs::with_prompt("fake-agent: FAKE_AGENT_DELAY_MS=soon", env).is_err());
    }
}
