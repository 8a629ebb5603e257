//! An agent's request to read or write a file through chatmd rather than behind the
//! editor's back (ACP `fs/read_text_file`, `fs/write_text_file`): the session turns it
//! into an [`AgentEvent::File`](super::AgentEvent::File), the turn serves it (the
//! editor's buffer, an undoable edit, or the disk under `chatmd send`) and answers with
//! a [`SessionCommand::File`](super::SessionCommand::File).

use std::path::PathBuf;

use super::RequestId;

/// One file request of the agent's, waiting for its answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileRequest {
    /// The id the answer names (unique within the session).
    pub id: RequestId,
    /// The file, as the agent named it (ACP requires an absolute path).
    pub path: PathBuf,
    pub op: FileOp,
}

/// What the agent wants done with the file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FileOp {
    /// Its whole text: the session cuts out the lines the agent asked for.
    Read,
    /// Replace its text with `content` (creating it when it does not exist).
    Write { content: String },
}

/// The answer to a [`FileRequest`]: the text read (empty for a write), or why it was
/// refused, in words the agent shows its model.
pub type FileOutcome = Result<String, FileRefusal>;

/// Why a file request was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FileRefusal {
    /// There is no such file.
    NotFound(String),
    /// Anything else (outside the workspace, not text, an I/O error): the message.
    Refused(String),
}
