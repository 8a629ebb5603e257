//! A turn's section found by its identity, not by offsets alone. Anchors follow
//! every change, but a change that was misread (an editor's report of an unusual
//! shape, another program rewriting the file) must never make a record land in
//! someone else's text: before each write the places are checked against the text,
//! and when the status line there is not the turn's own, the section is looked up by
//! its turn id. A section that is gone (the user deleted it, or copied it so that
//! two claim the id) is written nowhere.

use super::anchors::Places;
use crate::document::chat::Chat;
use crate::document::status::StatusComment;

/// Where a turn's section is, as the text shows it.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Found {
    /// The places hold it.
    Here,
    /// It is elsewhere: its places now.
    Moved(Places),
    /// No section (or more than one) carries the turn's id.
    Gone,
}

/// Whether `places` still hold the section of turn `id` in `text`; else where it is.
/// `ends_line`: what the turn wrote so far ends a line (the answer's end is then past
/// the line break after its last words).
pub(super) fn check(text: &str, places: &Places, id: &str, ends_line: bool) -> Found {
    if holds(text, places, id) {
        return Found::Here;
    }
    match refind(text, id, ends_line) {
        Some(places) => Found::Moved(places),
        None => Found::Gone,
    }
}

fn holds(text: &str, places: &Places, id: &str) -> bool {
    places.status.end <= places.body_start
        && places.body_start <= places.end
        && places.end <= text.len()
        && text
            .get(places.status.clone())
            // The comment and nothing around it: a range that took in the line break
            // after it (another program's rewrite of the comment's line, read as one
            // change with the answer's first words) would drop that break when the
            // comment is written again, and the answer would go on on the comment's line.
            .filter(|line| line.starts_with("<!--") && line.ends_with("-->"))
            .and_then(|line| StatusComment::parse(line).ok())
            .is_some_and(|comment| comment.id() == Some(id))
}

fn refind(text: &str, id: &str, ends_line: bool) -> Option<Places> {
    let chat = Chat::parse(text);
    let mut carrying = chat
        .messages
        .iter()
        .filter(|m| m.status_comment(text).and_then(StatusComment::id) == Some(id));
    let message = carrying.next()?;
    if carrying.next().is_some() {
        return None;
    }
    let status = message.status_range()?;
    let body = message.body_range();
    let words = text[body.clone()]
        .trim_end_matches([' ', '\t', '\n', '\r'])
        .len();
    let mut end = body.start + words;
    if ends_line && words > 0 {
        let rest = &text[end..body.end];
        end += ["\r\n", "\n", "\r"]
            .iter()
            .find(|eol| rest.starts_with(**eol))
            .map_or(0, |eol| eol.len());
    }
    Some(Places {
        status,
        body_start: body.start,
        end,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    const CHAT: &str =
        "## @me\nq\n\n## @r\n<!-- chatmd id=t1 status=streaming -->\nThe answer\n\n## @me\nnext\n";

    fn places_of(text: &str) -> Places {
        let status = text.find("<!--").unwrap()..text.find("-->").unwrap() + 3;
        let body_start = status.end + 1;
        let end = text.find("The answer\n").unwrap() + "The answer\n".len();
        Places {
            status,
            body_start,
            end,
        }
    }

    #[test]
    fn places_that_hold_the_section_stand() {
        assert_eq!(check(CHAT, &places_of(CHAT), "t1", true), Found::Here);
    }

    #[test]
    fn a_section_whose_places_went_wrong_is_found_by_its_id() {
        let mut wrong = places_of(CHAT);
        wrong.status = wrong.status.start + 3..wrong.status.end + 3;
        wrong.end = CHAT.len();
        assert_eq!(
            check(CHAT, &wrong, "t1", true),
            Found::Moved(places_of(CHAT))
        );
        let mid_line = places_of(CHAT);
        assert_eq!(
            check(CHAT, &wrong, "t1", false),
            Found::Moved(Places {
                end: mid_line.end - 1,
                ..mid_line
            })
        );
    }

    #[test]
    fn a_deleted_or_copied_section_is_gone() {
        let deleted = "## @me\nq\n\n## @me\nnext\n";
        let places = places_of(CHAT);
        assert_eq!(check(deleted, &places, "t1", true), Found::Gone);
        let copied = format!("{CHAT}\n## @r\n<!-- chatmd id=t1 status=streaming -->\ncopy\n");
        let mut moved = places.clone();
        moved.status.start += 1;
        assert_eq!(check(&copied, &moved, "t1", true), Found::Gone);
        assert_eq!(check(CHAT, &places, "t2", true), Found::Gone);
    }

    #[test]
    fn a_status_range_that_took_in_the_line_break_after_it_is_found_again() {
        // Another program wrote back an older comment line without the answer's first
        // words: read as one change from inside the comment to the end, it moved the
        // comment's end past the line break.
        let places = places_of(CHAT);
        let wide = Places {
            status: places.status.start..places.status.end + 1,
            body_start: places.body_start,
            end: places.end,
        };
        assert_eq!(check(CHAT, &wide, "t1", true), Found::Moved(places.clone()));
        let early = Places {
            status: places.status.start - 1..places.status.end,
            ..places.clone()
        };
        assert_eq!(check(CHAT, &early, "t1", true), Found::Moved(places));
    }
}
