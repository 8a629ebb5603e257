//! The conversation layer: a parsed chat read together with its team — who is on it,
//! who is human, and what is wrong with it — and the text the server writes into a
//! chat (new sections, status comments, the blocks at an answer's end or in its flow, the
//! commands' edits). Pure apart from what the team already read: no I/O, no async.

pub mod actions;
pub mod activity;
pub mod ask_about;
pub mod attached;
pub mod blocks;
pub mod budget;
pub mod clock;
pub mod diff;
pub mod import;
pub mod output;
pub mod problems;
pub mod prompt;
pub mod queue;
pub mod resume;
pub mod roster;
pub mod routing;
pub mod running;
pub mod section;
pub mod seen;
pub mod usage;
pub mod waiting;
