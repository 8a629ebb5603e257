//! Where each running turn writes: offsets that move with every change to the
//! document, so user edits anywhere (even inside a section) never make an answer land
//! in the wrong place.

use crate::document::ByteRange;

/// One turn's places in the document.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Places {
    /// The status comment line, without its line break.
    pub status: ByteRange,
    /// Where the answer starts (just after the status line).
    pub body_start: usize,
    /// Where the next piece of the answer goes: the end of what the agent wrote.
    pub end: usize,
}

/// The places of every turn of a document, kept current through its changes.
#[derive(Clone, Debug, Default)]
pub struct Anchors {
    places: Vec<Places>,
}

impl Anchors {
    /// Adds a turn's places; returns its index.
    pub fn add(&mut self, places: Places) -> usize {
        self.places.push(places);
        self.places.len() - 1
    }

    pub fn get(&self, turn: usize) -> &Places {
        &self.places[turn]
    }

    /// Moves every place through a change: `old` (a range of the text before it) was
    /// replaced by `new_len` bytes. Offsets before the change stay, offsets after it
    /// shift, and an offset inside the replaced range moves to its end — so text typed
    /// exactly at a turn's end stays before what the agent writes next.
    pub fn apply(&mut self, old: &ByteRange, new_len: usize) {
        let map = |o: usize| -> usize {
            if o < old.start {
                o
            } else if o >= old.end {
                o - (old.end - old.start) + new_len
            } else {
                old.start + new_len
            }
        };
        for p in &mut self.places {
            p.status = if p.status == *old {
                // The status line itself was rewritten.
                old.start..old.start + new_len
            } else {
                map(p.status.start)..map(p.status.end).max(map(p.status.start))
            };
            p.body_start = map(p.body_start);
            p.end = map(p.end);
        }
    }

    /// Moves every place through a batch of edits given against the same text
    /// (sorted, not overlapping): applied from the last to the first.
    pub fn apply_all(&mut self, edits: &[(ByteRange, String)]) {
        for (range, text) in edits.iter().rev() {
            self.apply(range, text.len());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn anchors() -> Anchors {
        let mut a = Anchors::default();
        a.add(Places {
            status: 10..20,
            body_start: 21,
            end: 30,
        });
        a
    }

    #[test]
    fn places_follow_changes_before_inside_and_after() {
        let mut a = anchors();
        a.apply(&(0..0), 5); // typed before the section
        assert_eq!(
            a.get(0),
            &Places {
                status: 15..25,
                body_start: 26,
                end: 35
            }
        );
        a.apply(&(40..45), 0); // deleted after it
        assert_eq!(a.get(0).end, 35);
        a.apply(&(28..28), 3); // typed inside the answer
        assert_eq!(a.get(0).end, 38);
        a.apply(&(38..38), 4); // typed exactly at the end: stays before the agent's next text
        assert_eq!(a.get(0).end, 42);
    }

    #[test]
    fn a_rewritten_status_line_keeps_its_place() {
        let mut a = anchors();
        a.apply_all(&[(10..20, "0123456789abc".into()), (30..30, "x".into())]);
        assert_eq!(
            a.get(0),
            &Places {
                status: 10..23,
                body_start: 24,
                end: 34
            }
        );
    }

    #[test]
    fn a_batch_is_applied_from_the_end() {
        let mut a = anchors();
        a.apply_all(&[(0..0, "ab".into()), (30..30, "xyz".into())]);
        assert_eq!(
            a.get(0),
            &Places {
                status: 12..22,
                body_start: 23,
                end: 35
            }
        );
    }
}
