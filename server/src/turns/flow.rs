//! What a turn writes into its section besides the answer's words, where it happens
//! in the answer's flow: the agent's thoughts (one folded block per run of thought
//! chunks, or nothing when the member's `thoughts = "hidden"`), its plan (one block,
//! rewritten with each new plan) and its tool calls (a line each, rewritten as the call
//! goes on). Blocks and words are kept apart by a blank line, except consecutive tool
//! lines, which form one list.

use super::live::{Live, MAX_ANSWER};
use super::placed::OnEdit;
use crate::agents::{CallStatus, CallView, PlanEntry};
use crate::conversation::activity::{
    FoldGuard, THOUGHTS_CLOSE, THOUGHTS_OPEN, call_block, plan_block,
};
use crate::conversation::output::OutputFilter;
use crate::team::Thoughts;

/// The kind of a block in the answer's flow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    Permission,
    Plan,
    Call,
    Thoughts,
}

/// An open thoughts block: its text is filtered like the answer (no forged heading,
/// no fence left open) and kept inside its fold.
#[derive(Debug, Default)]
pub(super) struct Thinking {
    guard: FoldGuard,
    filter: OutputFilter,
}

impl Live {
    /// How many line breaks end what the turn wrote so far (at most 2: a blank line).
    pub(super) fn trailing_breaks(&self) -> usize {
        if let Some(text) = self.tail.as_deref().and_then(|id| self.blocks.text(id)) {
            // As the block is now: a rewrite may have changed how it ends.
            return (breaks_at_end(text) + self.tail_after).min(2);
        }
        (breaks_at_end(&self.pending)
            + self.written_breaks * usize::from(only_breaks(&self.pending)))
        .min(2)
    }

    /// Appends block `id` to the flow.
    pub(super) fn add_block(&mut self, id: &str, text: &str, on_edit: OnEdit) {
        self.blocks.add(&mut self.pending, id, text, on_edit);
        self.tail = Some(id.to_owned());
        self.tail_after = 0;
    }

    /// Makes sure what was written so far ends with a blank line.
    fn blank_line(&mut self) {
        for _ in self.trailing_breaks()..2 {
            self.pending.push('\n');
        }
    }

    /// Gets the flow ready for a block of `kind`: an open thoughts block is closed, a
    /// code fence the answer left open too, the line ends, and a blank line follows
    /// the words or another block (not another tool line: they form one list).
    pub(super) fn open_block(&mut self, kind: Kind) {
        if kind != Kind::Thoughts {
            self.close_thoughts();
        }
        self.tail = None;
        self.pending.push_str(&self.filter.finish());
        if self.trailing_breaks() == 0 {
            self.pending.push('\n');
        }
        let adjacent = kind == Kind::Call && self.last_block == Some(Kind::Call);
        if self.flowed && !adjacent {
            self.blank_line();
        }
        self.flowed = true;
        self.last_block = Some(kind);
    }

    /// Gets the flow ready for answer text `piece`: returns the piece to write (after
    /// a block, without the line breaks it starts with: the blank line is ours).
    pub(super) fn before_text<'a>(&mut self, piece: &'a str) -> &'a str {
        self.close_thoughts();
        if self.last_block.is_none() {
            return piece;
        }
        let piece = piece.trim_start_matches(['\r', '\n']);
        if !piece.is_empty() {
            self.last_block = None;
            self.blank_line();
            self.tail = None;
        }
        piece
    }

    /// A piece of the agent's thoughts: into the open thoughts block, or a new one.
    pub(super) fn thought(&mut self, piece: &str) {
        if self.thoughts == Thoughts::Hidden {
            return;
        }
        let room = MAX_ANSWER.saturating_sub(self.answer.len() + self.thought_len);
        let kept = super::live::within(piece, room);
        self.cut += piece.len() - kept.len();
        let kept = match self.thinking {
            None => kept.trim_start_matches(['\r', '\n']),
            Some(_) => kept,
        };
        if kept.is_empty() {
            return;
        }
        self.thought_len += kept.len();
        if self.thinking.is_none() {
            self.open_block(Kind::Thoughts);
            self.pending.push_str(THOUGHTS_OPEN);
            self.thinking = Some(Thinking::default());
        }
        if let Some(thinking) = &mut self.thinking {
            let guarded = thinking.guard.push(kept);
            let safe = thinking.filter.push(&guarded);
            self.pending.push_str(&safe);
        }
    }

    /// Closes the open thoughts block, if any: what its filters held back, a fence
    /// it left open, a blank line, `</details>`.
    pub(super) fn close_thoughts(&mut self) {
        let Some(mut thinking) = self.thinking.take() else {
            return;
        };
        let held = thinking.guard.finish();
        let mut rest = thinking.filter.push(&held);
        rest.push_str(&thinking.filter.finish());
        self.pending.push_str(&rest);
        self.tail = None;
        if self.trailing_breaks() == 0 {
            self.pending.push('\n');
        }
        self.blank_line();
        self.pending.push_str(THOUGHTS_CLOSE);
        self.last_block = Some(Kind::Thoughts);
    }

    /// The agent's plan, whole: written where it happens the first time, rewritten in
    /// place after.
    pub(super) fn plan(&mut self, entries: &[PlanEntry]) {
        let id = format!("{}-plan", self.status.id().unwrap_or("t"));
        let text = plan_block(entries);
        if self.blocks.has(&id) {
            self.blocks.update(&id, text);
        } else {
            self.open_block(Kind::Plan);
            self.add_block(&id, &text, OnEdit::WriteAnew);
        }
    }

    /// A tool call as it stands: a new line, or its line rewritten.
    pub(super) fn call(&mut self, call: CallView) {
        let text = call_block(&call, false);
        match self.calls.iter().position(|c| c.id == call.id) {
            Some(at) => {
                let id = self.call_block_id(at);
                self.calls[at] = call;
                self.blocks.update(&id, text);
            }
            None => {
                self.calls.push(call);
                let id = self.call_block_id(self.calls.len() - 1);
                self.open_block(Kind::Call);
                self.add_block(&id, &text, OnEdit::WriteAnew);
            }
        }
    }

    fn call_block_id(&self, at: usize) -> String {
        format!("{}-c{}", self.status.id().unwrap_or("t"), at + 1)
    }

    /// The turn ended: calls still pending never ran, calls in progress did not finish.
    pub(super) fn end_calls(&mut self) {
        self.close_thoughts();
        for at in 0..self.calls.len() {
            let call = &self.calls[at];
            if matches!(call.status, CallStatus::Pending | CallStatus::InProgress) {
                let text = call_block(call, true);
                let id = self.call_block_id(at);
                self.blocks.update(&id, text);
            }
        }
    }

    /// Block `id`, which the user edited, is written anew at the end of the answer
    /// with its new text (theirs is left as they made it).
    pub(super) fn write_anew(&mut self, id: &str) {
        let Some((text, on_edit)) = self.blocks.take(id) else {
            return;
        };
        let kind = if id.ends_with("-plan") {
            Kind::Plan
        } else {
            Kind::Call
        };
        // Not one list with the line before: that one may be the user's edited line.
        self.last_block = None;
        self.open_block(kind);
        self.add_block(id, &text, on_edit);
    }
}

/// How many line breaks end `text` (`\r` does not count, nor break the run).
fn breaks_at_end(text: &str) -> usize {
    text.bytes()
        .rev()
        .take_while(|b| matches!(b, b'\n' | b'\r'))
        .filter(|&b| b == b'\n')
        .count()
}

/// Whether `text` holds nothing but line breaks.
fn only_breaks(text: &str) -> bool {
    text.bytes().all(|b| matches!(b, b'\n' | b'\r'))
}
