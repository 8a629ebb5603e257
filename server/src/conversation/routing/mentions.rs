//! `routing: mentions` (the default): the members a message mentions answer, in
//! parallel; a message that mentions nobody goes to the member after the last one who
//! spoke. Answers hand the word on by mentioning or `[NEXT: x]`.

use super::Next;
use super::mode::RoutingMode;
use crate::conversation::roster::Roster;
use crate::document::chat::Chat;
use crate::document::front_matter::Routing;

/// The `mentions` mode.
pub struct MentionsMode;

impl RoutingMode for MentionsMode {
    fn routing(&self) -> Routing {
        Routing::Mentions
    }

    fn help(&self) -> &'static str {
        "The members a message mentions answer, in parallel; with no mention, the next member after the last one who spoke. Answers hand the word on by mentioning or `[NEXT: x]`."
    }

    fn unaddressed(&self, text: &str, chat: &Chat, roster: &Roster, index: usize) -> Next {
        super::round_robin::next_in_turn(text, chat, roster, index)
    }
}
