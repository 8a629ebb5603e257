//! `[members.X.permissions]`: the team's permission rules for a member, the same
//! table as the chat's front matter (`"execute: cargo *" = "allow"`). An allow rule
//! answers requests without asking, so in a workspace file it is a program choice: it
//! applies only once the user trusts the file (a reject rule always applies).

use std::collections::BTreeMap;

use toml::Spanned;

use super::check::Checker;
use crate::document::front_matter::rules::{Decision, Pattern};
use crate::team::trust::TrustKey;

/// One rule of a member's `permissions` table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TeamRule {
    /// The pattern as written (`execute: cargo *`).
    pub text: String,
    pub pattern: Pattern,
    pub decision: Decision,
}

impl Checker<'_> {
    /// A member's `permissions` table: each rule checked, the allow rules noted as
    /// needing trust.
    pub(super) fn permissions(
        &mut self,
        member: &str,
        table: Spanned<BTreeMap<String, Spanned<String>>>,
    ) -> Vec<TeamRule> {
        let span = table.span();
        let mut rules = Vec::new();
        for (text, decision) in table.into_inner() {
            let pattern = match Pattern::parse(&text) {
                Ok(pattern) => pattern,
                Err(message) => {
                    self.error(decision.span(), format!("`permissions`: {message}"));
                    continue;
                }
            };
            let Some(value) = Decision::parse(decision.get_ref()) else {
                self.error(
                    decision.span(),
                    format!(
                        "`permissions`: the rule `{text}` must be \"allow\" or \"reject\", not \
                         \"{}\"",
                        decision.get_ref()
                    ),
                );
                continue;
            };
            rules.push(TeamRule {
                text,
                pattern,
                decision: value,
            });
        }
        let shown: Vec<String> = rules
            .iter()
            .filter(|r| r.decision == Decision::Allow)
            .map(|r| {
                format!(
                    "permissions {} = \"allow\"",
                    toml::Value::String(r.text.clone())
                )
            })
            .collect();
        if !shown.is_empty() {
            self.needs_trust(member, TrustKey::Permissions, span, shown);
        }
        rules
    }
}

/// `nearer`'s rules over `farther`'s: a rule of the same pattern is replaced, the
/// others are added.
pub(super) fn overlay(farther: &mut Vec<TeamRule>, nearer: Vec<TeamRule>) {
    for rule in nearer {
        match farther.iter_mut().find(|r| r.text == rule.text) {
            Some(slot) => *slot = rule,
            None => farther.push(rule),
        }
    }
}
