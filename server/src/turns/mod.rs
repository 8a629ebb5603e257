//! Turn orchestration: who runs, the sections their answers stream into, the status
//! comment at every transition, and the port the document lives behind (an editor
//! buffer through LSP, or a file on disk for `chatmd send`).

pub mod anchors;
pub mod clock;
pub mod engine;
pub mod file_port;
mod live;
pub mod section;

use crate::document::ByteRange;

/// How serious a message to the user is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    Info,
    Warning,
    Error,
}

/// Why the document could not be read or changed.
#[derive(Debug, thiserror::Error)]
pub enum PortError {
    #[error("cannot read {path}: {source}")]
    Read {
        path: String,
        source: std::io::Error,
    },
    #[error("cannot write {path}: {source}")]
    Write {
        path: String,
        source: std::io::Error,
    },
    #[error("{0}")]
    Other(String),
}

/// Where the document lives. The engine reads it, applies its edits through it, and
/// tells the user things through it.
pub trait EditorPort: Send {
    /// The document's current text.
    fn text(&mut self) -> impl Future<Output = Result<String, PortError>> + Send;
    /// Applies `edits` (byte ranges into the current text, sorted, not overlapping) and
    /// returns once they are part of the text.
    fn apply(
        &mut self,
        edits: Vec<(ByteRange, String)>,
    ) -> impl Future<Output = Result<(), PortError>> + Send;
    /// Tells the user something (a failed turn, the end of a chain).
    fn notify(&mut self, level: Level, message: &str) -> impl Future<Output = ()> + Send;
    /// Changes made to the document by someone else since the port last read or wrote
    /// it, as (range of the old text, length of its replacement), oldest first; the
    /// engine moves its anchors through them. The port's text already includes them.
    fn external_changes(
        &mut self,
    ) -> impl Future<Output = Result<Vec<(ByteRange, usize)>, PortError>> + Send {
        async { Ok(Vec::new()) }
    }
    /// Answer text as it streams, for ports that show it elsewhere too (a terminal).
    fn on_text(&mut self, _member: &str, _text: &str) {}
}
