//! `routing: all`: a message that mentions nobody asks every member; each may answer
//! `SKIP`. Answers hand the word on as in `mentions`.

use super::Next;
use super::mode::RoutingMode;
use crate::conversation::roster::Roster;
use crate::document::chat::Chat;
use crate::document::front_matter::Routing;

/// The `all` mode.
pub struct AllMode;

impl RoutingMode for AllMode {
    fn routing(&self) -> Routing {
        Routing::All
    }

    fn help(&self) -> &'static str {
        "A message that mentions nobody asks every member; each may answer `SKIP`."
    }

    fn unaddressed(&self, _text: &str, _chat: &Chat, roster: &Roster, _index: usize) -> Next {
        everyone(roster)
    }
}

/// Every member taking part, in roster order.
pub(super) fn everyone(roster: &Roster) -> Next {
    Next::Run(roster.members.iter().map(|m| m.handle.clone()).collect())
}
