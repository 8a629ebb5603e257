//! One change to a text, in byte offsets, and how offsets of the old text map to the
//! new one.

/// What a change did, in byte offsets: `[start, old_end)` of the old text became
/// `[start, new_end)` of the new text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Edit {
    pub start: usize,
    pub old_end: usize,
    pub new_end: usize,
}

impl Edit {
    /// How much longer (positive) or shorter (negative) the text got, in bytes.
    pub fn delta(&self) -> isize {
        self.new_end as isize - self.old_end as isize
    }

    /// Maps an offset of the old text to the new text. An offset is treated as sticking to the
    /// character that follows it:
    ///
    /// - `old < start`: unchanged;
    /// - `old >= old_end`: shifted by [`Edit::delta`] (`old - old_end + new_end`). This includes
    ///   `old == start` for a pure insertion, so text inserted exactly at an offset ends up
    ///   *before* it;
    /// - `start <= old < old_end` (the character after it was replaced): `new_end`, the end of
    ///   the replacement.
    pub fn map_offset(&self, old: usize) -> usize {
        if old < self.start {
            old
        } else if old >= self.old_end {
            old - self.old_end + self.new_end
        } else {
            self.new_end
        }
    }
}
