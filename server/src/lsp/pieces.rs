//! The outline and the folds of a chat, assembled from per-message pieces kept across
//! edits. A message's symbol and folds depend on its own text alone, but for the line
//! it starts on: a piece keeps them with lines counted from the message's heading, and
//! the answer adds each message's first line, summed from the pieces' line counts. An
//! edit re-parses a few messages (`Chat::reparse` says which), and only their pieces
//! are made again: a keystroke in a 30 MB chat rebuilds the outline from 100k pieces
//! without reading the text of more than the edited messages.

use tower_lsp_server::ls_types::{Position, SymbolKind};

use super::folding::{Folds, write_folds};
use super::state::Document;
use super::symbols::{preamble_entry, symbol, unreachable_json};
use super::symbols_json::{write_head, write_tail};
use crate::document::chat::Message;
use crate::document::line_starts::PartPositions;
use crate::document::text::{LineCol, PositionEncoding, Text, saturate};

/// What the outline and the folds need of one message, wherever it is.
#[derive(Debug)]
pub struct Piece {
    /// Its symbol's JSON up to its kind (see `symbols_json::write_head`).
    head: Box<[u8]>,
    /// The positions of its start, its end, its heading's start and end, with lines
    /// counted from its first line. Its end's line is the number of lines it spans.
    at: [LineCol; 4],
    /// Its folds (start line, end line, whether the message's own region), lines
    /// counted from its first line.
    folds: Box<[(u32, u32, bool)]>,
}

/// The pieces of one document's messages, kept across edits, for one position encoding.
pub type SharedPieces = super::kept::Kept<Piece, PositionEncoding>;

/// The pieces of `doc`'s messages, made where missing, handed to `each` in order with
/// the line each message starts on.
fn for_each_piece(doc: &Document, enc: PositionEncoding, mut each: impl FnMut(&Piece, u32)) {
    let messages = &doc.chat.messages;
    let Some(first) = messages.first() else {
        return;
    };
    let mut line = saturate(doc.text.line_of_byte(first.range().start));
    let mut buf = String::new();
    let kind = serde_json::to_vec(&SymbolKind::EVENT).unwrap_or_default();
    let mut make = |m: &Message| piece(&doc.text, m, enc, &kind, &mut buf);
    doc.pieces.with(enc, messages.len(), |slots| match slots {
        Some(slots) => {
            for (m, slot) in messages.iter().zip(slots.iter_mut()) {
                let piece = slot.get_or_insert_with(|| make(m));
                each(piece, line);
                line = line.saturating_add(piece.at[1].line);
            }
        }
        None => {
            for m in messages {
                let piece = make(m);
                each(&piece, line);
                line = line.saturating_add(piece.at[1].line);
            }
        }
    });
}

/// The piece of message `m`, read out of `text` (into `buf` when it is a rope).
fn piece(text: &Text, m: &Message, enc: PositionEncoding, kind: &[u8], buf: &mut String) -> Piece {
    let range = m.range();
    let part = match text.as_flat().and_then(|flat| flat.get(range.clone())) {
        Some(part) => part,
        None => {
            text.slice_into(range.clone(), buf);
            buf.as_str()
        }
    };
    let base = range.start;
    // A message starts at the start of a line (its heading's), so its positions from
    // there are those in the document less its first line.
    let positions = PartPositions::at(part, base, LineCol::new(0, 0));
    let header = m.header();
    let at = [range.start, range.end, header.start, header.end].map(|b| positions.position(b, enc));
    let mut head = Vec::new();
    write_head(&mut head, m, (part, base), kind);
    let mut folds = Folds::default();
    folds.add(part, 0, true);
    folds.blocks(part, base, 0, m.code_blocks().map(|b| b.range));
    Piece {
        head: head.into_boxed_slice(),
        at,
        folds: folds.0.into_boxed_slice(),
    }
}

/// The outline of `doc` as the JSON of a `documentSymbol` result, byte for byte what
/// `symbols_json::document_symbols_json` makes.
pub fn outline_json(doc: &Document, enc: PositionEncoding) -> Vec<u8> {
    let chat = &doc.chat;
    let mut out = Vec::with_capacity((chat.messages.len() + 1) * 320);
    out.push(b'[');
    let mut buf = String::new();
    doc.text.slice_into(chat.preamble.clone(), &mut buf);
    if let Some(entry) = preamble_entry(&buf, chat) {
        let first = doc.text.byte_to_position(chat.preamble.start, enc);
        let at = PartPositions::at(&buf, chat.preamble.start, first);
        let preamble = symbol(entry, |byte| {
            let at = at.position(byte, enc);
            Position::new(at.line, at.col)
        });
        if let Err(e) = serde_json::to_writer(&mut out, &preamble) {
            return unreachable_json(e);
        }
    }
    for_each_piece(doc, enc, |piece, line| {
        if out.len() > 1 {
            out.push(b',');
        }
        out.extend_from_slice(&piece.head);
        let moved = piece
            .at
            .map(|at| Position::new(line.saturating_add(at.line), at.col));
        write_tail(&mut out, moved);
    });
    out.push(b']');
    out.shrink_to_fit();
    out
}

/// The folds of `doc` as the JSON of a `foldingRange` result, byte for byte what
/// `folding::folding_ranges_json` makes.
pub fn folding_json(doc: &Document, enc: PositionEncoding) -> Vec<u8> {
    let (text, chat) = (&doc.text, &doc.chat);
    let mut folds = Folds(Vec::with_capacity(chat.messages.len() * 2));
    let mut part = String::new();
    text.slice_into(chat.preamble.clone(), &mut part);
    let line = saturate(text.line_of_byte(chat.preamble.start));
    folds.blocks(
        &part,
        chat.preamble.start,
        line,
        chat.preamble_code_blocks.iter().map(|b| b.range.clone()),
    );
    for_each_piece(doc, enc, |piece, line| {
        let moved = piece.folds.iter().map(|&(start, end, region)| {
            (line.saturating_add(start), line.saturating_add(end), region)
        });
        folds.0.extend(moved);
    });
    write_folds(folds)
}

#[cfg(test)]
#[path = "pieces_tests.rs"]
mod tests;
