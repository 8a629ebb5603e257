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

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::team::config::parse_config;
    use crate::team::trust::{UntrustedConfig, UserTrust};
    use pretty_assertions::assert_eq;

    const TEXT: &str = "[members.w]\nagent = \"acp\"\n\n[members.w.permissions]\n\
                        \"execute: cargo *\" = \"allow\"\n\"edit: *\" = \"reject\"\n\
                        \"bash: ls\" = \"allow\"\n\"read: *\" = \"maybe\"\n";

    fn parsed() -> (crate::team::config::FileConfig, Vec<String>) {
        let mut problems = Vec::new();
        let config = parse_config(
            Path::new("/ws"),
            Path::new("/ws/chatmd.toml"),
            TEXT,
            &UserTrust::default(),
            &mut problems,
        );
        let problems = problems
            .into_iter()
            .map(|p| format!("{}: {}", &TEXT[p.range.unwrap_or(0..0)], p.message))
            .collect();
        (config, problems)
    }

    fn rules(config: &crate::team::config::FileConfig) -> Vec<(String, Decision)> {
        config.members[0]
            .permissions
            .iter()
            .map(|r| (r.text.clone(), r.decision))
            .collect()
    }

    #[test]
    fn rules_are_read_and_malformed_ones_reported() {
        let (config, problems) = parsed();
        assert_eq!(
            rules(&config),
            [
                ("edit: *".to_string(), Decision::Reject),
                ("execute: cargo *".to_string(), Decision::Allow),
            ]
        );
        assert_eq!(problems.len(), 2, "{problems:?}");
        assert!(
            problems[0].starts_with("\"allow\": `permissions`: `bash` is not a tool kind"),
            "{problems:?}"
        );
        assert_eq!(
            problems[1],
            "\"maybe\": `permissions`: the rule `read: *` must be \"allow\" or \"reject\", not \"maybe\""
        );
    }

    #[test]
    fn allow_rules_need_trust_and_only_they_are_left_out() {
        let (mut config, _) = parsed();
        let items: Vec<(&str, TrustKey, &str)> = config
            .trust
            .iter()
            .map(|i| (i.member.as_str(), i.key, &TEXT[i.range.clone()]))
            .collect();
        assert_eq!(
            items,
            [("w", TrustKey::Permissions, "[members.w.permissions]")]
        );
        assert_eq!(
            config.trust[0].shown,
            ["permissions \"execute: cargo *\" = \"allow\""]
        );
        let untrusted = UntrustedConfig {
            file: "/ws/chatmd.toml".into(),
            items: config.trust.clone(),
        };
        assert_eq!(untrusted.blocking_keys_of("w"), [], "the member still runs");
        config.drop_trusted_keys();
        assert_eq!(rules(&config), [("edit: *".to_string(), Decision::Reject)]);
    }

    #[test]
    fn a_nearer_files_rule_replaces_the_same_pattern() {
        let rule = |text: &str, decision| TeamRule {
            text: text.into(),
            pattern: Pattern::parse(text).unwrap(),
            decision,
        };
        let mut farther = vec![
            rule("edit: *", Decision::Allow),
            rule("read: *", Decision::Allow),
        ];
        overlay(
            &mut farther,
            vec![
                rule("edit: *", Decision::Reject),
                rule("fetch: *", Decision::Allow),
            ],
        );
        let got: Vec<(&str, Decision)> = farther
            .iter()
            .map(|r| (r.text.as_str(), r.decision))
            .collect();
        assert_eq!(
            got,
            [
                ("edit: *", Decision::Reject),
                ("read: *", Decision::Allow),
                ("fetch: *", Decision::Allow)
            ]
        );
    }
}
