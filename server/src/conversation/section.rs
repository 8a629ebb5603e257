//! What the server writes into a chat: a new section (`## @handle` and its status
//! comment), the status comment at every transition, and the reply stub.

use std::time::{Duration, SystemTime};

use super::clock;
use crate::agents::Usage;
use crate::document::chat::Chat;
use crate::document::status::{StatusComment, TurnStatus};
use crate::document::units;

/// The next free turn id of a chat: `t<N>` one past the largest in use.
pub fn next_turn_number(text: &str, chat: &Chat) -> u64 {
    chat.messages
        .iter()
        .filter_map(|m| m.status_comment(text))
        .filter_map(|c| c.id())
        .filter_map(|id| id.strip_prefix('t')?.parse::<u64>().ok())
        .max()
        .map_or(1, |n| n + 1)
}

/// The file's own line break (of its first line; `\n` for a file without one).
pub use crate::document::lines::line_break;

/// The text that appends a section for `handle` at the end of `text`: a blank line
/// first, then the heading, then the status comment. Returns the text and the byte
/// offsets (relative to the insertion point) of the status line and of the body start.
pub fn new_section(
    text: &str,
    handle: &str,
    status: &StatusComment,
) -> (String, std::ops::Range<usize>, usize) {
    section_after(text, line_break(text), handle, status)
}

/// [`new_section`] after `before` (the text, or only its end: what the section
/// follows), with the document's line break `eol`.
pub fn section_after(
    before: &str,
    eol: &str,
    handle: &str,
    status: &StatusComment,
) -> (String, std::ops::Range<usize>, usize) {
    let mut out = String::new();
    if !before.is_empty() && !before.ends_with('\n') && !before.ends_with('\r') {
        out.push_str(eol);
    }
    if !before.is_empty() && !ends_with_blank_line(before) {
        out.push_str(eol);
    }
    out.push_str("## @");
    out.push_str(handle);
    out.push_str(eol);
    let start = out.len();
    out.push_str(&status.render());
    let end = out.len();
    out.push_str(eol);
    let body = out.len();
    (out, start..end, body)
}

fn ends_with_blank_line(text: &str) -> bool {
    let trimmed = text.trim_end_matches([' ', '\t']);
    trimmed.ends_with("\n\n") || trimmed.ends_with("\r\n\r\n") || trimmed.ends_with("\r\r")
}

/// The status comment of a turn that was just queued.
pub fn queued(id: &str, agent: &str) -> StatusComment {
    let mut c = StatusComment::new();
    c.set("id", id);
    c.set("agent", agent);
    c.set_status(TurnStatus::Queued);
    c
}

/// Marks the turn as streaming, with what the agent said about itself.
pub fn streaming(c: &mut StatusComment, started: SystemTime) {
    c.set_status(TurnStatus::Streaming);
    c.set("started", clock::rfc3339(started));
}

/// How a turn ended, for its final status comment.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Ending {
    pub stop: Option<String>,
    pub exit: Option<i32>,
    pub usage: Option<Usage>,
    pub error: Option<String>,
    /// How many actions the agent was not allowed to take.
    pub denied: usize,
}

/// The final status comment: the status, how long it took and whatever the agent
/// reported (stop reason, exit code, tokens, error). The process no longer runs it.
pub fn finished(c: &mut StatusComment, status: TurnStatus, took: Duration, ending: &Ending) {
    unstamp(c);
    c.set_status(status);
    c.set("took", units::took(took));
    if let Some(stop) = &ending.stop {
        c.set("stop", stop.as_str());
    }
    if let Some(exit) = ending.exit {
        c.set("exit", exit.to_string());
    }
    if let Some(u) = ending
        .usage
        .filter(|u| u.input_tokens > 0 || u.output_tokens > 0)
    {
        c.set("tokens", format!("{}/{}", u.input_tokens, u.output_tokens));
    }
    if ending.denied > 0 {
        c.set("denied", ending.denied.to_string());
    }
    if let Some(error) = &ending.error {
        c.set("error", short(error, 200));
    }
}

/// The first line of `text`, cut to `max` chars, for a status comment.
fn short(text: &str, max: usize) -> String {
    let line = text
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .trim();
    let mut out: String = line.chars().take(max).collect();
    if line.chars().count() > max {
        out.push('…');
    }
    out
}

/// The reply stub appended after a round: an empty heading for the human.
pub fn reply_stub(text: &str, human: &str) -> String {
    let eol = line_break(text);
    let mut out = String::new();
    if !text.ends_with('\n') && !text.ends_with('\r') {
        out.push_str(eol);
    }
    if !ends_with_blank_line(text) {
        out.push_str(eol);
    }
    out.push_str("## @");
    out.push_str(human);
    out.push_str(eol);
    out
}

/// Removes the process that runs a turn (`host`, `pid`, written by `turns/owner.rs`)
/// from its status comment: the turn ended.
pub fn unstamp(comment: &mut StatusComment) {
    comment.remove("host");
    comment.remove("pid");
}

/// The status rewrites that mark turns left `queued`, `streaming` or `waiting` with
/// no running process (`is_running(member, status comment)` says which still run) as
/// `interrupted`. The comment no longer names a process.
pub fn interrupted_edits(
    text: &str,
    chat: &Chat,
    mut is_running: impl FnMut(&str, &StatusComment) -> bool,
) -> Vec<(std::ops::Range<usize>, String)> {
    let mut edits = Vec::new();
    // Most turns are over: their comments are not parsed (a long chat has 20k, and this
    // runs as it opens). A status is a word of the comment, or escaped in a quoted value.
    let unfinished_words = ["queued", "streaming", "waiting", "\\"];
    for message in &chat.messages {
        let Some(range) = message.status_range() else {
            continue;
        };
        let raw = text.get(range.clone()).unwrap_or("");
        if !unfinished_words.iter().any(|word| raw.contains(word)) {
            continue;
        }
        let Some(comment) = message.status_comment(text) else {
            continue;
        };
        let unfinished = matches!(
            comment.status(),
            Some(TurnStatus::Queued | TurnStatus::Streaming | TurnStatus::Waiting)
        );
        if unfinished && !is_running(message.handle(text), comment) {
            let mut comment = comment.clone();
            unstamp(&mut comment);
            comment.set_status(TurnStatus::Interrupted);
            edits.push((range, comment.render()));
        }
    }
    edits
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn sections_start_with_a_blank_line_and_a_status_comment() {
        let c = queued("t3", "claude");
        let (text, status, body) = new_section("## @me\nhi @a\n", "a", &c);
        assert_eq!(
            text,
            "\n## @a\n<!-- chatmd id=t3 agent=claude status=queued -->\n"
        );
        assert_eq!(
            &text[status],
            "<!-- chatmd id=t3 agent=claude status=queued -->"
        );
        assert_eq!(body, text.len());
        assert_eq!(
            new_section("## @me\nhi", "a", &c).0,
            "\n\n## @a\n<!-- chatmd id=t3 agent=claude status=queued -->\n"
        );
        assert_eq!(
            new_section("## @me\r\nhi\r\n\r\n", "a", &c).0,
            "## @a\r\n<!-- chatmd id=t3 agent=claude status=queued -->\r\n"
        );
        assert_eq!(
            new_section("## @me\rhi", "a", &c).0,
            "\r\r## @a\r<!-- chatmd id=t3 agent=claude status=queued -->\r"
        );
    }

    #[test]
    fn turn_numbers_continue_after_the_largest() {
        let text = "## @a\n<!-- chatmd id=t2 -->\nx\n## @b\n<!-- chatmd id=t7 -->\n## @c\n<!-- chatmd id=zz -->\n";
        assert_eq!(next_turn_number(text, &Chat::parse(text)), 8);
        assert_eq!(next_turn_number("", &Chat::parse("")), 1);
    }

    #[test]
    fn the_final_status_records_the_outcome() {
        let mut c = queued("t1", "codex");
        streaming(&mut c, std::time::UNIX_EPOCH);
        let ending = Ending {
            stop: Some("end_turn".into()),
            exit: Some(0),
            usage: Some(Usage {
                input_tokens: 120,
                output_tokens: 42,
            }),
            error: None,
            denied: 2,
        };
        finished(
            &mut c,
            TurnStatus::Done,
            Duration::from_millis(3200),
            &ending,
        );
        assert_eq!(
            c.render(),
            "<!-- chatmd id=t1 agent=codex status=done started=1970-01-01T00:00:00Z took=3.2s stop=end_turn exit=0 tokens=120/42 denied=2 -->"
        );
        let mut c = queued("t2", "claude");
        let failed = Ending {
            error: Some("Not logged in · Please run /login\nmore".into()),
            ..Ending::default()
        };
        finished(&mut c, TurnStatus::Error, Duration::from_secs(1), &failed);
        assert_eq!(
            c.render(),
            "<!-- chatmd id=t2 agent=claude status=error took=1.0s error=\"Not logged in · Please run /login\" -->"
        );
    }

    #[test]
    fn unfinished_turns_without_a_process_are_interrupted() {
        let text = "## @a\n<!-- chatmd id=t1 status=streaming host=h pid=7 -->\nhalf\n## @b\n<!-- chatmd id=t2 status=streaming -->\n## @c\n<!-- chatmd id=t3 status=done -->\n";
        let chat = Chat::parse(text);
        let edits = interrupted_edits(text, &chat, |m, _| m == "b");
        assert_eq!(
            edits,
            vec![(
                6..57,
                "<!-- chatmd id=t1 status=interrupted -->".to_string()
            )]
        );
    }

    #[test]
    fn the_line_break_is_the_documents_own() {
        assert_eq!(line_break("a\nb\r\n"), "\n");
        assert_eq!(line_break("a\r\nb\n"), "\r\n");
        assert_eq!(line_break("a\rb"), "\r");
        assert_eq!(line_break("a"), "\n");
        assert_eq!(reply_stub("x\r", "me"), "\r## @me\r");
    }

    #[test]
    fn the_reply_stub_follows_a_blank_line() {
        assert_eq!(reply_stub("x\n", "me"), "\n## @me\n");
        assert_eq!(reply_stub("x", "lead"), "\n\n## @lead\n");
        assert_eq!(reply_stub("x\n\n", "me"), "## @me\n");
    }
}
