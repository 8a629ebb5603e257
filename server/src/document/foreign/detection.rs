//! The one pass behind [`super::detect`]: finds the first marker of each foreign
//! format and gives up at the first chatmd message heading that is not inside a
//! foreign answer, reading the lines with the chat's own scanner.

use super::markers::{Kind, Side, classify_any};
use super::{Detection, ForeignFormat, body_start, may_be_marker};
use crate::document::scanner::{Scanner, message_at};
use std::ops::Range;

/// What the pass found: a format, no format by the end of the text, or no format
/// whatever follows (every format was ruled out before the text ended).
pub(super) enum Verdict {
    Found(Detection),
    NoneYet,
    RuledOut,
}

/// See [`super::detect`].
pub(super) fn detect(text: &str) -> Option<Detection> {
    match verdict(text) {
        Verdict::Found(found) => Some(found),
        Verdict::NoneYet | Verdict::RuledOut => None,
    }
}

/// The pass over `text`; [`Verdict::RuledOut`] answers for any text that starts with it.
pub(super) fn verdict(text: &str) -> Verdict {
    let bytes = text.as_bytes();
    let mut first: [Option<Range<usize>>; 4] = [None, None, None, None];
    let mut has_user = [false; 4];
    if super::is_imported(text) {
        return Verdict::RuledOut;
    }
    // Per format: whether its last marker so far opened an answer (or another agent-side
    // block), where a `## @media basics` heading is the model's text, not chatmd's; and
    // whether a chatmd heading came anywhere else, which rules the format out.
    let mut in_answer = [false; 4];
    let mut ruled_out = [false; 4];
    for line in Scanner::new(text, body_start(text)) {
        let content = &bytes[line.range()];
        if message_at(content, line.kind).is_some() {
            for (out, answer) in ruled_out.iter_mut().zip(in_answer) {
                *out |= !answer;
            }
            if ruled_out.iter().all(|&out| out) {
                return Verdict::RuledOut;
            }
            continue;
        }
        // Only lines that start like a marker go further.
        if !matches!(content.first(), Some(b'#' | b'<' | b'>' | 0xF0)) || !may_be_marker(line.kind)
        {
            continue;
        }
        if let Some((format, marker)) = classify_any(&text[line.range()]) {
            let i = format.index();
            in_answer[i] = matches!(marker.kind, Kind::Assistant | Kind::Other(_, Side::Agent));
            if first[i].is_none() {
                first[i] = Some(line.range());
            }
            if marker.kind == Kind::User
                || (format == ForeignFormat::LspAi && marker.kind == Kind::Assistant)
            {
                has_user[i] = true;
            }
        }
    }
    let mut best: Option<Detection> = None;
    for format in ForeignFormat::ALL {
        let i = format.index();
        if !has_user[i] || ruled_out[i] {
            continue;
        }
        if let Some(range) = first[i].clone()
            && best.as_ref().is_none_or(|b| range.start < b.marker.start)
        {
            best = Some(Detection {
                format,
                marker: range,
            });
        }
    }
    best.map_or(Verdict::NoneYet, Verdict::Found)
}
