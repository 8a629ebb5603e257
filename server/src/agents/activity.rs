//! What an ACP agent shows of its work besides its answer, as the turn renders it: its
//! plan (a checklist it replaces whole), each tool call as it stands (a line updated in
//! place, with the diffs it carries) and how full its context window is. Plain data:
//! `conversation::activity` writes it as Markdown.

/// One entry of an agent's plan.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlanEntry {
    /// What the step is, already clean (one line is made of it when written).
    pub content: String,
    pub status: StepStatus,
}

/// Where a plan entry is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StepStatus {
    Pending,
    InProgress,
    Completed,
}

/// Where a tool call is, in the protocol's words.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CallStatus {
    Pending,
    InProgress,
    Completed,
    Failed,
}

/// A file change a tool call carries (`{type: "diff", path, oldText, newText}`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileDiff {
    /// The path as the line shows it (relative to the member's folder when inside it).
    pub path: String,
    /// `None` for a new file.
    pub old: Option<String>,
    pub new: String,
}

/// One tool call of an ACP agent as it stands now: each report replaces the last.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CallView {
    /// The agent's id of the call.
    pub id: String,
    /// `Execute: cargo test`, as the headless tool lists name calls.
    pub summary: String,
    pub status: CallStatus,
    /// `src/main.rs:12` (or a path alone), in the agent's order.
    pub locations: Vec<String>,
    pub diffs: Vec<FileDiff>,
    /// The first line of a failure.
    pub detail: Option<String>,
    /// The output so far of the command it runs in a terminal chatmd runs for it (ACP
    /// `terminal` content), clean of escapes.
    pub output: Option<String>,
}

/// What an agent spent so far in its session (ACP `usage_update`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ContextUsage {
    /// Tokens in the context window.
    pub used: u64,
    /// The window's size in tokens.
    pub size: u64,
    /// The session's cost so far with its currency (`0.0123 USD`), when the agent
    /// reports one.
    pub cost: Option<String>,
}

/// A cost as the status comment writes it: the amount with at most 4 decimals and no
/// trailing zeros, then the currency (`0.0023 USD`).
pub fn cost_words(amount: f64, currency: &str) -> String {
    let number = if amount.is_finite() {
        let text = format!("{amount:.4}");
        let text = text.trim_end_matches('0').trim_end_matches('.');
        if text.is_empty() || text == "-" || text == "-0" {
            "0".to_owned()
        } else {
            text.to_owned()
        }
    } else {
        "?".to_owned()
    };
    format!("{number} {currency}")
}
