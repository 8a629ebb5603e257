//! Plan operations: chatmd declares the `plan` client capability (`{}`, the ACP schema's
//! unstable `PlanCapabilities`), which tells an agent it may send `plan_update` (a plan
//! by id, as items, markdown or a file) and `plan_removed`. claude-agent-acp 0.101
//! then sends the plan a user approved in ExitPlanMode as a markdown `plan_update`
//! (`planId: "plan-mode"`) after the tool call's result (its `dist/exit-plan.js`).
//!
//! Each becomes the turn's one checklist, as a `plan` update does: items as they are,
//! markdown by its list items (a `[x]` box completed; a plan without list items by its
//! lines), a file as one step naming it. `plan_removed` changes nothing: the checklist
//! in the file is the record of what the agent planned.

use serde_json::Value;

use crate::agents::output::sanitized;
use crate::agents::{PlanEntry, StepStatus};

/// The checklist of a `plan_update`'s `plan`, or `None` when it does not read.
pub(super) fn entries(update: &Value) -> Option<Vec<PlanEntry>> {
    let plan = update.get("plan")?;
    match plan.get("type").and_then(Value::as_str)? {
        "items" => {
            let entries = plan.get("entries")?.as_array()?;
            Some(entries.iter().filter_map(item).collect())
        }
        "markdown" => Some(from_markdown(plan.get("content")?.as_str()?)),
        "file" => Some(vec![pending(&format!(
            "The plan in {}",
            plan.get("uri")?.as_str()?
        ))]),
        _ => None,
    }
}

/// One entry of an `items` plan (`{content, priority, status}`, as in a `plan` update).
fn item(entry: &Value) -> Option<PlanEntry> {
    let content = entry.get("content")?.as_str()?;
    let status = match entry.get("status").and_then(Value::as_str) {
        Some("completed") => StepStatus::Completed,
        Some("in_progress") => StepStatus::InProgress,
        _ => StepStatus::Pending,
    };
    Some(PlanEntry {
        content: sanitized(content).into_owned(),
        status,
    })
}

fn pending(content: &str) -> PlanEntry {
    PlanEntry {
        content: sanitized(content).into_owned(),
        status: StepStatus::Pending,
    }
}

/// The steps of a markdown plan: its list items (`-`, `*`, `+`, `1.`, `1)`, with or
/// without a task box), else every line that holds words (heading marks dropped).
fn from_markdown(text: &str) -> Vec<PlanEntry> {
    let items: Vec<PlanEntry> = text.lines().filter_map(list_item).collect();
    if !items.is_empty() {
        return items;
    }
    text.lines()
        .map(|line| line.trim().trim_start_matches('#').trim())
        .filter(|line| !line.is_empty())
        .map(pending)
        .collect()
}

/// A markdown list item's step.
fn list_item(line: &str) -> Option<PlanEntry> {
    let line = line.trim_start();
    let rest = ["- ", "* ", "+ "]
        .iter()
        .find_map(|mark| line.strip_prefix(mark))
        .or_else(|| {
            let digits = line.len() - line.trim_start_matches(|c: char| c.is_ascii_digit()).len();
            let after = line.get(digits..)?;
            (digits > 0)
                .then(|| {
                    after
                        .strip_prefix(". ")
                        .or_else(|| after.strip_prefix(") "))
                })
                .flatten()
        })?;
    let (status, content) = match rest.get(..4) {
        Some("[x] " | "[X] ") => (StepStatus::Completed, &rest[4..]),
        Some("[ ] ") => (StepStatus::Pending, &rest[4..]),
        _ => (StepStatus::Pending, rest),
    };
    let content = content.trim();
    (!content.is_empty()).then(|| PlanEntry {
        content: sanitized(content).into_owned(),
        status,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    fn step(content: &str, status: StepStatus) -> PlanEntry {
        PlanEntry {
            content: content.into(),
            status,
        }
    }

    #[test]
    fn an_approved_markdown_plan_is_the_checklist_of_its_list_items() {
        // claude-agent-acp 0.101's update after an approved ExitPlanMode.
        let update = json!({"sessionUpdate": "plan_update", "plan": {"type": "markdown",
            "planId": "plan-mode",
            "content": "# Plan\n\n1. Read `src/lib.rs`\n2. Fix the off-by-one in `count`\n- [x] Done before\n3) Run `cargo test`"}});
        assert_eq!(
            entries(&update),
            Some(vec![
                step("Read `src/lib.rs`", StepStatus::Pending),
                step("Fix the off-by-one in `count`", StepStatus::Pending),
                step("Done before", StepStatus::Completed),
                step("Run `cargo test`", StepStatus::Pending),
            ])
        );
    }

    #[test]
    fn items_files_and_prose_plans_read_as_steps() {
        let items = json!({"plan": {"type": "items", "planId": "p", "entries": [
            {"content": "Read", "priority": "high", "status": "completed"},
            {"content": "Edit", "priority": "low", "status": "in_progress"},
            {"content": 3},
        ]}});
        assert_eq!(
            entries(&items),
            Some(vec![
                step("Read", StepStatus::Completed),
                step("Edit", StepStatus::InProgress)
            ])
        );
        let file = json!({"plan": {"type": "file", "planId": "p", "uri": "file:///w/PLAN.md"}});
        assert_eq!(
            entries(&file),
            Some(vec![step(
                "The plan in file:///w/PLAN.md",
                StepStatus::Pending
            )])
        );
        let prose = json!({"plan": {"type": "markdown", "planId": "p",
            "content": "## Fix it\n\nRead the code, then fix it.\n"}});
        assert_eq!(
            entries(&prose),
            Some(vec![
                step("Fix it", StepStatus::Pending),
                step("Read the code, then fix it.", StepStatus::Pending)
            ])
        );
        assert_eq!(entries(&json!({"plan": {"type": "diagram"}})), None);
        assert_eq!(entries(&json!({})), None);
    }
}
