//! Problems of chats from other tools: a file still in a foreign format (with its
//! conversion as a quick fix, and the blocks a marker line cut short), and the answers'
//! handle of an imported chat while the team has no such member.

use super::{Fix, Problem};
use crate::conversation::roster::Roster;
use crate::document::ByteRange;
use crate::document::foreign::{self, ASSISTANT_HANDLE};
use crate::team::Severity;

/// The foreign format of `text` (a chat without chatmd messages), if it has one: an
/// information at its first marker, and a warning at each code fence or HTML block (an
/// unclosed `<!--`) that a marker line ends before its closing line.
pub(super) fn problems(text: &str) -> Vec<Problem> {
    let Some(found) = foreign::detect(text) else {
        return Vec::new();
    };
    let mut out = vec![Problem {
        range: found.marker.clone(),
        severity: Severity::Info,
        code: "foreign-format",
        message: format!(
            "This file is a {} chat, not a chatmd chat. Use the code action \"Convert to chatmd format\" (or `chatmd import FILE`) to convert it; every message is kept.",
            found.format.name()
        ),
        fixes: Vec::new(),
    }];
    for range in foreign::unclosed_blocks(text, found.format) {
        out.push(Problem {
            range,
            severity: Severity::Warning,
            code: "foreign-unclosed-block",
            message: "This block is never closed before the next message: the conversion closes it at the end of its message. Close it yourself (`-->` for a comment, the same fence for code) if it should end earlier.".to_string(),
            fixes: Vec::new(),
        });
    }
    out
}

/// The first answer of `handle` in an imported chat whose team has no such member.
pub(super) fn imported_handle(handle: &str, range: ByteRange, roster: &Roster) -> Problem {
    Problem {
        range,
        severity: Severity::Warning,
        code: "imported-handle",
        message: format!(
            "@{handle} wrote this chat's imported answers but is not a member of this team, so its messages count as the human's (@{}). To continue with it, add a member folder `{handle}/` with a role file (CLAUDE.md, AGENTS.md or GEMINI.md) next to the chat.",
            roster.human
        ),
        fixes: Vec::new(),
    }
}

/// The conversion of a foreign-format chat into chatmd, as one whole-document edit.
pub fn convert_fix(text: &str, human: &str) -> Option<Fix> {
    let found = foreign::detect(text)?;
    Some(Fix {
        title: "Convert to chatmd format".to_string(),
        edits: vec![(
            0..text.len(),
            foreign::convert(text, found.format, human, ASSISTANT_HANDLE),
        )],
        preferred: false,
    })
}
