//! Front matter: finds the YAML block at the top of a `.chat.md` file and reads the known
//! keys into typed values, each with the exact byte range it came from.
//!
//! Nothing here fails: malformed YAML, wrong types and bad values become
//! [`FrontMatterProblem`]s with ranges, and the rest of the block is still read.
//!
//! Decisions beyond the format contract (`chat-format.md`, part 1):
//! - Keys are case-sensitive, as in YAML; `Max_Chain` is an unknown key.
//! - Values follow YAML 1.2 typing: `max_chain: "3"` (quoted) is text, so it is a wrong
//!   type; `title: 42` is read as the text `42`.
//! - An empty value (`title:` or `title: ~`) is a wrong type; the default applies.
//! - `members: reviewer` (a single handle) is accepted as a one-element list. A string
//!   such as `reviewer, tester` is not split: it is reported with a hint to write a list.
//! - `members` entries and `human` may start with `@` (the `@` is dropped from the value);
//!   in YAML a leading `@` needs quotes (`["@reviewer"]`), which the syntax error says.
//! - A key set twice: the first one is used, the second is reported.
//! - After a YAML syntax error, the keys whose values end on an earlier line are still
//!   read, so one typo at the bottom does not reset `status: ended` at the top.

mod budget;
mod edit;
mod fields;
mod permissions;
mod position;
mod rule_check;
mod rule_edit;
pub mod rules;
mod scalar;
mod tree;

pub use budget::{Budget, amount_words, parse_amount};
pub use edit::set_key_edit;
pub use permissions::{MemberRules, Rule};
pub use rule_edit::{RuleEdit, add_rule_edit};

use crate::document::ByteRange;
use crate::document::lines::Lines;

/// Default for `max_chain`: AI-to-AI hops after one human message.
pub const DEFAULT_MAX_CHAIN: u32 = 3;
/// Default for `context`: earlier messages given to a prompt.
pub const DEFAULT_CONTEXT: u32 = 20;
/// Default for `reply_stub`.
pub const DEFAULT_REPLY_STUB: bool = true;
/// Default for `human`.
pub const DEFAULT_HUMAN: &str = "me";

/// Where the front matter block is in the file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FrontMatterBlock {
    /// From the opening `---` (after a BOM, if any) through the closing line, including
    /// its line break (if the file does not end there).
    pub range: ByteRange,
    /// The YAML text between the two fence lines (empty for `---` directly followed by
    /// the closing line). It ends where the closing line starts.
    pub yaml: ByteRange,
}

/// A value with the byte range of its source text (quotes included for quoted scalars).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Spanned<T> {
    pub value: T,
    pub range: ByteRange,
}

impl<T> Spanned<T> {
    pub fn new(value: T, range: ByteRange) -> Self {
        Spanned { value, range }
    }
}

/// Who speaks next when a message mentions nobody.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Routing {
    #[default]
    Mentions,
    RoundRobin,
    All,
    /// Every member asked answers the same message on its own, none seeing the
    /// others' answers (`conversation/routing/compare.rs`).
    Compare,
    /// Compare, then each member reviews the others' answers by letter, then the
    /// `chair:` writes the decision (`conversation/routing/council.rs`).
    Council,
}

impl Routing {
    /// The spelling used in front matter.
    pub fn as_str(self) -> &'static str {
        match self {
            Routing::Mentions => "mentions",
            Routing::RoundRobin => "round-robin",
            Routing::All => "all",
            Routing::Compare => "compare",
            Routing::Council => "council",
        }
    }

    /// Reads the front matter spelling (exact, lowercase).
    pub fn parse(text: &str) -> Option<Routing> {
        match text {
            "mentions" => Some(Routing::Mentions),
            "round-robin" => Some(Routing::RoundRobin),
            "all" => Some(Routing::All),
            "compare" => Some(Routing::Compare),
            "council" => Some(Routing::Council),
            _ => None,
        }
    }
}

/// `status:` in front matter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ConversationStatus {
    #[default]
    Open,
    Ended,
}

impl ConversationStatus {
    /// The spelling used in front matter.
    pub fn as_str(self) -> &'static str {
        match self {
            ConversationStatus::Open => "open",
            ConversationStatus::Ended => "ended",
        }
    }

    /// Reads the front matter spelling (exact, lowercase).
    pub fn parse(text: &str) -> Option<ConversationStatus> {
        match text {
            "open" => Some(ConversationStatus::Open),
            "ended" => Some(ConversationStatus::Ended),
            _ => None,
        }
    }
}

/// What kind of mistake a [`FrontMatterProblem`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProblemKind {
    /// Not valid YAML, or YAML that front matter does not allow (several documents,
    /// a key set twice).
    Syntax,
    /// A value of the wrong YAML type (text where a number belongs, a list where text
    /// belongs, an empty value), or a block that is not a `key: value` mapping.
    WrongType,
    /// The right type but a value that is not allowed (an unknown `routing`, an invalid
    /// handle, a negative number).
    BadValue,
}

/// A mistake in the front matter, with the byte range to underline.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FrontMatterProblem {
    pub range: ByteRange,
    pub message: String,
    pub kind: ProblemKind,
}

/// One top-level `key: value` pair as written, in file order (duplicates included).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FrontMatterEntry {
    pub key: Spanned<String>,
    /// The value's source text. Empty (just after the `:`) when the value is omitted.
    pub value: ByteRange,
}

/// The front matter, read. Every range is an absolute byte offset into the file's text.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FrontMatter {
    pub block: FrontMatterBlock,
    pub title: Option<Spanned<String>>,
    pub team: Option<Spanned<String>>,
    /// Handles without a leading `@`, in the order written; invalid or repeated
    /// entries are left out (and reported).
    pub members: Option<Vec<Spanned<String>>>,
    /// Without a leading `@`.
    pub human: Option<Spanned<String>>,
    pub routing: Option<Spanned<Routing>>,
    /// The member who writes a council's decision (without a leading `@`).
    pub chair: Option<Spanned<String>>,
    pub max_chain: Option<Spanned<u32>>,
    pub context: Option<Spanned<u32>>,
    pub reply_stub: Option<Spanned<bool>>,
    pub status: Option<Spanned<ConversationStatus>>,
    pub forked_from: Option<Spanned<String>>,
    /// Written by `chatmd import` and the "Convert" action: where the chat came from
    /// (another tool's chat format, or a CLI's own session).
    pub imported_from: Option<Spanned<String>>,
    /// `permissions`: each member's rules, in file order (malformed ones left out).
    pub permissions: Vec<MemberRules>,
    /// `budget`: what each member may spend in the chat (malformed entries left out).
    pub budget: Vec<Budget>,
    /// Keys the format does not define, with their ranges. They are kept in the file.
    pub unknown_keys: Vec<Spanned<String>>,
    /// Every top-level entry in file order, known or not (used for edits).
    pub entries: Vec<FrontMatterEntry>,
    /// Sorted by position.
    pub problems: Vec<FrontMatterProblem>,
}

impl FrontMatter {
    /// A front matter with nothing set: every accessor returns its default.
    pub fn empty(block: FrontMatterBlock) -> FrontMatter {
        FrontMatter {
            block,
            ..FrontMatter::default()
        }
    }

    pub fn max_chain(&self) -> u32 {
        self.max_chain
            .as_ref()
            .map_or(DEFAULT_MAX_CHAIN, |v| v.value)
    }

    pub fn context(&self) -> u32 {
        self.context.as_ref().map_or(DEFAULT_CONTEXT, |v| v.value)
    }

    pub fn reply_stub(&self) -> bool {
        self.reply_stub
            .as_ref()
            .map_or(DEFAULT_REPLY_STUB, |v| v.value)
    }

    pub fn human(&self) -> &str {
        self.human.as_ref().map_or(DEFAULT_HUMAN, |v| &v.value)
    }

    pub fn routing(&self) -> Routing {
        self.routing
            .as_ref()
            .map_or_else(Routing::default, |v| v.value)
    }

    pub fn is_ended(&self) -> bool {
        self.status
            .as_ref()
            .is_some_and(|v| v.value == ConversationStatus::Ended)
    }

    /// The first entry for `key`, the one whose value is used.
    pub fn entry(&self, key: &str) -> Option<&FrontMatterEntry> {
        self.entries.iter().find(|e| e.key.value == key)
    }
}

const BOM: &str = "\u{feff}";

/// Finds the front matter block: the first line (after an optional BOM) is exactly
/// `---`, and a later line is exactly `---` or `...` (trailing spaces and tabs allowed
/// on both). Without a closing line the file has no front matter.
pub fn locate(text: &str) -> Option<FrontMatterBlock> {
    let start = if text.starts_with(BOM) { BOM.len() } else { 0 };
    // Lines end as everywhere in chatmd (and in YAML): `\n`, `\r\n` or a lone `\r`.
    let mut lines = Lines::from(text, start);
    let open = lines.next()?;
    if !is_fence(&text[open.range()], "---") {
        return None;
    }
    for line in lines {
        let content = &text[line.range()];
        if is_fence(content, "---") || is_fence(content, "...") {
            return Some(FrontMatterBlock {
                range: start..line.next,
                yaml: open.next..line.start,
            });
        }
    }
    None
}

/// Reads the front matter in `block` (found by [`locate`] in the same `text`).
pub fn parse(text: &str, block: &FrontMatterBlock) -> FrontMatter {
    let mut fm = FrontMatter::empty(block.clone());
    let Some(yaml) = text.get(block.yaml.clone()) else {
        fm.problems.push(FrontMatterProblem {
            range: 0..0,
            message: "the front matter block does not fit this text (internal error)".into(),
            kind: ProblemKind::Syntax,
        });
        return fm;
    };
    let outline = tree::outline(yaml);
    fields::read(&mut fm, yaml, block.yaml.start, outline);
    fm.problems.sort_by_key(|p| (p.range.start, p.range.end));
    fm
}

fn is_fence(line: &str, fence: &str) -> bool {
    line.strip_prefix(fence)
        .is_some_and(|rest| rest.chars().all(|c| c == ' ' || c == '\t'))
}

/// Whether `handle` is a valid member handle: `[A-Za-z0-9][A-Za-z0-9_.-]*`.
pub fn is_valid_handle(handle: &str) -> bool {
    let mut chars = handle.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphanumeric())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-'))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Found by fuzzing: front matter lines ended only at `\n`, while YAML (and the rest
    /// of chatmd) also ends them at a lone `\r`: a `...` before a lone `\r` ended the
    /// YAML document inside the block, and a CR-only file had no front matter at all.
    #[test]
    fn a_lone_cr_ends_a_front_matter_line() {
        let text = "---\rtitle: x\r---\r## @me\r";
        let block = locate(text).expect("front matter");
        assert_eq!((block.range, block.yaml), (0..17, 4..13));
        let text = "---\r\ntitle: x\r\n...\r\r\nrest";
        let block = locate(text).expect("front matter");
        assert_eq!((block.range.clone(), block.yaml.clone()), (0..19, 5..15));
        assert_eq!(
            parse(text, &block).title.map(|t| t.value).as_deref(),
            Some("x")
        );
    }
}
