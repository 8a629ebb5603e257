//! Turn orchestration: who runs, the sections their answers stream into, the status
//! comment at every transition, and the port the document lives behind (an editor
//! buffer through LSP, or a file on disk for `chatmd send`).

pub mod actions;
pub mod anchors;
pub mod blocks;
pub mod clock;
pub mod engine;
pub mod file_port;
mod live;
pub mod lock;
pub mod owner;
pub mod registry;
mod resume;
mod round;
pub mod section;

use tokio_util::sync::CancellationToken;

use crate::document::ByteRange;
use crate::document::status::TurnStatus;

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
    #[error("{path} is not a regular file but {kind}")]
    NotAFile { path: String, kind: String },
    /// The chat was closed in the editor and its file is gone (deleted, or moved
    /// where no open document shows it).
    #[error(
        "{path} was closed and its file is gone (deleted or moved), so the answer has \
         nowhere to go; the turn was stopped"
    )]
    Gone { path: String },
    #[error("{0}")]
    Other(String),
}

/// One change to the document: `range` (of the text just before it) was replaced by
/// `new_len` bytes. `ours` marks the port's own edits as they landed, so the engine
/// can tell its text from the user's typing at the same place.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Change {
    pub range: ByteRange,
    pub new_len: usize,
    pub ours: bool,
}

impl Change {
    pub fn theirs(range: ByteRange, new_len: usize) -> Change {
        Change {
            range,
            new_len,
            ours: false,
        }
    }
}

/// Whether an edit became part of the document.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Applied {
    Done,
    /// The document moved on before the edit landed (the user typed, the editor refused
    /// an edit for an older version): nothing was applied. Take in [`EditorPort::changes`]
    /// and compute the edit again.
    Stale,
}

/// Where the document lives. The engine reads it, applies its edits through it, and
/// tells the user things through it.
pub trait EditorPort: Send {
    /// The document's current text. Reading it starts the change journal afresh: what
    /// [`EditorPort::changes`] returns next happened after this text.
    fn text(&mut self) -> impl Future<Output = Result<String, PortError>> + Send;
    /// Applies `edits` (byte ranges into the text as of the last `changes`/`text`,
    /// sorted, not overlapping), all or nothing.
    fn apply(
        &mut self,
        edits: Vec<(ByteRange, String)>,
    ) -> impl Future<Output = Result<Applied, PortError>> + Send;
    /// Tells the user something (a failed turn, the end of a chain).
    fn notify(&mut self, level: Level, message: &str) -> impl Future<Output = ()> + Send;
    /// Every change since the last call (or the last `text`), oldest first: someone
    /// else's, and the port's own edits where they landed (`ours`; a batch listed from
    /// its last edit to its first, so that each applies to the text before it).
    fn changes(&mut self) -> impl Future<Output = Result<Vec<Change>, PortError>> + Send;
    /// A member's turn is about to start; `cancel` ends it. Returns why it cannot
    /// start (the member is already answering in this document).
    fn begin_turn(&mut self, _member: &str, _cancel: &CancellationToken) -> Result<(), String> {
        Ok(())
    }
    /// The members of a round, decided and about to be written into the document.
    fn round_starting(&mut self, _members: &[String]) {}
    /// Answer text as it streams, for ports that show it elsewhere too (a terminal,
    /// a progress report).
    fn on_text(&mut self, _member: &str, _text: &str) {}
    /// The member's CLI retries a failed request (the turn goes on): for ports that
    /// show it (a line on the terminal, the editor's progress message).
    fn on_retry(&mut self, _member: &str, _retry: &crate::agents::Retry) {}
    /// A member's turn ended (also after `begin_turn` when it could not start).
    fn end_turn(&mut self, _member: &str, _status: TurnStatus, _error: Option<&str>) {}
}
