//! One routing mode, one implementation: [`RoutingMode`] is everything a mode decides
//! (who answers a message that mentions nobody, whether an answer hands the word on,
//! whether members answer apart, how a run goes on), [`MODES`] lists every mode once,
//! and [`mode_of`] gives a chat's. Each mode is a file beside this one: `mentions.rs`,
//! `round_robin.rs`, `all.rs`, `compare.rs` and `council/mode.rs`. The engine, the
//! prompt builder and the editor ask the chat's mode; none of them names a mode.

use super::Next;
use super::all::AllMode;
use super::compare::CompareMode;
use super::council::mode::CouncilMode;
use super::mentions::MentionsMode;
use super::round_robin::RoundRobinMode;
use crate::conversation::roster::Roster;
use crate::document::chat::Chat;
use crate::document::front_matter::Routing;

/// What one `routing:` mode decides. The defaults are the plain chat's: answers hand
/// the word on by `[NEXT: x]` and mentions, every member sees every message, and a
/// failed turn ends the run.
pub trait RoutingMode: Sync {
    /// The front matter value that selects this mode.
    fn routing(&self) -> Routing;

    /// What the mode does, for completion and hover on `routing:`.
    fn help(&self) -> &'static str;

    /// Why nobody may answer in this chat yet, checked before anything runs (a
    /// council without its chair could not end).
    fn cannot_start(&self, _chat: &Chat, _roster: &Roster) -> Option<String> {
        None
    }

    /// Who answers the human message at `index`, which mentions no member (the
    /// roster has members).
    fn unaddressed(&self, text: &str, chat: &Chat, roster: &Roster, index: usize) -> Next;

    /// What follows the agent's answer at `index` when the mode decides it, not the
    /// answer's own hand-offs; `None` lets `[NEXT: x]` and mentions decide.
    fn after_answer(
        &self,
        _text: &str,
        _chat: &Chat,
        _roster: &Roster,
        _index: usize,
    ) -> Option<Next> {
        None
    }

    /// Whether each member answers on its own, seeing the human's messages and its
    /// own answers only.
    fn answers_apart(&self) -> bool {
        false
    }

    /// Whether a run's later rounds follow from the rounds in the file (then
    /// [`RoutingMode::next_round`] decides them, and an interrupted answer does not stop
    /// the run) rather than from the last round's hand-offs.
    fn rounds_from_file(&self) -> bool {
        false
    }

    /// The round after the one that wrote message `at`, when
    /// [`RoutingMode::rounds_from_file`]: notes for the user (members left out), who
    /// answers next and the message that asked each of them.
    fn next_round(
        &self,
        _text: &str,
        _chat: &Chat,
        _roster: &Roster,
        _at: usize,
    ) -> (Vec<String>, (Next, Vec<usize>)) {
        let why = format!(
            "`routing: {}` takes no rounds from the file",
            self.routing().as_str()
        );
        (Vec::new(), (Next::Nobody(why), Vec::new()))
    }

    /// Whether a run goes on past a member's failed turn (a cancelled one always stops
    /// it): a council leaves the member out of the later rounds; elsewhere a failure
    /// ends the chain.
    fn goes_on_after_failure(&self) -> bool {
        false
    }
}

/// Every routing mode, once, in the order completion offers them.
pub const MODES: [&dyn RoutingMode; 5] = [
    &MentionsMode,
    &RoundRobinMode,
    &AllMode,
    &CompareMode,
    &CouncilMode,
];

/// The mode of `routing`.
pub fn mode(routing: Routing) -> &'static dyn RoutingMode {
    MODES
        .into_iter()
        .find(|mode| mode.routing() == routing)
        .unwrap_or(MODES[0])
}

/// The chat's mode (`mentions` without a `routing:`).
pub fn mode_of(chat: &Chat) -> &'static dyn RoutingMode {
    mode(super::compare::routing_of(chat))
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn each_routing_value_has_exactly_one_mode() {
        let names: Vec<&str> = MODES.iter().map(|m| m.routing().as_str()).collect();
        assert_eq!(
            names,
            ["mentions", "round-robin", "all", "compare", "council"]
        );
        for name in names {
            let routing = Routing::parse(name).expect("a front matter value");
            assert_eq!(mode(routing).routing(), routing);
        }
    }
}
