//! `routing: council` as a [`RoutingMode`]: every member answers the human's message
//! apart, then the rounds follow from the file (`super`: answer, review, decision);
//! a member that failed is left out of the later rounds rather than ending the run.

use super::super::Next;
use super::super::mode::RoutingMode;
use crate::conversation::roster::Roster;
use crate::document::chat::Chat;
use crate::document::front_matter::Routing;

/// The `council` mode.
pub struct CouncilMode;

impl RoutingMode for CouncilMode {
    fn routing(&self) -> Routing {
        Routing::Council
    }

    fn help(&self) -> &'static str {
        "Three rounds: the members answer apart; each reviews the others' answers, shown as Answer A / B / C without names; the `chair:` member writes the decision citing the letters. Needs `chair:`."
    }

    fn cannot_start(&self, chat: &Chat, roster: &Roster) -> Option<String> {
        super::chair(chat, roster).err()
    }

    fn unaddressed(&self, _text: &str, _chat: &Chat, roster: &Roster, _index: usize) -> Next {
        super::super::all::everyone(roster)
    }

    fn after_answer(&self, text: &str, chat: &Chat, roster: &Roster, index: usize) -> Option<Next> {
        Some(super::next_round(text, chat, roster, index).0)
    }

    fn answers_apart(&self) -> bool {
        true
    }

    fn rounds_from_file(&self) -> bool {
        true
    }

    fn next_round(
        &self,
        text: &str,
        chat: &Chat,
        roster: &Roster,
        at: usize,
    ) -> (Vec<String>, (Next, Vec<usize>)) {
        let notes = super::left_out(text, chat, roster, at);
        (notes, super::next_round(text, chat, roster, at))
    }

    fn goes_on_after_failure(&self) -> bool {
        true
    }
}
