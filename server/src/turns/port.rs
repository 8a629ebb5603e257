//! The port the document lives behind, as the engine sees it: a snapshot of the text
//! with its parsed chat, edits that land or find the document moved on, the changes
//! since, and the user's messages. The LSP glue implements it for an editor buffer,
//! `file_port` for a file on disk.

use std::sync::Arc;

use tokio_util::sync::CancellationToken;

use super::error::{PortError, TurnError};
use crate::document::ByteRange;
use crate::document::chat::Chat;
use crate::document::status::TurnStatus;

/// How serious a message to the user is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    Info,
    Warning,
    Error,
}

/// Edits to a text: byte ranges into it, sorted, not overlapping, and their new text.
pub type Edits = Vec<(ByteRange, String)>;

/// The document as of one version: its text and the chat parsed from it. Cloning is
/// cheap (both are shared), and a port hands over what it already holds: the editor's
/// incrementally parsed chat, or a file parsed once per change.
#[derive(Clone, Debug)]
pub struct Snapshot {
    pub text: Arc<String>,
    pub chat: Arc<Chat>,
    /// Which version of the document this is: the editor's version number, or the
    /// count of the texts a file port has seen.
    pub version: i64,
}

impl Snapshot {
    /// A snapshot of `text`, parsed here (for a port without a model of its own).
    pub fn parse(text: impl Into<String>, version: i64) -> Snapshot {
        let text = Arc::new(text.into());
        Snapshot {
            chat: Arc::new(Chat::parse(&text)),
            text,
            version,
        }
    }
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

    /// Someone else's changes that turned `old` into `new`: one per region where they
    /// differ, listed from the last to the first (so that each applies to the text
    /// before it); empty when they are the same.
    pub fn between(old: &str, new: &str) -> Vec<Change> {
        crate::conversation::diff::regions(old, new)
            .into_iter()
            .rev()
            .map(|r| Change::theirs(r.old, r.new.len()))
            .collect()
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

/// How [`EditorPort::edit_until_applied`] ended.
#[derive(Debug, PartialEq, Eq)]
pub enum Edited<T> {
    /// The edit is in the document; what was computed with it.
    Applied(T),
    /// There was nothing to change.
    Unneeded,
    /// The document moved on before every attempt landed.
    GaveUp,
}

/// Where the document lives. The engine reads it, applies its edits through it, and
/// tells the user things through it.
pub trait EditorPort: Send {
    /// The document as it is now. Taking a snapshot starts the change journal afresh:
    /// what [`EditorPort::changes`] returns next happened after it.
    fn snapshot(&mut self) -> impl Future<Output = Result<Snapshot, PortError>> + Send;
    /// Applies `edits` (byte ranges into the text as of the last `changes`/`snapshot`,
    /// sorted, not overlapping), all or nothing.
    fn apply(&mut self, edits: Edits) -> impl Future<Output = Result<Applied, PortError>> + Send;
    /// Tells the user something (a failed turn, the end of a chain).
    fn notify(&mut self, level: Level, message: &str) -> impl Future<Output = ()> + Send;
    /// Every change since the last call (or the last `snapshot`), oldest first: someone
    /// else's, and the port's own edits where they landed (`ours`; a batch listed from
    /// its last edit to its first, so that each applies to the text before it).
    fn changes(&mut self) -> impl Future<Output = Result<Vec<Change>, PortError>> + Send;
    /// A member's turn is about to start; `cancel` ends it. Returns why it cannot
    /// start (the member is already answering in this document).
    fn begin_turn(&mut self, _member: &str, _cancel: &CancellationToken) -> Result<(), TurnError> {
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
    /// A member's agent asks the user's permission; its block is in the member's
    /// section (or about to be). The port may answer it itself (a terminal prompt, a
    /// policy) or let the user answer from the document (an editor command), by
    /// sending the answer to `answers`. Until one comes, the agent waits.
    fn permission_asked(&mut self, _asked: super::Asked<'_>, _answers: &super::Answers) {}
    /// A member's turn started or stopped waiting for the user's answer to a permission
    /// request (its status comment says `waiting`): for ports that show a turn's state
    /// elsewhere too (the editor's progress and status bar).
    fn waiting_changed(&mut self, _member: &str, _waits: bool) {}
    /// A member's turn runs and may take the chat's queued message while it does: the
    /// port sends the member's handle to `steers` when the user queues one for it
    /// (only the editor queues messages).
    fn steerable(&mut self, _member: &str, _steers: &super::runs::Steers) {}
    /// What a member's agent told about itself beside its answer: the commands it
    /// takes after `/` ([`AgentEvent::Commands`](crate::agents::AgentEvent::Commands)),
    /// the settings its session offers (`Options`), that it needs a login
    /// (`LoginNeeded`; the turn's `Failed` follows with the same advice). For ports that
    /// keep it (the editor's completion and diagnostics); nothing is written into the
    /// document.
    fn agent_told(&mut self, _member: &str, _event: &crate::agents::AgentEvent) {}
    /// The chat's team, as a round reads it (once per round): loaded from its team
    /// folder, or taken from the server's cache of it (the editor's port).
    fn chat_team(&mut self, ctx: &super::Context, chat: &Chat) -> Arc<crate::team::Team> {
        Arc::new(super::engine::load_team(ctx, chat))
    }
    /// The text the edits' offsets refer to: the document as of the last `changes`
    /// (or `snapshot`), the port's own edits included (a permission rule is computed
    /// from it). `None` only for a port that keeps no copy: then no rule is written.
    fn current_text(&self) -> Option<&str>;
    /// Whether each write costs more than a short wait: a file on disk, where each
    /// write replaces the whole file and syncs it, rather than an editor's buffer. Such
    /// a port gets a turn's first state (`streaming`) with its first text, or after
    /// [`FIRST_STATE_WAIT`](super::round::FIRST_STATE_WAIT), so an agent that answers at
    /// once costs one write, not three.
    fn writes_are_costly(&self) -> bool {
        false
    }
    /// The problems the editor reports for the file at `path` (one line each, `line:column
    /// severity: message (source)`), for a `#diagnostics:` reference; `None` when there
    /// is no editor to ask, or it does not tell.
    fn diagnostics(
        &mut self,
        _path: &std::path::Path,
    ) -> impl Future<Output = Option<Vec<String>>> + Send {
        async { None }
    }
    /// The text of the file at `path` as the editor holds it, unsaved changes included,
    /// when it is open there and the editor tells (`chatmd/readBuffer`); `None`: the
    /// disk has it.
    fn read_buffer(
        &mut self,
        _path: &std::path::Path,
    ) -> impl Future<Output = Option<String>> + Send {
        async { None }
    }
    /// Puts an agent's `text` into the file `(path, before)` (inside the workspace;
    /// `before`: what it holds, `None` when it does not exist): where the port is an
    /// editor, one edit annotated `label` that the user can undo; else the disk,
    /// written atomically.
    fn write_file(
        &mut self,
        (path, _before): (&std::path::Path, Option<&str>),
        text: &str,
        _label: &str,
    ) -> impl Future<Output = Result<(), String>> + Send {
        let written = super::files::write_atomically(path, text);
        async move { written }
    }
    /// A member's turn ended (also after `begin_turn` when it could not start).
    fn end_turn(&mut self, _member: &str, _status: TurnStatus, _error: Option<&TurnError>) {}

    /// Computes an edit from the document as it is and applies it; when the document
    /// moved on first, computes it again from the new text, `tries` times at most.
    /// `compute` returns the edits with what goes with them, or `None` when nothing
    /// is to change.
    fn edit_until_applied<T, E>(
        &mut self,
        tries: usize,
        mut compute: impl FnMut(&Snapshot) -> Result<Option<(Edits, T)>, E> + Send,
    ) -> impl Future<Output = Result<Edited<T>, E>> + Send
    where
        Self: Sized,
        T: Send,
        E: From<PortError> + Send,
    {
        async move {
            for _ in 0..tries {
                let snapshot = self.snapshot().await?;
                let Some((edits, value)) = compute(&snapshot)? else {
                    return Ok(Edited::Unneeded);
                };
                drop(snapshot);
                if self.apply(edits).await? == Applied::Done {
                    return Ok(Edited::Applied(value));
                }
            }
            Ok(Edited::GaveUp)
        }
    }
}
