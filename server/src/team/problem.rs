//! The one problem type of chatmd's configuration: a mistake (or a note) in a
//! `chatmd.toml`, an `agents.toml`, a role file or a team folder, tied to its file and,
//! when known, its place (byte range, line and column, TOML key).

use std::fmt;
use std::ops::Range;
use std::path::{Path, PathBuf};

/// How bad a [`ConfigProblem`] is; maps one to one onto diagnostic severities.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Severity {
    Error,
    Warning,
    Info,
    Hint,
}

impl Severity {
    /// Lowercase name, as printed by `chatmd members`.
    pub fn name(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "info",
            Severity::Hint => "hint",
        }
    }
}

/// A 1-based line and column; the column counts characters, not bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Location {
    pub line: usize,
    pub column: usize,
}

impl Location {
    /// The location of byte `offset` in `text` (clamped to the text).
    pub fn of(text: &str, offset: usize) -> Location {
        let mut offset = offset.min(text.len());
        while !text.is_char_boundary(offset) {
            offset -= 1;
        }
        let before = &text[..offset];
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        Location {
            line: before.matches('\n').count() + 1,
            column: before[line_start..].chars().count() + 1,
        }
    }
}

/// Something wrong (or worth knowing) in a configuration file, a role file or a team
/// folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigProblem {
    /// The file (or folder) the problem is about.
    pub file: PathBuf,
    /// Byte range in `file`, when the problem is about a precise spot in it.
    pub range: Option<Range<usize>>,
    /// Where `range` starts, when the file's text was at hand.
    pub location: Option<Location>,
    /// The dotted TOML key concerned, like `agents.llm.prompt`, when known.
    pub key: Option<String>,
    pub severity: Severity,
    /// One sentence for the user, saying what is wrong and what to do.
    pub message: String,
    /// A stable code for problems an editor offers a fix for ([`UNTRUSTED_CODE`]).
    pub code: Option<&'static str>,
}

/// The code of a setting left out until the user trusts its file.
pub const UNTRUSTED_CODE: &str = "untrusted-config";

impl ConfigProblem {
    pub fn new(
        file: impl Into<PathBuf>,
        range: Option<Range<usize>>,
        severity: Severity,
        message: impl Into<String>,
    ) -> ConfigProblem {
        ConfigProblem {
            file: file.into(),
            range,
            location: None,
            key: None,
            severity,
            message: message.into(),
            code: None,
        }
    }

    /// A setting left out until the user trusts `file` (a warning with
    /// [`UNTRUSTED_CODE`]).
    pub(crate) fn untrusted(file: &Path, range: Range<usize>, message: String) -> ConfigProblem {
        ConfigProblem {
            code: Some(UNTRUSTED_CODE),
            ..ConfigProblem::new(file, Some(range), Severity::Warning, message)
        }
    }

    /// The same problem with its line and column in `text`, the file's content.
    pub fn located(mut self, text: &str) -> ConfigProblem {
        self.location = self.range.as_ref().map(|r| Location::of(text, r.start));
        self
    }
}

/// `file:line:column: `key`: message`, as far as each part is known.
impl fmt::Display for ConfigProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file.display())?;
        if let Some(at) = &self.location {
            write!(f, ":{}:{}", at.line, at.column)?;
        }
        if let Some(key) = &self.key {
            write!(f, ": `{key}`")?;
        }
        write!(f, ": {}", self.message)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn locations_count_lines_and_characters() {
        let text = "a = 1\nb = \"é\" x\n";
        assert_eq!(Location::of(text, 0), Location { line: 1, column: 1 });
        assert_eq!(Location::of(text, 6), Location { line: 2, column: 1 });
        let x = text.find('x').unwrap();
        assert_eq!(Location::of(text, x), Location { line: 2, column: 9 });
        assert_eq!(Location::of(text, 999), Location { line: 3, column: 1 });
    }
}
