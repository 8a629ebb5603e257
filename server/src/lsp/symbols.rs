//! Document symbols (the preamble and one symbol per message) and workspace symbols
//! across every `.chat.md` in the workspace.

use std::path::Path;
use std::sync::{Arc, Mutex};

use tower_lsp_server::ls_types::*;

use super::convert;
use super::state::{Document, State, lock};
use crate::document::ByteRange;
use crate::document::chat::{Chat, Message, summary_of};
use crate::document::line_starts::{LineStarts, PartPositions};
use crate::document::lines::Lines;
use crate::document::text::{PositionEncoding, Text};

const SUMMARY_CHARS: usize = 60;

/// One outline entry of a chat, independent of LSP.
struct Entry {
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
    let detail = m.status_comment_in(part, base).map(|c| {
        [
            c.status().map(|s| s.as_str().to_string()),
            c.agent().map(str::to_string),
        ]
        .into_iter()
        .flatten()
        .collect::<Vec<_>>()
        .join(" · ")
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
fn preamble_entry(preamble: &str, chat: &Chat) -> Option<Entry> {
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
fn symbol(e: Entry, position: impl Fn(usize) -> Position) -> DocumentSymbol {
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

pub fn document_symbols(doc: &Document, enc: PositionEncoding) -> Vec<DocumentSymbol> {
    let text = doc.flat();
    // 20k messages ask for 80k positions: one pass over the lines, not a rope lookup each.
    let starts = LineStarts::new(&text);
    let position = |byte| {
        let at = starts.position(byte, enc);
        Position::new(at.line, at.col)
    };
    entries(&text, &doc.chat)
        .map(|e| symbol(e, position))
        .collect()
}

/// [`document_symbols`] as the JSON of a `documentSymbol` result, the same bytes,
/// serialized without a `serde_json::Value` in between (see `framing::output`), each
/// symbol made, written and dropped, and without the whole text as one string: the
/// preamble and each message are read out of the rope into one buffer, and their
/// positions counted there.
pub fn document_symbols_json(doc: &Document, enc: PositionEncoding) -> Vec<u8> {
    struct Symbols<'a>(&'a Document, PositionEncoding);
    impl serde::Serialize for Symbols<'_> {
        fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            let (Symbols(doc, enc), text) = (self, &self.0.text);
            let mut part = String::new();
            text.slice_into(doc.chat.preamble.clone(), &mut part);
            let first = preamble_entry(&part, &doc.chat).map(|e| {
                let at = PartPositions::new(text, &part, doc.chat.preamble.start, *enc);
                symbol(e, |byte| position(&at, byte, *enc))
            });
            s.collect_seq(first.into_iter().chain(doc.chat.messages.iter().map(|m| {
                let base = m.range().start;
                text.slice_into(m.range(), &mut part);
                let at = PartPositions::new(text, &part, base, *enc);
                symbol(message_entry(m, &part, base), |byte| {
                    position(&at, byte, *enc)
                })
            })))
        }
    }
    fn position(at: &PartPositions<'_>, byte: usize, enc: PositionEncoding) -> Position {
        let at = at.position(byte, enc);
        Position::new(at.line, at.col)
    }
    // Room for all of them at once rather than doubling (the 10 MB chat's take 286
    // bytes each; 256 made the buffer double to 10 MB). The pages of the room left
    // unwritten are never touched, so never resident, and `shrink_to_fit` gives
    // them back.
    let mut json = Vec::with_capacity((doc.chat.messages.len() + 1) * 384);
    match serde_json::to_writer(&mut json, &Symbols(doc, enc)) {
        Ok(()) => {
            json.shrink_to_fit();
            json
        }
        Err(e) => unreachable_json(e),
    }
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
