//! Reading what a human message's references name (`#file:`, `#diff`, `#diagnostics:`)
//! when it is sent, and checking them before (diagnostics and hover, which never read
//! more than a file's size and line count and never run a program).
//!
//! Paths are relative to the chat's workspace root and must stay inside it, as
//! written and after following symlinks (the team layer's containment rule); a path
//! outside is refused before anything is opened.

mod diff;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::EditorPort;
use crate::conversation::attached::{self, Attachment, size_words};
use crate::document::chat::Message;
use crate::document::references::{self, LineSpan, Reference, ReferenceKind};
use crate::team::TeamError;

/// The largest file a reference reads; a bigger one is refused (a range of it too:
/// its lines are counted in the whole file).
pub const FILE_LIMIT: u64 = 16 * 1024 * 1024;

/// Why a reference cannot be attached. Each message says what to do.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum AttachError {
    #[error("`{raw}` is outside the workspace {root}; a reference may only name files inside it")]
    Outside { raw: String, root: String },
    #[error("`{raw}` does not exist in the workspace {root}; fix the path or remove the reference")]
    Missing { raw: String, root: String },
    #[error("`{raw}` is a folder, not a file; name a file in it")]
    NotAFile { raw: String },
    /// A pipe, socket or device: reading it could wait forever or never end.
    #[error("`{raw}` is not a regular file (a pipe, socket or device); name a regular file")]
    NotRegular { raw: String },
    #[error("`{raw}` cannot be read: {why}")]
    Unreadable { raw: String, why: String },
    #[error("`{raw}` is not UTF-8 text; only text files can be attached")]
    NotText { raw: String },
    #[error("`{raw}` is {size}, over the {limit} a reference reads; attach a smaller file")]
    TooLarge {
        raw: String,
        size: String,
        limit: String,
    },
    #[error("`{raw}` has {count} lines; the range {first}-{last} goes past its end")]
    PastEnd {
        raw: String,
        count: u64,
        first: u64,
        last: u64,
    },
    #[error(
        "the range {first}-{last} of `{raw}` is empty; lines count from 1, the first number no larger than the second"
    )]
    BadSpan { raw: String, first: u64, last: u64 },
    #[error("this chat is not in a workspace folder, so `{reference}` has nothing to name")]
    NoWorkspace { reference: String },
    #[error("#diff: {0}")]
    Diff(String),
    #[error(
        "`{reference}`: no editor reports diagnostics here (`chatmd send`, or an editor without chatmd's extension); remove the reference or send from VS Code or Neovim"
    )]
    NoDiagnostics { reference: String },
}

/// What a reference will attach, as far as it is known before sending.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Preview {
    /// A file (or lines of it): its absolute path, its size, its line count, and the
    /// size of the lines asked for.
    File {
        path: PathBuf,
        size: u64,
        lines: u64,
        span: Option<(LineSpan, u64)>,
    },
    Diff,
    Diagnostics {
        path: PathBuf,
    },
}

/// Checks one reference without reading more than the file it names (and that only
/// once for all the references checked with the same `files`).
pub fn check(
    files: &mut Files,
    root: &Path,
    text: &str,
    reference: &Reference,
) -> Result<Preview, AttachError> {
    match &reference.kind {
        ReferenceKind::Diff => Ok(Preview::Diff),
        ReferenceKind::File { path, lines } => {
            let raw = &text[path.clone()];
            let path = locate(root, raw, &text[reference.range.clone()])?;
            let content = files.read(&path, raw)?;
            let count = line_count(&content);
            let span = match lines {
                Some(span) => Some((*span, span_of(&content, *span, raw)?.len() as u64)),
                None => None,
            };
            Ok(Preview::File {
                path,
                size: content.len() as u64,
                lines: count,
                span,
            })
        }
        ReferenceKind::Diagnostics { path } => {
            let raw = &text[path.clone()];
            let path = locate(root, raw, &text[reference.range.clone()])?;
            Ok(Preview::Diagnostics { path })
        }
    }
}

/// The file `raw` names, relative to `root`: inside the workspace, existing, a file.
pub fn locate(root: &Path, raw: &str, reference: &str) -> Result<PathBuf, AttachError> {
    if root.as_os_str().is_empty() {
        return Err(AttachError::NoWorkspace {
            reference: reference.to_owned(),
        });
    }
    let shown_root = root.display().to_string();
    let path = crate::team::contain(root, root, Path::new(raw)).map_err(|error| match error {
        TeamError::OutsideWorkspace { .. } | TeamError::SymlinkOutside { .. } => {
            AttachError::Outside {
                raw: raw.to_owned(),
                root: shown_root.clone(),
            }
        }
        other => AttachError::Unreadable {
            raw: raw.to_owned(),
            why: other.to_string(),
        },
    })?;
    match std::fs::metadata(&path) {
        Ok(meta) if meta.is_file() => Ok(path),
        Ok(meta) if meta.is_dir() => Err(AttachError::NotAFile {
            raw: raw.to_owned(),
        }),
        Ok(_) => Err(AttachError::NotRegular {
            raw: raw.to_owned(),
        }),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Err(AttachError::Missing {
            raw: raw.to_owned(),
            root: shown_root,
        }),
        Err(error) => Err(AttachError::Unreadable {
            raw: raw.to_owned(),
            why: error.to_string(),
        }),
    }
}

/// The texts of the files the references of one message (or one diagnostics pass)
/// name, each file read once however many references name it: 300 references to a
/// 15 MiB file are one read, not 4.5 GB.
#[derive(Default)]
pub struct Files {
    read: HashMap<PathBuf, Result<Arc<String>, ReadError>>,
}

/// Why a file was not read, without the reference's spelling (see [`Files`]).
#[derive(Clone)]
enum ReadError {
    Unreadable(String),
    NotRegular,
    TooLarge(u64),
    NotText,
}

impl Files {
    /// The text of the file at `path` (already located), within [`FILE_LIMIT`].
    pub fn read(&mut self, path: &Path, raw: &str) -> Result<Arc<String>, AttachError> {
        let read = self
            .read
            .entry(path.to_owned())
            .or_insert_with(|| read_file(path).map(Arc::new));
        read.clone().map_err(|error| {
            let raw = raw.to_owned();
            match error {
                ReadError::Unreadable(why) => AttachError::Unreadable { raw, why },
                ReadError::NotRegular => AttachError::NotRegular { raw },
                ReadError::TooLarge(size) => AttachError::TooLarge {
                    raw,
                    size: size_words(size as usize),
                    limit: size_words(FILE_LIMIT as usize),
                },
                ReadError::NotText => AttachError::NotText { raw },
            }
        })
    }
}

fn read_file(path: &Path) -> Result<String, ReadError> {
    use std::io::Read;
    use std::os::unix::fs::OpenOptionsExt;
    let unreadable = |error: std::io::Error| ReadError::Unreadable(error.to_string());
    // Without blocking: a file swapped for a pipe since it was located would hold the
    // open until someone writes to it. The size is checked on what was opened.
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(nix::fcntl::OFlag::O_NONBLOCK.bits())
        .open(path)
        .map_err(unreadable)?;
    let meta = file.metadata().map_err(unreadable)?;
    if !meta.is_file() {
        return Err(ReadError::NotRegular);
    }
    if meta.len() > FILE_LIMIT {
        return Err(ReadError::TooLarge(meta.len()));
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    // A file that grew since: no more than the limit and one byte to tell.
    file.take(FILE_LIMIT + 1)
        .read_to_end(&mut bytes)
        .map_err(unreadable)?;
    if bytes.len() as u64 > FILE_LIMIT {
        return Err(ReadError::TooLarge(bytes.len() as u64));
    }
    String::from_utf8(bytes).map_err(|_| ReadError::NotText)
}

/// Lines as an editor counts them: a last line without a break counts, an empty
/// file has none.
fn line_count(text: &str) -> u64 {
    crate::document::lines::Lines::new(text).count() as u64
}

/// `1 line`, `3 lines`.
pub fn lines_word(count: u64) -> String {
    if count == 1 {
        "1 line".to_owned()
    } else {
        format!("{count} lines")
    }
}

/// The lines `span` of `text`, their line breaks included.
fn span_of<'t>(text: &'t str, span: LineSpan, raw: &str) -> Result<&'t str, AttachError> {
    if span.first == 0 || span.last < span.first {
        return Err(AttachError::BadSpan {
            raw: raw.to_owned(),
            first: span.first,
            last: span.last,
        });
    }
    let lines: Vec<_> = crate::document::lines::Lines::new(text).collect();
    let count = lines.len() as u64;
    if span.last > count {
        return Err(AttachError::PastEnd {
            raw: raw.to_owned(),
            count,
            first: span.first,
            last: span.last,
        });
    }
    let start = lines[(span.first - 1) as usize].start;
    let end = lines[(span.last - 1) as usize].next;
    Ok(&text[start..end])
}

/// Reads what the references of `message` (a human message of `text`) name, in order,
/// cut to the attachments' cap. `#diff` runs `git diff` in `root`; `#diagnostics:`
/// asks the port (the editor).
pub async fn gather<P: EditorPort>(
    port: &mut P,
    root: &Path,
    text: &str,
    message: &Message,
) -> Result<Vec<Attachment>, AttachError> {
    let mut out = Vec::new();
    let mut files = Files::default();
    for reference in references::in_message(text, message) {
        let label = text[reference.range.clone()].to_owned();
        let attachment = match &reference.kind {
            ReferenceKind::File { path, lines } => {
                let raw = &text[path.clone()];
                let file = locate(root, raw, &label)?;
                let content = files.read(&file, raw)?;
                let count = line_count(&content);
                let (kept, about) = match lines {
                    Some(span) => (
                        span_of(&content, *span, raw)?.to_owned(),
                        format!("{raw}, lines {}-{} of {count}", span.first, span.last),
                    ),
                    None => (
                        String::clone(&content),
                        format!("{raw}, {}", lines_word(count)),
                    ),
                };
                Attachment {
                    file: Some(file),
                    lines: lines.map(|s| (s.first, s.last)),
                    ..Attachment::new(label, about, kept)
                }
            }
            ReferenceKind::Diff => {
                if root.as_os_str().is_empty() {
                    return Err(AttachError::NoWorkspace { reference: label });
                }
                let changes = diff::working_tree(root).await.map_err(AttachError::Diff)?;
                let about = if changes.is_empty() {
                    "the working tree has no changes against HEAD".to_owned()
                } else {
                    "the working tree's changes against HEAD, `git diff HEAD`".to_owned()
                };
                Attachment::new(label, about, changes)
            }
            ReferenceKind::Diagnostics { path } => {
                let raw = &text[path.clone()];
                let file = locate(root, raw, &label)?;
                let Some(found) = port.diagnostics(&file).await else {
                    return Err(AttachError::NoDiagnostics { reference: label });
                };
                let about = match found.len() {
                    1 => format!("{raw}, 1 problem the editor reports"),
                    n => format!("{raw}, {n} problems the editor reports"),
                };
                let mut text = found.join("\n");
                if !text.is_empty() {
                    text.push('\n');
                }
                Attachment::new(label, about, text)
            }
        };
        out.push(attachment);
    }
    attached::fit(&mut out);
    Ok(out)
}

/// What the references of message `index` attach, when a human wrote it (an agent's
/// `#file:` is text, not a request).
pub(super) async fn of_message<P: EditorPort>(
    port: &mut P,
    ctx: &super::Context,
    snapshot: &super::Snapshot,
    roster: &crate::conversation::roster::Roster<'_>,
    index: usize,
) -> Result<Vec<Attachment>, AttachError> {
    let text = &*snapshot.text;
    match snapshot.chat.messages.get(index) {
        Some(message) if roster.is_human(message.handle(text)) => {
            gather(port, &ctx.workspace_root, text, message).await
        }
        _ => Ok(Vec::new()),
    }
}

#[cfg(test)]
mod tests;
