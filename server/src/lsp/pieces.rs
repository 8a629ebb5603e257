//! The outline and the folds of a chat, assembled from per-message pieces kept across
//! edits. A message's symbol and folds depend on its own text alone, but for the line
//! it starts on: a piece keeps them with lines counted from the message's heading, and
//! the answer adds each message's first line, summed from the pieces' line counts. An
//! edit re-parses a few messages (`Chat::reparse` says which), and only their pieces
//! are made again, reading the text of no more than the edited messages.
//!
//! Each answer is also kept as last written, and each piece knows where its entries
//! are in it and on which line it started then: the next answer copies the runs of
//! entries that did not move (a keystroke that adds no line leaves all but the edited
//! message's in place) and writes only the others, so it costs a copy of the bytes, not
//! a rewrite of every symbol's positions.

use std::sync::Arc;

use tower_lsp_server::ls_types::{Position, SymbolKind};

use super::folding::{Folds, write_fold, write_folds};
use super::outline_window::{Shown, group_fold, group_symbol};
use super::state::Document;
use super::symbols::{preamble_entry, symbol, unreachable_json};
use super::symbols_json::{write_head, write_tail};
use crate::document::chat::Message;
use crate::document::line_starts::PartPositions;
use crate::document::text::{LineCol, PositionEncoding, saturate};

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
    /// Where its entries are in the answers last written ([`Written`]).
    written: [Option<Span>; 2],
}

/// Where a piece's entries are in an answer (without the commas around them), which
/// answer that was, and the line the message started on when it was written.
#[derive(Clone, Copy, Debug)]
struct Span {
    start: u32,
    len: u32,
    line: u32,
    /// The answer's number ([`Written`]): a message left out of the last answer (a long
    /// chat lists its earliest in groups) keeps a span into an older one.
    answer: u32,
}

/// The two answers made from the pieces.
#[derive(Clone, Copy)]
enum Answer {
    Outline = 0,
    Folding = 1,
}

/// The answers last written from a document's pieces, which the pieces' spans point
/// into, each with its number.
#[derive(Debug, Default)]
pub struct Written([Option<(u32, Arc<Vec<u8>>)>; 2]);

/// The edited messages' slots are empty: their entries are written anew.
impl super::kept::Whole for Written {}

/// The pieces of one document's messages, kept across edits, for one position encoding.
/// Each is boxed, and only the messages listed one by one have a slot: a long chat's
/// outline lists its earliest in groups (a piece is 104 bytes, an empty slot 8: 50 MB
/// and 4 MB for a chat of 500,000 short messages).
pub type SharedPieces = super::kept::Kept<Box<Piece>, PositionEncoding, Written>;

/// `answer` of `doc`: `out` (its `[` and the entries before the messages') followed
/// by the entries of each message from `from` on, which `write` writes from its piece
/// and the line it starts on, or which are copied from the answer last written when
/// the message was on the same line then.
fn assemble(
    doc: &Document,
    enc: PositionEncoding,
    answer: Answer,
    from: usize,
    out: Vec<u8>,
    write: impl Fn(&Piece, u32, &mut Vec<u8>),
) -> Arc<Vec<u8>> {
    let all = &doc.chat.messages;
    let from = from.min(all.len());
    let messages = &all[from..];
    let mut line = messages.first().map_or(0, |first| {
        saturate(doc.text.line_of_byte(first.range().start))
    });
    let mut buf = String::new();
    let kind = serde_json::to_vec(&SymbolKind::EVENT).unwrap_or_default();
    let mut make = |m: &Message| piece(doc, m, enc, &kind, &mut buf);
    let which = answer as usize;
    // Slots only for the messages listed one by one: a long chat lists its earliest
    // in groups.
    doc.pieces
        .with_whole_from(enc, all.len(), from, |kept| match kept {
            Some((slots, written)) => {
                let last = written.0[which].take();
                let number = last.as_ref().map_or(0, |(n, _)| n.wrapping_add(1));
                let last_bytes = last.as_ref().map_or(&[][..], |(_, json)| json.as_slice());
                let mut splice = Splice::new(last_bytes, out, number);
                let last_number = last.as_ref().map(|(n, _)| *n);
                for (m, slot) in messages.iter().zip(slots.iter_mut()) {
                    let piece = slot.get_or_insert_with(|| Box::new(make(m)));
                    let span = match piece.written[which] {
                        Some(span) if Some(span.answer) == last_number && span.line == line => {
                            splice.reuse(span)
                        }
                        _ => splice.write(line, |out| write(piece, line, out)),
                    };
                    piece.written[which] = span;
                    line = line.saturating_add(piece.at[1].line);
                }
                #[cfg(test)]
                WRITTEN_ANEW.set(splice.anew);
                let json = Arc::new(splice.finish());
                written.0[which] = Some((number, json.clone()));
                json
            }
            None => {
                let mut out = out;
                for m in messages {
                    let piece = make(m);
                    if out.len() > 1 {
                        out.push(b',');
                    }
                    let before = out.len();
                    write(&piece, line, &mut out);
                    if out.len() == before {
                        out.pop_if(|&mut b| b == b',');
                    }
                    line = line.saturating_add(piece.at[1].line);
                }
                out.push(b']');
                out.shrink_to_fit();
                Arc::new(out)
            }
        })
}

#[cfg(test)]
thread_local! {
    /// How many messages' entries the last answer assembled on this thread wrote anew.
    static WRITTEN_ANEW: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// An answer written after the last one: entries that did not move are copied from it,
/// runs of them at once.
struct Splice<'a> {
    last: &'a [u8],
    /// `[`, then the entries so far, comma-separated.
    out: Vec<u8>,
    /// The bytes of `last` to copy next, not copied yet.
    pending: Option<std::ops::Range<usize>>,
    /// How many messages' entries were written anew (for tests).
    anew: usize,
    /// This answer's number, kept in the spans it gives.
    number: u32,
}

impl<'a> Splice<'a> {
    fn new(last: &'a [u8], mut out: Vec<u8>, number: u32) -> Splice<'a> {
        out.reserve(last.len().saturating_sub(out.len()) + 64);
        Splice {
            last,
            out,
            pending: None,
            anew: 0,
            number,
        }
    }

    fn flush(&mut self) {
        if let Some(run) = self.pending.take() {
            self.out.extend_from_slice(&self.last[run]);
        }
    }

    /// Copies the entries at `span` of the last answer; where they are now.
    fn reuse(&mut self, span: Span) -> Option<Span> {
        if span.len == 0 {
            return Some(Span {
                answer: self.number,
                ..span
            });
        }
        let (start, end) = (span.start as usize, span.start as usize + span.len as usize);
        // Right after the run before it, past the comma between them: one run.
        if let Some(run) = &mut self.pending
            && run.end + 1 == start
        {
            let at = self.out.len() + run.len() + 1;
            run.end = end;
            return self.at_span(at, span);
        }
        self.flush();
        if self.out.len() > 1 {
            self.out.push(b',');
        }
        let at = self.out.len();
        self.pending = Some(start..end);
        self.at_span(at, span)
    }

    /// Writes entries anew with `write`, for a message starting on `line`; where they
    /// are.
    fn write(&mut self, line: u32, write: impl FnOnce(&mut Vec<u8>)) -> Option<Span> {
        self.anew += 1;
        self.flush();
        let before = self.out.len();
        if before > 1 {
            self.out.push(b',');
        }
        let at = self.out.len();
        write(&mut self.out);
        let len = u32::try_from(self.out.len() - at).ok()?;
        if len == 0 {
            // No entry: no comma either.
            self.out.truncate(before);
        }
        self.at_span(
            at,
            Span {
                start: 0,
                len,
                line,
                answer: self.number,
            },
        )
    }

    /// `span` moved to byte `at` of this answer; `None` past what a span counts (the
    /// entries are then written anew next time).
    fn at_span(&self, at: usize, span: Span) -> Option<Span> {
        Some(Span {
            start: u32::try_from(at).ok()?,
            answer: self.number,
            ..span
        })
    }

    fn finish(mut self) -> Vec<u8> {
        self.flush();
        self.out.push(b']');
        self.out.shrink_to_fit();
        self.out
    }
}

/// The piece of message `m`, read out of `doc` (see [`Document::part`]).
fn piece(
    doc: &Document,
    m: &Message,
    enc: PositionEncoding,
    kind: &[u8],
    buf: &mut String,
) -> Piece {
    let range = m.range();
    let part = doc.part(range.clone(), buf);
    let part: &str = &part;
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
        written: [None; 2],
    }
}

/// The outline of `doc` as the JSON of a `documentSymbol` result, byte for byte what
/// `symbols::document_symbols` serializes to: the messages `shown` one by one, the
/// earlier ones in groups.
pub fn outline_json(doc: &Document, enc: PositionEncoding, shown: Shown) -> Arc<Vec<u8>> {
    let chat = &doc.chat;
    let mut out = vec![b'['];
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
            return Arc::new(unreachable_json(e));
        }
    }
    let first = shown.first_alone(chat.messages.len());
    for group in shown.groups(first, chat.messages.len()) {
        if out.len() > 1 {
            out.push(b',');
        }
        let symbol = group_symbol(&doc.text, chat, group, enc);
        if let Err(e) = serde_json::to_writer(&mut out, &symbol) {
            return Arc::new(unreachable_json(e));
        }
    }
    assemble(doc, enc, Answer::Outline, first, out, |piece, line, out| {
        out.extend_from_slice(&piece.head);
        let moved = piece
            .at
            .map(|at| Position::new(line.saturating_add(at.line), at.col));
        write_tail(out, moved);
    })
}

/// The folds of `doc` as the JSON of a `foldingRange` result, byte for byte what
/// `folding::folding_ranges` serializes to: those of the messages `shown` one by one,
/// one for each group of the earlier ones.
pub fn folding_json(doc: &Document, enc: PositionEncoding, shown: Shown) -> Arc<Vec<u8>> {
    let (text, chat) = (&doc.text, &doc.chat);
    let mut folds = Folds::default();
    let mut part = String::new();
    text.slice_into(chat.preamble.clone(), &mut part);
    let line = saturate(text.line_of_byte(chat.preamble.start));
    folds.blocks(
        &part,
        chat.preamble.start,
        line,
        chat.preamble_code_blocks.iter().map(|b| b.range.clone()),
    );
    let first = shown.first_alone(chat.messages.len());
    for group in shown.groups(first, chat.messages.len()) {
        if let Some((start, end)) = group_fold(text, chat, group, &mut part) {
            folds.0.push((start, end, true));
        }
    }
    let mut out = write_folds(folds);
    // Every fold of a message lies within its lines, and its own are in order: the
    // messages' folds after the preamble's are all in order.
    out.pop();
    assemble(doc, enc, Answer::Folding, first, out, |piece, line, out| {
        for (n, &(start, end, region)) in piece.folds.iter().enumerate() {
            if n > 0 {
                out.push(b',');
            }
            write_fold(
                out,
                line.saturating_add(start),
                line.saturating_add(end),
                region,
            );
        }
    })
}

#[cfg(test)]
#[path = "pieces_tests.rs"]
mod tests;
