//! The outline as the JSON of a `documentSymbol` result, written straight into bytes
//! (see `framing::output`): byte for byte what serde_json makes of
//! `symbols::document_symbols`, without a `DocumentSymbol`, a name or a detail string
//! per message in between (a long chat has 20k messages; those were a third of the
//! request's time).

use tower_lsp_server::ls_types::{Position, Range};

use super::symbols::SUMMARY_CHARS;
use crate::document::chat::{Message, summary_parts};
use crate::document::status::{StatusComment, TurnStatus};

/// The outline of `doc`, assembled from its messages' pieces (see `pieces`), as a
/// copy of its own (the server sends the kept one: `pieces::outline_json`).
#[cfg(test)]
pub fn document_symbols_json(
    doc: &super::state::Document,
    enc: crate::document::text::PositionEncoding,
) -> Vec<u8> {
    super::pieces::outline_json(doc, enc, super::outline_window::Shown::DEFAULT).to_vec()
}

/// The end of a message's symbol: its range and selection range from the positions
/// of its start, its end, its heading's start and its heading's end.
pub(super) fn write_tail(out: &mut Vec<u8>, [start, end, header_start, header_end]: [Position; 4]) {
    out.extend_from_slice(b",\"range\":");
    write_range(out, Range::new(start, end));
    out.extend_from_slice(b",\"selectionRange\":");
    write_range(out, Range::new(header_start, header_end));
    out.push(b'}');
}

/// The start of a message's symbol, up to its kind: what depends on its text alone,
/// not on where it is.
pub(super) fn write_head(out: &mut Vec<u8>, m: &Message, (part, base): (&str, usize), kind: &[u8]) {
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
