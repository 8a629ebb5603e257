//! The problems of one message, worked out from its own text, and the collector that
//! puts a chat's problems together in document order. A message's problems depend on
//! its text and the roster alone, except the two reported once per chat (a member's
//! missing CLI, at the member's first place; an imported chat's unknown answer handle,
//! at its first message): for those a message records only where it names whom, and
//! the collector, walking the messages in order, decides which place gets the warning.
//! So the editor can keep each message's checks across edits and redo only those of
//! the messages an edit touched.

use super::{
    Found, Problem, UNKNOWN_SEVERITY, foreign_format, not_listed, session_id, unknown_member,
};
use crate::conversation::roster::Roster;
use crate::document::ByteRange;
use crate::document::chat::{Chat, CodeBlock, Message};
use crate::document::status::{StatusComment, StatusError};
use crate::team::Severity;

/// One thing a message contributes to its chat's problems.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Check {
    /// A problem of this message alone. Boxed: most messages have none, and every
    /// message names its member, so a check is kept small (40 bytes, not 88: the
    /// checks of a chat of 500,000 messages are kept between keystrokes).
    Found(Box<Problem>),
    /// The member with this handle is named at `range` (its heading or a mention): the
    /// first such place of each member carries the warning that its CLI is missing.
    NamesMember {
        handle: std::sync::Arc<str>,
        range: ByteRange,
    },
    /// An imported chat's answer under `handle`, which is no member: reported at the
    /// first message of each such handle.
    ImportedHandle { handle: Box<str>, range: ByteRange },
    /// A handle at `range` that names no member, in a `mention` or a heading. Made into
    /// its problem (with the nearest handles and a fix for each) only when reported: a
    /// chat full of them reports 1000 and counts the rest, and an open chat keeps a
    /// check per message.
    Unknown {
        name: Box<str>,
        range: ByteRange,
        mention: bool,
    },
}

/// The problem of the unknown handle `name` at `range` ([`Check::Unknown`]).
fn unknown_problem(name: &str, range: ByteRange, roster: &Roster, mention: bool) -> Problem {
    if mention {
        unknown_member(
            name,
            range,
            roster,
            "unknown-mention",
            format!("@{name} is not a member of this team; nobody will answer this mention."),
        )
    } else {
        unknown_member(
            name,
            range,
            roster,
            "unknown-member",
            format!(
                "@{name} is not a member of this team, so this message counts as the human's (@{}).",
                roster.human
            ),
        )
    }
}

impl Check {
    pub fn found(problem: Problem) -> Check {
        Check::Found(Box::new(problem))
    }

    /// The severity of the problem this check reports, when it reports one of its own.
    pub fn severity(&self) -> Option<Severity> {
        match self {
            Check::Found(problem) => Some(problem.severity),
            Check::Unknown { .. } => Some(UNKNOWN_SEVERITY),
            Check::NamesMember { .. } | Check::ImportedHandle { .. } => None,
        }
    }
}

/// `r` moved `delta` bytes when it starts at `from` or later (a range of the moved
/// message), else as it is (a quick fix's edit of the front matter).
pub fn moved(r: &ByteRange, from: usize, delta: isize) -> ByteRange {
    if r.start >= from {
        r.start.wrapping_add_signed(delta)..r.end.wrapping_add_signed(delta)
    } else {
        r.clone()
    }
}

/// `p`, made for a message that started at `from`, moved `delta` bytes with it.
pub fn shifted_problem(p: &Problem, from: usize, delta: isize) -> Problem {
    let mut shifted = p.clone();
    shifted.range = moved(&p.range, from, delta);
    for fix in &mut shifted.fixes {
        for (range, _) in &mut fix.edits {
            *range = moved(range, from, delta);
        }
    }
    shifted
}

/// The checks of message `m`, in the order its problems are reported. `part` is the
/// document's text from byte `base` on and holds at least the message; `front` is the
/// document's text from its start up to at least the end of its front matter (a quick
/// fix adds a member to `members:` there). `status` is the message's status comment
/// as parsed (see [`Message::status_read_in`]).
pub fn message_checks(
    part: &str,
    base: usize,
    m: &Message,
    chat: &Chat,
    roster: &Roster,
    front: &str,
    status: Option<&Result<StatusComment, StatusError>>,
) -> Vec<Check> {
    let at = |r: &ByteRange| &part[r.start - base..r.end - base];
    let mut out = Vec::new();
    let imported = chat
        .front_matter
        .as_ref()
        .is_some_and(|fm| fm.imported_from.is_some());
    let listed = chat
        .front_matter
        .as_ref()
        .is_some_and(|f| f.members.is_some());
    let handle_range = m.handle_range();
    let handle = at(&handle_range);
    let is_human = roster.is_human(handle);
    match roster.member(handle) {
        Some(member) if !is_human => {
            if !roster.takes_part(handle) && listed {
                out.push(Check::found(not_listed(
                    handle,
                    handle_range.clone(),
                    chat.front_matter.as_ref(),
                    front,
                )));
            }
            out.push(Check::NamesMember {
                handle: roster.shared_handle(member),
                range: handle_range,
            });
        }
        Some(_) => {}
        None if is_human => {}
        None if imported => out.push(Check::ImportedHandle {
            handle: handle.into(),
            range: handle_range,
        }),
        None => out.push(Check::Unknown {
            name: handle.into(),
            range: handle_range,
            mention: false,
        }),
    }
    if let (Some(range), Some(status)) = (m.status_range(), status) {
        match status {
            Ok(status) => {
                let found = session_id::problem(at(&range), &range, status);
                out.extend(found.map(Check::found));
            }
            Err(e) => {
                let within = e.range().unwrap_or(0..range.len());
                out.push(Check::found(Problem {
                    range: range.start + within.start..range.start + within.end,
                    severity: Severity::Warning,
                    code: "bad-status-comment",
                    message: format!("Malformed status comment: {e}. Or delete the line: the message then counts as done."),
                    fixes: Vec::new(),
                }));
            }
        }
    }
    // Mentions matter in what the human writes; in an agent's answer an unknown
    // `@word` is ordinary text (decorators, npm scopes, ...).
    if roster.is_ai(handle) {
        return out;
    }
    for mention in m.mentions() {
        let name = at(&mention.handle);
        if roster.is_human(name) {
            continue;
        }
        out.push(match roster.member(name) {
            Some(member) => Check::NamesMember {
                handle: roster.shared_handle(member),
                range: mention.handle,
            },
            None => Check::Unknown {
                name: name.into(),
                range: mention.handle,
                mention: true,
            },
        });
    }
    out
}

/// The warning on a code block that is never closed; `part` from byte `base` on holds
/// its opening line.
pub fn unclosed_fence(part: &str, base: usize, block: &CodeBlock) -> Problem {
    let fence = &part[block.opening.start - base..block.opening.end - base];
    let marker: String = fence
        .trim_start()
        .chars()
        .take_while(|&c| c == '`' || c == '~')
        .collect();
    Problem {
        range: block.opening.clone(),
        severity: Severity::Warning,
        code: "unclosed-fence",
        message: format!(
            "This code fence is never closed, so everything after it is code, later messages included. Close it with a line holding only {marker}"
        ),
        fixes: Vec::new(),
    }
}

/// A chat's problems put together in document order, from the front matter's and the
/// messages' checks, up to a limit.
pub struct Collector<'a> {
    roster: &'a Roster<'a>,
    clis: &'a dyn super::CliLookup,
    found: Found,
    /// Members whose CLI was looked up: one lookup (and one warning) per member.
    looked_up: Vec<String>,
    /// The imported answer handles reported so far.
    reported: Vec<String>,
}

impl<'a> Collector<'a> {
    /// A collector holding the problems of the chat's front matter and, when `text`
    /// (the document, or its start up to the first message's body) is in a foreign
    /// format, those of the format.
    pub fn new(
        chat: &Chat,
        roster: &'a Roster<'a>,
        clis: &'a dyn super::CliLookup,
        foreign: &str,
        limit: usize,
    ) -> Collector<'a> {
        let mut collector = Collector {
            roster,
            clis,
            found: Found {
                limit,
                ..Found::default()
            },
            looked_up: Vec::new(),
            reported: Vec::new(),
        };
        if let Some(fm) = &chat.front_matter {
            super::front_matter_problems(fm, roster, &mut collector.found);
        }
        // Cheap for a chatmd chat: detection stops at its first message heading.
        for problem in foreign_format::problems(foreign) {
            collector.found.push(problem);
        }
        collector
    }

    /// Adds a problem as it is.
    pub fn push(&mut self, problem: Problem) {
        self.found.push(problem);
    }

    /// Adds what `check` reports here.
    pub fn add(&mut self, check: &Check) {
        self.add_moved(check, 0, 0);
    }

    /// Adds what `check`, made for a message that started at `from`, reports now that
    /// the message moved `delta` bytes. Past the limit a problem is only counted, not
    /// copied: a chat with thousands of problems costs no more than their count.
    pub fn add_moved(&mut self, check: &Check, from: usize, delta: isize) {
        match check {
            Check::Found(problem) if self.found.is_full() => self
                .found
                .count(moved(&problem.range, from, delta), problem.severity),
            Check::Found(problem) => self.found.push(shifted_problem(problem, from, delta)),
            Check::NamesMember { handle, range } => {
                self.names_member(handle, || moved(range, from, delta));
            }
            Check::ImportedHandle { handle, range } => {
                self.imported_handle(handle, || moved(range, from, delta));
            }
            Check::Unknown { range, .. } if self.found.is_full() => self
                .found
                .count(moved(range, from, delta), UNKNOWN_SEVERITY),
            Check::Unknown {
                name,
                range,
                mention,
            } => {
                let problem =
                    unknown_problem(name, moved(range, from, delta), self.roster, *mention);
                self.found.push(problem);
            }
        }
    }

    /// Whether what is added now is only counted, and the first of those counted is
    /// known: where a problem is, or which of several comes first, no longer matters.
    pub fn only_counts(&self) -> bool {
        self.found.is_full() && self.found.first_more.is_some()
    }

    /// Counts `n` problems, the worst `worst`, once [`Collector::only_counts`].
    pub fn count_more(&mut self, n: usize, worst: Option<Severity>) {
        debug_assert!(self.only_counts());
        if let Some(worst) = worst.filter(|_| n > 0) {
            self.found.more += n;
            self.found.worst_more = Some(self.found.worst_more.map_or(worst, |w| w.min(worst)));
        }
    }

    /// Whether naming these members and importing answers under these handles adds
    /// nothing: each was named or imported before.
    pub fn adds_nothing(&self, named: &[Box<str>], imported: &[Box<str>]) -> bool {
        let known =
            |seen: &[String], handle: &str| seen.iter().any(|h| h.eq_ignore_ascii_case(handle));
        named.iter().all(|h| known(&self.looked_up, h))
            && imported.iter().all(|h| known(&self.reported, h))
    }

    /// The member `handle` is named at `range`: the first place of each member carries
    /// the warning that its CLI is missing.
    pub fn names_member(&mut self, handle: &str, range: impl FnOnce() -> ByteRange) {
        // One lookup per member per document: it searches PATH, and a long chat
        // names the same members thousands of times. One warning per member
        // keeps the file readable too.
        if self
            .looked_up
            .iter()
            .any(|h| h.eq_ignore_ascii_case(handle))
        {
            return;
        }
        self.looked_up.push(handle.to_owned());
        let Some(member) = self.roster.member(handle) else {
            return;
        };
        if let Some((error, install)) = self.clis.missing(member) {
            self.found.push(Problem {
                range: range(),
                severity: Severity::Warning,
                code: "cli-missing",
                message: super::missing_message(member, &error, install.as_deref()),
                fixes: Vec::new(),
            });
        }
    }

    /// An imported answer under `handle` at `range`: reported at the first of each.
    pub fn imported_handle(&mut self, handle: &str, range: impl FnOnce() -> ByteRange) {
        if self.reported.iter().any(|h| h.eq_ignore_ascii_case(handle)) {
            return;
        }
        self.reported.push(handle.to_owned());
        let problem = foreign_format::imported_handle(handle, range(), self.roster);
        self.found.push(problem);
    }

    pub fn finish(self) -> Found {
        self.found
    }
}
