//! A round's sections, written at once with their status comments ([`append_sections`]),
//! and where they go: right after the message they answer. A user who Sends
//! and at once starts the next message at the end (`## @me` and a draft) typed it
//! before the sections could land; those sections still belong above it, or the
//! answers would stream in after the user's next message and the draft would read as
//! if it came first (and a queued Send of it would be refused as answered after).
//!
//! Text the user added to the end of the asked message without a new heading is part
//! of that message (they are still writing it): the sections go after it, as before.

use super::anchors::{Anchors, Places};
use super::flush::{MAX_STALE, gave_up};
use super::live::Live;
use super::round::Ready;
use super::{Change, Edited, EditorPort, PortError, Snapshot};
use crate::conversation::prompt::HELD_KEY;
use crate::conversation::routing::council;
use crate::conversation::section;
use crate::conversation::seen::SEEN_KEY;

/// Inserts every section at once, in the order the turns start, right after the
/// message they answer (`asked`, in `sent`: the document as the round read it) as it
/// is when the edit lands: at the end, unless the user began a next message there
/// since (`sections_place`).
pub(super) async fn append_sections<P: EditorPort>(
    port: &mut P,
    ready: &[Ready<'_>],
    sent: &Snapshot,
    asked: usize,
) -> Result<(Vec<Live>, Anchors), PortError> {
    let appended = port.edit_until_applied(MAX_STALE, |snapshot| {
        let (text, chat) = (&*snapshot.text, &*snapshot.chat);
        let (at, eol_after) = insertion_point(sent, asked, snapshot);
        let first = section::next_turn_number(text, chat);
        let eol = section::line_break(text);
        let mut insert = String::new();
        let mut places = Vec::new();
        let mut live = Vec::new();
        let mut letters = 0;
        for (number, p) in (first..).zip(ready) {
            let mut status = section::queued(&format!("t{number}"), &p.member.agent);
            super::owner::Owner::this().stamp(&mut status); // whose process runs it
            if let Some(seen) = &p.planned.seen {
                status.set(SEEN_KEY, seen.as_str());
            }
            if let Some(held) = &p.planned.held {
                status.set(HELD_KEY, held.as_str());
            }
            if let Some(mark) = &p.planned.council {
                council::mark(&mut status, mark, &mut letters);
            }
            // The section follows the text, or the sections before it in this edit.
            let before = if insert.is_empty() {
                &text[..at]
            } else {
                &insert
            };
            let (piece, status_range, body) =
                section::section_after(before, eol, &p.member.handle, &status);
            let base = insert.len();
            places.push(Places {
                status: base + status_range.start..base + status_range.end,
                body_start: base + body,
                end: base + body,
            });
            insert.push_str(&piece);
            let mut turn = Live::new(p.member, status, eol);
            turn.fallback_seen = p.planned.fallback_seen.clone();
            turn.session_report = p.planned.session_report.clone();
            live.push(turn);
        }
        if eol_after {
            insert.push_str(eol);
        }
        Ok::<_, PortError>(Some((vec![(at..at, insert)], (live, places))))
    });
    let (live, places) = match appended.await? {
        Edited::Applied(appended) => appended,
        Edited::Unneeded | Edited::GaveUp => return Err(gave_up()),
    };
    // Place the anchors where the sections landed, then move them through what
    // happened after.
    let changes = port.changes().await?;
    let anchors = Anchors::landed(&changes, &places, |_| {}).ok_or(PortError::NotReported)?;
    Ok((live, anchors))
}

/// Where to insert the sections into `now`, and whether a line break must follow them
/// to keep the user's next heading on a line of its own after a blank line. `asked`
/// is the message (an index into `sent`'s messages) the round answers; `sent` is the
/// document as the round read it.
pub(super) fn insertion_point(sent: &Snapshot, asked: usize, now: &Snapshot) -> (usize, bool) {
    let end = (now.text.len(), false);
    // Only the newest message's sections are placed by it; an answer to an older
    // message goes at the end, as it always has.
    if asked + 1 != sent.chat.messages.len() || now.version == sent.version {
        return end;
    }
    let asked_end = map_end(&sent.text, &now.text);
    let Some(next) = now
        .chat
        .messages
        .iter()
        .map(|m| m.range().start)
        .find(|&start| start >= asked_end)
    else {
        return end;
    };
    let between = &now.text[asked_end..next];
    let content = between.trim_end_matches(['\n', '\r']).len();
    let at = if content == 0 {
        asked_end
    } else {
        let rest = &between[content..];
        let eol = if rest.starts_with("\r\n") {
            2
        } else {
            usize::from(!rest.is_empty())
        };
        asked_end + content + eol
    };
    // A blank line is kept before the user's heading: one line break after the
    // sections when there was none between the message and the heading.
    let blank_before_next = now.text[at..next].contains('\n');
    (at, !blank_before_next)
}

/// Where the end of `sent` (the asked message's end: it is the last) is in `now`, the
/// text the user made of it since: through the changes between the two, staying before
/// anything inserted right there.
fn map_end(sent: &str, now: &str) -> usize {
    let mut at = sent.len();
    // Listed from the last to the first, each applying to the text before it.
    for change in Change::between(sent, now) {
        if at > change.range.start {
            at = if at >= change.range.end {
                at - change.range.len() + change.new_len
            } else {
                change.range.start
            };
        }
    }
    at
}

#[cfg(test)]
mod tests {
    use super::*;

    fn place(sent: &str, now: &str) -> (String, bool) {
        let (sent, now) = (Snapshot::parse(sent, 1), Snapshot::parse(now, 2));
        let asked = sent.chat.messages.len() - 1;
        let (at, eol) = insertion_point(&sent, asked, &now);
        (format!("{}|{}", &now.text[..at], &now.text[at..]), eol)
    }

    #[test]
    fn nothing_typed_means_the_end() {
        let sent = "## @me\n@reviewer look\n";
        let (sent_snapshot, now) = (Snapshot::parse(sent, 1), Snapshot::parse(sent, 1));
        assert_eq!(
            insertion_point(&sent_snapshot, 0, &now),
            (sent.len(), false)
        );
    }

    #[test]
    fn a_next_message_typed_at_the_end_stays_below_the_sections() {
        let sent = "## @me\n@reviewer look\n";
        assert_eq!(
            place(sent, "## @me\n@reviewer look\n\n## @me\ndraft\n"),
            ("## @me\n@reviewer look\n|\n## @me\ndraft\n".into(), false)
        );
        assert_eq!(
            place(sent, "## @me\n@reviewer look\n## @me\ndraft"),
            ("## @me\n@reviewer look\n|## @me\ndraft".into(), true)
        );
        assert_eq!(
            place(
                sent,
                "## @me\n@reviewer look\nmore words\n\n\n## @me\ndraft"
            ),
            (
                "## @me\n@reviewer look\nmore words\n|\n\n## @me\ndraft".into(),
                false
            )
        );
    }

    #[test]
    fn text_added_to_the_message_alone_keeps_the_sections_after_it() {
        let sent = "# T\n\n## @me\n@reviewer look\n";
        assert_eq!(
            place(sent, "# T typed\n\n## @me\n@reviewer look\nand more\n"),
            (
                "# T typed\n\n## @me\n@reviewer look\nand more\n|".into(),
                false
            )
        );
    }

    #[test]
    fn typing_above_moves_the_place_along() {
        let sent = "# T\n\n## @me\n@reviewer look\r\n";
        assert_eq!(
            place(
                sent,
                "# Title\n\n## @me\n@reviewer look\r\nmore\r\n\r\n## @me\r\nnext\r\n"
            ),
            (
                "# Title\n\n## @me\n@reviewer look\r\nmore\r\n|\r\n## @me\r\nnext\r\n".into(),
                false
            )
        );
    }

    #[test]
    fn an_older_message_is_answered_at_the_end() {
        let sent = Snapshot::parse("## @me\n@reviewer a\n\n## @me\nb\n", 1);
        let now = Snapshot::parse("## @me\n@reviewer a\n\n## @me\nb\n\n## @me\nc\n", 2);
        assert_eq!(insertion_point(&sent, 0, &now), (now.text.len(), false));
    }
}
