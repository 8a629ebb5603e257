//! Folding: each message and each fenced code block.

use tower_lsp_server::ls_types::*;

use super::outline_window::{Shown, group_fold};
use super::state::Document;
use crate::document::ByteRange;
use crate::document::line_starts::LineStarts;
use crate::document::text::{PositionEncoding, breaks_before, saturate};

/// The folds of `doc`: its preamble's code blocks, one for each group of its earlier
/// messages, and those of the messages `shown` one by one (see `outline_window`).
pub fn folding_ranges(doc: &Document, enc: PositionEncoding, shown: Shown) -> Vec<FoldingRange> {
    let text = doc.flat();
    let chat = &doc.chat;
    let first = shown.first_alone(chat.messages.len());
    // One pass over the lines, not a rope lookup per offset (a long chat has many).
    let starts = LineStarts::new(&text);
    let line = |offset: usize| starts.position(offset, enc).line;
    let mut out = Vec::new();
    let mut buf = String::new();
    for group in shown.groups(first, chat.messages.len()) {
        if let Some((start_line, end_line)) = group_fold(&doc.text, chat, group, &mut buf) {
            out.push(FoldingRange {
                start_line,
                end_line,
                kind: Some(FoldingRangeKind::Region),
                ..Default::default()
            });
        }
    }
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
    for m in &chat.messages[first..] {
        // Fold up to the last non-blank line, so the blank line before the next
        // heading stays visible.
        let range = m.range();
        let end = range.start + text[range.clone()].trim_end().len();
        push(range.start, end, Some(FoldingRangeKind::Region));
    }
    // Code blocks of the messages in groups are not listed, those of the preamble are.
    let alone_from = chat
        .messages
        .get(first)
        .map_or(usize::MAX, |m| m.range().start);
    let listed = |at: usize| at < chat.preamble.end || at >= alone_from;
    for block in chat.code_blocks().filter(|b| listed(b.range.start)) {
        let end = block.range.start + text[block.range.clone()].trim_end().len();
        push(block.range.start, end, None);
    }
    out.sort_by_key(|f| (f.start_line, std::cmp::Reverse(f.end_line)));
    out
}

/// [`folding_ranges`] as the JSON of a `foldingRange` result, the same bytes,
/// assembled from the messages' pieces (see `pieces`).
/// A copy of its own (the server sends the kept one: `pieces::folding_json`).
#[cfg(test)]
pub fn folding_ranges_json(doc: &Document, enc: PositionEncoding) -> Vec<u8> {
    super::pieces::folding_json(doc, enc, Shown::DEFAULT).to_vec()
}

/// `folds` as the JSON of a `foldingRange` result.
pub(super) fn write_folds(mut folds: Folds) -> Vec<u8> {
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

/// One fold as the JSON of a `FoldingRange`, the bytes serde_json writes for it.
pub(super) fn write_fold(out: &mut Vec<u8>, start: u32, end: u32, region: bool) {
    out.extend_from_slice(b"{\"startLine\":");
    out.extend_from_slice(itoa::Buffer::new().format(start).as_bytes());
    out.extend_from_slice(b",\"endLine\":");
    out.extend_from_slice(itoa::Buffer::new().format(end).as_bytes());
    if region {
        out.extend_from_slice(b",\"kind\":\"region\"");
    }
    out.push(b'}');
}

/// Folds as (start line, end line, whether a message's region).
#[derive(Default)]
pub(super) struct Folds(pub(super) Vec<(u32, u32, bool)>);

impl Folds {
    /// `part` is the text from `line`'s start on: folded up to its last non-blank line,
    /// so the blank line before the next heading stays visible.
    pub(super) fn add(&mut self, part: &str, line: u32, region: bool) {
        let end = part.trim_end().len();
        let end_line = line.saturating_add(saturate(breaks_before(part, end)));
        if end_line > line {
            self.0.push((line, end_line, region));
        }
    }

    /// The code blocks (`blocks`, ranges in the document) of `part`, which starts at
    /// byte `base` and line `line`.
    pub(super) fn blocks(
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
