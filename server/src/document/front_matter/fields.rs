//! Gives the top-level YAML entries their meaning: known keys become typed values,
//! anything else becomes an unknown key or a problem. Messages say what is expected.

use super::tree::{Node, NodeKind, Outline, Root};
use super::{
    ConversationStatus, FrontMatter, FrontMatterEntry, FrontMatterProblem, ProblemKind, Routing,
    Spanned, is_valid_handle,
};
use crate::document::ByteRange;
use std::collections::HashSet;
use yaml_rust2::scanner::TScalarStyle;

/// Fills `fm` from the outline of its YAML text, which starts at byte `base` of the file.
pub(super) fn read(fm: &mut FrontMatter, yaml: &str, base: usize, outline: Outline) {
    let mut reader = Reader {
        fm,
        yaml,
        base,
        key: 0..0,
    };
    if let Some(error) = outline.error {
        reader.problem(error.range, error.message, ProblemKind::Syntax);
    }
    let entries = match outline.root {
        Root::Empty => return,
        Root::Other => {
            reader.problem(
                0..yaml.len(),
                "front matter must be `key: value` lines (a YAML mapping)".into(),
                ProblemKind::WrongType,
            );
            return;
        }
        Root::Mapping(entries) => entries,
    };
    let mut seen = HashSet::new();
    for (key, value) in &entries {
        let NodeKind::Scalar { value: name, .. } = &key.kind else {
            reader.problem(
                key.range.clone(),
                "a front matter key must be a name, such as `title`".into(),
                ProblemKind::WrongType,
            );
            continue;
        };
        let key_range = reader.abs(&key.range);
        reader.fm.entries.push(FrontMatterEntry {
            key: Spanned::new(name.clone(), key_range.clone()),
            value: reader.abs(&value.range),
        });
        if !seen.insert(name.as_str()) {
            reader.problem(
                key.range.clone(),
                format!("`{name}` is set twice; only the first one is used"),
                ProblemKind::Syntax,
            );
            continue;
        }
        reader.key = key.range.clone();
        reader.entry(name, key_range, value);
    }
}

pub(super) struct Reader<'a> {
    fm: &'a mut FrontMatter,
    yaml: &'a str,
    base: usize,
    /// The key being read (relative), shown instead of an omitted value.
    pub(super) key: ByteRange,
}

/// What a value is, as far as front matter cares.
enum Value<'a> {
    Null,
    /// Any other scalar; `typed` is false for quoted or `!!str` scalars, which are
    /// always text and never numbers or booleans.
    Text {
        text: &'a str,
        typed: bool,
    },
    Other,
}

fn value(node: &Node) -> Value<'_> {
    match &node.kind {
        NodeKind::Scalar { value, style, tag } => {
            let plain = matches!(style, TScalarStyle::Plain);
            let str_tag = tag.as_ref().is_some_and(|t| t.suffix == "str");
            if plain && !str_tag && matches!(value.as_str(), "" | "~" | "null" | "Null" | "NULL") {
                Value::Null
            } else {
                Value::Text {
                    text: value,
                    typed: plain && !str_tag,
                }
            }
        }
        _ => Value::Other,
    }
}

/// What each known key holds, for messages.
fn expected(key: &str) -> &'static str {
    match key {
        "title" => "text",
        "team" => "a folder path",
        "members" => "a list of member handles, such as `[reviewer, tester]`",
        "human" => "a handle (default `me`)",
        "routing" => {
            "`mentions`, `round-robin`, `all`, `compare` or `council` (default `mentions`)"
        }
        "chair" => "the handle of the member who writes a council's decision",
        "max_chain" => "a whole number (default 3)",
        "context" => "a whole number (default 20)",
        "reply_stub" => "`true` or `false` (default `true`)",
        "status" => "`open` or `ended` (default `open`)",
        "forked_from" => "a file path",
        "imported_from" => "the name of the tool or CLI the chat was imported from",
        "permissions" => super::permissions::EXPECTED,
        "budget" => super::budget::EXPECTED,
        _ => "a value",
    }
}

// `NotAnInt` reads better than clippy's preferred `Not`.
#[allow(clippy::enum_variant_names)]
enum Int {
    Value(u32),
    Negative,
    TooLarge,
    Invalid,
}

/// A YAML 1.2 core-schema integer: decimal with an optional sign, `0o` octal, `0x` hex.
fn int(text: &str) -> Int {
    let (digits, radix) = if let Some(hex) = text.strip_prefix("0x") {
        (hex, 16)
    } else if let Some(oct) = text.strip_prefix("0o") {
        (oct, 8)
    } else {
        (text, 10)
    };
    let (negative, digits) = match digits.strip_prefix('-') {
        Some(d) if radix == 10 => (true, d),
        _ => (
            false,
            if radix == 10 {
                digits.strip_prefix('+').unwrap_or(digits)
            } else {
                digits
            },
        ),
    };
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return Int::Invalid;
    }
    if negative && digits.chars().any(|c| c != '0') {
        return Int::Negative;
    }
    u32::from_str_radix(digits, radix).map_or(Int::TooLarge, Int::Value)
}

fn bool(text: &str) -> Option<bool> {
    match text {
        "true" | "True" | "TRUE" => Some(true),
        "false" | "False" | "FALSE" => Some(false),
        _ => None,
    }
}

/// Drops one leading `@` and checks the rest is a handle.
fn handle(text: &str) -> Option<&str> {
    let handle = text.strip_prefix('@').unwrap_or(text);
    is_valid_handle(handle).then_some(handle)
}

fn bad_handle(text: &str) -> String {
    format!(
        "`{text}` is not a valid handle: use letters, digits, `_`, `.` and `-`, \
         starting with a letter or digit"
    )
}

impl Reader<'_> {
    pub(super) fn abs(&self, range: &ByteRange) -> ByteRange {
        self.base + range.start..self.base + range.end
    }

    /// Records a problem; `range` is relative to the YAML text.
    pub(super) fn problem(&mut self, range: ByteRange, message: String, kind: ProblemKind) {
        let range = self.abs(&range);
        self.fm.problems.push(FrontMatterProblem {
            range,
            message,
            kind,
        });
    }

    pub(super) fn wrong_type(&mut self, key: &str, node: &Node) {
        let mut message = format!("`{key}` must be {}", expected(key));
        if matches!(node.kind, NodeKind::Alias) {
            message.push_str("; YAML aliases (`*name`) are not supported in front matter");
        }
        // An omitted value has an empty range: underline its key instead.
        let range = if node.range.is_empty() {
            self.key.clone()
        } else {
            node.range.clone()
        };
        self.problem(range, message, ProblemKind::WrongType);
    }

    fn entry(&mut self, key: &str, key_range: ByteRange, node: &Node) {
        let range = self.abs(&node.range);
        match key {
            "title" => self.fm.title = self.text(key, node),
            "team" => self.fm.team = self.text(key, node),
            "forked_from" => self.fm.forked_from = self.text(key, node),
            "imported_from" => self.fm.imported_from = self.text(key, node),
            "members" => self.fm.members = self.members(node),
            "human" | "chair" => {
                let text = self.text(key, node);
                let read = text.and_then(|t| match handle(&t.value) {
                    Some(h) => Some(Spanned::new(h.to_owned(), t.range)),
                    None => {
                        self.problem(
                            node.range.clone(),
                            bad_handle(&t.value),
                            ProblemKind::BadValue,
                        );
                        None
                    }
                });
                match key {
                    "human" => self.fm.human = read,
                    _ => self.fm.chair = read,
                }
            }
            "routing" => {
                let text = self.text(key, node);
                self.fm.routing =
                    text.and_then(|t| self.one_of(key, node, Routing::parse(&t.value)));
            }
            "status" => {
                let text = self.text(key, node);
                self.fm.status =
                    text.and_then(|t| self.one_of(key, node, ConversationStatus::parse(&t.value)));
            }
            "permissions" => self.fm.permissions = self.permissions(node),
            "budget" => self.fm.budget = self.budget(node),
            "max_chain" => self.fm.max_chain = self.number(key, node),
            "context" => self.fm.context = self.number(key, node),
            "reply_stub" => {
                let parsed = match value(node) {
                    Value::Text { text, typed: true } => bool(text),
                    _ => None,
                };
                if parsed.is_none() {
                    self.wrong_type(key, node);
                }
                self.fm.reply_stub = parsed.map(|b| Spanned::new(b, range));
            }
            _ => self
                .fm
                .unknown_keys
                .push(Spanned::new(key.to_owned(), key_range)),
        }
    }

    /// Any non-empty scalar, as text.
    fn text(&mut self, key: &str, node: &Node) -> Option<Spanned<String>> {
        match value(node) {
            Value::Text { text, .. } => Some(Spanned::new(text.to_owned(), self.abs(&node.range))),
            Value::Null | Value::Other => {
                self.wrong_type(key, node);
                None
            }
        }
    }

    fn one_of<T>(&mut self, key: &str, node: &Node, parsed: Option<T>) -> Option<Spanned<T>> {
        if parsed.is_none() {
            let message = format!("`{key}` must be {}", expected(key));
            self.problem(node.range.clone(), message, ProblemKind::BadValue);
        }
        parsed.map(|v| Spanned::new(v, self.abs(&node.range)))
    }

    fn number(&mut self, key: &str, node: &Node) -> Option<Spanned<u32>> {
        let (message, kind) = match value(node) {
            Value::Text { text, typed: true } => match int(text) {
                Int::Value(n) => return Some(Spanned::new(n, self.abs(&node.range))),
                Int::Negative => (
                    format!("`{key}` cannot be negative; it must be {}", expected(key)),
                    ProblemKind::BadValue,
                ),
                Int::TooLarge => (
                    format!("`{key}` is too large (at most {})", u32::MAX),
                    ProblemKind::BadValue,
                ),
                Int::Invalid => {
                    self.wrong_type(key, node);
                    return None;
                }
            },
            _ => {
                self.wrong_type(key, node);
                return None;
            }
        };
        self.problem(node.range.clone(), message, kind);
        None
    }

    fn members(&mut self, node: &Node) -> Option<Vec<Spanned<String>>> {
        let items: Vec<&Node> = match (&node.kind, value(node)) {
            (NodeKind::Sequence(items), _) => items.iter().collect(),
            (_, Value::Text { text, .. }) if text.contains([',', ' ', '\t']) => {
                self.wrong_type("members", node);
                return None;
            }
            // A single handle is a one-element list.
            (_, Value::Text { .. }) => vec![node],
            _ => {
                self.wrong_type("members", node);
                return None;
            }
        };
        let mut members: Vec<Spanned<String>> = Vec::new();
        let mut seen = HashSet::new();
        for item in items {
            let Value::Text { text, .. } = value(item) else {
                let message = "each member must be a handle, such as `reviewer`".to_owned();
                // An omitted entry (`-` alone) has an empty range just after its `-`:
                // underline the character before (a whole one, whatever it is).
                let range = if item.range.is_empty() {
                    let at = item.range.start;
                    let before = self.yaml[..at].chars().next_back();
                    at - before.map_or(0, char::len_utf8)..at
                } else {
                    item.range.clone()
                };
                self.problem(range, message, ProblemKind::WrongType);
                continue;
            };
            let Some(handle) = handle(text) else {
                self.problem(item.range.clone(), bad_handle(text), ProblemKind::BadValue);
                continue;
            };
            // Handles are compared case-insensitively.
            if !seen.insert(handle.to_ascii_lowercase()) {
                let message = format!("`{handle}` is listed twice");
                self.problem(item.range.clone(), message, ProblemKind::BadValue);
                continue;
            }
            members.push(Spanned::new(handle.to_owned(), self.abs(&item.range)));
        }
        Some(members)
    }
}

#[cfg(test)]
mod tests {
    use crate::document::front_matter::{locate, parse};

    /// The text each problem underlines (slicing it fails off a character boundary),
    /// and its message.
    fn underlined(text: &str) -> Vec<(&str, String)> {
        let fm = parse(text, &locate(text).unwrap());
        let problems = fm.problems.into_iter();
        problems.map(|p| (&text[p.range], p.message)).collect()
    }

    /// Fuzzing found a problem range off a character boundary (its input was not kept).
    /// Two places could make one: a second document begun after `... #` (no closing
    /// fence: text follows) has no `---` to underline, and its event sits on the `:`
    /// (three bytes from there end inside `€`); an omitted member not after a `-` (a
    /// tag alone in a flow list) has an empty range just after the previous member,
    /// and the byte before it is inside `é`.
    #[test]
    fn problems_underline_whole_characters() {
        let second = "---\na: 1\n... #\n  é: €\n---\n";
        let message = "only one YAML document is allowed in front matter";
        assert_eq!(underlined(second), [("é", message.to_owned())]);
        let member = "---\nmembers: [é, !t ]\n---\n";
        let bad = "`é` is not a valid handle: use letters, digits, `_`, `.` and `-`, \
                   starting with a letter or digit";
        let empty = "each member must be a handle, such as `reviewer`";
        assert_eq!(
            underlined(member),
            [("é", bad.to_owned()), ("é", empty.to_owned())]
        );
    }
}
