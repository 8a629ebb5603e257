//! `routing: compare` (and round 1 of `council`): every member asked answers the same
//! message on its own. Each member sees the human's messages and its own answers only,
//! never another member's (unless the human quotes it into a message), answers hand the
//! word to nobody, and "Continue with @x" starts the next message addressed to x alone.

use super::Next;
use super::mode::RoutingMode;
use crate::conversation::roster::Roster;
use crate::document::ByteRange;
use crate::document::chat::Chat;
use crate::document::front_matter::Routing;

/// Why nobody follows an answer in a compare chat, for the user.
pub const NO_HAND_OFFS: &str = "in `routing: compare`, answers hand the word to nobody (an `@member` in an answer is not a hand-off): write your next message, or use Continue with @member on an answer";

/// Whether members answer on their own in this chat: `compare` or `council`.
pub fn answers_apart(chat: &Chat) -> bool {
    super::mode_of(chat).answers_apart()
}

/// The `compare` mode.
pub struct CompareMode;

impl RoutingMode for CompareMode {
    fn routing(&self) -> Routing {
        Routing::Compare
    }

    fn help(&self) -> &'static str {
        "Every member asked answers the same message on its own, in parallel: none sees another's answer, answers hand the word to nobody, and \"Continue with @x\" addresses the next message to x alone (its own session)."
    }

    fn unaddressed(&self, _text: &str, _chat: &Chat, roster: &Roster, _index: usize) -> Next {
        super::all::everyone(roster)
    }

    fn after_answer(
        &self,
        _text: &str,
        _chat: &Chat,
        _roster: &Roster,
        _index: usize,
    ) -> Option<Next> {
        Some(Next::Nobody(NO_HAND_OFFS.to_owned()))
    }

    fn answers_apart(&self) -> bool {
        true
    }
}

/// The chat's routing (default `mentions`).
pub fn routing_of(chat: &Chat) -> Routing {
    chat.front_matter
        .as_ref()
        .map(|fm| fm.routing())
        .unwrap_or_default()
}

/// Whether message `index` may go into `member`'s prompt: always, except in a chat
/// whose members answer apart, where another member's answer never does (the human's
/// messages do, so quoting an answer into a message hands it over).
pub fn shown_to(text: &str, chat: &Chat, roster: &Roster, member: &str, index: usize) -> bool {
    if !answers_apart(chat) {
        return true;
    }
    let handle = chat.messages[index].handle(text);
    roster.is_human(handle) || handle.eq_ignore_ascii_case(member)
}

/// "Continue with @x" on the answer of member x at message `index`: the edit that
/// starts the next human message addressed to x alone (the empty reply stub at the end
/// gets `@x `, else a new `## @human` message is appended). `None` when the chat's
/// members do not answer apart, or the message is not an agent's answer.
pub fn continue_with(
    text: &str,
    chat: &Chat,
    roster: &Roster,
    index: usize,
) -> Option<(String, (ByteRange, String))> {
    if !answers_apart(chat) {
        return None;
    }
    let handle = chat.messages.get(index)?.handle(text);
    let member = roster.member(handle).filter(|_| roster.is_ai(handle))?;
    let eol = crate::conversation::section::line_break(text);
    let mention = format!("@{} ", member.handle);
    let end = text.len();
    let stub = chat
        .messages
        .last()
        .filter(|m| roster.is_human(m.handle(text)) && m.is_empty(text));
    let insert = match stub {
        // The stub's heading line ends the text (or is followed by blank lines only).
        Some(_) if text.ends_with('\n') || text.ends_with('\r') => mention,
        Some(_) => format!("{eol}{mention}"),
        None => {
            let blank = format!("{eol}{eol}");
            let lead = if text.is_empty() || text.ends_with(&blank) {
                ""
            } else if text.ends_with(eol) {
                eol
            } else {
                // The last line is not ended: end it, then a blank line.
                blank.as_str()
            };
            format!("{lead}## @{}{eol}{mention}", roster.human)
        }
    };
    Some((member.handle.clone(), (end..end, insert)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::team::{Member, Team};
    use pretty_assertions::assert_eq;
    use std::path::PathBuf;

    fn team() -> Team {
        let mut team = Team::empty(PathBuf::from("/t"));
        team.members = [("reviewer", "claude"), ("tester", "codex")]
            .into_iter()
            .map(|(handle, agent)| Member::new(handle, agent, PathBuf::from("/t").join(handle)))
            .collect();
        team
    }

    fn apply(text: &str, edit: &(ByteRange, String)) -> String {
        let mut out = text.to_owned();
        out.replace_range(edit.0.clone(), &edit.1);
        out
    }

    const HEAD: &str = "---\nrouting: compare\n---\n## @me\n@reviewer @tester which?\n\n\
        ## @reviewer\n<!-- chatmd id=t1 agent=claude status=done -->\nA.\n\n\
        ## @tester\n<!-- chatmd id=t2 agent=codex status=done -->\nB.\n";

    #[test]
    fn each_member_sees_the_human_and_its_own_answers_only() {
        let team = team();
        let chat = Chat::parse(HEAD);
        let roster = Roster::new(&team, chat.front_matter.as_ref());
        let shown = |member: &str| -> Vec<usize> {
            (0..chat.messages.len())
                .filter(|&i| shown_to(HEAD, &chat, &roster, member, i))
                .collect()
        };
        assert_eq!(shown("reviewer"), [0, 1]);
        assert_eq!(shown("tester"), [0, 2]);
        let mentions = HEAD.replace("compare", "mentions");
        let chat = Chat::parse(&mentions);
        assert!(shown_to(&mentions, &chat, &roster, "tester", 1));
    }

    #[test]
    fn continue_with_fills_the_reply_stub_or_starts_a_message() {
        let team = team();
        let with_stub = format!("{HEAD}\n## @me\n");
        let chat = Chat::parse(&with_stub);
        let roster = Roster::new(&team, chat.front_matter.as_ref());
        let (member, edit) = continue_with(&with_stub, &chat, &roster, 2).expect("offered");
        assert_eq!(member, "tester");
        assert_eq!(
            apply(&with_stub, &edit),
            format!("{HEAD}\n## @me\n@tester ")
        );

        let chat = Chat::parse(HEAD);
        let (_, edit) = continue_with(HEAD, &chat, &roster, 1).expect("offered");
        assert_eq!(apply(HEAD, &edit), format!("{HEAD}\n## @me\n@reviewer "));
        // Not on the human's message, nor in a chat that routes by mentions.
        assert_eq!(continue_with(HEAD, &chat, &roster, 0), None);
        let mentions = HEAD.replace("compare", "mentions");
        let chat = Chat::parse(&mentions);
        assert_eq!(continue_with(&mentions, &chat, &roster, 1), None);
    }
}
