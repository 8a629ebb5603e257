//! What each member of a chat has spent, read from its answers' status comments:
//! tokens (`tokens=in/out`) and cost (`cost="0.0123 USD"`, where the agent reports
//! one), per member and for the whole chat. Pure: the file is the record.
//!
//! Every answer keeps its turn's own tokens and cost (its share, where the agent
//! reports running totals: `conversation::running`), so those add up. An ACP answer
//! written before chatmd kept shares has the session's cost so far and no
//! `session-cost=`: a member's answers in one such ACP session count once, with the
//! last cost reported. (A session's first answer has no `session-cost=` either way:
//! its share is the whole, which both readings count.) Amounts are
//! kept in millionths so that sums are exact.

use crate::conversation::running::SESSION_COST_KEY;
use crate::document::chat::Chat;
pub use crate::document::front_matter::{amount_words, parse_amount};
use crate::document::status::StatusComment;

/// What a member (or the chat) has spent.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Spent {
    /// Answers with a status comment.
    pub turns: usize,
    pub input_tokens: u64,
    pub output_tokens: u64,
    /// The cost in millionths of `currency`, `None` when no answer reported one.
    pub cost: Option<u64>,
    /// The currency of the reports (the first one's; agents report one).
    pub currency: Option<String>,
}

impl Spent {
    /// `0.0123 USD`, or `no cost reported`.
    pub fn cost_words(&self) -> String {
        match (self.cost, &self.currency) {
            (Some(micros), Some(currency)) => format!("{} {currency}", amount_words(micros)),
            (Some(micros), None) => amount_words(micros),
            _ => "no cost reported".to_owned(),
        }
    }

    fn add(&mut self, other: &Spent) {
        self.turns += other.turns;
        self.input_tokens += other.input_tokens;
        self.output_tokens += other.output_tokens;
        if let Some(cost) = other.cost {
            self.cost = Some(self.cost.unwrap_or(0) + cost);
            if self.currency.is_none() {
                self.currency.clone_from(&other.currency);
            }
        }
    }
}

/// `"0.0123 USD"` as millionths and the currency.
fn cost_of(comment: &StatusComment) -> Option<(u64, Option<String>)> {
    let cost = comment.get("cost")?;
    let mut parts = cost.split_whitespace();
    let amount = parse_amount(parts.next()?)?;
    Some((amount, parts.next().map(str::to_owned)))
}

/// Each member's spending in the chat, in the order they first answered, and the
/// chat's total.
pub fn spent_by_member(text: &str, chat: &Chat) -> (Vec<(String, Spent)>, Spent) {
    let mut members: Vec<(String, Spent)> = Vec::new();
    // (member, ACP session) → the last cost counted for it, to count the difference.
    let mut sessions: Vec<(String, String, u64)> = Vec::new();
    for message in &chat.messages {
        let Some(comment) = message.status_comment(text) else {
            continue;
        };
        let handle = message.handle(text).to_owned();
        let mut turn = Spent {
            turns: 1,
            ..Spent::default()
        };
        if let Some((input, output)) = comment.get("tokens").and_then(|t| t.split_once('/')) {
            turn.input_tokens = input.parse().unwrap_or(0);
            turn.output_tokens = output.parse().unwrap_or(0);
        }
        if let Some((amount, currency)) = cost_of(comment) {
            let cumulative =
                comment.agent() == Some("acp") && comment.get(SESSION_COST_KEY).is_none();
            let counted = match (cumulative, comment.session()) {
                (true, Some(session)) => {
                    let before = sessions
                        .iter_mut()
                        .find(|(m, s, _)| m.eq_ignore_ascii_case(&handle) && s == session);
                    match before {
                        Some((_, _, last)) => {
                            let new = super::running::since(amount, *last);
                            *last = amount;
                            new
                        }
                        None => {
                            sessions.push((handle.clone(), session.to_owned(), amount));
                            amount
                        }
                    }
                }
                _ => amount,
            };
            turn.cost = Some(counted);
            turn.currency = currency;
        }
        match members
            .iter_mut()
            .find(|(m, _)| m.eq_ignore_ascii_case(&handle))
        {
            Some((_, spent)) => spent.add(&turn),
            None => members.push((handle, turn)),
        }
    }
    let mut total = Spent::default();
    for (_, spent) in &members {
        total.add(spent);
    }
    (members, total)
}

/// What `member` has spent in the chat.
pub fn spent_by(text: &str, chat: &Chat, member: &str) -> Spent {
    spent_by_member(text, chat)
        .0
        .into_iter()
        .find(|(m, _)| m.eq_ignore_ascii_case(member))
        .map(|(_, spent)| spent)
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn acp_answers_that_keep_the_sessions_total_count_their_own_cost() {
        let text = "## @me\ngo\n\n\
            ## @writer\n<!-- chatmd id=t1 agent=acp status=done session=s1 cost=\"0.0209 USD\" session-cost=\"0.0209 USD\" -->\na\n\n\
            ## @writer\n<!-- chatmd id=t2 agent=acp status=done session=s1 cost=\"0.0209 USD\" session-cost=\"0.0418 USD\" -->\nb\n\n\
            ## @writer\n<!-- chatmd id=t3 agent=acp status=done session=s1 cost=\"0.021 USD\" session-cost=\"0.0628 USD\" -->\nc\n";
        let chat = Chat::parse(text);
        assert_eq!(spent_by(text, &chat, "writer").cost, Some(62_800));
    }

    #[test]
    fn runs_add_up_and_an_acp_session_counts_once() {
        let text = "## @me\ngo\n\n\
            ## @reviewer\n<!-- chatmd id=t1 agent=claude status=done cost=\"0.5 USD\" tokens=100/10 -->\na\n\n\
            ## @writer\n<!-- chatmd id=t2 agent=acp status=done session=s1 cost=\"0.2 USD\" tokens=50/5 -->\nb\n\n\
            ## @me\nmore\n\n\
            ## @reviewer\n<!-- chatmd id=t3 agent=claude status=done cost=\"0.25 USD\" tokens=100/10 -->\nc\n\n\
            ## @writer\n<!-- chatmd id=t4 agent=acp status=done session=s1 cost=\"0.3 USD\" -->\nd\n\n\
            ## @writer\n<!-- chatmd id=t5 agent=acp status=done session=s2 cost=\"0.1 USD\" -->\ne\n\n\
            ## @tester\n<!-- chatmd id=t6 agent=codex status=done tokens=7/3 -->\nf\n";
        let chat = Chat::parse(text);
        let (members, total) = spent_by_member(text, &chat);
        let shown: Vec<String> = members
            .iter()
            .map(|(m, s)| {
                format!(
                    "{m}: {} turns {}/{} {}",
                    s.turns,
                    s.input_tokens,
                    s.output_tokens,
                    s.cost_words()
                )
            })
            .collect();
        assert_eq!(
            shown,
            [
                "reviewer: 2 turns 200/20 0.75 USD",
                "writer: 3 turns 50/5 0.4 USD",
                "tester: 1 turns 7/3 no cost reported",
            ]
        );
        assert_eq!(total.cost_words(), "1.15 USD");
        assert_eq!(total.input_tokens, 257);
        assert_eq!(spent_by(text, &chat, "Writer").cost, Some(400_000));
        assert_eq!(spent_by(text, &chat, "nobody"), Spent::default());
    }
}
