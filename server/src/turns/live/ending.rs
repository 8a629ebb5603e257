//! How a running turn ends: the rest of its answer, the blocks at its end, its final
//! status.

use super::{Live, cut_note};
use crate::conversation::blocks;
use crate::document::status::TurnStatus;
use crate::runner::{Ended, RunOutcome};
use crate::turns::TurnError;

impl Live {
    /// The answer's text ends here (the filter's rest goes in): whether it ends a line.
    pub(in crate::turns) fn text_ends(&mut self) -> bool {
        self.pending.push_str(&self.filter.finish());
        if self.pending.is_empty() {
            self.at_line_start
        } else {
            self.pending.ends_with('\n')
        }
    }

    /// The agent's process ended: the rest of the answer, the blocks at its end and
    /// the final status comment.
    pub(in crate::turns) fn on_end(&mut self, outcome: &RunOutcome) {
        let t = self;
        t.done = true;
        t.end_calls();
        if !t.text_ends() {
            t.pending.push('\n');
        }
        if t.cut > 0 || !t.tools.is_empty() || !t.denied.is_empty() {
            t.tail = None;
        }
        if t.cut > 0 {
            t.pending.push_str(&cut_note(t.cut));
        }
        if !t.tools.is_empty() {
            t.pending.push_str(&blocks::tools_block(&t.tools));
        }
        if !t.denied.is_empty() {
            t.pending.push_str(&blocks::not_allowed(
                &t.member, &t.agent, &t.denied, &t.args, &t.allow,
            ));
            t.ending.denied = t.denied.len();
        }
        t.ending.exit = outcome.exit.as_ref().and_then(|e| e.code);
        let status = match &outcome.ended {
            Ended::Completed if t.answer.trim() == "SKIP" => TurnStatus::Skipped,
            Ended::Completed => TurnStatus::Done,
            Ended::Cancelled => TurnStatus::Cancelled,
            other => {
                if t.error.is_none() {
                    t.error = Some(TurnError::Agent(other.to_string()));
                }
                TurnStatus::Error
            }
        };
        if status == TurnStatus::Skipped {
            t.pending.clear();
            t.blocks.drop_unwritten();
        }
        t.close_asks();
        t.finish(status);
    }
}
