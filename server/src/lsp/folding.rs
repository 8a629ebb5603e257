//! Folding: each message and each fenced code block.

use tower_lsp_server::ls_types::*;

use super::state::Document;
use crate::document::ByteRange;
use crate::document::line_starts::LineStarts;
use crate::document::text::{PositionEncoding, breaks_before, saturate};

pub fn folding_ranges(doc: &Document, enc: PositionEncoding) -> Vec<FoldingRange> {
    let text = doc.flat();
    // One pass over the lines, not a rope lookup per offset (a long chat has many).
    let starts = LineStarts::new(&text);
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

/// [`folding_ranges`] as the JSON of a `foldingRange` result (see `framing::output`),
/// the same bytes, made in one pass over the preamble and the messages without the
/// whole text as one string and without a table of lines: each part is read from the
/// rope into one buffer and its lines counted there; a fold is three numbers until
/// it is written.
pub fn folding_ranges_json(doc: &Document, _enc: PositionEncoding) -> Vec<u8> {
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
    for m in &chat.messages {
        let range = m.range();
        text.slice_into(range.clone(), &mut part);
        let line = saturate(text.line_of_byte(range.start));
        folds.add(&part, line, true);
        folds.blocks(&part, range.start, line, m.code_blocks().map(|b| b.range));
    }
    // Each fold starts on a line of its own (a heading, a fence), so the order is the
    // one `folding_ranges` sorts into.
    folds
        .0
        .sort_by_key(|&(start, end, _)| (start, std::cmp::Reverse(end)));
    // At most about 56 bytes a fold (`{"startLine":…,"endLine":…,"kind":"region"},`).
    let mut json = Vec::with_capacity(folds.0.len() * 56 + 2);
    let ranges = folds
        .0
        .into_iter()
        .map(|(start_line, end_line, region)| FoldingRange {
            start_line,
            end_line,
            kind: region.then_some(FoldingRangeKind::Region),
            ..Default::default()
        });
    let written = serde_json::to_writer(&mut json, &Seq(std::cell::Cell::new(Some(ranges))));
    match written {
        Ok(()) => json,
        Err(e) => super::symbols::unreachable_json(e),
    }
}

/// Folds as (start line, end line, whether a message's region).
struct Folds(Vec<(u32, u32, bool)>);

impl Folds {
    /// `part` is the text from `line`'s start on: folded up to its last non-blank line,
    /// so the blank line before the next heading stays visible.
    fn add(&mut self, part: &str, line: u32, region: bool) {
        let end = part.trim_end().len();
        let end_line = line.saturating_add(saturate(breaks_before(part, end)));
        if end_line > line {
            self.0.push((line, end_line, region));
        }
    }

    /// The code blocks (`blocks`, ranges in the document) of `part`, which starts at
    /// byte `base` and line `line`.
    fn blocks(
        &mut self,
        part: &str,
        base: usize,
        line: u32,
        blocks: impl Iterator<Item = ByteRange>,
    ) {
        for block in blocks {
            let Some(inner) = part.get(block.start - base..block.end - base) else {
                continue;
            };
            let at = line.saturating_add(saturate(breaks_before(part, block.start - base)));
            self.add(inner, at, false);
        }
    }
}

/// An iterator serialized as a JSON array, each item made as it is written.
struct Seq<I>(std::cell::Cell<Option<I>>);

impl<I: Iterator<Item = T>, T: serde::Serialize> serde::Serialize for Seq<I> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.take().into_iter().flatten())
    }
}

#[cfg(test)]
#[path = "folding_tests.rs"]
mod tests;
