//! The change journal of a document a turn is writing into: every change the editor
//! reported (`didChange`), in order, as byte ranges with their new text, so a turn can
//! follow the user's edits exactly and recognise the echo of its own.
//!
//! Entries are kept only while some turn reads them.

use std::collections::VecDeque;
use std::sync::Arc;

use tokio::sync::Notify;

use crate::document::ByteRange;

/// One content change: `range` of the text before it became `text`, making `version`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    pub version: i32,
    pub range: ByteRange,
    pub text: String,
}

#[derive(Debug, Default)]
pub struct Journal {
    /// Sequence number of `entries[0]`.
    base: u64,
    entries: VecDeque<Entry>,
    /// Cursors of the turns reading, by reader id.
    readers: Vec<(u64, u64)>,
    next_reader: u64,
    /// Woken at every change and when the document closes.
    pub changed: Arc<Notify>,
    /// Serialises the edits of every turn writing into the document: an edit is computed
    /// against the text all earlier edits produced.
    pub writing: Arc<tokio::sync::Mutex<()>>,
}

impl Journal {
    /// The sequence number the next entry will get.
    pub fn end(&self) -> u64 {
        self.base + self.entries.len() as u64
    }

    pub fn is_read(&self) -> bool {
        !self.readers.is_empty()
    }

    pub fn push(&mut self, entry: Entry) {
        if self.is_read() {
            self.entries.push_back(entry);
        }
        self.changed.notify_waiters();
    }

    /// A new reader starting at the current end; returns its id.
    pub fn subscribe(&mut self) -> u64 {
        let id = self.next_reader;
        self.next_reader += 1;
        self.readers.push((id, self.end()));
        id
    }

    pub fn unsubscribe(&mut self, reader: u64) {
        self.readers.retain(|(id, _)| *id != reader);
        self.prune();
    }

    /// The entries from `from` on (what a reader has not seen), and marks them read.
    pub fn read(&mut self, reader: u64, from: u64) -> Vec<Entry> {
        let skip = from.saturating_sub(self.base) as usize;
        let out: Vec<Entry> = self.entries.iter().skip(skip).cloned().collect();
        let end = self.end();
        if let Some(cursor) = self.readers.iter_mut().find(|(id, _)| *id == reader) {
            cursor.1 = end;
        }
        self.prune();
        out
    }

    /// Moves a reader to the end without reading (it took the whole text instead).
    pub fn skip_to_end(&mut self, reader: u64) -> u64 {
        let end = self.end();
        if let Some(cursor) = self.readers.iter_mut().find(|(id, _)| *id == reader) {
            cursor.1 = end;
        }
        self.prune();
        end
    }

    fn prune(&mut self) {
        let oldest = self
            .readers
            .iter()
            .map(|(_, c)| *c)
            .min()
            .unwrap_or(self.end());
        while self.base < oldest && self.entries.pop_front().is_some() {
            self.base += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(n: i32) -> Entry {
        Entry {
            version: n,
            range: 0..0,
            text: n.to_string(),
        }
    }

    #[test]
    fn entries_are_kept_until_every_reader_saw_them() {
        let mut j = Journal::default();
        j.push(entry(1)); // nobody reads: not kept
        assert_eq!(j.end(), 0);
        let a = j.subscribe();
        j.push(entry(2));
        let b = j.subscribe();
        j.push(entry(3));
        assert_eq!(j.read(a, 0), vec![entry(2), entry(3)]);
        assert_eq!(j.read(b, 1), vec![entry(3)]);
        assert_eq!(j.end(), 2);
        j.push(entry(4));
        j.unsubscribe(a);
        assert_eq!(j.read(b, 2), vec![entry(4)]);
        j.unsubscribe(b);
        j.push(entry(5));
        assert_eq!(j.end(), 3, "kept nothing once nobody reads");
    }
}
