//! Adds one permission rule to the front matter (`permissions: {member: {rule:
//! decision}}`), as the smallest insertion that keeps everything else byte for byte,
//! comments included. Written in the block style the front matter uses; inside a flow
//! table (`{…}`) the rule goes in as a flow entry.

use super::edit::{document_end, double_quoted, line_ending, yaml_scalar};
use super::rule_check::check_rule_edit;
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

/// The edit that sets `member`'s rule `rule` (its pattern's text) to `decision`. It is
/// offered only when the front matter then reads as before plus the rule
/// ([`check_rule_edit`]); else the front matter is left alone, saying why.
pub fn add_rule_edit(text: &str, member: &str, rule: &str, decision: Decision) -> RuleEdit {
    let edit = placed(text, member, rule, decision);
    let RuleEdit::Edit(range, new) = &edit else {
        return edit;
    };
    let after = format!("{}{new}{}", &text[..range.start], &text[range.end..]);
    match check_rule_edit(text, &after, member, rule, decision) {
        Ok(()) => edit,
        Err(why) => RuleEdit::Unplaceable(format!(
            "chatmd cannot add the rule to this front matter's layout safely ({why}); \
             add it by hand under `permissions:` → `{member}:`"
        )),
    }
}

/// The text-level edit of [`add_rule_edit`], before its check.
fn placed(text: &str, member: &str, rule: &str, decision: Decision) -> RuleEdit {
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
        // At the indentation of the keys already there (valid YAML may indent them all).
        let pad = entries.first().map_or(String::new(), |(k, _)| {
            " ".repeat(line_indent(yaml, k.range.start))
        });
        return RuleEdit::Edit(
            at..at,
            format!("{pad}permissions:{eol}{pad}  {member}:{eol}{pad}    {key}: {value}{eol}"),
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
            return self.add_entry(table, members, entry_block, &entry_flow);
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
        self.add_entry(rules, existing, entry_block, &entry_flow)
    }

    /// Adds an entry to the mapping `table`: a line after its last one at its first
    /// key's indentation (block), or before its closing brace (flow).
    fn add_entry(
        &self,
        table: &Node,
        entries: &[(Node, Node)],
        block: impl Fn(usize) -> String,
        flow: &str,
    ) -> RuleEdit {
        let range = &table.range;
        if self.yaml[range.clone()].starts_with('{') {
            // Found by reading the text: after a trailing comma (`{a: 1,}`) the table's
            // range stops short of its brace.
            let Some(close) = flow_close(self.yaml, range.start) else {
                return RuleEdit::Unplaceable("a `{…}` table is not closed".into());
            };
            let trailing_comma = self.yaml[range.start..close].trim_end().ends_with(',');
            let text = match (entries.is_empty(), trailing_comma) {
                (false, false) => format!(", {flow}"),
                (false, true) => format!(" {flow}"),
                (true, _) => flow.to_owned(),
            };
            return RuleEdit::Edit(self.abs(&(close..close)), text);
        }
        // An empty key (`: value`) has no column of its own to go by.
        let Some((first_key, _)) = entries.iter().find(|(k, _)| !k.range.is_empty()) else {
            return RuleEdit::Unplaceable("a table without a key to align the rule with".into());
        };
        let indent = line_indent(self.yaml, first_key.range.start);
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

/// The `}` that closes the flow mapping opening at `open` in `yaml`: brackets counted,
/// quoted text and comments skipped.
fn flow_close(yaml: &str, open: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut chars = yaml[open..]
        .char_indices()
        .map(|(i, c)| (open + i, c))
        .peekable();
    let mut previous = ' ';
    while let Some((at, c)) = chars.next() {
        match c {
            '{' | '[' => depth += 1,
            '}' | ']' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return (c == '}').then_some(at);
                }
            }
            '"' => {
                let mut escaped = false;
                for (_, c) in chars.by_ref() {
                    match c {
                        '\\' if !escaped => escaped = true,
                        '"' if !escaped => break,
                        _ => escaped = false,
                    }
                }
            }
            '\'' => {
                while let Some((_, c)) = chars.next() {
                    // `''` is a quote inside single quotes.
                    if c == '\'' && chars.next_if(|&(_, c)| c == '\'').is_none() {
                        break;
                    }
                }
            }
            '#' if previous.is_whitespace() => {
                for (_, c) in chars.by_ref() {
                    if c == '\n' {
                        break;
                    }
                }
            }
            _ => {}
        }
        previous = c;
    }
    None
}

/// The indentation of the line holding `at`: where a block mapping's keys start (the
/// key's own column can be off for an empty key, `: value`).
fn line_indent(text: &str, at: usize) -> usize {
    let start = text[..at].rfind(['\n', '\r']).map_or(0, |i| i + 1);
    text[start..].len() - text[start..].trim_start_matches(' ').len()
}

fn is_null(node: &Node) -> bool {
    matches!(&node.kind, NodeKind::Scalar { value, style, .. }
        if matches!(style, yaml_rust2::scanner::TScalarStyle::Plain)
            && matches!(value.as_str(), "" | "~" | "null" | "Null" | "NULL"))
}

#[cfg(test)]
mod tests;
