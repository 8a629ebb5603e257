//! Context references in the editor: a diagnostic on each reference of the message
//! about to be sent that cannot be attached (a missing file, a range past its end, a
//! path outside the workspace), and hover on any reference saying what it attaches
//! and how big it is. Neither runs a program: `#diff` is computed on send only.

use std::fmt::Write as _;
use std::path::Path;

use tower_lsp_server::ls_types::*;

use super::convert;
use super::state::Document;
use crate::conversation::attached::{ATTACHMENT_CAP, size_words};
use crate::conversation::problems::Problem;
use crate::conversation::roster::Roster;
use crate::document::chat::Chat;
use crate::document::references::{self, Reference, ReferenceKind};
use crate::document::text::PositionEncoding;
use crate::team::Severity;
use crate::turns::attach::{self, Preview, lines_word};

/// The problems of the references in the chat's last message, when a human wrote it:
/// that is the message a send attaches them for (earlier ones were sent already).
pub fn problems(text: &str, chat: &Chat, roster: &Roster, root: &Path) -> Vec<Problem> {
    let Some(last) = chat.messages.last() else {
        return Vec::new();
    };
    if !roster.is_human(last.handle(text)) {
        return Vec::new();
    }
    let mut files = attach::Files::default();
    references::in_message(text, last)
        .iter()
        .filter_map(|r| {
            let error = attach::check(&mut files, root, text, r).err()?;
            Some(Problem {
                range: r.range.clone(),
                severity: Severity::Error,
                code: "reference",
                message: error.to_string(),
                fixes: Vec::new(),
            })
        })
        .collect()
}

/// Hover on a reference in a human message.
pub fn hover(
    doc: &Document,
    text: &str,
    roster: &Roster,
    root: &Path,
    enc: PositionEncoding,
    offset: usize,
) -> Option<Hover> {
    let message = &doc.chat.messages[doc.chat.message_at(offset)?];
    if !roster.is_human(message.handle(text)) {
        return None;
    }
    let reference = references::in_message(text, message)
        .into_iter()
        .find(|r| r.range.start <= offset && offset <= r.range.end)?;
    Some(Hover {
        contents: HoverContents::Markup(MarkupContent {
            kind: MarkupKind::Markdown,
            value: describe(text, &reference, root),
        }),
        range: Some(convert::range(&doc.text, &reference.range, enc)),
    })
}

/// What `reference` will attach, or why it cannot.
fn describe(text: &str, reference: &Reference, root: &Path) -> String {
    let written = &text[reference.range.clone()];
    let mut md = format!("**`{written}`** — ");
    match attach::check(&mut attach::Files::default(), root, text, reference) {
        Err(error) => {
            let _ = write!(md, "**cannot be attached**: {error}");
        }
        Ok(Preview::File {
            size, lines, span, ..
        }) => {
            let path = reference.path(text).unwrap_or_default();
            let attached = match span {
                Some((span, bytes)) => {
                    let _ = write!(
                        md,
                        "attaches lines {}-{} of `{path}` ({} of {}, {})",
                        span.first,
                        span.last,
                        lines_word(span.last - span.first + 1),
                        lines,
                        size_words(bytes as usize)
                    );
                    bytes
                }
                None => {
                    let _ = write!(
                        md,
                        "attaches `{path}` ({}, {})",
                        lines_word(lines),
                        size_words(size as usize)
                    );
                    size
                }
            };
            md.push_str(" when the message is sent.");
            if attached as usize > ATTACHMENT_CAP {
                let _ = write!(
                    md,
                    "\n\nOver the {} an attachment keeps: the agent gets its first {}.",
                    size_words(ATTACHMENT_CAP),
                    size_words(ATTACHMENT_CAP)
                );
            }
        }
        Ok(Preview::Diff) => {
            let _ = write!(
                md,
                "attaches the working tree's diff (`git diff HEAD` in `{}`), computed on send.",
                root.display()
            );
        }
        Ok(Preview::Diagnostics { .. }) => {
            let path = reference.path(text).unwrap_or_default();
            let _ = write!(
                md,
                "attaches the problems the editor reports for `{path}`, asked when the \
                 message is sent (VS Code and Neovim with chatmd's extension)."
            );
        }
    }
    if matches!(reference.kind, ReferenceKind::File { .. }) {
        md.push_str("\n\nPaths are relative to the workspace root.");
    }
    md
}
