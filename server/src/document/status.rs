//! The status comment: the first line of an AI message, `<!-- chatmd key=value ... -->`,
//! written and updated by the server. Parsing is tolerant; rendering is canonical.
//!
//! Grammar (one line, without its line break):
//! `[up to 3 spaces] <!--[blanks]chatmd (blanks field)* [blanks] --> [blanks]`, where a
//! field is `key=value`, a key is `[A-Za-z_][A-Za-z0-9_.-]*`, and a value is either a run
//! of characters up to a blank or `-->`, or a `"quoted string"` with the escapes `\"`,
//! `\\`, `\n`, `\r`, `\t`, `\>`, `\!` and `\u{HEX}` (any other `\x` is kept as written).
//! Blanks are spaces and tabs. More than 3 spaces of indentation is indented code, not
//! an HTML comment, so it is not a status comment.
//!
//! Rendering quotes a value when it is empty or holds whitespace, `"`, `\`, `-->`,
//! `--!>` or a control or line-separator character, and escapes inside the quotes so the
//! line never breaks and the comment cannot end early (not even for HTML5 parsers,
//! which also end a comment at `--!>`).

use crate::document::ByteRange;
use crate::document::quoted::push_quoted;
use std::fmt;
use std::str::FromStr;

/// The status of one agent turn, as written in its status comment.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TurnStatus {
    Queued,
    Streaming,
    /// Waiting for the human to answer a permission request. Never set yet: no agent
    /// asks for approval (see `document::permission`); read where a file says it.
    Waiting,
    Done,
    Skipped,
    Error,
    Cancelled,
    /// Found `streaming` with no running turn (after a crash, say).
    Interrupted,
    /// The section ended because the user's queued message was steered into the running
    /// turn (ACP `_session/steering`); the member's answer goes on in its next section,
    /// after that message.
    Steered,
}

impl TurnStatus {
    pub const ALL: [TurnStatus; 9] = [
        TurnStatus::Queued,
        TurnStatus::Streaming,
        TurnStatus::Waiting,
        TurnStatus::Done,
        TurnStatus::Skipped,
        TurnStatus::Error,
        TurnStatus::Cancelled,
        TurnStatus::Interrupted,
        TurnStatus::Steered,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            TurnStatus::Queued => "queued",
            TurnStatus::Streaming => "streaming",
            TurnStatus::Waiting => "waiting",
            TurnStatus::Done => "done",
            TurnStatus::Skipped => "skipped",
            TurnStatus::Error => "error",
            TurnStatus::Cancelled => "cancelled",
            TurnStatus::Interrupted => "interrupted",
            TurnStatus::Steered => "steered",
        }
    }
}

impl fmt::Display for TurnStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A `status=` value that is not one of [`TurnStatus`] (spelled in lowercase).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown turn status `{0}`: expected queued, streaming, waiting, done, skipped, error, \
     cancelled or interrupted"
)]
pub struct UnknownTurnStatus(pub String);

impl FromStr for TurnStatus {
    type Err = UnknownTurnStatus;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        TurnStatus::ALL
            .into_iter()
            .find(|status| status.as_str() == s)
            .ok_or_else(|| UnknownTurnStatus(s.to_owned()))
    }
}

/// The keys the server writes, in the order it writes them. Others are kept as found.
pub const KNOWN_KEYS: [&str; 19] = [
    "id", "agent", "model", "status", "session", "started", "context", "cost", "took", "stop",
    "exit", "tokens", "error", "resume", "seen", "next", "council", "letter", "letters",
];

/// Why a line is not a well-formed status comment. Ranges are byte ranges in the line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StatusError {
    /// The line does not start with `<!-- chatmd`: it is ordinary content.
    #[error("not a chatmd status comment")]
    NotAStatusComment,
    #[error("unterminated quoted value: add a closing `\"`")]
    UnterminatedQuote { range: ByteRange },
    #[error("the status comment is not closed: end the line with `-->`")]
    MissingClose { range: ByteRange },
    #[error("`{token}` is not `key=value`")]
    MissingEquals { range: ByteRange, token: String },
    #[error("{}", bad_key_message(.key))]
    BadKey { range: ByteRange, key: String },
    #[error("expected a space after the closing `\"`")]
    TextAfterQuote { range: ByteRange },
    #[error("text after `-->`: the status comment must be alone on its line")]
    TextAfterClose { range: ByteRange },
}

fn bad_key_message(key: &str) -> String {
    if key.is_empty() {
        "missing key before `=`".to_owned()
    } else {
        format!(
            "`{key}` is not a valid key: use letters, digits, `_`, `.` and `-`, \
             starting with a letter or `_`"
        )
    }
}

impl StatusError {
    /// The byte range in the line to underline (`None` for [`StatusError::NotAStatusComment`]).
    pub fn range(&self) -> Option<ByteRange> {
        match self {
            StatusError::NotAStatusComment => None,
            StatusError::UnterminatedQuote { range }
            | StatusError::MissingClose { range }
            | StatusError::MissingEquals { range, .. }
            | StatusError::BadKey { range, .. }
            | StatusError::TextAfterQuote { range }
            | StatusError::TextAfterClose { range } => Some(range.clone()),
        }
    }
}

/// A key that [`is_valid_key`] rejects.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{0}` is not a valid status comment key")]
pub struct InvalidKey(pub String);

/// Whether `key` can be a status comment key: `[A-Za-z_][A-Za-z0-9_.-]*`.
pub fn is_valid_key(key: &str) -> bool {
    let mut chars = key.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-'))
}

/// The fields of a status comment, in order. Keys are always valid ([`is_valid_key`]);
/// a key may appear more than once if the file says so ([`StatusComment::get`] reads the
/// first).
///
/// Stored compactly, as one string of every key and value and where each ends: a long
/// chat keeps one parsed comment per answer (20k of them for 10 MB), and a `String`
/// per key and value took several times the text they hold.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct StatusComment {
    /// Each key, then its value, one after the other.
    text: String,
    /// For each field, where its key and its value end in `text`.
    ends: Vec<(u32, u32)>,
}

impl StatusComment {
    /// An empty status comment (`<!-- chatmd -->`).
    pub fn new() -> Self {
        Self::default()
    }

    /// A status comment with these fields, if every key is valid.
    pub fn from_fields(fields: Vec<(String, String)>) -> Result<Self, InvalidKey> {
        match fields.iter().find(|(k, _)| !is_valid_key(k)) {
            Some((key, _)) => Err(InvalidKey(key.clone())),
            None => Ok(Self::of(
                fields.iter().map(|(k, v)| (k.as_str(), v.as_str())),
            )),
        }
    }

    /// The comment of these fields (keys already checked).
    fn of<'a>(fields: impl Iterator<Item = (&'a str, &'a str)> + Clone) -> Self {
        let (mut count, mut len) = (0, 0);
        for (key, value) in fields.clone() {
            count += 1;
            len += key.len() + value.len();
        }
        let mut comment = StatusComment {
            text: String::with_capacity(len),
            ends: Vec::with_capacity(count),
        };
        for (key, value) in fields {
            comment.push(key, value);
        }
        comment
    }

    fn push(&mut self, key: &str, value: &str) {
        // A status comment is one line of a document; 4 GB of it cannot be parsed.
        let end = |text: &String| u32::try_from(text.len()).unwrap_or(u32::MAX);
        self.text.push_str(key);
        let key_end = end(&self.text);
        self.text.push_str(value);
        self.ends.push((key_end, end(&self.text)));
    }

    /// The fields, in order, as `(key, value)`.
    pub fn fields(&self) -> Vec<(String, String)> {
        self.pairs()
            .map(|(k, v)| (k.to_owned(), v.to_owned()))
            .collect()
    }

    /// The fields, in order, borrowed.
    fn pairs(&self) -> impl Iterator<Item = (&str, &str)> + '_ {
        let mut start = 0;
        self.ends.iter().map(move |&(key_end, value_end)| {
            let (key_end, value_end) = (key_end as usize, value_end as usize);
            let field = (&self.text[start..key_end], &self.text[key_end..value_end]);
            start = value_end;
            field
        })
    }

    /// The first values of `keys` in the status comment `line`, read without building
    /// the comment (an outline reads two keys of each of 20k comments); `None` when
    /// the line does not parse.
    pub fn peek<'a, const N: usize>(
        line: &'a str,
        keys: [&str; N],
    ) -> Option<[Option<std::borrow::Cow<'a, str>>; N]> {
        let mut values = [const { None }; N];
        for (key, value) in parse::line(line).ok()? {
            if let Some(at) = keys.iter().position(|k| *k == key)
                && values[at].is_none()
            {
                values[at] = Some(value);
            }
        }
        Some(values)
    }

    /// Reads a status comment from one line (without its line break).
    pub fn parse(line: &str) -> Result<StatusComment, StatusError> {
        parse::line(line).map(|fields| Self::of(fields.iter().map(|(k, v)| (*k, v.as_ref()))))
    }

    /// The canonical line: `<!-- chatmd k=v k2="a b" -->`.
    pub fn render(&self) -> String {
        let mut out = String::from("<!-- chatmd");
        for (key, value) in self.pairs() {
            out.push(' ');
            out.push_str(key);
            out.push('=');
            render_value(value, &mut out);
        }
        out.push_str(" -->");
        out
    }

    /// The value of the first `key`.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.pairs().find(|(k, _)| *k == key).map(|(_, v)| v)
    }

    /// Sets `key`: replaces the first one's value (dropping any repeats), or appends it.
    /// Returns false, changing nothing, if `key` is not a valid key.
    pub fn set(&mut self, key: &str, value: impl Into<String>) -> bool {
        if !is_valid_key(key) {
            return false;
        }
        let value = value.into();
        let present = self.get(key).is_some();
        let mut seen = false;
        let fields = self.pairs().filter_map(|(k, v)| {
            if k != key {
                return Some((k, v));
            }
            let first = !seen;
            seen = true;
            first.then_some((k, value.as_str()))
        });
        let fields: Vec<(&str, &str)> = fields.collect();
        let mut updated = Self::of(fields.into_iter());
        if !present {
            updated.push(key, &value);
        }
        *self = updated;
        true
    }

    /// Removes every `key`.
    pub fn remove(&mut self, key: &str) {
        let kept: Vec<(&str, &str)> = self.pairs().filter(|(k, _)| *k != key).collect();
        *self = Self::of(kept.into_iter());
    }

    pub fn id(&self) -> Option<&str> {
        self.get("id")
    }

    /// The turn status; `None` when absent or not a known status.
    pub fn status(&self) -> Option<TurnStatus> {
        self.get("status").and_then(|s| s.parse().ok())
    }

    pub fn set_status(&mut self, status: TurnStatus) {
        self.set("status", status.as_str());
    }

    pub fn agent(&self) -> Option<&str> {
        self.get("agent")
    }

    pub fn model(&self) -> Option<&str> {
        self.get("model")
    }

    pub fn session(&self) -> Option<&str> {
        self.get("session")
    }
}

impl fmt::Display for StatusComment {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.render())
    }
}

/// Characters that must be escaped inside quotes: they would break the line (for LSP
/// clients, Markdown or editors that honour Unicode line separators) or be invisible.
fn needs_escape(c: char) -> bool {
    c.is_control() || matches!(c, '\u{2028}' | '\u{2029}')
}

fn render_value(value: &str, out: &mut String) {
    let quote = value.is_empty()
        || value.contains("-->")
        || value.contains("--!>")
        || value
            .chars()
            .any(|c| c.is_whitespace() || needs_escape(c) || c == '"' || c == '\\');
    if !quote {
        out.push_str(value);
        return;
    }
    push_quoted(out, value, |out, c| {
        match c {
            // `-->` and `--!>` would end the comment.
            '>' | '!' if out.ends_with("--") => {
                out.push('\\');
                out.push(c);
            }
            c if needs_escape(c) => out.push_str(&format!("\\u{{{:X}}}", u32::from(c))),
            _ => return false,
        }
        true
    });
}

mod parse;
