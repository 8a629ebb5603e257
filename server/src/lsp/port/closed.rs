//! A chat closed in the editor while turns write into it: the turns go on in the file
//! on disk. When the file is not the text the editor had (the user closed it without
//! saving), offsets in the editor's text mean nothing in the file, so the sections of
//! the running turns (their headings, status comments and the answers so far) are
//! carried into it: they replace their own older copy where the file has one (saved
//! earlier), else they are appended at its end. The user's unsaved edits are gone, as
//! the user asked; chatmd's answers are not.

use crate::conversation::section::line_break;
use crate::document::chat::Chat;
use crate::turns::Change;

/// The file's new text, and the changes that turn the editor's text into it (so the
/// running turns' places follow their sections).
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Carried {
    pub text: String,
    pub changes: Vec<Change>,
}

/// Carries the sections whose status comments have `ids` from `view` (the editor's
/// last text) into `disk` (the file); `None` when `view` has none of them.
pub(super) fn carry_over(view: &str, disk: &str, ids: &[String]) -> Option<Carried> {
    let (start, end) = sections(view, ids)?;
    let block = &view[start..end];
    let (before, after) = match sections(disk, ids) {
        Some((from, to)) => (&disk[..from], &disk[to..]),
        None => (disk, ""),
    };
    let eol = line_break(if disk.is_empty() { view } else { disk });
    let mut text = before.to_string();
    if !text.is_empty() {
        end_with_blank_line(&mut text, eol);
    }
    let at = text.len();
    text.push_str(block);
    let block_end = text.len();
    if !after.is_empty() {
        end_with_blank_line(&mut text, eol);
        text.push_str(after);
    }
    let mut changes = Vec::new();
    if start > 0 || at > 0 {
        changes.push(Change::theirs(0..start, at));
    }
    // The editor's text after the sections, now: the block ends at `block_end`.
    let rest = view.len() - end;
    if rest > 0 || text.len() > block_end {
        changes.push(Change::theirs(
            block_end..block_end + rest,
            text.len() - block_end,
        ));
    }
    Some(Carried { text, changes })
}

/// From the first message with one of `ids` to the end of the last one.
pub(super) fn sections(text: &str, ids: &[String]) -> Option<(usize, usize)> {
    let chat = Chat::parse(text);
    let ours: Vec<_> = chat
        .messages
        .iter()
        .filter(|m| {
            m.status_comment(text)
                .and_then(|c| c.id())
                .is_some_and(|id| ids.iter().any(|i| i == id))
        })
        .collect();
    Some((ours.first()?.range().start, ours.last()?.range().end))
}

fn end_with_blank_line(text: &mut String, eol: &str) {
    if !text.ends_with(['\n', '\r']) {
        text.push_str(eol);
    }
    let trimmed = text.trim_end_matches([' ', '\t']);
    let blank =
        trimmed.ends_with("\n\n") || trimmed.ends_with("\r\n\r\n") || trimmed.ends_with("\r\r");
    if !blank && !trimmed.is_empty() {
        text.push_str(eol);
    }
}

/// The ids of the sections an edit writes (its text holds their headings and status
/// comments): the turns whose sections follow the document to disk.
pub(super) fn section_ids(inserted: &str) -> Vec<String> {
    let chat = Chat::parse(inserted);
    chat.messages
        .iter()
        .filter_map(|m| m.status_comment(inserted)?.id().map(str::to_string))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::turns::anchors::{Anchors, Places};
    use pretty_assertions::assert_eq;

    const SECTION: &str = "## @a\n<!-- chatmd id=t2 status=streaming -->\nhalf an ";

    /// Moves `places` (in `view`) through the changes; returns what they cover in the
    /// new text.
    fn follow(carried: &Carried, view: &str, status: &str) -> (String, usize) {
        let at = view.find(status).unwrap();
        let mut anchors = Anchors::default();
        anchors.add(Places {
            status: at..at + status.len(),
            body_start: at + status.len() + 1,
            end: view.len(),
        });
        for change in &carried.changes {
            anchors.apply(change);
        }
        let places = anchors.get(0);
        (carried.text[places.status.clone()].to_string(), places.end)
    }

    #[test]
    fn sections_go_to_the_end_of_a_file_that_never_had_them() {
        let view = format!("# Notes typed, not saved\n\n## @me\n@a go\n\n{SECTION}");
        let disk = "## @me\n@a go";
        let ids = section_ids(&format!("\n{SECTION}"));
        assert_eq!(ids, ["t2"]);
        let carried = carry_over(&view, disk, &ids).unwrap();
        assert_eq!(carried.text, format!("## @me\n@a go\n\n{SECTION}"));
        let (status, end) = follow(&carried, &view, "<!-- chatmd id=t2 status=streaming -->");
        assert_eq!(status, "<!-- chatmd id=t2 status=streaming -->");
        assert_eq!(end, carried.text.len(), "the answer goes on at its end");
    }

    #[test]
    fn sections_replace_their_older_copy_in_the_file() {
        let view = format!("## @me\n@a go\n\n{SECTION}more words\n\nunsaved typing\n");
        let disk =
            "## @me\n@a go\n\n## @a\n<!-- chatmd id=t2 status=queued -->\n\n## @me\nsaved reply\n";
        let carried = carry_over(&view, disk, &["t2".to_string()]).unwrap();
        assert_eq!(
            carried.text,
            format!(
                "## @me\n@a go\n\n{SECTION}more words\n\nunsaved typing\n\n## @me\nsaved reply\n"
            )
        );
        let (status, end) = follow(&carried, &view, "<!-- chatmd id=t2 status=streaming -->");
        assert_eq!(status, "<!-- chatmd id=t2 status=streaming -->");
        assert_eq!(&carried.text[..end], view.as_str());
    }

    #[test]
    fn without_sections_there_is_nothing_to_carry() {
        assert_eq!(
            carry_over("## @me\nhi\n", "## @me\n", &["t1".to_string()]),
            None
        );
        assert_eq!(carry_over(&format!("\n{SECTION}"), "", &[]), None);
    }
}
