//! The one list of built-in CLI kinds: each kind's folder (`claude/`, `codex/`,
//! `gemini/`, with `claude.rs`, … beside it) gives one [`KindSpec`] (how a turn's
//! command line is built, how its output is read, how a session it stored is read for
//! `chatmd import`, the mode it asks in), and [`KINDS`] registers it. The dispatch on a kind goes through
//! [`spec_of`], never a `match` per question. The kinds' static facts (name, role file,
//! install and login hints) are plain data in `crate::agent_config`, below `team/`.

use super::ask_mode::AskMode;
use super::plan::TurnSpec;
use super::transcripts::{Transcript, TranscriptError};
use super::{AgentKind, Invocation, OutputParser};

/// What chatmd does with one built-in CLI.
pub struct KindSpec {
    pub kind: AgentKind,
    /// The command line of one turn.
    pub plan: fn(&TurnSpec<'_>) -> Invocation,
    /// A fresh parser of one turn's output, for the agent named.
    pub parser: fn(&str) -> Box<dyn OutputParser>,
    /// A session the CLI stored itself, read for `chatmd import`.
    pub read_transcript: fn(&str) -> Result<Transcript, TranscriptError>,
    /// The mode that makes it refuse what needs an approval nobody can give headless.
    pub ask_mode: AskMode,
}

/// Every built-in kind, in [`AgentKind::ALL`]'s order.
pub const KINDS: [&KindSpec; 3] = [
    &super::claude::SPEC,
    &super::codex::SPEC,
    &super::gemini::SPEC,
];

/// The spec of `kind`: every kind is listed once in [`KINDS`] (a unit test holds it).
pub fn spec_of(kind: AgentKind) -> &'static KindSpec {
    KINDS
        .into_iter()
        .find(|spec| spec.kind == kind)
        .unwrap_or(KINDS[0])
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn every_kind_is_listed_once_in_order() {
        let listed: Vec<AgentKind> = KINDS.iter().map(|spec| spec.kind).collect();
        assert_eq!(listed, AgentKind::ALL);
        for kind in AgentKind::ALL {
            assert_eq!(spec_of(kind).kind, kind);
        }
    }
}
