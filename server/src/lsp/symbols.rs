//! Document symbols (the preamble and one symbol per message) and workspace symbols
//! across every `.chat.md` in the workspace.

use std::path::Path;
use std::sync::{Arc, Mutex};

use tower_lsp_server::ls_types::*;

use super::convert;
use super::outline_window::{Shown, group_symbol};
use super::state::{Document, State, lock};
use crate::document::ByteRange;
use crate::document::chat::{Chat, Message, summary_of};
use crate::document::line_starts::LineStarts;
use crate::document::lines::Lines;
use crate::document::status::{StatusComment, TurnStatus};
use crate::document::text::{PositionEncoding, Text};

pub(super) const SUMMARY_CHARS: usize = 60;

/// One outline entry of a chat, independent of LSP.
pub(super) struct Entry {
    name: String,
    detail: Option<String>,
    range: crate::document::ByteRange,
    selection: crate::document::ByteRange,
    is_preamble: bool,
}

/// The outline entries of a chat, made one at a time (a long chat has 20k).
fn entries<'a>(text: &'a str, chat: &'a Chat) -> impl Iterator<Item = Entry> + 'a {
    preamble_entry(&text[chat.preamble.clone()], chat)
        .into_iter()
        .chain(chat.messages.iter().map(move |m| message_entry(m, text, 0)))
}

/// The entry of message `m`; `part` is the document's text from byte `base` on, and
/// holds at least the message.
fn message_entry(m: &Message, part: &str, base: usize) -> Entry {
    let local = |r: ByteRange| &part[r.start - base..r.end - base];
    let (handle, summary) = (
        local(m.handle_range()),
        summary_of(local(m.body_range()), SUMMARY_CHARS),
    );
    let name = if summary.is_empty() {
        format!("@{handle}")
    } else {
        format!("@{handle}: {summary}")
    };
    let detail = m.status_range().and_then(|r| {
        let [status, agent] = StatusComment::peek(local(r), ["status", "agent"])?;
        let status = status.and_then(|s| s.parse::<TurnStatus>().ok());
        let mut detail = String::from(status.map_or("", |s| s.as_str()));
        if let Some(agent) = agent {
            if !detail.is_empty() {
                detail.push_str(" · ");
            }
            detail.push_str(&agent);
        }
        Some(detail)
    });
    Entry {
        name,
        detail: detail.filter(|d| !d.is_empty()),
        range: m.range(),
        selection: m.header(),
        is_preamble: false,
    }
}

/// The preamble's entry, from its text (`preamble`).
pub(super) fn preamble_entry(preamble: &str, chat: &Chat) -> Option<Entry> {
    if !preamble.trim().is_empty() {
        let title = chat
            .front_matter
            .as_ref()
            .and_then(|fm| fm.title.as_ref())
            .map(|t| t.value.clone());
        let first = Lines::new(preamble)
            .map(|line| preamble[line.range()].trim())
            .find(|l| !l.is_empty())
            .unwrap_or("");
        return Some(Entry {
            name: title.unwrap_or_else(|| "Preamble".to_string()),
            detail: Some(first.chars().take(SUMMARY_CHARS).collect()),
            range: chat.preamble.clone(),
            selection: chat.preamble.start..chat.preamble.start,
            is_preamble: true,
        });
    }
    None
}

#[allow(deprecated)] // `DocumentSymbol::deprecated` must still be filled in.
pub(super) fn symbol(e: Entry, position: impl Fn(usize) -> Position) -> DocumentSymbol {
    DocumentSymbol {
        name: e.name,
        detail: e.detail,
        kind: if e.is_preamble {
            SymbolKind::NAMESPACE
        } else {
            SymbolKind::EVENT
        },
        tags: None,
        deprecated: None,
        range: Range::new(position(e.range.start), position(e.range.end)),
        selection_range: Range::new(position(e.selection.start), position(e.selection.end)),
        children: None,
    }
}

/// The outline of `doc`: its preamble, the groups of its earlier messages and the
/// messages `shown` one by one (see `outline_window`).
pub fn document_symbols(
    doc: &Document,
    enc: PositionEncoding,
    shown: Shown,
) -> Vec<DocumentSymbol> {
    let text = doc.flat();
    let chat = &doc.chat;
    // 20k messages ask for 80k positions: one pass over the lines, not a rope lookup each.
    let starts = LineStarts::new(&text);
    let position = |byte| {
        let at = starts.position(byte, enc);
        Position::new(at.line, at.col)
    };
    let first = shown.first_alone(chat.messages.len());
    let preamble = preamble_entry(&text[chat.preamble.clone()], chat);
    let groups = shown
        .groups(first, chat.messages.len())
        .map(|group| group_symbol(&doc.text, chat, group, enc));
    let messages = chat.messages[first..]
        .iter()
        .map(|m| message_entry(m, &text, 0));
    preamble
        .map(|e| symbol(e, position))
        .into_iter()
        .chain(groups)
        .chain(messages.map(|e| symbol(e, position)))
        .collect()
}

/// Serializing plain structs of strings and numbers cannot fail; if it ever did, the
/// client gets `null` rather than a broken frame.
pub(super) fn unreachable_json(e: serde_json::Error) -> Vec<u8> {
    tracing::error!("serializing a result failed: {e}");
    b"null".to_vec()
}

/// Whether every word of `query` appears in `name`, ignoring case.
fn matches(name: &str, query: &str) -> bool {
    let name = name.to_lowercase();
    query
        .to_lowercase()
        .split_whitespace()
        .all(|word| name.contains(word))
}

/// The outline of one file, ready to be filtered: (name, kind, selection range).
pub type FileOutline = Vec<(String, SymbolKind, Range)>;

fn outline(text: &str, chat: &Chat, enc: PositionEncoding) -> FileOutline {
    let rope = Text::new(text);
    entries(text, chat)
        .map(|e| {
            let kind = if e.is_preamble {
                SymbolKind::NAMESPACE
            } else {
                SymbolKind::EVENT
            };
            (e.name, kind, convert::range(&rope, &e.selection, enc))
        })
        .collect()
}

/// The outline of a chat on disk, from the cache while the file is unchanged
/// (same modification time and size), so each query does not re-read the workspace.
fn disk_outline(
    state: &Mutex<State>,
    path: &Path,
    enc: PositionEncoding,
) -> Option<Arc<FileOutline>> {
    let meta = std::fs::metadata(path).ok()?;
    let stamp = (meta.modified().ok(), meta.len());
    if let Some((cached_stamp, outline)) = lock(state).outlines.get(path)
        && *cached_stamp == stamp
    {
        return Some(outline.clone());
    }
    // A file that cannot be read (deleted meanwhile, not UTF-8) has no symbols.
    let text = std::fs::read_to_string(path).ok()?;
    let computed = Arc::new(outline(&text, &Chat::parse(&text), enc));
    lock(state)
        .outlines
        .insert(path.to_path_buf(), (stamp, computed.clone()));
    Some(computed)
}

#[allow(deprecated)] // `SymbolInformation::deprecated` must still be filled in.
fn push_matches(path: &Path, outline: &FileOutline, query: &str, out: &mut Vec<SymbolInformation>) {
    let Some(uri) = Uri::from_file_path(path) else {
        return;
    };
    let file = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    for (name, kind, range) in outline.iter().filter(|(name, _, _)| matches(name, query)) {
        out.push(SymbolInformation {
            name: name.clone(),
            kind: *kind,
            tags: None,
            deprecated: None,
            location: Location::new(uri.clone(), *range),
            container_name: Some(file.to_string()),
        });
    }
}

/// Symbols matching `query` in every chat of the workspace: open documents as the
/// editor has them, the others as they are on disk.
pub fn workspace_symbols(state: &Mutex<State>, query: &str) -> Vec<SymbolInformation> {
    let (open, files, enc) = {
        let s = lock(state);
        let open: Vec<Document> = s.documents.values().cloned().collect();
        (open, s.chats.clone(), s.encoding)
    };
    let mut out = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for doc in &open {
        if let Some(path) = &doc.path {
            seen.insert(path.clone());
            push_matches(path, &outline(&doc.flat(), &doc.chat, enc), query, &mut out);
        }
    }
    for path in files.iter().filter(|p| !seen.contains(*p)) {
        if let Some(outline) = disk_outline(state, path, enc) {
            push_matches(path, &outline, query, &mut out);
        }
        if out.len() >= 1000 {
            break;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::matches;

    #[test]
    fn every_query_word_must_appear() {
        assert!(matches("@reviewer: Three problems", "rev THREE"));
        assert!(matches("@reviewer", ""));
        assert!(!matches("@reviewer", "tester"));
        assert!(!matches("@reviewer: please review", "release"));
        assert!(matches("Ünïcode", "ünï"));
    }
}
