use super::*;
use crate::team::{Member, Team};
use pretty_assertions::assert_eq;
use std::path::PathBuf;

fn team() -> Team {
    let mut t = Team::empty(PathBuf::from("/t"));
    t.members = vec![Member::new("a", "claude", PathBuf::from("/t/a"))];
    t
}

/// The text after marking the message Send would queue.
fn marked(text: &str) -> Result<String, QueueError> {
    let team = team();
    let chat = Chat::parse(text);
    let roster = Roster::new(&team, chat.front_matter.as_ref());
    let Some(i) = to_queue(text, &chat, &roster)? else {
        return Ok(text.to_owned());
    };
    let (range, new) = mark(text, &chat, i);
    let mut out = text.to_owned();
    out.replace_range(range, &new);
    Ok(out)
}

fn unmarked(text: &str) -> String {
    let team = team();
    let chat = Chat::parse(text);
    let roster = Roster::new(&team, chat.front_matter.as_ref());
    let i = queued(text, &chat, &roster).expect("a queued message");
    let mut out = text.to_owned();
    out.replace_range(unmark(text, &chat, i).expect("marked"), "");
    out
}

const RUNNING: &str =
    "## @me\n@a look\n\n## @a\n<!-- chatmd id=t1 agent=claude status=streaming -->\nhm\n";

#[test]
fn the_message_after_the_running_sections_is_marked_and_unmarked_exactly() {
    let text = format!("{RUNNING}\n## @me\nand the tests?\n");
    let queued = marked(&text).unwrap();
    assert_eq!(
        queued,
        format!("{RUNNING}\n## @me\n<!-- chatmd status=queued -->\nand the tests?\n")
    );
    // Queued twice is queued once.
    assert_eq!(marked(&queued).unwrap(), queued);
    assert_eq!(unmarked(&queued), text);
    let crlf = text.replace('\n', "\r\n");
    let queued = marked(&crlf).unwrap();
    assert!(queued.ends_with("## @me\r\n<!-- chatmd status=queued -->\r\nand the tests?\r\n"));
    assert_eq!(unmarked(&queued), crlf);
}

#[test]
fn a_message_being_answered_is_not_queued_again() {
    assert_eq!(
        marked(RUNNING),
        Err(QueueError::Answering("a".into(), "me".into()))
    );
    assert_eq!(
        marked("## @a\nhi\n"),
        Err(QueueError::NoMessage("me".into()))
    );
}

#[test]
fn the_queued_message_is_the_human_one_not_a_queued_turn() {
    let text = "## @me\n@a go\n\n## @a\n<!-- chatmd id=t1 agent=claude status=queued -->\n";
    let team = team();
    let chat = Chat::parse(text);
    let roster = Roster::new(&team, chat.front_matter.as_ref());
    assert_eq!(queued(text, &chat, &roster), None);
}
