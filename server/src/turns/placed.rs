//! The blocks a turn writes with an id and may rewrite later: permission requests
//! (rewritten with their answer), the plan (with each new plan) and tool lines (as a
//! call's status changes). One mechanism for every kind: a block is written as part of
//! the turn's buffered text, lands where that insert comes back through the document's
//! changes (`anchors.rs`), and is rewritten there when its text changes; an update to a
//! block not written yet is made in the buffer at once.
//!
//! A block the user edited is a kind's choice: a permission block is rewritten anyway
//! (its record replaces the options, ticked or not), a plan or tool line is left as
//! the user made it and its new text goes at the answer's end as a new block.

use crate::document::ByteRange;

/// What happens to a block the user edited when its text changes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OnEdit {
    /// Rewritten over the user's change.
    Rewrite,
    /// Left as the user made it; the new text is written as a new block at the end.
    WriteAnew,
}

/// One block a turn wrote.
#[derive(Debug)]
struct Placed {
    id: String,
    /// The block's text as it should be (with `\n` line breaks).
    text: String,
    /// `text` is not in the document yet.
    dirty: bool,
    on_edit: OnEdit,
}

/// The blocks of one turn.
#[derive(Debug, Default)]
pub struct Blocks {
    blocks: Vec<Placed>,
    /// The blocks in the turn's buffered text, not written yet: their ids and places.
    unwritten: Vec<(String, ByteRange)>,
}

impl Blocks {
    /// Appends block `id` with `text` to `pending`, the turn's buffered text.
    pub fn add(&mut self, pending: &mut String, id: &str, text: &str, on_edit: OnEdit) {
        let start = pending.len();
        pending.push_str(text);
        self.unwritten.push((id.to_owned(), start..pending.len()));
        self.blocks.retain(|b| b.id != id);
        self.blocks.push(Placed {
            id: id.to_owned(),
            text: text.to_owned(),
            dirty: false,
            on_edit,
        });
    }

    /// The text block `id` has now.
    pub fn text(&self, id: &str) -> Option<&str> {
        self.blocks
            .iter()
            .find(|b| b.id == id)
            .map(|b| b.text.as_str())
    }

    /// Whether block `id` was written (or is buffered).
    pub fn has(&self, id: &str) -> bool {
        self.blocks.iter().any(|b| b.id == id)
    }

    /// The block's text is now `text`; a rewrite is due when it changed.
    pub fn update(&mut self, id: &str, text: String) {
        if let Some(block) = self.blocks.iter_mut().find(|b| b.id == id)
            && block.text != text
        {
            block.text = text;
            block.dirty = true;
        }
    }

    /// Whether a rewrite is due.
    pub fn dirty(&self) -> bool {
        self.blocks.iter().any(|b| b.dirty)
    }

    /// Rewrites due over blocks not written yet are made in `pending` at once.
    pub fn fold_unwritten(&mut self, pending: &mut String) {
        for block in self.blocks.iter_mut().filter(|b| b.dirty) {
            let Some(at) = self.unwritten.iter().position(|(b, _)| *b == block.id) else {
                continue;
            };
            let range = self.unwritten[at].1.clone();
            let grown = block.text.len() as isize - range.len() as isize;
            pending.replace_range(range.clone(), &block.text);
            self.unwritten[at].1 = range.start..range.start + block.text.len();
            for (_, later) in &mut self.unwritten[at + 1..] {
                *later = later.start.saturating_add_signed(grown)
                    ..later.end.saturating_add_signed(grown);
            }
            block.dirty = false;
        }
    }

    /// The blocks whose rewrite is due: id, text, and what to do if the user edited.
    pub fn rewrites(&self) -> impl Iterator<Item = (&str, &str, OnEdit)> + '_ {
        self.blocks
            .iter()
            .filter(|b| b.dirty)
            .map(|b| (b.id.as_str(), b.text.as_str(), b.on_edit))
    }

    /// The rewrites of `ids` are in the document.
    pub fn rewritten(&mut self, ids: &[String]) {
        for block in self.blocks.iter_mut().filter(|b| ids.contains(&b.id)) {
            block.dirty = false;
        }
    }

    /// Block `id` is to be written anew: its text, taken out of the written blocks.
    pub fn take(&mut self, id: &str) -> Option<(String, OnEdit)> {
        let at = self.blocks.iter().position(|b| b.id == id)?;
        let block = self.blocks.remove(at);
        Some((block.text, block.on_edit))
    }

    /// The buffered blocks, with their places in the buffered text.
    pub fn unwritten(&self) -> &[(String, ByteRange)] {
        &self.unwritten
    }

    /// The buffered text is in the document.
    pub fn written(&mut self) {
        self.unwritten.clear();
    }

    /// The buffered text was dropped (a skipped turn): so are its blocks.
    pub fn drop_unwritten(&mut self) {
        let dropped: Vec<String> = self.unwritten.drain(..).map(|(id, _)| id).collect();
        self.blocks.retain(|b| !dropped.contains(&b.id));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn an_update_before_the_write_is_made_in_the_buffer() {
        let mut blocks = Blocks::default();
        let mut pending = String::from("text\n");
        blocks.add(&mut pending, "p", "> plan v1\n", OnEdit::WriteAnew);
        pending.push('\n');
        blocks.add(&mut pending, "c", "> - call\n", OnEdit::WriteAnew);
        blocks.update("p", "> plan version 2\n".into());
        assert!(blocks.dirty());
        blocks.fold_unwritten(&mut pending);
        assert_eq!(pending, "text\n> plan version 2\n\n> - call\n");
        assert_eq!(
            blocks.unwritten(),
            [("p".to_owned(), 5..22), ("c".to_owned(), 23..32)]
        );
        assert!(!blocks.dirty());
        blocks.written();
        blocks.update("c", "> - call done\n".into());
        assert_eq!(
            blocks.rewrites().collect::<Vec<_>>(),
            [("c", "> - call done\n", OnEdit::WriteAnew)]
        );
        blocks.rewritten(&["c".to_owned()]);
        assert!(!blocks.dirty());
        blocks.update("c", "> - call done\n".into());
        assert!(!blocks.dirty(), "the same text is no rewrite");
    }
}
