//! Where each running turn writes: offsets that move with every change to the
//! document, so user edits anywhere (even inside a section) never make an answer land
//! in the wrong place. The same for every block a turn may rewrite (permission
//! requests, the plan, tool lines: `placed.rs`), which also remember whether the user
//! edited inside them.

use super::Change;
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
    /// The blocks the turns wrote, by id.
    blocks: Vec<(String, Block)>,
}

/// Where a block lies.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Block {
    /// Written by an insert at `at` that has not come back through the changes yet;
    /// it lies at `within` of the inserted text.
    Awaiting {
        at: usize,
        within: ByteRange,
    },
    Landed(Place),
}

/// Where a block lies in the document, and whether the user changed text inside it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Place {
    pub range: ByteRange,
    pub edited: bool,
}

impl Anchors {
    /// The anchors of `places` (offsets into the text of an insert of ours), placed
    /// where that insert landed: the first change of ours in `changes` (a batch is
    /// listed from its last edit, the insert, to its first), then moved through the
    /// changes after it. `also` sees every change. `None` when no change of ours came.
    pub fn landed(
        changes: &[Change],
        places: &[Places],
        mut also: impl FnMut(&Change),
    ) -> Option<Anchors> {
        let mut anchors = Anchors::default();
        let mut landed = false;
        for change in changes {
            if !landed && change.ours {
                landed = true;
                let at = change.range.start;
                for p in places {
                    anchors.add(Places {
                        status: at + p.status.start..at + p.status.end,
                        body_start: at + p.body_start,
                        end: at + p.end,
                    });
                }
            } else if landed {
                anchors.apply(change);
            }
            also(change);
        }
        landed.then_some(anchors)
    }

    /// Adds a turn's places; returns its index.
    pub fn add(&mut self, places: Places) -> usize {
        self.places.push(places);
        self.places.len() - 1
    }

    pub fn get(&self, turn: usize) -> &Places {
        &self.places[turn]
    }

    /// Turn `turn` writes at `places` from now on (its answer goes on in a new section).
    pub fn replace(&mut self, turn: usize, places: Places) {
        self.places[turn] = places;
    }

    /// The port applied an insert at `at` (in the text as of the last change taken
    /// in) whose `within` is the block `id`: the block lands where that insert comes
    /// back through [`Anchors::apply`]. A block written anew replaces its old place.
    pub fn expect_block(&mut self, id: &str, at: usize, within: ByteRange) {
        self.forget(id);
        self.blocks
            .push((id.to_string(), Block::Awaiting { at, within }));
    }

    /// Where the block `id` lies now, once its insert came back.
    pub fn block(&self, id: &str) -> Option<&Place> {
        self.blocks.iter().find_map(|(b, place)| match place {
            Block::Landed(place) if b == id => Some(place),
            _ => None,
        })
    }

    /// Block `id` is no longer followed (the turn writes it anew elsewhere).
    pub fn forget(&mut self, id: &str) {
        self.blocks.retain(|(b, _)| b != id);
    }

    /// Moves every place through a change. Offsets before it stay, offsets after it
    /// shift, and an offset inside a replaced range moves to the end of the
    /// replacement (a turn's end inside someone else's replacement to its start). Text inserted exactly at a place goes after the place, except the
    /// agent's own text at a turn's end: so the user's new message typed right after
    /// an answer stays after it, and the answer keeps growing at its own end.
    pub fn apply(&mut self, change: &Change) {
        let old = &change.range;
        let new_len = change.new_len;
        let map = |o: usize, stick: Stick| -> usize {
            if old.start == old.end && o == old.start {
                return match stick {
                    Stick::Before => o,
                    Stick::After => o + new_len,
                };
            }
            if o <= old.start {
                o
            } else if o >= old.end {
                o - (old.end - old.start) + new_len
            } else {
                old.start + new_len
            }
        };
        let end_stick = if change.ours {
            Stick::After
        } else {
            Stick::Before
        };
        for p in &mut self.places {
            p.status = if change.ours && p.status == *old {
                // The status line itself was rewritten.
                old.start..old.start + new_len
            } else {
                let start = map(p.status.start, Stick::After);
                start..map(p.status.end, Stick::Before).max(start)
            };
            p.body_start = map(p.body_start, Stick::Before);
            p.end = if !change.ours && old.start < p.end && p.end < old.end {
                // Someone else replaced text around the answer's end (a selection
                // across it, pasted over): the answer goes on before their text.
                old.start
            } else {
                map(p.end, end_stick)
            }
            .max(p.body_start);
        }
        for (_, block) in &mut self.blocks {
            *block = match block {
                Block::Awaiting { at, within }
                    if change.ours && old.start == old.end && old.start == *at =>
                {
                    // The insert that wrote the block.
                    Block::Landed(Place {
                        range: *at + within.start..*at + within.end,
                        edited: false,
                    })
                }
                Block::Awaiting { at, within } => Block::Awaiting {
                    at: map(*at, end_stick),
                    within: within.clone(),
                },
                // The block rewritten with its new text.
                Block::Landed(place) if change.ours && place.range == *old => {
                    Block::Landed(Place {
                        range: old.start..old.start + new_len,
                        edited: place.edited,
                    })
                }
                Block::Landed(Place { range, edited }) => {
                    // Typing right before or after a block is not an edit of it.
                    let inside = if old.start == old.end {
                        range.start < old.start && old.start < range.end
                    } else {
                        old.start < range.end && range.start < old.end
                    };
                    let start = map(range.start, Stick::After);
                    Block::Landed(Place {
                        range: start..map(range.end, Stick::Before).max(start),
                        edited: *edited || (inside && !change.ours),
                    })
                }
            };
        }
    }
}

/// Which side of text inserted exactly at a place the place ends up on.
#[derive(Clone, Copy)]
enum Stick {
    Before,
    After,
}

#[cfg(test)]
mod tests {
    use super::*;

    impl Anchors {
        /// Moves every place through the port's own batch of edits given against the
        /// same text (sorted, not overlapping): applied from the last to the first.
        fn apply_ours(&mut self, edits: &[(ByteRange, String)]) {
            for (range, text) in edits.iter().rev() {
                self.apply(&Change {
                    range: range.clone(),
                    new_len: text.len(),
                    ours: true,
                });
            }
        }
    }

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
        a.apply(&Change::theirs(0..0, 5)); // typed before the section
        assert_eq!(
            a.get(0),
            &Places {
                status: 15..25,
                body_start: 26,
                end: 35
            }
        );
        a.apply(&Change::theirs(40..45, 0)); // deleted after it
        assert_eq!(a.get(0).end, 35);
        a.apply(&Change::theirs(28..28, 3)); // typed inside the answer
        assert_eq!(a.get(0).end, 38);
        a.apply(&Change::theirs(36..40, 6)); // a paste over the answer's end
        assert_eq!(
            a.get(0).end,
            36,
            "the answer goes on before the pasted text"
        );
        a.apply(&Change::theirs(36..42, 4)); // undone
        a.apply_ours(&[(36..36, "xy".into())]);
        assert_eq!(a.get(0).end, 38);
        a.apply(&Change::theirs(38..38, 4)); // a new message right after the answer
        assert_eq!(
            a.get(0).end,
            38,
            "the answer goes on before the user's text"
        );
        a.apply_ours(&[(38..38, "more".into())]); // the agent's next text
        assert_eq!(a.get(0).end, 42);
        assert_eq!(a.get(0).body_start, 26);
    }

    #[test]
    fn a_rewritten_status_line_keeps_its_place() {
        let mut a = anchors();
        a.apply_ours(&[(10..20, "0123456789abc".into()), (30..30, "x".into())]);
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
    fn a_block_lands_with_its_insert_and_follows_changes() {
        let mut a = anchors();
        // The flush inserted "text\n> block\n\n" at the answer's end (30): the block
        // is at 5..12 of it.
        a.expect_block("t1-p1", 30, 5..12);
        assert_eq!(a.block("t1-p1"), None, "not back through the changes yet");
        a.apply(&Change::theirs(0..0, 2)); // typed before, reported before our insert
        a.apply_ours(&[(32..32, "text\n> block\n\n".into())]);
        let at = |a: &Anchors| a.block("t1-p1").map(|p| (p.range.clone(), p.edited));
        assert_eq!(at(&a), Some((37..44, false)));
        a.apply(&Change::theirs(37..37, 1)); // typed right before it
        a.apply(&Change::theirs(45..45, 1)); // and right after it
        assert_eq!(at(&a), Some((38..45, false)), "not an edit of the block");
        a.apply(&Change::theirs(0..1, 0));
        a.apply(&Change::theirs(40..40, 3)); // typed inside the block
        assert_eq!(at(&a), Some((37..47, true)));
        a.apply_ours(&[(37..47, "> answered".into())]); // rewritten with its answer
        assert_eq!(at(&a), Some((37..47, true)));
        a.apply(&Change::theirs(0..4, 0)); // deleted before it
        assert_eq!(at(&a), Some((33..43, true)));
        a.forget("t1-p1");
        assert_eq!(at(&a), None);
    }

    #[test]
    fn a_batch_is_applied_from_the_end() {
        let mut a = anchors();
        a.apply_ours(&[(0..0, "ab".into()), (30..30, "xyz".into())]);
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
