//! Budgets (`budget:` in the front matter) against what members have spent in the chat
//! (`usage.rs`): whether a member may start another turn, and the warning with its
//! quick fix when it may not.

use super::problems::{Fix, Problem};
use super::usage::{Spent, amount_words, spent_by};
use crate::document::chat::Chat;
use crate::document::front_matter::Budget;
use crate::team::Severity;

/// A member that has spent its whole budget: what it spent and the budget.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OverBudget {
    pub member: String,
    pub spent: Spent,
    pub budget: u64,
}

impl OverBudget {
    /// The budget that gives the member as much again: what it spent plus the budget.
    pub fn raised(&self) -> u64 {
        self.spent
            .cost
            .unwrap_or(0)
            .saturating_add(self.budget.max(1))
    }

    /// Why the member is not started, and what to do.
    pub fn message(&self) -> String {
        format!(
            "@{} has spent {} in this chat, its whole budget of {} (front matter `budget:`); \
             it is not started until the budget is raised (the quick fix on the budget raises \
             it to {})",
            self.member,
            self.spent.cost_words(),
            amount_words(self.budget),
            amount_words(self.raised())
        )
    }
}

fn budget_of<'c>(chat: &'c Chat, member: &str) -> Option<&'c Budget> {
    chat.front_matter
        .as_ref()?
        .budget
        .iter()
        .find(|b| b.member.value.eq_ignore_ascii_case(member))
}

/// `Some` when `member` has a budget and its answers in the chat have cost at least
/// that much: a turn would start over it.
pub fn over_budget(text: &str, chat: &Chat, member: &str) -> Option<OverBudget> {
    let budget = budget_of(chat, member)?;
    let spent = spent_by(text, chat, member);
    (spent.cost? >= budget.amount.value).then(|| OverBudget {
        member: budget.member.value.clone(),
        spent,
        budget: budget.amount.value,
    })
}

/// A warning on each budget that is spent, with the quick fix that raises it.
pub fn problems(text: &str, chat: &Chat) -> Vec<Problem> {
    let Some(fm) = &chat.front_matter else {
        return Vec::new();
    };
    fm.budget
        .iter()
        .filter_map(|b| {
            let over = over_budget(text, chat, &b.member.value)?;
            let raised = amount_words(over.raised());
            Some(Problem {
                range: b.amount.range.clone(),
                severity: Severity::Warning,
                code: "over-budget",
                message: over.message(),
                fixes: vec![Fix {
                    title: format!("Raise @{}'s budget to {raised}", over.member),
                    edits: vec![(b.amount.range.clone(), raised)],
                    preferred: false,
                }],
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    const SPENT: &str = "---\nbudget: { reviewer: 0.5, writer: 2 }\n---\n## @me\ngo\n\n\
        ## @reviewer\n<!-- chatmd id=t1 agent=claude status=done cost=\"0.3 USD\" -->\na\n\n\
        ## @reviewer\n<!-- chatmd id=t2 agent=claude status=done cost=\"0.25 USD\" -->\nb\n\n\
        ## @writer\n<!-- chatmd id=t3 agent=claude status=done cost=\"1 USD\" -->\nc\n";

    #[test]
    fn a_spent_budget_stops_the_member_and_says_how_to_go_on() {
        let chat = Chat::parse(SPENT);
        assert_eq!(over_budget(SPENT, &chat, "writer"), None);
        assert_eq!(over_budget(SPENT, &chat, "tester"), None);
        let over = over_budget(SPENT, &chat, "reviewer").expect("over");
        assert_eq!(
            over.message(),
            "@reviewer has spent 0.55 USD in this chat, its whole budget of 0.5 (front matter \
             `budget:`); it is not started until the budget is raised (the quick fix on the \
             budget raises it to 1.05)"
        );
        let problems = problems(SPENT, &chat);
        assert_eq!(problems.len(), 1);
        assert_eq!(&SPENT[problems[0].range.clone()], "0.5");
        assert_eq!(
            problems[0].fixes[0].title,
            "Raise @reviewer's budget to 1.05"
        );
        assert_eq!(
            problems[0].fixes[0].edits,
            [(problems[0].range.clone(), "1.05".to_owned())]
        );
    }
}
