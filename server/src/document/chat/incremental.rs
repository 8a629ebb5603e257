//! Incremental re-parsing: after an edit, only the messages around it are scanned
//! again, and the rest is reused with shifted ranges.

use super::scan::scan;
use super::{Chat, Message};
use crate::document::ByteRange;
use crate::document::text::Edit;

/// Which messages a re-parse made anew; the others are the old ones, moved.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reparsed {
    /// Everything was parsed again (an edit of the front matter).
    All,
    /// The `removed` old messages from index `at` on gave way to `inserted` new ones.
    Spliced {
        at: usize,
        removed: usize,
        inserted: usize,
    },
}

impl Chat {
    /// Re-parses after `edit` changed the text, re-scanning only from the message
    /// before the edit to the first unchanged message heading after it. `fetch`
    /// returns a slice of the NEW text; `new_len` is its length. The result equals
    /// `Chat::parse` of the new text; what it says is which messages are new, so that
    /// what was worked out for the others can be kept. The last text `fetch` returned
    /// covers the new messages (the language server keeps it for their readers).
    pub fn reparse<S>(
        &mut self,
        edit: &Edit,
        new_len: usize,
        fetch: impl Fn(ByteRange) -> S,
    ) -> Reparsed
    where
        S: std::ops::Deref<Target: AsRef<str>>,
    {
        let delta = edit.delta();
        // Edits that can change the front matter (or create one) re-parse everything.
        if edit.start <= self.full_reparse_before {
            let all = fetch(0..new_len);
            *self = Chat::parse((*all).as_ref());
            return Reparsed::All;
        }
        // Restart at the last message whose heading line lies wholly before the edit:
        // it is still a heading, and the scanner's state after it is known to be clean.
        let keep = self
            .messages
            .partition_point(|m| header_line_end(m) < edit.start);
        let (restart, in_preamble) = match keep.checked_sub(1) {
            Some(i) => (self.messages[i].range().start, false),
            None => (self.body_start(), true),
        };
        let keep_before = keep.saturating_sub(1);
        // The first old message that starts after the edit is where the new scan can
        // rejoin the old one.
        let resume = self
            .messages
            .partition_point(|m| m.range().start < edit.old_end);
        let later = &self.messages[resume..];
        // Most edits rejoin at the next heading: read up to it and a little past (a
        // heading line), or double from a small window when there is none after.
        let next_heading = later
            .first()
            .map(|m| m.range().start.wrapping_add_signed(delta));
        let mut window = match next_heading {
            Some(at) if at >= edit.new_end => at - restart + (1 << 13),
            _ => (edit.new_end - restart).max(1 << 13) * 2,
        };
        loop {
            let end = (restart + window).min(new_len);
            let fetched = fetch(restart..end);
            let text: &str = (*fetched).as_ref();
            // A window that does not reach the end may cut the last line; scan whole lines.
            let usable = if end == new_len {
                text.len()
            } else {
                text.rfind('\n').map_or(0, |i| i + 1)
            };
            let slice = &text[..usable];
            let mut rejoin = None;
            let result = scan(slice, restart, 0, |pos| {
                if pos < edit.new_end {
                    return false;
                }
                let old = pos as isize - delta;
                if old >= 0
                    && later
                        .binary_search_by_key(&(old as usize), |m| m.range().start)
                        .is_ok()
                {
                    rejoin = Some(old as usize);
                    return true;
                }
                false
            });
            if rejoin.is_none() && end < new_len {
                window *= 2;
                continue;
            }
            // Old messages from the rejoin point on are kept; they only move.
            let from = match rejoin {
                Some(old) => self.messages.partition_point(|m| m.range().start < old),
                None => self.messages.len(),
            };
            let replaced_from = if in_preamble { 0 } else { keep_before };
            if in_preamble {
                self.preamble.end = result.first_header.unwrap_or(restart + usable);
                self.preamble_code_blocks = result.preamble_code_blocks;
            }
            let new = result.messages;
            let next_start = self
                .messages
                .get(from)
                .map(|m| m.range().start.wrapping_add_signed(delta));
            // The last re-scanned message runs up to the rejoin point or the end, which
            // is where the scan stopped.
            if let Some(last) = new.last() {
                debug_assert_eq!(last.range().end, next_start.unwrap_or(new_len));
            } else if in_preamble {
                self.preamble.end = next_start.unwrap_or(new_len);
            }
            let inserted = new.len();
            self.messages.splice(replaced_from..from, new);
            for m in &mut self.messages[replaced_from + inserted..] {
                m.shift(delta);
            }
            self.len = new_len;
            return Reparsed::Spliced {
                at: replaced_from,
                removed: from - replaced_from,
                inserted,
            };
        }
    }
}

fn header_line_end(m: &Message) -> usize {
    // The heading's line break is part of the heading line for this purpose.
    m.header().end + 2
}
