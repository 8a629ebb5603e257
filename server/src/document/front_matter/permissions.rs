//! Reads `permissions:` — per member, the rules that answer its permission requests
//! without asking (`rules.rs` says what a rule matches):
//!
//! ```yaml
//! permissions:
//!   writer:
//!     "execute: cargo test": allow
//!     "edit: *": reject
//! ```
//!
//! A malformed part is a problem at its place and left out; the rest is read.

use super::fields::Reader;
use super::rules::{Decision, Pattern};
use super::tree::{Node, NodeKind};
use super::{ProblemKind, Spanned, is_valid_handle};

/// What `permissions` holds, for messages.
pub(super) const EXPECTED: &str = "a table of members, each a table of rules such as \
                                   `\"execute: cargo test\": allow` (`allow` or `reject`)";

/// One member's rules, in file order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemberRules {
    /// The handle, without a leading `@`.
    pub member: Spanned<String>,
    pub rules: Vec<Rule>,
}

/// One rule as written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rule {
    /// The pattern read, with the range of its key.
    pub pattern: Spanned<Pattern>,
    /// The key's text (`execute: cargo *`).
    pub text: String,
    pub decision: Spanned<Decision>,
}

/// A mapping's entries, or `None` when the node is not one.
fn entries(node: &Node) -> Option<&[(Node, Node)]> {
    match &node.kind {
        NodeKind::Mapping(entries) => Some(entries),
        _ => None,
    }
}

/// Whether the node is an omitted value (`key:` alone, `~`, `null`).
fn is_null(node: &Node) -> bool {
    matches!(&node.kind, NodeKind::Scalar { value, style, .. }
        if matches!(style, yaml_rust2::scanner::TScalarStyle::Plain)
            && matches!(value.as_str(), "" | "~" | "null" | "Null" | "NULL"))
}

fn scalar(node: &Node) -> Option<&str> {
    match &node.kind {
        NodeKind::Scalar { value, .. } => Some(value),
        _ => None,
    }
}

impl Reader<'_> {
    /// The handle a member table's key names (without `@`); `None` after reporting
    /// that it is not a handle, or that `seen` has it already (`twice` says so).
    pub(super) fn member_key<'n>(
        &mut self,
        key: &Node,
        name: &'n str,
        seen: impl Fn(&str) -> bool,
        twice: impl Fn(&str) -> String,
    ) -> Option<&'n str> {
        let handle = name.strip_prefix('@').unwrap_or(name);
        let (message, kind) = if !is_valid_handle(handle) {
            (
                format!("`{name}` is not a member's handle"),
                ProblemKind::BadValue,
            )
        } else if seen(handle) {
            (twice(handle), ProblemKind::Syntax)
        } else {
            return Some(handle);
        };
        self.problem(key.range.clone(), message, kind);
        None
    }

    /// `permissions:`; an empty value is no rules.
    pub(super) fn permissions(&mut self, node: &Node) -> Vec<MemberRules> {
        if is_null(node) {
            return Vec::new();
        }
        let Some(members) = entries(node) else {
            self.wrong_type("permissions", node);
            return Vec::new();
        };
        let mut out: Vec<MemberRules> = Vec::new();
        for (key, value) in members {
            let Some(name) = scalar(key) else {
                self.problem(
                    key.range.clone(),
                    "a `permissions` key must be a member's handle".into(),
                    ProblemKind::WrongType,
                );
                continue;
            };
            let seen = |h: &str| out.iter().any(|m| m.member.value.eq_ignore_ascii_case(h));
            let twice = |h: &str| format!("@{h}'s rules are set twice; only the first are used");
            let Some(handle) = self.member_key(key, name, seen, twice) else {
                continue;
            };
            let rules = self.member_rules(handle, value);
            out.push(MemberRules {
                member: Spanned::new(handle.to_owned(), self.abs(&key.range)),
                rules,
            });
        }
        out
    }

    fn member_rules(&mut self, handle: &str, node: &Node) -> Vec<Rule> {
        if is_null(node) {
            return Vec::new();
        }
        let Some(entries) = entries(node) else {
            let range = if node.range.is_empty() {
                self.key.clone()
            } else {
                node.range.clone()
            };
            self.problem(
                range,
                format!(
                    "@{handle}'s permissions must be a table of rules, such as \
                     `\"execute: cargo test\": allow`"
                ),
                ProblemKind::WrongType,
            );
            return Vec::new();
        };
        let mut rules: Vec<Rule> = Vec::new();
        for (key, value) in entries {
            let Some(text) = scalar(key) else {
                self.problem(
                    key.range.clone(),
                    "a rule must be text, such as `\"execute: cargo test\"`".into(),
                    ProblemKind::WrongType,
                );
                continue;
            };
            let pattern = match Pattern::parse(text) {
                Ok(pattern) => pattern,
                Err(message) => {
                    self.problem(key.range.clone(), message, ProblemKind::BadValue);
                    continue;
                }
            };
            let decision = scalar(value).and_then(Decision::parse);
            let Some(decision) = decision else {
                let range = if value.range.is_empty() {
                    key.range.clone()
                } else {
                    value.range.clone()
                };
                self.problem(
                    range,
                    format!("the rule `{text}` must be `allow` or `reject`"),
                    ProblemKind::BadValue,
                );
                continue;
            };
            if rules.iter().any(|r| r.text == text) {
                self.problem(
                    key.range.clone(),
                    format!("the rule `{text}` is set twice; only the first one is used"),
                    ProblemKind::Syntax,
                );
                continue;
            }
            rules.push(Rule {
                pattern: Spanned::new(pattern, self.abs(&key.range)),
                text: text.to_owned(),
                decision: Spanned::new(decision, self.abs(&value.range)),
            });
        }
        rules
    }
}

#[cfg(test)]
mod tests {
    use crate::document::front_matter::{locate, parse};
    use pretty_assertions::assert_eq;

    /// A rule read: member, pattern, decision.
    type Read = (String, String, &'static str);

    /// The rules read, and each problem as the text it underlines with its message.
    fn read(text: &str) -> (Vec<Read>, Vec<(&str, String)>) {
        let fm = parse(text, &locate(text).unwrap());
        let rules = fm
            .permissions
            .iter()
            .flat_map(|m| {
                m.rules.iter().map(|r| {
                    (
                        m.member.value.clone(),
                        r.text.clone(),
                        r.decision.value.as_str(),
                    )
                })
            })
            .collect();
        let problems = fm
            .problems
            .into_iter()
            .map(|p| (&text[p.range], p.message))
            .collect();
        (rules, problems)
    }

    #[test]
    fn rules_are_read_per_member_in_file_order() {
        let text = "---\npermissions:\n  writer:\n    \"execute: cargo test\": allow\n    # mine\n    'edit: *': reject\n  \"@tester\": {\"*\": allow}\n  idle:\n---\n";
        let (rules, problems) = read(text);
        assert_eq!(problems, []);
        assert_eq!(
            rules,
            [
                ("writer".into(), "execute: cargo test".into(), "allow"),
                ("writer".into(), "edit: *".into(), "reject"),
                ("tester".into(), "*".into(), "allow"),
            ]
        );
    }

    #[test]
    fn malformed_rules_are_problems_at_their_place() {
        let text = "---\npermissions:\n  writer:\n    \"cargo test\": allow\n    \"bash: ls\": allow\n    \"edit: *\": yes\n    \"read: *\": allow\n  bad handle: {}\n  tester: allow\n---\n";
        let (rules, problems) = read(text);
        assert_eq!(rules, [("writer".into(), "read: *".into(), "allow")]);
        let messages: Vec<(&str, &str)> = problems
            .iter()
            .map(|(at, m)| (*at, m.split(';').next().unwrap()))
            .collect();
        assert_eq!(
            messages,
            [
                (
                    "\"cargo test\"",
                    "`cargo test` is not a rule: write `<kind>: <title>`, such as `execute: cargo test` or `edit: *`"
                ),
                ("\"bash: ls\"", "`bash` is not a tool kind"),
                ("yes", "the rule `edit: *` must be `allow` or `reject`"),
                ("bad handle", "`bad handle` is not a member's handle"),
                (
                    "allow",
                    "@tester's permissions must be a table of rules, such as `\"execute: cargo test\": allow`"
                ),
            ]
        );
        let (_, problems) = read("---\npermissions: [a]\n---\n");
        assert_eq!(
            problems,
            [(
                "[a]",
                "`permissions` must be a table of members, each a table of rules such as `\"execute: cargo test\": allow` (`allow` or `reject`)".to_owned()
            )]
        );
    }
}
