//! Token counts and the shapes that carry them: claude's and codex's `usage_update`s and
//! the three `session/prompt` results. The numbers are made up (the mock's are too) but
//! consistent: input grows with the history, output is the answer's word count.

use super::super::Knobs;
use super::super::cli::Cli;
use super::json::{J, obj};
use super::store::Session;

/// The context window each agent reports in `usage_update.size`.
const CLAUDE_WINDOW: u64 = 1_000_000;
const CODEX_WINDOW: u64 = 258_400;

/// Input tokens of a request in `session` (the system prompt plus the history).
pub fn input_tokens(flavor: Cli, session: &Session) -> u64 {
    let base = match flavor {
        Cli::Claude => 19_944,
        Cli::Codex => 10_589,
        Cli::Gemini => 11_865,
    };
    base + 40 * session.exchanges.len() as u64
}

/// Output tokens of an answer.
pub fn output_tokens(text: &str) -> u64 {
    text.split_whitespace().count() as u64 + 1
}

/// claude's `usage_update`; the last one of a turn has the cost (in dollars; a plain
/// `0` after a cancel).
pub fn claude_update(used: u64, cost: Option<J>) -> J {
    let mut update = obj! { "sessionUpdate": "usage_update", "used": used, "size": CLAUDE_WINDOW };
    if let Some(amount) = cost {
        update.set("cost", obj! { "amount": amount, "currency": "USD" });
    }
    update
}

/// The first claude-agent-acp whose bundled Claude Code reports a resumed session's
/// cost so far (0.101.0 reported 0.0209, 0.0418, 0.0628 USD over three resumed
/// turns of about equal size; 0.49.0 reported 0.0167, 0.0169, 0.0171, each turn's
/// own, a new process each).
pub const SESSION_COSTS_FROM: &str = "0.101.0";

/// What claude-agent-acp reports as the cost after a turn that cost `turn` dollars:
/// the SDK's `total_cost_usd`, which is what the process has spent (0.49), or what the
/// session has, across the processes that resumed it (0.101, `FAKE_AGENT_VERSION`).
pub fn claude_reported_cost(live: &mut super::server::Live, turn: f64, knobs: &Knobs) -> f64 {
    live.process_cost += turn;
    live.session.cost += turn;
    if knobs.is_at_least(SESSION_COSTS_FROM) {
        live.session.cost
    } else {
        live.process_cost
    }
}

/// claude's cost in dollars ($5/$25 per Mtok, the recorded default model's prices).
pub fn claude_cost(input: u64, output: u64) -> f64 {
    (input as f64 * 5.0 + output as f64 * 25.0) / 1_000_000.0
}

/// codex's `usage_update` for a session with `used` tokens in its context.
pub fn codex_used(used: u64) -> J {
    obj! { "sessionUpdate": "usage_update", "used": used, "size": CODEX_WINDOW }
}

/// codex's `usage_update` when a session is resumed or loaded.
pub fn codex_update(session: &Session) -> J {
    codex_used(input_tokens(Cli::Codex, session))
}

fn codex_counts(input: u64, output: u64, meta: bool) -> J {
    if meta {
        obj! {
            "totalTokens": input + output, "inputTokens": input, "cachedInputTokens": 0u64,
            "cacheWriteInputTokens": 0u64, "outputTokens": output, "reasoningOutputTokens": 0u64,
        }
    } else {
        obj! {
            "totalTokens": input + output, "inputTokens": input, "cachedReadTokens": 0u64,
            "cachedWriteTokens": 0u64, "outputTokens": output, "thoughtTokens": 0u64,
        }
    }
}

fn gemini_counts(input: u64, output: u64) -> J {
    obj! { "input_tokens": input, "output_tokens": output }
}

/// The `session/prompt` result of a turn that ran to `stop` (`end_turn`, or codex's
/// `cancelled` after a refused command); `tools` is whether a tool ran (a second model
/// request).
pub fn result(flavor: Cli, stop: &str, input: u64, output: u64, tools: bool) -> J {
    match flavor {
        Cli::Claude => obj! {
            "stopReason": stop,
            "usage": obj! {
                "inputTokens": input, "outputTokens": output, "cachedReadTokens": 0u64,
                "cachedWriteTokens": 0u64, "totalTokens": input + output,
            },
        },
        Cli::Codex => obj! {
            "stopReason": stop,
            "usage": codex_counts(input, output, false),
            "_meta": obj! { "quota": obj! {
                "token_count": codex_counts(input, output, true),
                "model_usage": vec![obj! { "model": "gpt-5.5", "token_count": codex_counts(input, output, true) }],
            }},
        },
        Cli::Gemini => {
            // A tool turn makes a routing call to the flash model, then answers on `auto`.
            let models = if tools {
                vec![
                    obj! { "model": "gemini-3.8-flash", "token_count": gemini_counts(11_876, 4) },
                    obj! { "model": "auto", "token_count": gemini_counts(input.saturating_sub(11_876), output.saturating_sub(4)) },
                ]
            } else {
                vec![
                    obj! { "model": "gemini-3.8-flash", "token_count": gemini_counts(input, output) },
                ]
            };
            obj! {
                "stopReason": stop,
                "_meta": obj! { "quota": obj! {
                    "token_count": gemini_counts(input, output),
                    "model_usage": models,
                }},
            }
        }
    }
}

/// The result of a prompt ended by `session/cancel`.
pub fn cancelled(flavor: Cli) -> J {
    match flavor {
        Cli::Codex => obj! {
            "stopReason": "cancelled",
            "usage": J::Null,
            "_meta": obj! { "quota": obj! { "token_count": J::Null, "model_usage": Vec::<J>::new() } },
        },
        _ => obj! { "stopReason": "cancelled" },
    }
}

/// A UTC date in words ("Tuesday, November 24, 2026") from seconds since the epoch.
pub fn date_words(secs: u64) -> String {
    const DAYS: [&str; 7] = [
        "Thursday",
        "Friday",
        "Saturday",
        "Sunday",
        "Monday",
        "Tuesday",
        "Wednesday",
    ];
    const MONTHS: [&str; 12] = [
        "January",
        "February",
        "March",
        "April",
        "May",
        "June",
        "July",
        "August",
        "September",
        "October",
        "November",
        "December",
    ];
    let days = (secs / 86_400) as i64;
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{}, {} {day}, {year}",
        DAYS[(days % 7) as usize],
        MONTHS[(month - 1) as usize]
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_are_in_words() {
        // 2026-11-24, the day of the recordings.
        assert_eq!(date_words(1_795_478_400), "Tuesday, November 24, 2026");
        assert_eq!(date_words(0), "Thursday, January 1, 1970");
    }
}
