//! Incremental re-parsing: after an edit, only the messages around it are scanned
//! again, and the rest is reused with shifted ranges.

use super::scan::scan;
use super::{Chat, Message};
use crate::document::ByteRange;
use crate::document::inline::MarkerKind;
use crate::document::text::Edit;

impl Chat {
    /// Re-parses after `edit` changed the text, re-scanning only from the message
    /// before the edit to the first unchanged message heading after it. `fetch`
    /// returns a slice of the NEW text; `new_len` is its length. The result equals
    /// `Chat::parse` of the new text.
    pub fn reparse(&mut self, edit: &Edit, new_len: usize, fetch: impl Fn(ByteRange) -> String) {
        let delta = edit.delta();
        // Edits that can change the front matter (or create one) re-parse everything.
        if edit.start <= self.full_reparse_before {
            *self = Chat::parse(&fetch(0..new_len));
            return;
        }
        // Restart at the last message whose heading line lies wholly before the edit:
        // it is still a heading, and the scanner's state after it is known to be clean.
        let keep = self
            .messages
            .partition_point(|m| header_line_end(m) < edit.start);
        let (restart, in_preamble) = match keep.checked_sub(1) {
            Some(i) => (self.messages[i].range.start, false),
            None => (self.body_start(), true),
        };
        let keep_before = keep.saturating_sub(1);
        // The first old message that starts after the edit is where the new scan can
        // rejoin the old one.
        let resume = self
            .messages
            .partition_point(|m| m.range.start < edit.old_end);
        let old_starts: Vec<usize> = self.messages[resume..]
            .iter()
            .map(|m| m.range.start)
            .collect();
        let mut window = (edit.new_end - restart).max(1 << 16) * 2;
        loop {
            let end = (restart + window).min(new_len);
            let text = fetch(restart..end);
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
                if old >= 0 && old_starts.binary_search(&(old as usize)).is_ok() {
                    rejoin = Some(old as usize);
                    return true;
                }
                false
            });
            if rejoin.is_none() && end < new_len {
                window *= 2;
                continue;
            }
            let mut tail: Vec<Message> = match rejoin {
                Some(old) => {
                    let from = self.messages.partition_point(|m| m.range.start < old);
                    self.messages.drain(from..).collect()
                }
                None => Vec::new(),
            };
            for m in &mut tail {
                m.shift(delta);
            }
            self.messages.truncate(keep_before);
            if in_preamble {
                self.messages.clear();
                self.preamble.end = result.first_header.unwrap_or(restart + usable);
                self.preamble_code_blocks = result.preamble_code_blocks;
            }
            let mut new = result.messages;
            // The last re-scanned message runs up to the rejoin point or the end.
            if let Some(last) = new.last_mut() {
                last.range.end = tail.first().map_or(new_len, |m| m.range.start);
                last.body.end = last.range.end.max(last.body.start);
            } else if in_preamble {
                self.preamble.end = tail.first().map_or(new_len, |m| m.range.start);
            }
            self.messages.extend(new);
            self.messages.extend(tail);
            self.len = new_len;
            return;
        }
    }
}

impl Message {
    fn shift(&mut self, delta: isize) {
        let s = |r: &mut ByteRange| {
            r.start = r.start.wrapping_add_signed(delta);
            r.end = r.end.wrapping_add_signed(delta);
        };
        s(&mut self.range);
        s(&mut self.header);
        s(&mut self.handle);
        s(&mut self.body);
        if let Some(st) = &mut self.status {
            s(&mut st.range);
        }
        for m in &mut self.mentions {
            s(&mut m.range);
            s(&mut m.handle);
        }
        for m in &mut self.markers {
            s(&mut m.range);
            if let MarkerKind::Next(h) = &mut m.kind {
                s(h);
            }
        }
        for p in &mut self.permissions {
            s(&mut p.range);
            s(&mut p.id);
            s(&mut p.text);
            for o in &mut p.options {
                s(&mut o.label);
            }
        }
        for c in &mut self.code_blocks {
            s(&mut c.range);
            s(&mut c.opening);
        }
    }
}

fn header_line_end(m: &Message) -> usize {
    // The heading's line break is part of the heading line for this purpose.
    m.header.end + 2
}
