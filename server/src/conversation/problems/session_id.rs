//! A `session=` in a status comment that its agent never issued: chatmd never passes it
//! on (`agents::session_id`), and says so where the value is.

use super::Problem;
use crate::agents::session_id::session_id_problem;
use crate::document::ByteRange;
use crate::document::status::StatusComment;
use crate::team::Severity;

/// The problem of `status` (the comment `line`, at `range` of the document) when its
/// session is not one its agent issues. A comment without an agent is never resumed:
/// nothing to say.
pub(super) fn problem(line: &str, range: &ByteRange, status: &StatusComment) -> Option<Problem> {
    let session = status.session()?;
    let message = session_id_problem(status.agent()?, session)?;
    let within = value_range(line, "session").unwrap_or(0..line.len());
    Some(Problem {
        range: range.start + within.start..range.start + within.end,
        severity: Severity::Warning,
        code: "bad-session-id",
        message: format!("{message}."),
        fixes: Vec::new(),
    })
}

/// The range of `key=value` in a status comment line (a quoted value up to its closing
/// quote, else up to the next space).
fn value_range(line: &str, key: &str) -> Option<ByteRange> {
    let needle = format!(" {key}=");
    let start = line.find(&needle)? + 1;
    let value = start + needle.len() - 1;
    let rest = &line[value..];
    let len = match rest.strip_prefix('"') {
        Some(quoted) => {
            let mut escaped = false;
            let close = quoted.char_indices().find(|&(_, c)| {
                let closes = c == '"' && !escaped;
                escaped = c == '\\' && !escaped;
                closes
            });
            close.map_or(rest.len(), |(i, _)| i + 2)
        }
        None => rest.find(char::is_whitespace).unwrap_or(rest.len()),
    };
    Some(start..value + len)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_range_is_the_key_and_its_value() {
        let line = "<!-- chatmd id=t1 agent=codex status=done session=--last took=1s -->";
        assert_eq!(
            &line[value_range(line, "session").unwrap()],
            "session=--last"
        );
        let quoted = "<!-- chatmd id=t1 agent=claude session=\"a \\\" b\" -->";
        assert_eq!(
            &quoted[value_range(quoted, "session").unwrap()],
            "session=\"a \\\" b\""
        );
    }
}
