//! What is wrong with a chat, as domain diagnostics with byte ranges and quick fixes:
//! unknown members, members left out of `members:`, malformed front matter and status
//! comments, session ids no agent issued, unclosed fences, missing agent CLIs and chats
//! in a foreign format.

use super::roster::Roster;
use crate::agents::program::ProgramError;
use crate::document::ByteRange;
use crate::document::chat::Chat;
use crate::document::front_matter::FrontMatter;
use crate::team::{self, Severity};

/// A problem in the chat text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    pub range: ByteRange,
    pub severity: Severity,
    /// A stable code, shown by editors and used to find the problem's quick fixes.
    pub code: &'static str,
    pub message: String,
    pub fixes: Vec<Fix>,
}

/// A quick fix: edits to the same document.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fix {
    pub title: String,
    pub edits: Vec<(ByteRange, String)>,
    /// The fix that editors may apply on their own ("fix all" / preferred).
    pub preferred: bool,
}

/// Finds whether a member's program can run; a seam so tests need not depend on
/// `PATH`. The server's answer follows the one rule of `agents::program`.
pub trait CliLookup {
    /// Why `member`'s program cannot run, and how to install it when that is known;
    /// `None` when it can (or when its agent kind is unknown: another problem).
    fn missing(&self, member: &team::Member) -> Option<(ProgramError, Option<String>)>;
}

/// The problems found, up to a limit; past it they are only counted (100k pasted
/// `@word`s must not make 100k problems).
#[derive(Debug, Default)]
pub struct Found {
    pub problems: Vec<Problem>,
    /// How many more there are, the range of the first of them and the most severe.
    pub more: usize,
    pub first_more: Option<ByteRange>,
    pub worst_more: Option<Severity>,
    limit: usize,
}

impl Found {
    fn push(&mut self, problem: Problem) {
        if self.problems.len() < self.limit {
            self.problems.push(problem);
            return;
        }
        self.count(problem.range, problem.severity);
    }

    /// Whether further problems are only counted.
    fn is_full(&self) -> bool {
        self.problems.len() >= self.limit
    }

    /// Counts one more problem past the limit.
    fn count(&mut self, range: ByteRange, severity: Severity) {
        self.more += 1;
        self.first_more.get_or_insert(range);
        self.worst_more = Some(self.worst_more.map_or(severity, |w| w.min(severity)));
    }
}

/// Every problem of `chat` read with `roster`.
pub fn check(text: &str, chat: &Chat, roster: &Roster, clis: &dyn CliLookup) -> Vec<Problem> {
    check_capped(text, chat, roster, clis, usize::MAX).problems
}

/// The first `limit` problems of `chat` read with `roster`, and how many more.
pub fn check_capped(
    text: &str,
    chat: &Chat,
    roster: &Roster,
    clis: &dyn CliLookup,
    limit: usize,
) -> Found {
    let mut out = Collector::new(chat, roster, clis, text, limit);
    for m in &chat.messages {
        let status = m.status_read_in(text, 0);
        for check in message_checks(text, 0, m, chat, roster, text, status.as_deref()) {
            out.add(&check);
        }
    }
    for block in chat.code_blocks().filter(|b| !b.closed) {
        out.push(unclosed_fence(text, 0, &block));
    }
    out.finish()
}

fn front_matter_problems(fm: &FrontMatter, roster: &Roster, out: &mut Found) {
    for p in &fm.problems {
        out.push(Problem {
            range: p.range.clone(),
            severity: Severity::Error,
            code: "front-matter",
            message: p.message.clone(),
            fixes: Vec::new(),
        });
    }
    for key in &fm.unknown_keys {
        out.push(Problem {
            range: key.range.clone(),
            severity: Severity::Hint,
            code: "unknown-front-matter-key",
            message: format!("`{}` is not a chatmd key; it is kept as it is.", key.value),
            fixes: Vec::new(),
        });
    }
    for listed in fm.members.iter().flatten() {
        if roster.member(&listed.value).is_none() {
            out.push(unknown_member(
                &listed.value,
                listed.range.clone(),
                roster,
                "unknown-member",
                format!(
                    "`{}` in `members:` is not a member of this team.",
                    listed.value
                ),
            ));
        }
    }
}

/// The severity of an unknown handle's problem.
const UNKNOWN_SEVERITY: Severity = Severity::Warning;

fn unknown_member(
    name: &str,
    range: ByteRange,
    roster: &Roster,
    code: &'static str,
    lead: String,
) -> Problem {
    let nearest = roster.team.nearest_handles(name, 3);
    let mut message = lead;
    if roster.team.members.is_empty() {
        message.push_str(&format!(
            " The team folder {} has no members yet: a member is a subfolder holding CLAUDE.md, AGENTS.md or GEMINI.md.",
            roster.team.folder.display()
        ));
    } else if !nearest.is_empty() {
        let list: Vec<String> = nearest.iter().map(|h| format!("@{h}")).collect();
        message.push_str(&format!(" Did you mean {}?", list.join(", ")));
    }
    let fixes = nearest
        .iter()
        .enumerate()
        .map(|(i, h)| Fix {
            title: format!("Change to @{h}"),
            edits: vec![(range.clone(), h.to_string())],
            preferred: i == 0,
        })
        .collect();
    Problem {
        range,
        severity: UNKNOWN_SEVERITY,
        code,
        message,
        fixes,
    }
}

fn not_listed(handle: &str, range: ByteRange, fm: Option<&FrontMatter>, text: &str) -> Problem {
    let fixes = fm
        .and_then(|fm| fm.members.as_ref())
        .and_then(|listed| listed.last())
        .map(|last| Fix {
            title: format!("Add @{handle} to members"),
            edits: vec![append_to_list(text, &last.range, handle)],
            preferred: true,
        })
        .into_iter()
        .collect();
    Problem {
        range,
        severity: Severity::Warning,
        code: "not-in-members",
        message: format!(
            "@{handle} is on the team but not in this chat's `members:` list, so it is not asked to speak."
        ),
        fixes,
    }
}

/// The edit that adds `handle` after `last`, the last entry of a YAML list written in
/// flow style (`[a, b]`) or block style (`- a` lines).
fn append_to_list(text: &str, last: &ByteRange, handle: &str) -> (ByteRange, String) {
    let line_start = text[..last.start].rfind(['\n', '\r']).map_or(0, |i| i + 1);
    let prefix = &text[line_start..last.start];
    match prefix.trim_start().strip_prefix('-') {
        Some(after) if after.trim().is_empty() || after.trim() == "@" => {
            let eol = if text[last.end..].starts_with("\r\n") {
                "\r\n"
            } else {
                "\n"
            };
            let indent = &prefix[..prefix.len() - prefix.trim_start().len()];
            (last.end..last.end, format!("{eol}{indent}- {handle}"))
        }
        _ => (last.end..last.end, format!(", {handle}")),
    }
}

/// What the diagnostic says of a program that cannot run: for a built-in CLI, how to
/// install it and that it needs a login; for any other, the rule's own words.
fn missing_message(member: &team::Member, error: &ProgramError, install: Option<&str>) -> String {
    if let (Some(kind), ProgramError::NotInstalled { program }) = (member.kind(), error)
        && program == kind.binary()
    {
        return format!(
            "@{} runs {}, whose CLI `{}` is not installed (not found on PATH). Install it with `{}`, then log in once in a terminal.",
            member.handle,
            kind,
            kind.binary(),
            crate::agents::kinds::spec_of(kind).install_command
        );
    }
    let mut message = format!("@{} runs {}, but {error}.", member.handle, member.agent);
    if let Some(install) = install {
        message.push_str(&format!(" Install it with `{install}`."));
    }
    message
}

mod foreign_format;
mod messages;
mod session_id;
pub use foreign_format::convert_fix;
pub use messages::{
    Check, Collector, message_checks, moved as moved_range, shifted_problem, unclosed_fence,
};

#[cfg(test)]
mod tests;
