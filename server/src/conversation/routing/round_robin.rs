//! `routing: round-robin`: like `mentions`; a message that mentions nobody goes to the
//! members in turn, the one after the last member who spoke.

use super::Next;
use super::mode::RoutingMode;
use crate::conversation::roster::Roster;
use crate::document::chat::Chat;
use crate::document::front_matter::Routing;

/// The `round-robin` mode.
pub struct RoundRobinMode;

impl RoutingMode for RoundRobinMode {
    fn routing(&self) -> Routing {
        Routing::RoundRobin
    }

    fn help(&self) -> &'static str {
        "Like `mentions`; a message that mentions nobody goes to the members in turn."
    }

    fn unaddressed(&self, text: &str, chat: &Chat, roster: &Roster, index: usize) -> Next {
        next_in_turn(text, chat, roster, index)
    }
}

/// The member after the last one who spoke before message `index` (the first member
/// when none has), in roster order.
pub(super) fn next_in_turn(text: &str, chat: &Chat, roster: &Roster, index: usize) -> Next {
    let last = chat.messages[..index]
        .iter()
        .rev()
        .map(|m| m.handle(text))
        .find(|h| roster.is_ai(h));
    let position = last.and_then(|h| {
        roster
            .members
            .iter()
            .position(|m| m.handle.eq_ignore_ascii_case(h))
    });
    let next = match position {
        Some(i) => &roster.members[(i + 1) % roster.members.len()],
        None => &roster.members[0],
    };
    Next::Run(vec![next.handle.clone()])
}
