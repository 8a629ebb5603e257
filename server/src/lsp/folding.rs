//! Folding: each message and each fenced code block.

use tower_lsp_server::ls_types::*;

use super::state::Document;
use crate::document::line_starts::LineStarts;
use crate::document::text::PositionEncoding;

pub fn folding_ranges(doc: &Document, enc: PositionEncoding) -> Vec<FoldingRange> {
    let text = doc.flat();
    // One pass over the lines, not a rope lookup per offset (a long chat has many).
    let starts = LineStarts::new(&doc.text, &text);
    let line = |offset: usize| starts.position(offset, enc).line;
    let mut out = Vec::new();
    let mut push = |start: usize, end: usize, kind: Option<FoldingRangeKind>| {
        let (a, b) = (line(start), line(end));
        if b > a {
            out.push(FoldingRange {
                start_line: a,
                end_line: b,
                kind,
                ..Default::default()
            });
        }
    };
    for m in &doc.chat.messages {
        // Fold up to the last non-blank line, so the blank line before the next
        // heading stays visible.
        let range = m.range();
        let end = range.start + text[range.clone()].trim_end().len();
        push(range.start, end, Some(FoldingRangeKind::Region));
    }
    for block in doc.chat.code_blocks() {
        let end = block.range.start + text[block.range.clone()].trim_end().len();
        push(block.range.start, end, None);
    }
    out.sort_by_key(|f| (f.start_line, std::cmp::Reverse(f.end_line)));
    out
}

/// [`folding_ranges`] as the JSON of a `foldingRange` result (see
/// `framing::output`).
pub fn folding_ranges_json(doc: &Document, enc: PositionEncoding) -> Vec<u8> {
    serde_json::to_vec(&folding_ranges(doc, enc)).unwrap_or_else(super::symbols::unreachable_json)
}
