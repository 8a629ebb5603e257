//! Turning running totals into each turn's share. Some agents report what their
//! session has used so far rather than what the run used: codex's
//! `turn.completed.usage` on `exec resume`, claude's `total_cost_usd` on `--resume`
//! from 2.1.332 on. A turn records its share (`tokens=`, `cost=`): the total less the
//! session's previous report, which the answer that received it keeps. Where the
//! total differs from the share, the answer keeps it too (`session-tokens=`,
//! `session-cost=`), for the next turn to count from. Pure: the file is the record.
//!
//! A running cost that comes back no higher than the previous report has restarted:
//! every turn that reaches the model adds to it, so the agent lost what it had counted
//! (claude-agent-acp 0.101 restores its session's cost from a record the CLI writes as
//! it exits, and a process that was ended before writing it starts again from zero).
//! The turn then records the whole report as its own, and the sum of the shares stays
//! what was spent.

use crate::agents::Usage;
use crate::document::chat::Chat;
use crate::document::front_matter::{amount_words, parse_amount};
use crate::document::status::StatusComment;

/// The session's running token total, where the turn's share differs from it.
pub const SESSION_TOKENS_KEY: &str = "session-tokens";
/// The session's running cost, where the turn's share differs from it.
pub const SESSION_COST_KEY: &str = "session-cost";

/// What a session last reported, as the answers that received the reports keep them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SessionReport {
    pub tokens: Option<Usage>,
    /// In millionths of the currency.
    pub cost: Option<u64>,
}

/// What session `session` of `handle` had reported before message `before`: each
/// figure from the member's latest answer in that session that has it, its
/// `session-tokens` (`session-cost`) where it kept one, else its `tokens` (`cost`),
/// which were then the whole of it (the session's first report, or an answer written
/// by a chatmd that recorded the reports as they came).
pub fn session_report(
    text: &str,
    chat: &Chat,
    handle: &str,
    session: &str,
    before: usize,
) -> SessionReport {
    let mut report = SessionReport::default();
    let end = before.min(chat.messages.len());
    let answers = chat.messages[..end]
        .iter()
        .rev()
        .filter(|m| m.handle(text).eq_ignore_ascii_case(handle))
        .filter_map(|m| m.status_comment(text))
        .filter(|c| c.session() == Some(session));
    for comment in answers {
        if report.tokens.is_none() {
            report.tokens = reported(comment, SESSION_TOKENS_KEY, "tokens").and_then(tokens_of);
        }
        if report.cost.is_none() {
            report.cost = reported(comment, SESSION_COST_KEY, "cost").and_then(cost_of);
        }
        if report.tokens.is_some() && report.cost.is_some() {
            break;
        }
    }
    report
}

fn reported<'c>(comment: &'c StatusComment, total: &str, share: &str) -> Option<&'c str> {
    comment.get(total).or_else(|| comment.get(share))
}

/// `120/30` as tokens in and out.
fn tokens_of(value: &str) -> Option<Usage> {
    let (input, output) = value.split_once('/')?;
    Some(Usage {
        input_tokens: input.trim().parse().ok()?,
        output_tokens: output.trim().parse().ok()?,
    })
}

/// `"0.0123 USD"` as millionths.
fn cost_of(value: &str) -> Option<u64> {
    parse_amount(value.split_whitespace().next()?)
}

/// This turn's tokens: the session's `total` less what it reported `before`. (codex,
/// the agent that reports them as a running total, keeps its count with the thread: a
/// lost thread is a new session, counted from nothing.)
pub fn tokens_share(total: Usage, before: Option<Usage>) -> Usage {
    let before = before.unwrap_or_default();
    Usage {
        input_tokens: total.input_tokens.saturating_sub(before.input_tokens),
        output_tokens: total.output_tokens.saturating_sub(before.output_tokens),
    }
}

/// The part of a running `total` that is new since `before`, or the whole `total`
/// when the count restarted.
pub fn since(total: u64, before: u64) -> u64 {
    if total > before {
        total - before
    } else {
        total
    }
}

/// The session's cost after a turn whose own cost is `turn` (`0.0169 USD`), when it
/// had cost `before`: for an agent that reports what one process spent. `None` when
/// `turn` is not an amount.
pub fn cost_sum(turn: &str, before: Option<u64>) -> Option<String> {
    with_amount(turn, |amount| amount.saturating_add(before.unwrap_or(0)))
}

/// This turn's cost, as the status comment writes it (`0.0498 USD`): the session's
/// `total` (`0.0994 USD`) less what it reported `before` (the whole `total` when the
/// count restarted). `None` when `total` is not an amount (it is then kept as it came).
pub fn cost_share(total: &str, before: Option<u64>) -> Option<String> {
    with_amount(total, |amount| since(amount, before.unwrap_or(0)))
}

/// `cost` (`0.0994 USD`) with its amount, in millionths, changed by `change`, and its
/// currency kept.
fn with_amount(cost: &str, change: impl Fn(u64) -> u64) -> Option<String> {
    let mut words = cost.split_whitespace();
    let amount = amount_words(change(parse_amount(words.next()?)?));
    Some(match words.next() {
        Some(currency) => format!("{amount} {currency}"),
        None => amount,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    const CHAT: &str = "## @me\ngo\n\n\
        ## @tester\n<!-- chatmd id=t1 agent=codex status=done session=s1 tokens=9677/28 -->\na\n\n\
        ## @me\nmore\n\n\
        ## @tester\n<!-- chatmd id=t2 agent=codex status=done session=s1 tokens=9825/28 session-tokens=19502/56 -->\nb\n\n\
        ## @tester\n<!-- chatmd id=t3 agent=codex status=error session=s1 -->\nc\n\n\
        ## @tester\n<!-- chatmd id=t4 agent=codex status=done session=s2 tokens=5/5 -->\nd\n\n\
        ## @me\nagain\n";

    #[test]
    fn the_last_report_of_the_same_session_counts() {
        let chat = Chat::parse(CHAT);
        let last = chat.messages.len() - 1;
        let report = session_report(CHAT, &chat, "Tester", "s1", last);
        let usage = |input_tokens, output_tokens| Usage {
            input_tokens,
            output_tokens,
        };
        assert_eq!(report.tokens, Some(usage(19502, 56)));
        assert_eq!(report.cost, None);
        // Before the second answer, the first one's tokens were the whole of it.
        let report = session_report(CHAT, &chat, "tester", "s1", 3);
        assert_eq!(report.tokens, Some(usage(9677, 28)));
        assert_eq!(
            session_report(CHAT, &chat, "tester", "s9", last),
            SessionReport::default()
        );
        assert_eq!(
            tokens_share(usage(29502, 84), Some(usage(19502, 56))),
            usage(10000, 28)
        );
        assert_eq!(tokens_share(usage(7, 1), None), usage(7, 1));
    }

    #[test]
    fn a_cost_share_is_exact_to_the_written_decimals() {
        assert_eq!(
            cost_share("0.0994 USD", Some(49_600)).as_deref(),
            Some("0.0498 USD")
        );
        assert_eq!(
            cost_share("0.0496 USD", None).as_deref(),
            Some("0.0496 USD")
        );
        assert_eq!(cost_share("? USD", Some(1)), None);
    }

    /// claude-agent-acp 0.101 under load: the first process was ended before it wrote
    /// its cost record, so the second reported only its own 0.0209 as the session's
    /// total, and the third counted on from the second (matrix run, 2026-12-06).
    #[test]
    fn a_running_cost_that_did_not_grow_restarted_and_is_the_turns_own() {
        assert_eq!(
            cost_share("0.0209 USD", Some(20_900)).as_deref(),
            Some("0.0209 USD")
        );
        assert_eq!(
            cost_share("0.0100 USD", Some(20_900)).as_deref(),
            Some("0.01 USD")
        );
        assert_eq!(
            cost_share("0.0419 USD", Some(20_900)).as_deref(),
            Some("0.021 USD")
        );
    }
}
