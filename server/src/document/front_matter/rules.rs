//! Permission rules: which requests of a member are answered without asking. A rule
//! is a pattern and a decision, `"execute: cargo *": allow`, written in the chat's
//! front matter (`permissions:`) or in `chatmd.toml` (`[members.X.permissions]`).
//!
//! A pattern is `<kind>: <title>`:
//! - `<kind>` is the tool call's kind as ACP names it (`read`, `edit`, `delete`,
//!   `move`, `search`, `execute`, `think`, `fetch`, `switch_mode`, `other`), or `*` for
//!   any kind;
//! - `<title>` must match the tool call's whole title (for a command, the command
//!   line), character for character, case included, except that `*` matches any run
//!   of characters (none included) and `\*` and `\\` stand for a `*` and a `\`.
//! - `*` alone matches every request.
//!
//! The server writes a rule for the exact request it was answered for, with any `*`
//! or `\` of the title escaped: a glob is always the user's own writing.

/// The tool call kinds a pattern may name (ACP's `ToolKind`).
pub const KINDS: &[&str] = &[
    "read",
    "edit",
    "delete",
    "move",
    "search",
    "execute",
    "think",
    "fetch",
    "switch_mode",
    "other",
];

/// What a rule answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decision {
    Allow,
    Reject,
}

impl Decision {
    /// The spelling in front matter and `chatmd.toml`.
    pub fn as_str(self) -> &'static str {
        match self {
            Decision::Allow => "allow",
            Decision::Reject => "reject",
        }
    }

    pub fn parse(text: &str) -> Option<Decision> {
        match text {
            "allow" => Some(Decision::Allow),
            "reject" => Some(Decision::Reject),
            _ => None,
        }
    }
}

/// A rule's pattern, read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pattern {
    /// The kind it matches; `None` for any.
    kind: Option<String>,
    /// The title's pieces; `None` for any title (the bare `*`).
    title: Option<Vec<Piece>>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Piece {
    Text(String),
    Star,
}

impl Pattern {
    /// Reads a pattern, or says what is wrong with it.
    pub fn parse(text: &str) -> Result<Pattern, String> {
        if text.trim() == "*" {
            return Ok(Pattern {
                kind: None,
                title: None,
            });
        }
        let Some((kind, title)) = text.split_once(':') else {
            return Err(format!(
                "`{text}` is not a rule: write `<kind>: <title>`, such as `execute: cargo test` \
                 or `edit: *`"
            ));
        };
        let kind = kind.trim();
        let kind = match kind {
            "*" => None,
            known if KINDS.contains(&known) => Some(known.to_owned()),
            other => {
                return Err(format!(
                    "`{other}` is not a tool kind; use one of {}, or `*`",
                    KINDS.join(", ")
                ));
            }
        };
        let title = title.strip_prefix(' ').unwrap_or(title);
        Ok(Pattern {
            kind,
            title: Some(pieces(title)),
        })
    }

    /// The pattern that matches exactly this request (the one the server writes).
    pub fn exact(kind: &str, title: &str) -> String {
        let escaped = title.replace('\\', "\\\\").replace('*', "\\*");
        format!("{kind}: {escaped}")
    }

    /// Whether a request of `kind` with `title` matches.
    pub fn matches(&self, kind: &str, title: &str) -> bool {
        if self.kind.as_deref().is_some_and(|k| k != kind) {
            return false;
        }
        match &self.title {
            None => true,
            Some(pieces) => glob(pieces, title),
        }
    }

    /// Whether the pattern has no `*`: it names one request.
    pub fn is_exact(&self) -> bool {
        self.kind.is_some()
            && self
                .title
                .as_ref()
                .is_some_and(|p| !p.contains(&Piece::Star))
    }

    /// How much of the pattern is literal text: between two globs that match, the
    /// one that says more is the more specific.
    pub fn literal_len(&self) -> usize {
        let kind = self.kind.as_ref().map_or(0, String::len);
        let title = self.title.iter().flatten().map(|p| match p {
            Piece::Text(t) => t.len(),
            Piece::Star => 0,
        });
        kind + title.sum::<usize>()
    }
}

/// The title's pieces: literal runs and `*`s.
fn pieces(title: &str) -> Vec<Piece> {
    let mut out = Vec::new();
    let mut text = String::new();
    let mut chars = title.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some(next @ ('*' | '\\')) => text.push(next),
                Some(other) => {
                    text.push('\\');
                    text.push(other);
                }
                None => text.push('\\'),
            },
            '*' => {
                if !text.is_empty() {
                    out.push(Piece::Text(std::mem::take(&mut text)));
                }
                if out.last() != Some(&Piece::Star) {
                    out.push(Piece::Star);
                }
            }
            c => text.push(c),
        }
    }
    if !text.is_empty() {
        out.push(Piece::Text(text));
    }
    out
}

/// Whether `pieces` match the whole of `text`: each literal run in order, the first at
/// the start unless a `*` leads, the last at the end unless a `*` ends.
fn glob(pieces: &[Piece], text: &str) -> bool {
    let mut rest = text;
    let mut floating = false;
    for (i, piece) in pieces.iter().enumerate() {
        match piece {
            Piece::Star => floating = true,
            Piece::Text(lit) => {
                let last = i + 1 == pieces.len();
                if !floating {
                    let Some(after) = rest.strip_prefix(lit.as_str()) else {
                        return false;
                    };
                    rest = after;
                } else if last {
                    // The last run must end the text; take it from the end.
                    return rest.ends_with(lit.as_str());
                } else {
                    // The earliest place is always best for a run between two stars.
                    let Some(at) = rest.find(lit.as_str()) else {
                        return false;
                    };
                    rest = &rest[at + lit.len()..];
                }
                floating = false;
            }
        }
    }
    floating || rest.is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matches(pattern: &str, kind: &str, title: &str) -> bool {
        Pattern::parse(pattern).unwrap().matches(kind, title)
    }

    #[test]
    fn an_exact_rule_matches_its_request_only() {
        assert!(matches("execute: cargo test", "execute", "cargo test"));
        assert!(!matches(
            "execute: cargo test",
            "execute",
            "cargo test --all"
        ));
        assert!(!matches("execute: cargo test", "execute", "Cargo test"));
        assert!(!matches("execute: cargo test", "edit", "cargo test"));
        assert!(Pattern::parse("execute: cargo test").unwrap().is_exact());
    }

    #[test]
    fn stars_match_any_run_of_characters() {
        assert!(matches("execute: cargo *", "execute", "cargo test --all"));
        assert!(matches("execute: cargo *", "execute", "cargo "));
        assert!(!matches("execute: cargo *", "execute", "cargo"));
        assert!(matches("edit: *", "edit", "src/lib.rs"));
        assert!(matches("edit: *", "edit", ""));
        assert!(matches("*: *.rs", "read", "Read src/a.rs"));
        assert!(!matches("*: *.rs", "read", "Read src/a.rs.bak"));
        assert!(matches("execute: *test*", "execute", "cargo test -p x"));
        assert!(matches("execute: a*b*c", "execute", "abbc"));
        assert!(!matches("execute: a*b*c", "execute", "acb"));
        assert!(matches("*", "switch_mode", "Ready to code?"));
        assert!(!Pattern::parse("edit: *").unwrap().is_exact());
    }

    #[test]
    fn escaped_stars_and_backslashes_are_literal() {
        let written = Pattern::exact("execute", r"ls *.rs \ x");
        assert_eq!(written, r"execute: ls \*.rs \\ x");
        let pattern = Pattern::parse(&written).unwrap();
        assert!(pattern.is_exact());
        assert!(pattern.matches("execute", r"ls *.rs \ x"));
        assert!(!pattern.matches("execute", r"ls a.rs \ x"));
        // A backslash before anything else is itself.
        assert!(matches(r"execute: dir C:\tmp", "execute", r"dir C:\tmp"));
    }

    #[test]
    fn malformed_patterns_say_what_to_write() {
        assert_eq!(
            Pattern::parse("cargo test").unwrap_err(),
            "`cargo test` is not a rule: write `<kind>: <title>`, such as `execute: cargo test` \
             or `edit: *`"
        );
        assert!(
            Pattern::parse("bash: ls")
                .unwrap_err()
                .starts_with("`bash` is not a tool kind; use one of read, edit,")
        );
        // The title may hold colons of its own.
        assert!(matches("fetch: https://x", "fetch", "https://x"));
    }

    #[test]
    fn specificity_counts_literal_text() {
        let long = Pattern::parse("execute: cargo test *").unwrap();
        let short = Pattern::parse("execute: *").unwrap();
        assert!(long.literal_len() > short.literal_len());
    }
}
