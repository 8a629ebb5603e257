//! The conversation layer: a parsed chat read together with its team — who is on it,
//! who is human, and what is wrong with it. Pure apart from what the team already read.

pub mod output;
pub mod problems;
pub mod prompt;
pub mod resume;
pub mod roster;
pub mod routing;
