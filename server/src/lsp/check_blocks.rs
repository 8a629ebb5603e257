//! What a block of consecutive messages' checks add up to, kept beside the checks: a
//! chat of 500k messages is walked block by block after a keystroke, and only the
//! block the edit touched is added up again. The diagnostics skip blocks that have
//! nothing to report (or only count them once the shown problems are full), and the
//! code lenses and the `seen=` question look for the latest messages of a kind from
//! the end.

use super::{HeadingHandles, MessageChecks};
use crate::conversation::problems::Check;
use crate::lsp::kept::Handle;
use crate::team::Severity;

/// Messages per block. Small in tests, so that random chats span several.
pub const BLOCK: usize = if cfg!(test) { 3 } else { 128 };

/// What the messages of one block add up to.
#[derive(Debug, Default)]
pub struct Block {
    /// Problems of the messages alone, and the worst of them.
    pub found: usize,
    pub worst_found: Option<Severity>,
    /// Members named and imported answers' handles (each once, ignoring case).
    pub named: Vec<Box<str>>,
    pub imported: Vec<Box<str>>,
    /// The same as bits of the handles' numbers ([`Handles`]), read without a string
    /// (a chat of 190k messages has 1500 blocks to skip after each key); `spilled`
    /// when a handle has no number.
    named_bits: u64,
    imported_bits: u64,
    spilled: bool,
    /// Unclosed code blocks, and the worst of their warnings.
    pub fences: usize,
    pub worst_fence: Option<Severity>,
    /// Whether a message is marked queued, counts for routing, is an AI member's.
    pub queued: bool,
    pub counting: bool,
    pub ai: bool,
    /// Each heading's handle as written, once.
    pub handles: Vec<Handle>,
    /// Each (handle, agent) of a message naming a session, once (handles ignoring
    /// case).
    pub sessions: Vec<(Handle, Box<str>)>,
}

impl Block {
    /// Whether every handle it names or imports is among the handles of `named` and
    /// `imported` (bits of [`Handles`] numbers).
    pub fn handles_within(&self, named: u64, imported: u64) -> bool {
        !self.spilled && self.named_bits & !named == 0 && self.imported_bits & !imported == 0
    }

    /// The bits of the handles it names and imports.
    pub fn handle_bits(&self) -> (u64, u64) {
        (self.named_bits, self.imported_bits)
    }

    /// Adds that the block names the member `handle`.
    fn names(&mut self, handle: &str, numbers: &mut Handles) {
        once(&mut self.named, handle);
        match numbers.bit(handle) {
            Some(bit) => self.named_bits |= bit,
            None => self.spilled = true,
        }
    }

    /// Adds a message's checks up into the block.
    fn add(&mut self, made: &MessageChecks, headings: &HeadingHandles, numbers: &mut Handles) {
        if let Some((handle, _)) = made.heading_names(headings) {
            self.names(handle, numbers);
        }
        for check in made.checks() {
            if let Some(severity) = check.severity() {
                self.found += 1;
                self.worst_found = worst(self.worst_found, severity);
            } else if let Check::NamesMember { handle, .. } = check {
                self.names(handle, numbers);
            } else if let Check::ImportedHandle { handle, .. } = check {
                once(&mut self.imported, handle);
                match numbers.bit(handle) {
                    Some(bit) => self.imported_bits |= bit,
                    None => self.spilled = true,
                }
            }
        }
        for fence in made.fences() {
            self.fences += 1;
            self.worst_fence = worst(self.worst_fence, fence.severity);
        }
        let facts = made.facts();
        let handle = made.handle(headings);
        self.queued |= facts.queued;
        self.counting |= facts.counts;
        self.ai |= facts.ai;
        if !self.handles.contains(handle) {
            self.handles.push(handle.clone());
        }
        if let Some(agent) = made.session_agent() {
            let same =
                |(h, a): &(Handle, Box<str>)| h.eq_ignore_ascii_case(handle) && **a == *agent;
            if !self.sessions.iter().any(same) {
                self.sessions.push((handle.clone(), agent.into()));
            }
        }
    }
}

fn worst(so_far: Option<Severity>, severity: Severity) -> Option<Severity> {
    Some(so_far.map_or(severity, |w| w.min(severity)))
}

fn once(handles: &mut Vec<Box<str>>, handle: &str) {
    if !handles.iter().any(|h| h.eq_ignore_ascii_case(handle)) {
        handles.push(handle.into());
    }
}

/// A number for each handle the blocks name (ignoring case), the first 64 only: a
/// block keeps its handles as bits of them. Numbers are never given again to another
/// handle, so bits from any block of the document mean the same handles.
#[derive(Debug, Default)]
pub struct Handles(Vec<Box<str>>);

impl Handles {
    /// The bit of `handle`'s number, numbered now when it had none; `None` past 64.
    fn bit(&mut self, handle: &str) -> Option<u64> {
        let number = match self.0.iter().position(|h| h.eq_ignore_ascii_case(handle)) {
            Some(number) => number,
            None if self.0.len() < 64 => {
                self.0.push(handle.into());
                self.0.len() - 1
            }
            None => return None,
        };
        Some(1 << number)
    }
}

/// The blocks of one document's checks, each added up when first asked for; an edit
/// empties the blocks whose messages it moved.
#[derive(Debug, Default)]
pub struct Blocks {
    blocks: Vec<Option<Block>>,
    numbers: Handles,
    /// The numbers of the kept checks' handles: kept and emptied with them.
    headings: HeadingHandles,
}

impl super::super::kept::Whole for Blocks {
    fn spliced(&mut self, at: usize, removed: usize, inserted: usize) {
        let first = at / BLOCK;
        if removed == inserted {
            // The messages after kept their places: only the blocks of those replaced.
            let end = (at + removed).div_ceil(BLOCK).max(first + 1);
            for block in self.blocks.iter_mut().take(end).skip(first) {
                *block = None;
            }
        } else {
            self.blocks.truncate(first);
        }
    }
}

/// The checks of every message and the blocks they add up to, for one walk.
pub struct Walk<'a> {
    pub slots: &'a mut [Option<MessageChecks>],
    pub blocks: &'a mut Blocks,
    pub make: &'a mut dyn FnMut(usize, &mut HeadingHandles) -> MessageChecks,
}

impl Walk<'_> {
    pub fn len(&self) -> usize {
        self.slots.len()
    }

    pub fn block_count(&self) -> usize {
        self.slots.len().div_ceil(BLOCK)
    }

    /// The messages of block `b`.
    pub fn messages_of(&self, b: usize) -> std::ops::Range<usize> {
        b * BLOCK..((b + 1) * BLOCK).min(self.slots.len())
    }

    /// The checks of message `i`, made when they were not kept.
    pub fn message(&mut self, i: usize) -> &MessageChecks {
        self.with_handles(i).0
    }

    /// [`Walk::message`], and the handles its handle is numbered in.
    pub fn with_handles(&mut self, i: usize) -> (&MessageChecks, &HeadingHandles) {
        let make = &mut *self.make;
        let headings = &mut self.blocks.headings;
        let made = self.slots[i].get_or_insert_with(|| make(i, headings));
        (made, &self.blocks.headings)
    }

    /// Block `b`, added up when it was not kept.
    pub fn block(&mut self, b: usize) -> &Block {
        let blocks = &mut self.blocks.blocks;
        if blocks.len() <= b {
            blocks.resize_with(b + 1, || None);
        }
        if blocks[b].is_none() {
            let mut block = Block::default();
            // Out of `self` while the messages are made through it.
            let mut numbers = std::mem::take(&mut self.blocks.numbers);
            for i in self.messages_of(b) {
                let (made, headings) = self.with_handles(i);
                block.add(made, headings, &mut numbers);
            }
            self.blocks.numbers = numbers;
            self.blocks.blocks[b] = Some(block);
        }
        self.blocks.blocks[b].as_ref().expect("added up above")
    }

    /// The last message before `end` for which `pick` says yes of its block, and
    /// `test` of the message itself: blocks from the end, messages only in a block
    /// `pick` says may hold one.
    pub fn last_before(
        &mut self,
        end: usize,
        pick: impl Fn(&Block) -> bool,
        test: impl Fn(&MessageChecks, &HeadingHandles) -> bool,
    ) -> Option<usize> {
        let end = end.min(self.len());
        for b in (0..end.div_ceil(BLOCK)).rev() {
            if !pick(self.block(b)) {
                continue;
            }
            for i in self.messages_of(b).rev().filter(|&i| i < end) {
                let (made, headings) = self.with_handles(i);
                if test(made, headings) {
                    return Some(i);
                }
            }
        }
        None
    }
}
