//! Turn orchestration: who runs, the sections their answers stream into, the status
//! comment at every transition, and the port the document lives behind (an editor
//! buffer through LSP, or a file on disk for `chatmd send`).
//!
//! The route of one run: [`engine::run`] reads a [`Snapshot`] and decides who answers
//! (`conversation::routing`); `round` plans each member's command line (`plan`),
//! appends the sections, runs the agents (`resume`, `runner`) and streams what they
//! say into the sections through `live` and `anchors`; the engine then follows the
//! chain. Everything the document needs goes through [`EditorPort`].

pub mod anchors;
mod asks;
#[cfg(test)]
pub(crate) mod asks_tests;
pub mod attach;
pub mod engine;
mod error;
pub mod file_port;
pub mod files;
mod flow;
#[cfg(test)]
mod flow_tests;
mod flush;
mod live;
pub mod lock;
pub mod owner;
mod placed;
mod plan;
mod policy;
mod port;
mod refind;
mod resume;
mod round;
pub mod runs;
mod sections_place;
mod steer;
#[cfg(test)]
mod testing;
#[cfg(test)]
mod tests;
pub mod warm;

pub use asks::{AnswerError, Answers, Asked, PermissionAnswer};
pub use error::{PortError, TurnError};
pub use plan::Context;
pub use port::{Applied, Change, Edited, EditorPort, Edits, Level, Snapshot};
pub use round::TurnReport;
