//! Adds one permission rule to the front matter (`permissions: {member: {rule:
//! decision}}`), as the smallest insertion that keeps everything else byte for byte,
//! comments included. Written in the block style the front matter uses; inside a flow
//! table (`{…}`) the rule goes in as a flow entry.

use super::edit::{document_end, double_quoted, line_ending, yaml_scalar};
use super::rules::Decision;
use super::tree::{self, Node, NodeKind, Root};
use super::{BOM, locate, parse};
use crate::document::ByteRange;

/// What adding a rule takes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RuleEdit {
    /// Replace this range of the text with this text.
    Edit(ByteRange, String),
    /// The same rule with the same decision is there already.
    Present,
    /// The front matter cannot take it without rewriting what the user wrote (a YAML
    /// error, or `permissions` holding something else than a table): why.
    Unplaceable(String),
}

/// The edit that sets `member`'s rule `rule` (its pattern's text) to `decision`.
pub fn add_rule_edit(text: &str, member: &str, rule: &str, decision: Decision) -> RuleEdit {
    let key = double_quoted(rule);
    let value = decision.as_str();
    let Some(block) = locate(text) else {
        let start = if text.starts_with(BOM) { BOM.len() } else { 0 };
        let eol = line_ending(text, start);
        let member = yaml_scalar(member);
        return RuleEdit::Edit(
            start..start,
            format!("---{eol}permissions:{eol}  {member}:{eol}    {key}: {value}{eol}---{eol}"),
        );
    };
    let eol = line_ending(text, block.range.start);
    let yaml = &text[block.yaml.clone()];
    let base = block.yaml.start;
    let outline = tree::outline(yaml);
    if outline.error.is_some() {
        return RuleEdit::Unplaceable("the front matter has a YAML error; fix it first".into());
    }
    let entries = match outline.root {
        Root::Mapping(entries) => entries,
        Root::Empty => Vec::new(),
        Root::Other => {
            return RuleEdit::Unplaceable("the front matter is not `key: value` lines".into());
        }
    };
    let place = Place {
        yaml,
        base,
        eol,
        key: &key,
        value,
    };
    let permissions = entries
        .iter()
        .find(|(k, _)| matches!(&k.kind, NodeKind::Scalar { value, .. } if value == "permissions"));
    let Some((name, table)) = permissions else {
        let fm = parse(text, &block);
        let at = document_end(text, &fm);
        let member = yaml_scalar(member);
        return RuleEdit::Edit(
            at..at,
            format!("permissions:{eol}  {member}:{eol}    {key}: {value}{eol}"),
        );
    };
    place.in_permissions(name, table, member, rule)
}

/// The YAML text being edited and the rule to add.
struct Place<'a> {
    yaml: &'a str,
    /// Where `yaml` starts in the file.
    base: usize,
    eol: &'static str,
    /// The rule's key, quoted.
    key: &'a str,
    value: &'static str,
}

impl Place<'_> {
    fn in_permissions(&self, name: &Node, table: &Node, member: &str, rule: &str) -> RuleEdit {
        let member_key = yaml_scalar(member);
        if is_null(table) {
            let indent = column(self.yaml, name.range.start);
            let text = format!(
                "{eol}{pad}  {member_key}:{eol}{pad}    {}: {}",
                self.key,
                self.value,
                eol = self.eol,
                pad = " ".repeat(indent),
            );
            return self.replace_null(table, text);
        }
        let NodeKind::Mapping(members) = &table.kind else {
            return RuleEdit::Unplaceable("`permissions` is not a table of members".into());
        };
        let found = members.iter().find(|(k, _)| {
            matches!(&k.kind, NodeKind::Scalar { value, .. }
                if value.strip_prefix('@').unwrap_or(value).eq_ignore_ascii_case(member))
        });
        let Some((key, rules)) = found else {
            let entry_block = |indent: usize| {
                format!(
                    "{pad}{member_key}:{eol}{pad}  {}: {}{eol}",
                    self.key,
                    self.value,
                    eol = self.eol,
                    pad = " ".repeat(indent),
                )
            };
            let entry_flow = format!("{member_key}: {{{}: {}}}", self.key, self.value);
            return self.add_entry(table, members.first(), entry_block, &entry_flow);
        };
        if is_null(rules) {
            let indent = column(self.yaml, key.range.start);
            let text = format!(
                "{eol}{pad}  {}: {}",
                self.key,
                self.value,
                eol = self.eol,
                pad = " ".repeat(indent),
            );
            return self.replace_null(rules, text);
        }
        let NodeKind::Mapping(existing) = &rules.kind else {
            return RuleEdit::Unplaceable(format!("@{member}'s permissions are not a table"));
        };
        let same = existing
            .iter()
            .find(|(k, _)| matches!(&k.kind, NodeKind::Scalar { value, .. } if value == rule));
        if let Some((_, decision)) = same {
            if matches!(&decision.kind, NodeKind::Scalar { value, .. } if value == self.value) {
                return RuleEdit::Present;
            }
            return RuleEdit::Edit(self.abs(&decision.range), self.value.to_owned());
        }
        let entry_block = |indent: usize| {
            format!(
                "{}{}: {}{}",
                " ".repeat(indent),
                self.key,
                self.value,
                self.eol
            )
        };
        let entry_flow = format!("{}: {}", self.key, self.value);
        self.add_entry(rules, existing.first(), entry_block, &entry_flow)
    }

    /// Adds an entry to the mapping `table`: a line after its last one at its first
    /// key's indentation (block), or before its closing brace (flow).
    fn add_entry(
        &self,
        table: &Node,
        first: Option<&(Node, Node)>,
        block: impl Fn(usize) -> String,
        flow: &str,
    ) -> RuleEdit {
        let range = &table.range;
        if self.yaml[range.clone()].starts_with('{') {
            let close = range.end.saturating_sub(1);
            if !self.yaml[close..].starts_with('}') {
                return RuleEdit::Unplaceable("a `{…}` table is not closed".into());
            }
            let text = if first.is_some() {
                format!(", {flow}")
            } else {
                flow.to_owned()
            };
            return RuleEdit::Edit(self.abs(&(close..close)), text);
        }
        let Some((first_key, _)) = first else {
            return RuleEdit::Unplaceable("an empty table".into());
        };
        let indent = column(self.yaml, first_key.range.start);
        // After the line of the table's last value (a comment after it stays after it).
        let at = match self.yaml[range.end..].find('\n') {
            Some(i) => range.end + i + 1,
            None => {
                let at = self.yaml.len();
                return RuleEdit::Edit(
                    self.abs(&(at..at)),
                    format!("{}{}", self.eol, block(indent)),
                );
            }
        };
        RuleEdit::Edit(self.abs(&(at..at)), block(indent))
    }

    /// Replaces an omitted value (`key:`, `key: ~`) with `text`, which starts on the
    /// key's line (the blank before a `~` goes with it).
    fn replace_null(&self, node: &Node, text: String) -> RuleEdit {
        let colon = self.yaml[..node.range.start]
            .rfind(':')
            .map_or(node.range.start, |c| c + 1);
        RuleEdit::Edit(self.abs(&(colon..node.range.end)), text)
    }

    fn abs(&self, range: &ByteRange) -> ByteRange {
        self.base + range.start..self.base + range.end
    }
}

/// The column of `at` (bytes since its line's start: indentation is spaces).
fn column(text: &str, at: usize) -> usize {
    at - text[..at].rfind(['\n', '\r']).map_or(0, |i| i + 1)
}

fn is_null(node: &Node) -> bool {
    matches!(&node.kind, NodeKind::Scalar { value, style, .. }
        if matches!(style, yaml_rust2::scanner::TScalarStyle::Plain)
            && matches!(value.as_str(), "" | "~" | "null" | "Null" | "NULL"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    /// `text` with the rule added, checked to read back with the rule and no problem.
    fn added(text: &str, member: &str, rule: &str, decision: Decision) -> String {
        let RuleEdit::Edit(range, new) = add_rule_edit(text, member, rule, decision) else {
            panic!("no edit for {text:?}");
        };
        let edited = format!("{}{new}{}", &text[..range.start], &text[range.end..]);
        let fm = parse(&edited, &locate(&edited).unwrap());
        assert_eq!(fm.problems, [], "{edited}");
        let found = fm
            .permissions
            .iter()
            .filter(|m| m.member.value.eq_ignore_ascii_case(member))
            .flat_map(|m| &m.rules)
            .any(|r| r.text == rule && r.decision.value == decision);
        assert!(found, "the rule reads back: {edited}");
        edited
    }

    const ALLOW: Decision = Decision::Allow;

    #[test]
    fn a_chat_without_front_matter_gets_one() {
        let text = "## @me\n@writer go\n";
        assert_eq!(
            added(text, "writer", "execute: touch a", ALLOW),
            "---\npermissions:\n  writer:\n    \"execute: touch a\": allow\n---\n## @me\n@writer go\n"
        );
        let crlf = "\u{feff}## @me\r\nhi\r\n";
        assert_eq!(
            added(crlf, "writer", "edit: x", Decision::Reject),
            "\u{feff}---\r\npermissions:\r\n  writer:\r\n    \"edit: x\": reject\r\n---\r\n## @me\r\nhi\r\n"
        );
    }

    #[test]
    fn a_new_key_goes_at_the_end_keeping_comments() {
        let text = "---\ntitle: Work # mine\n# a note\nmembers: [writer]\n---\n## @me\n";
        assert_eq!(
            added(text, "writer", "execute: touch a", ALLOW),
            "---\ntitle: Work # mine\n# a note\nmembers: [writer]\npermissions:\n  writer:\n    \"execute: touch a\": allow\n---\n## @me\n"
        );
    }

    #[test]
    fn a_rule_joins_its_members_table_at_its_indentation() {
        let text = "---\npermissions:   # reviewed\n   writer:\n      \"edit: *\": reject  # never\n      # more to come\n   tester:\n      \"read: *\": allow\ntitle: x\n---\n";
        assert_eq!(
            added(text, "writer", "execute: cargo test", ALLOW),
            "---\npermissions:   # reviewed\n   writer:\n      \"edit: *\": reject  # never\n      \"execute: cargo test\": allow\n      # more to come\n   tester:\n      \"read: *\": allow\ntitle: x\n---\n"
        );
        assert_eq!(
            added(text, "reviewer", "execute: ls", ALLOW),
            "---\npermissions:   # reviewed\n   writer:\n      \"edit: *\": reject  # never\n      # more to come\n   tester:\n      \"read: *\": allow\n   reviewer:\n     \"execute: ls\": allow\ntitle: x\n---\n"
        );
    }

    #[test]
    fn flow_tables_and_empty_values_take_the_rule_too() {
        let text = "---\npermissions: {writer: {\"edit: *\": reject}}\n---\n";
        assert_eq!(
            added(text, "writer", "read: a", ALLOW),
            "---\npermissions: {writer: {\"edit: *\": reject, \"read: a\": allow}}\n---\n"
        );
        assert_eq!(
            added(text, "tester", "read: a", ALLOW),
            "---\npermissions: {writer: {\"edit: *\": reject}, tester: {\"read: a\": allow}}\n---\n"
        );
        assert_eq!(
            added("---\npermissions: {}\n---\n", "w", "read: a", ALLOW),
            "---\npermissions: {w: {\"read: a\": allow}}\n---\n"
        );
        assert_eq!(
            added("---\npermissions:\ntitle: x\n---\n", "w", "read: a", ALLOW),
            "---\npermissions:\n  w:\n    \"read: a\": allow\ntitle: x\n---\n"
        );
        assert_eq!(
            added(
                "---\npermissions:\n  w: ~  # later\n---\n",
                "w",
                "read: a",
                ALLOW
            ),
            "---\npermissions:\n  w:\n    \"read: a\": allow  # later\n---\n"
        );
    }

    #[test]
    fn the_same_rule_is_left_or_its_decision_changed() {
        let text = "---\npermissions:\n  writer:\n    \"read: a\": allow\n---\n";
        assert_eq!(
            add_rule_edit(text, "Writer", "read: a", ALLOW),
            RuleEdit::Present
        );
        assert_eq!(
            added(text, "writer", "read: a", Decision::Reject),
            "---\npermissions:\n  writer:\n    \"read: a\": reject\n---\n"
        );
    }

    #[test]
    fn titles_are_quoted_so_any_text_round_trips() {
        let rule = "execute: echo \"hi\" \\*\tdone";
        let edited = added("---\n---\n", "w", rule, ALLOW);
        assert_eq!(
            edited,
            "---\npermissions:\n  w:\n    \"execute: echo \\\"hi\\\" \\\\*\\tdone\": allow\n---\n"
        );
    }

    #[test]
    fn what_cannot_take_a_rule_is_left_alone() {
        for text in [
            "---\npermissions: all\n---\n",
            "---\npermissions:\n  w: allow\n---\n",
            "---\ntitle: [\n---\n",
            "---\n- a\n---\n",
        ] {
            assert!(
                matches!(
                    add_rule_edit(text, "w", "read: a", ALLOW),
                    RuleEdit::Unplaceable(_)
                ),
                "{text}"
            );
        }
    }
}
