//! What a generated answer says it used, the way each CLI reports it
//! (`agents-2026-12.md`): claude reports the run's tokens, and its `total_cost_usd` is
//! the run's own up to 2.1.197 but the session's running total on `--resume` from
//! 2.1.332 on; codex's `turn.completed.usage` on `exec resume` is the thread's running
//! total; gemini reports the run's own. The model's bill for one run is
//! `FAKE_AGENT_TOKENS` and `FAKE_AGENT_COST`; the session's totals so far are kept in
//! its file of the session store (`FAKE_AGENT_SESSIONS`), as `input output cost`.

use std::path::Path;

use super::Knobs;
use super::cli::Cli;

/// What the model billed, for one run or a session so far.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Bill {
    pub input: u64,
    pub output: u64,
    pub cost: f64,
}

impl Bill {
    fn plus(self, other: Bill) -> Bill {
        Bill {
            input: self.input + other.input,
            output: self.output + other.output,
            cost: self.cost + other.cost,
        }
    }

    /// As the session store keeps it.
    pub fn stored(&self) -> String {
        format!("{} {} {}", self.input, self.output, self.cost)
    }

    fn parse(text: &str) -> Option<Bill> {
        let mut words = text.split_whitespace();
        Some(Bill {
            input: words.next()?.parse().ok()?,
            output: words.next()?.parse().ok()?,
            cost: words.next()?.parse().ok()?,
        })
    }
}

/// The totals of session `id` of `cli` so far (nothing for a session the store does
/// not know, or one an older fake stored without them).
pub fn session_so_far(store: &Path, cli: Cli, id: &str) -> Bill {
    std::fs::read_to_string(store.join(cli.name()).join(id))
        .ok()
        .and_then(|text| Bill::parse(&text))
        .unwrap_or_default()
}

/// What one run prints of its usage: tokens in and out and claude's cost, as JSON
/// number text, and the session's totals after it.
pub struct Reported {
    pub input: String,
    pub output: String,
    pub cost: String,
    pub session: Bill,
    /// The run resumed a session.
    pub resumed: bool,
}

/// The usage run `resumed` (or not) prints, billed `FAKE_AGENT_TOKENS` (default: 10
/// in, `chunks` out) and `FAKE_AGENT_COST` (default 0), after `before`.
pub fn report(cli: Cli, knobs: &Knobs, resumed: bool, before: Bill, chunks: usize) -> Reported {
    let (input, output) = knobs.tokens.unwrap_or((10, chunks as u64));
    let cost_text = knobs.cost.clone().unwrap_or_else(|| "0".to_owned());
    let run = Bill {
        input,
        output,
        cost: cost_text.parse().unwrap_or(0.0),
    };
    let session = if resumed { before.plus(run) } else { run };
    let shown = match cli {
        Cli::Codex => session,
        Cli::Claude | Cli::Gemini => run,
    };
    let session_cost = cli == Cli::Claude && claude_session_cost(knobs.version.as_deref());
    let cost = if session_cost && resumed {
        serde_json::Value::from(session.cost).to_string()
    } else {
        cost_text
    };
    Reported {
        input: shown.input.to_string(),
        output: shown.output.to_string(),
        cost,
        session,
        resumed,
    }
}

/// Whether this claude version's `total_cost_usd` on `--resume` is the session's
/// running total (2.1.332 does; 2.1.197 reports the run's own).
fn claude_session_cost(version: Option<&str>) -> bool {
    let numbers = |v: &str| -> Vec<u64> { v.split('.').filter_map(|p| p.parse().ok()).collect() };
    version.is_some_and(|v| numbers(v) >= vec![2, 1, 332])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claude_reports_the_session_cost_from_2_1_332_and_codex_the_thread_tokens() {
        let knobs = |version: &str| Knobs {
            tokens: Some((9825, 28)),
            cost: Some("0.0498".into()),
            version: Some(version.into()),
            ..Knobs::default()
        };
        let before = Bill {
            input: 9677,
            output: 28,
            cost: 0.0496,
        };
        let claude = report(Cli::Claude, &knobs("2.1.332"), true, before, 1);
        assert_eq!(
            (claude.input.as_str(), claude.cost.as_str()),
            ("9825", "0.09939999999999999")
        );
        let old = report(Cli::Claude, &knobs("2.1.197"), true, before, 1);
        assert_eq!(old.cost, "0.0498");
        let codex = report(Cli::Codex, &knobs("0.171.0"), true, before, 1);
        assert_eq!(
            (codex.input.as_str(), codex.output.as_str()),
            ("19502", "56")
        );
        let fresh = report(Cli::Codex, &knobs("0.171.0"), false, before, 1);
        assert_eq!(fresh.input, "9825");
    }
}
