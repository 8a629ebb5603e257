//! The one pass behind [`super::detect`]: finds the first marker of each foreign
//! format and gives up at the first chatmd message heading.

use super::markers::{Kind, classify_any};
use super::{Detection, ForeignFormat, heading_at, lines};
use crate::document::fence::{FenceStep, TopLevelFences};
use std::ops::Range;

/// See [`super::detect`].
pub(super) fn detect(text: &str) -> Option<Detection> {
    let mut fence = TopLevelFences::default();
    let mut first: [Option<Range<usize>>; 4] = [None, None, None, None];
    let mut has_user = [false; 4];
    for (start, line) in lines(text) {
        // Most lines are decided by their first byte; only the ones that may be a fence,
        // a heading or a marker go further.
        let Some(&b0) = line.as_bytes().first() else {
            continue;
        };
        if fence.open.is_some() {
            if matches!(b0, b' ' | b'`' | b'~') {
                fence.step(line);
            }
            continue;
        }
        match b0 {
            b' ' | b'`' | b'~' => {
                if fence.step(line) == FenceStep::Outside && heading_at(line).is_some() {
                    return None;
                }
                continue;
            }
            b'#' => {
                if heading_at(line).is_some() {
                    return None;
                }
            }
            b'<' | b'>' | 0xF0 => {}
            _ => continue,
        }
        if let Some((format, marker)) = classify_any(line) {
            let i = format.index();
            if first[i].is_none() {
                first[i] = Some(start..start + line.len());
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
        if !has_user[i] {
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
    best
}
