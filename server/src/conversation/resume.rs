//! Which session a resuming member (the default) continues: the `session` of its latest
//! answer in this chat, and from where on the chat is new to that session. Pure: the
//! caller says which agent names are of the member's kind.

use crate::document::chat::Chat;

/// A session to continue.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LastSession {
    /// The agent's own session id, from the status comment.
    pub session: String,
    /// The index in `chat.messages` of the answer that holds it: the session has seen
    /// everything up to there, so only later messages need to be sent.
    pub since: usize,
}

/// The session `handle` continues to answer message `before`: the one in its latest
/// answer before that message whose status comment has a `session` and an `agent` that
/// `same_kind` accepts (a session of another CLI cannot be resumed). `None` when there
/// is none.
pub fn last_session(
    text: &str,
    chat: &Chat,
    handle: &str,
    before: usize,
    same_kind: impl Fn(&str) -> bool,
) -> Option<LastSession> {
    let end = before.min(chat.messages.len());
    chat.messages[..end]
        .iter()
        .enumerate()
        .rev()
        .filter(|(_, m)| m.handle(text).eq_ignore_ascii_case(handle))
        .find_map(|(index, m)| {
            let status = m.status_comment(text)?;
            let session = status.session().filter(|s| !s.is_empty())?;
            same_kind(status.agent()?).then(|| LastSession {
                session: session.to_owned(),
                since: index,
            })
        })
}

/// Every session id named by a status comment in `text` (a chat file).
pub fn sessions(text: &str) -> Vec<String> {
    let chat = Chat::parse(text);
    chat.messages
        .iter()
        .filter_map(|m| m.status_comment(text)?.session())
        .map(str::to_owned)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    const CHAT: &str = "\
## @me
@reviewer look

## @reviewer
<!-- chatmd id=t1 agent=claude status=done session=aaa -->
First.

## @tester
<!-- chatmd id=t2 agent=codex status=done session=ccc -->
Tests.

## @reviewer
<!-- chatmd id=t3 agent=claude status=done session=bbb -->
Second.

## @Reviewer
<!-- chatmd id=t4 agent=claude status=error error=\"not installed\" -->

## @me
@reviewer again
";

    fn find(text: &str, handle: &str, before: usize) -> Option<LastSession> {
        let chat = Chat::parse(text);
        last_session(text, &chat, handle, before, |agent| agent == "claude")
    }

    fn at(session: &str, since: usize) -> Option<LastSession> {
        Some(LastSession {
            session: session.to_owned(),
            since,
        })
    }

    #[test]
    fn the_latest_answer_with_a_session_wins_and_later_ones_without_are_skipped() {
        // t4 has no session (it never started): t3's is the latest.
        assert_eq!(find(CHAT, "reviewer", 5), at("bbb", 3));
        assert_eq!(find(CHAT, "REVIEWER", 5), at("bbb", 3));
    }

    #[test]
    fn only_answers_before_the_message_count() {
        assert_eq!(find(CHAT, "reviewer", 3), at("aaa", 1));
        assert_eq!(find(CHAT, "reviewer", 1), None);
        assert_eq!(find(CHAT, "reviewer", 99), at("bbb", 3));
    }

    #[test]
    fn another_member_or_another_cli_is_not_resumed() {
        assert_eq!(find(CHAT, "tester", 5), None);
        assert_eq!(find(CHAT, "writer", 5), None);
        let chat = Chat::parse(CHAT);
        let codex = last_session(CHAT, &chat, "tester", 5, |agent| agent == "codex");
        assert_eq!(codex, at("ccc", 2));
    }

    #[test]
    fn a_comment_without_agent_or_with_an_empty_session_is_not_resumed() {
        let text = "## @reviewer\n<!-- chatmd id=t1 status=done session=aaa -->\nx\n\n\
                    ## @reviewer\n<!-- chatmd id=t2 agent=claude status=done session=\"\" -->\ny\n\n\
                    ## @me\nhi\n";
        assert_eq!(find(text, "reviewer", 2), None);
    }

    #[test]
    fn sessions_lists_every_status_session() {
        assert_eq!(sessions(CHAT), ["aaa", "ccc", "bbb"]);
    }
}
