//! The outline as the JSON of a `documentSymbol` result, written straight into bytes
//! (see `framing::output`): byte for byte what serde_json makes of
//! `symbols::document_symbols`, without a `DocumentSymbol`, a name or a detail string
//! per message in between (a long chat has 20k messages; those were a third of the
//! request's time).

use tower_lsp_server::ls_types::{Position, Range, SymbolKind};

use super::state::Document;
use super::symbols::{SUMMARY_CHARS, preamble_entry, symbol, unreachable_json};
use crate::document::chat::{Message, summary_parts};
use crate::document::in_order::InOrder;
use crate::document::line_starts::PartPositions;
use crate::document::status::{StatusComment, TurnStatus};
use crate::document::text::PositionEncoding;

/// The outline of `doc`, read in one pass over its text (see [`InOrder`]).
pub fn document_symbols_json(doc: &Document, enc: PositionEncoding) -> Vec<u8> {
    let chat = &doc.chat;
    // Room for all of them at once rather than doubling (the 10 MB chat's take 286
    // bytes each). The pages of the room left unwritten are never touched, so never
    // resident, and `shrink_to_fit` gives them back.
    let mut out = Vec::with_capacity((chat.messages.len() + 1) * 320);
    out.push(b'[');
    let kind = serde_json::to_vec(&SymbolKind::EVENT).unwrap_or_default();
    let (mut reader, mut buf) = (InOrder::new(&doc.text), String::new());
    let preamble = chat.preamble.clone();
    let (part, first) = reader.read(preamble.clone(), &mut buf, enc);
    if let Some(entry) = preamble_entry(part, chat) {
        let at = PartPositions::at(part, preamble.start, first);
        let preamble = symbol(entry, |byte| position(&at, byte, enc));
        if let Err(e) = serde_json::to_writer(&mut out, &preamble) {
            return unreachable_json(e);
        }
    }
    for m in &chat.messages {
        if out.len() > 1 {
            out.push(b',');
        }
        let base = m.range().start;
        let (part, first) = reader.read(m.range(), &mut buf, enc);
        let at = PartPositions::at(part, base, first);
        write_message(&mut out, m, (part, base), &kind, |byte| {
            position(&at, byte, enc)
        });
    }
    out.push(b']');
    out.shrink_to_fit();
    out
}

fn position(at: &PartPositions<'_>, byte: usize, enc: PositionEncoding) -> Position {
    let at = at.position(byte, enc);
    Position::new(at.line, at.col)
}

/// The symbol of message `m` (`part` is the text from byte `base` on, holding it), as
/// `symbols::message_entry` and `symbols::symbol` make it; `kind` is its kind's JSON.
fn write_message(
    out: &mut Vec<u8>,
    m: &Message,
    (part, base): (&str, usize),
    kind: &[u8],
    position: impl Fn(usize) -> Position,
) {
    let local = |r: std::ops::Range<usize>| &part[r.start - base..r.end - base];
    let (summary, cut) = summary_parts(local(m.body_range()), SUMMARY_CHARS);
    out.extend_from_slice(b"{\"name\":\"@");
    escaped(out, local(m.handle_range()));
    if !summary.is_empty() {
        out.extend_from_slice(b": ");
        escaped(out, summary);
        if cut {
            out.extend_from_slice("…".as_bytes());
        }
    }
    out.push(b'"');
    let fields = m
        .status_range()
        .and_then(|r| StatusComment::peek(local(r), ["status", "agent"]));
    if let Some([status, agent]) = fields {
        let status = status.and_then(|s| s.parse::<TurnStatus>().ok());
        if status.is_some() || agent.as_deref().is_some_and(|a| !a.is_empty()) {
            out.extend_from_slice(b",\"detail\":\"");
            if let Some(status) = status {
                escaped(out, status.as_str());
            }
            if let Some(agent) = agent {
                if status.is_some() {
                    out.extend_from_slice(" · ".as_bytes());
                }
                escaped(out, &agent);
            }
            out.push(b'"');
        }
    }
    out.extend_from_slice(b",\"kind\":");
    out.extend_from_slice(kind);
    out.extend_from_slice(b",\"range\":");
    let range = m.range();
    write_range(out, Range::new(position(range.start), position(range.end)));
    out.extend_from_slice(b",\"selectionRange\":");
    let header = m.header();
    write_range(
        out,
        Range::new(position(header.start), position(header.end)),
    );
    out.push(b'}');
}

fn write_range(out: &mut Vec<u8>, range: Range) {
    for (key, at) in [
        (&b"{\"start\":"[..], range.start),
        (b",\"end\":", range.end),
    ] {
        out.extend_from_slice(key);
        out.extend_from_slice(b"{\"line\":");
        number(out, at.line.into());
        out.extend_from_slice(b",\"character\":");
        number(out, at.character.into());
        out.push(b'}');
    }
    out.push(b'}');
}

fn number(out: &mut Vec<u8>, n: u64) {
    out.extend_from_slice(itoa::Buffer::new().format(n).as_bytes());
}

/// `s` inside a JSON string, escaped as serde_json escapes it.
fn escaped(out: &mut Vec<u8>, s: &str) {
    if !s.bytes().any(|b| b < 0x20 || b == b'"' || b == b'\\') {
        out.extend_from_slice(s.as_bytes());
        return;
    }
    let mut quoted = Vec::with_capacity(s.len() + 8);
    if serde_json::to_writer(&mut quoted, s).is_ok() {
        out.extend_from_slice(&quoted[1..quoted.len() - 1]);
    }
}
