//! What a running turn records of its usage: the context window and the cost as they
//! are reported, and, where the agent reports the session's running totals
//! (`conversation::running`), this turn's share of them.

use super::Live;
use crate::agents::{ContextUsage, Usage};
use crate::conversation::running::{
    SESSION_COST_KEY, SESSION_TOKENS_KEY, cost_share, cost_sum, tokens_share,
};

impl Live {
    /// The cost the agent reported: the run's own, or the session's so far, of which
    /// the turn records its share.
    pub(super) fn cost(&mut self, cost: String) {
        let share = self
            .running
            .cost
            .then(|| cost_share(&cost, self.session_report.cost))
            .flatten();
        match share {
            Some(share) if share != cost => {
                self.status.set("cost", share);
                self.status.set(SESSION_COST_KEY, cost);
            }
            _ => {
                self.status.set("cost", cost);
                self.status.remove(SESSION_COST_KEY);
            }
        }
        self.status_dirty = true;
    }

    /// An ACP agent's `usage_update`: how full the context is, and what the session
    /// has cost so far in this process or over all of them (`agents/acp/costs.rs`,
    /// as `running.cost` says). The turn records its share, and the session's total
    /// beside it where the two differ (`session-cost=`), which also tells
    /// `conversation::usage` that `cost` is this turn's own.
    pub(super) fn context(&mut self, usage: ContextUsage) {
        self.status
            .set("context", format!("{}/{}", usage.used, usage.size));
        if let Some(cost) = usage.cost {
            let before = self.session_report.cost;
            let (share, total) = if self.running.cost {
                (cost_share(&cost, before), Some(cost.clone()))
            } else {
                (Some(cost.clone()), cost_sum(&cost, before))
            };
            let share = share.unwrap_or_else(|| cost.clone());
            self.status.set("cost", share.clone());
            match total.filter(|total| *total != share) {
                Some(total) => {
                    self.status.set(SESSION_COST_KEY, total);
                }
                None => {
                    self.status.remove(SESSION_COST_KEY);
                }
            }
        }
        self.status_dirty = true;
    }

    /// The tokens the turn ends with: where they are the session's running total, the
    /// turn's share. Returns the total to keep beside it (`keep_session_tokens`), when
    /// the two differ. Done once: a turn's ending may be written again.
    pub(super) fn tokens_share(&mut self) -> Option<Usage> {
        let total = self.ending.usage.filter(|_| self.running.tokens)?;
        self.running.tokens = false;
        let share = tokens_share(total, self.session_report.tokens);
        self.ending.usage = Some(share);
        (share != total).then_some(total)
    }

    /// Keeps the session's running total after the turn's share (`tokens=`).
    pub(super) fn keep_session_tokens(&mut self, total: Option<Usage>) {
        if let Some(total) = total {
            let total = format!("{}/{}", total.input_tokens, total.output_tokens);
            self.status.set(SESSION_TOKENS_KEY, total);
        }
    }
}
