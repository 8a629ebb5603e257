//! Reads `budget:` — what each member may spend in the chat, in the currency of its
//! agent's cost reports:
//!
//! ```yaml
//! budget: { reviewer: 2.00, writer: 0.5 }
//! ```
//!
//! A member whose answers in the chat have cost that much is not started again until
//! the budget is raised. A malformed entry is a problem at its place and left out.

use super::fields::Reader;
use super::tree::{Node, NodeKind};
use super::{ProblemKind, Spanned};

/// What `budget` holds, for messages.
pub(super) const EXPECTED: &str = "a table of members and amounts, such as `{ reviewer: 2.00 }` (in the currency of the agent's cost reports)";

/// One member's budget.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Budget {
    /// The handle, without a leading `@`, with the range of its key.
    pub member: Spanned<String>,
    /// The amount in millionths, with the range of its value.
    pub amount: Spanned<u64>,
}

/// `1.5`, `0.0123`, `2` as millionths (six decimals kept); `None` for anything else
/// (negative numbers, exponents, words).
pub fn parse_amount(text: &str) -> Option<u64> {
    let text = text.trim();
    let (whole, fraction) = text.split_once('.').unwrap_or((text, ""));
    let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if (whole.is_empty() && fraction.is_empty()) || !digits(whole) || !digits(fraction) {
        return None;
    }
    let whole: u64 = if whole.is_empty() {
        0
    } else {
        whole.parse().ok()?
    };
    let mut micros = String::from(fraction);
    micros.truncate(6);
    while micros.len() < 6 {
        micros.push('0');
    }
    whole
        .checked_mul(1_000_000)?
        .checked_add(micros.parse().ok()?)
}

/// An amount in millionths as text: at most 4 decimals, no trailing zeros.
pub fn amount_words(micros: u64) -> String {
    let text = format!("{:.4}", micros as f64 / 1_000_000.0);
    text.trim_end_matches('0').trim_end_matches('.').to_owned()
}

impl Reader<'_> {
    /// `budget:`; an empty value is no budgets.
    pub(super) fn budget(&mut self, node: &Node) -> Vec<Budget> {
        let entries = match &node.kind {
            NodeKind::Mapping(entries) => entries,
            NodeKind::Scalar { value, .. } if value.is_empty() || value == "~" => {
                return Vec::new();
            }
            _ => {
                self.wrong_type("budget", node);
                return Vec::new();
            }
        };
        let mut out: Vec<Budget> = Vec::new();
        for (key, value) in entries {
            let (NodeKind::Scalar { value: name, .. }, NodeKind::Scalar { value: amount, .. }) =
                (&key.kind, &value.kind)
            else {
                self.problem(
                    key.range.start..value.range.end.max(key.range.end),
                    format!("`budget` must be {EXPECTED}"),
                    ProblemKind::WrongType,
                );
                continue;
            };
            let seen = |h: &str| out.iter().any(|b| b.member.value.eq_ignore_ascii_case(h));
            let twice = |h: &str| format!("@{h}'s budget is set twice; only the first is used");
            let Some(handle) = self.member_key(key, name, seen, twice) else {
                continue;
            };
            let Some(micros) = parse_amount(amount) else {
                let range = if value.range.is_empty() {
                    key.range.clone()
                } else {
                    value.range.clone()
                };
                self.problem(
                    range,
                    format!("@{handle}'s budget must be an amount such as `2.00`, not `{amount}`"),
                    ProblemKind::BadValue,
                );
                continue;
            };
            out.push(Budget {
                member: Spanned::new(handle.to_owned(), self.abs(&key.range)),
                amount: Spanned::new(micros, self.abs(&value.range)),
            });
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::document::chat::Chat;
    use pretty_assertions::assert_eq;

    #[test]
    fn budgets_are_read_with_their_places() {
        let text = "---\nbudget: { reviewer: 2.00, \"@writer\": .5, tester: lots }\n---\n## @me\n";
        let chat = Chat::parse(text);
        let fm = chat.front_matter.unwrap();
        let read: Vec<(String, u64, &str)> = fm
            .budget
            .iter()
            .map(|b| {
                (
                    b.member.value.clone(),
                    b.amount.value,
                    &text[b.amount.range.clone()],
                )
            })
            .collect();
        assert_eq!(
            read,
            [
                ("reviewer".to_owned(), 2_000_000, "2.00"),
                ("writer".to_owned(), 500_000, ".5")
            ]
        );
        assert_eq!(fm.problems.len(), 1);
        assert_eq!(
            fm.problems[0].message,
            "@tester's budget must be an amount such as `2.00`, not `lots`"
        );
        assert!(fm.unknown_keys.is_empty());
    }

    #[test]
    fn amounts_read_and_print_exactly() {
        assert_eq!(parse_amount("2"), Some(2_000_000));
        assert_eq!(parse_amount("0.0123"), Some(12_300));
        assert_eq!(parse_amount("1.23456789"), Some(1_234_567));
        assert_eq!(parse_amount("-1"), None);
        assert_eq!(parse_amount("1e3"), None);
        assert_eq!(parse_amount("."), None);
        assert_eq!(amount_words(2_000_000), "2");
        assert_eq!(amount_words(12_300), "0.0123");
    }
}
