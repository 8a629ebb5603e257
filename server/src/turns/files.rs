//! An agent's reads and writes through chatmd (ACP `fs/*`): a read gets the editor's
//! buffer where the file is open there, else the disk; a write inside the workspace (or
//! the member's own folder, which the user trusted with its configuration) goes through
//! the port (one undoable, annotated edit in an editor; the disk, atomically, under
//! `chatmd send`), and anything else is refused. Each file a turn changed gets one line
//! in its section with the turn's whole change to it folded under it, and a record of
//! what the file held before (`undo.rs`) that "Undo @x's changes" restores.

use std::path::{Path, PathBuf};

use similar::{ChangeTag, TextDiff};

use super::EditorPort;
use super::flow::Kind;
use super::live::Live;
use super::placed::OnEdit;
use crate::agents::{FileDiff, FileOp, FileOutcome, FileRefusal, FileRequest, SessionCommand};
use crate::conversation::activity::diff_block;

pub mod undo;

pub use undo::{ChangeRecord, undone_text};

/// Where a round's turns may write, and where their records go.
#[derive(Clone, Debug)]
pub(super) struct FilePlace {
    /// The workspace root: writes inside it are the user's code, shown and undoable.
    pub workspace: PathBuf,
    /// The chat file (a record names its chat, its turn and the file).
    pub chat: PathBuf,
}

/// One file a turn changed: what it held before the turn's first write (`None`: the
/// turn created it) and after its last.
#[derive(Clone, Debug)]
pub(super) struct ChangedFile {
    pub path: PathBuf,
    pub before: Option<String>,
    pub after: String,
}

/// Serves the file request of `live`'s agent and sends it the answer.
pub(super) async fn serve<P: EditorPort>(
    port: &mut P,
    live: &mut Live,
    request: FileRequest,
    place: &FilePlace,
) {
    let outcome = match &request.op {
        FileOp::Read => read(port, &request.path).await,
        FileOp::Write { content } => write(port, live, &request.path, content, place).await,
    };
    if let Err(refusal) = &outcome {
        tracing::debug!(member = %live.member, "file request refused: {refusal:?}");
    }
    if let Some(commands) = &live.commands {
        let answer = SessionCommand::File {
            request: request.id,
            outcome,
        };
        let _ = commands.send(answer).await;
    }
}

/// The file's text as the user sees it: the editor's buffer, else the disk.
async fn read<P: EditorPort>(port: &mut P, path: &Path) -> FileOutcome {
    if let Some(text) = port.read_buffer(path).await {
        return Ok(text);
    }
    match std::fs::read_to_string(path) {
        Ok(text) => Ok(text),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Err(FileRefusal::NotFound(
            format!("{} does not exist", path.display()),
        )),
        Err(error) => Err(FileRefusal::Refused(format!(
            "cannot read {}: {error}",
            path.display()
        ))),
    }
}

async fn write<P: EditorPort>(
    port: &mut P,
    live: &mut Live,
    path: &Path,
    content: &str,
    place: &FilePlace,
) -> FileOutcome {
    let path = crate::team::normalize(path);
    if !path.is_absolute() || !live.file_roots.iter().any(|root| inside(&path, root)) {
        return Err(FileRefusal::Refused(format!(
            "chatmd refused to write {}: it is outside the workspace ({}); only files in the \
             workspace or the member's own folder are written",
            path.display(),
            place.workspace.display()
        )));
    }
    let before = match read(port, &path).await {
        Ok(text) => Some(text),
        Err(FileRefusal::NotFound(_)) => None,
        Err(refusal) => return Err(refusal),
    };
    let label = format!("@{} ({})", live.member, live.status.id().unwrap_or("turn"));
    port.write_file((&path, before.as_deref()), content, &label)
        .await
        .map_err(FileRefusal::Refused)?;
    changed(live, place, path, before, content);
    Ok(String::new())
}

/// Whether `path` is inside `root`, symlinks resolved (a link out of the workspace is
/// not a way out of it).
fn inside(path: &Path, root: &Path) -> bool {
    crate::team::resolve_existing(path).starts_with(crate::team::resolve_existing(root))
}

/// The turn wrote `after` into `path`, which held `before`: the file's line in the
/// section is written or brought up to date, and its record kept.
fn changed(live: &mut Live, place: &FilePlace, path: PathBuf, before: Option<String>, after: &str) {
    let at = match live.changed.iter().position(|c| c.path == path) {
        Some(at) => {
            live.changed[at].after = after.to_owned();
            at
        }
        None => {
            live.changed.push(ChangedFile {
                path,
                before,
                after: after.to_owned(),
            });
            live.changed.len() - 1
        }
    };
    let file = live.changed[at].clone();
    let shown = shown_path(&file.path, &place.workspace);
    let turn = live.status.id().unwrap_or("t").to_owned();
    let record = ChangeRecord {
        chat: place.chat.clone(),
        turn: turn.clone(),
        member: live.member.clone(),
        path: file.path.clone(),
        shown: shown.clone(),
        before: file.before.clone(),
        after: file.after.clone(),
    };
    if let Err(error) = record.save(&place.workspace) {
        tracing::warn!("the record of {shown} could not be kept (no undo): {error}");
    }
    let text = changed_block(&shown, file.before.as_deref(), &file.after);
    let id = format!("{turn}-f{}", at + 1);
    if live.blocks.has(&id) {
        live.blocks.update(&id, text);
    } else {
        live.open_block(Kind::Call);
        live.add_block(&id, &text, OnEdit::WriteAnew);
    }
}

/// `path` as the section shows it: relative to the workspace.
pub fn shown_path(path: &Path, workspace: &Path) -> String {
    let relative = path.strip_prefix(workspace).unwrap_or(path);
    relative.display().to_string()
}

/// The line of a changed file (`> - changed `src/pay.rs` (+3 −1)`) and the change
/// folded under it, as tool calls show their diffs.
pub fn changed_block(shown: &str, before: Option<&str>, after: &str) -> String {
    let (added, removed) = counts(before.unwrap_or(""), after);
    let verb = if before.is_some() {
        "changed"
    } else {
        "created"
    };
    let mut out = format!(
        "> - {verb} {} (+{added} \u{2212}{removed})\n\n",
        crate::agents::code_span(shown)
    );
    out.push_str(&diff_block(&FileDiff {
        path: shown.to_owned(),
        old: before.map(str::to_owned),
        new: after.to_owned(),
    }));
    out.push('\n');
    out
}

/// Lines added and removed from `before` to `after`.
fn counts(before: &str, after: &str) -> (usize, usize) {
    let diff = TextDiff::from_lines(before, after);
    diff.iter_all_changes()
        .fold((0, 0), |(added, removed), change| match change.tag() {
            ChangeTag::Insert => (added + 1, removed),
            ChangeTag::Delete => (added, removed + 1),
            ChangeTag::Equal => (added, removed),
        })
}

/// Writes `text` into `path` atomically (a file beside it, then renamed over it), its
/// folders made first: a reader never sees half of it.
pub fn write_atomically(path: &Path, text: &str) -> Result<(), String> {
    let failed = |error: std::io::Error| format!("cannot write {}: {error}", path.display());
    if let Some(folder) = path.parent() {
        std::fs::create_dir_all(folder).map_err(failed)?;
    }
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    let temporary = path.with_file_name(format!(".{name}.chatmd-{}", std::process::id()));
    std::fs::write(&temporary, text).map_err(failed)?;
    std::fs::rename(&temporary, path).map_err(|error| {
        let _ = std::fs::remove_file(&temporary);
        failed(error)
    })
}
