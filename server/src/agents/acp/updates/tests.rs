use super::*;
use crate::agents::{CallStatus, CallView, FileDiff, StepStatus};
use pretty_assertions::assert_eq;
use serde_json::json;

fn events(updates: &[Value]) -> Vec<AgentEvent> {
    let mut stream = Stream::new(PathBuf::from("/w/proj"));
    let mut out = Vec::new();
    for update in updates {
        stream.update(update.clone(), &mut out);
    }
    out
}

#[test]
fn thoughts_and_plans_become_their_events() {
    let out = events(&[
        json!({"sessionUpdate": "agent_thought_chunk", "content": {"type": "text", "text": "Let me\u{1b}[1m think"}}),
        json!({"sessionUpdate": "plan", "entries": [
            {"content": "Read", "priority": "high", "status": "completed"},
            {"content": "Edit", "priority": "medium", "status": "in_progress"},
            {"content": "Test", "priority": "low", "status": "pending"},
        ]}),
    ]);
    let step = |content: &str, status| PlanEntry {
        content: content.into(),
        status,
    };
    assert_eq!(
        out,
        [
            AgentEvent::Thought("Let me think".into()),
            AgentEvent::Plan(vec![
                step("Read", StepStatus::Completed),
                step("Edit", StepStatus::InProgress),
                step("Test", StepStatus::Pending),
            ]),
        ]
    );
}

#[test]
fn usage_goes_to_the_status_with_its_cost() {
    let out = events(&[
        json!({"sessionUpdate": "usage_update", "used": 19952, "size": 1000000}),
        json!({"sessionUpdate": "usage_update", "used": 20040, "size": 1000000, "cost": {"amount": 0.099845, "currency": "USD"}}),
        json!({"sessionUpdate": "usage_update", "used": 1, "size": 2, "cost": {"amount": 0, "currency": "USD"}}),
    ]);
    let usage = |used, size, cost: Option<&str>| {
        AgentEvent::Context(ContextUsage {
            used,
            size,
            cost: cost.map(str::to_owned),
        })
    };
    assert_eq!(
        out,
        [
            usage(19952, 1_000_000, None),
            usage(20040, 1_000_000, Some("0.0998 USD")),
            usage(1, 2, Some("0 USD")),
        ]
    );
}

#[test]
fn a_tool_call_is_reported_whenever_what_it_shows_changes() {
    let out = events(&[
        json!({"_meta": {"claudeCode": {"toolName": "Edit"}}, "toolCallId": "toolu_1", "sessionUpdate": "tool_call", "rawInput": {}, "status": "pending", "title": "Edit", "kind": "edit", "content": []}),
        json!({"toolCallId": "toolu_1", "sessionUpdate": "tool_call_update", "title": "Edit `notes.txt`", "kind": "edit",
               "content": [{"type": "diff", "path": "/w/proj/notes.txt", "oldText": "a\n", "newText": "b\n"}],
               "locations": [{"path": "/w/proj/notes.txt", "line": 1}, {"path": "/etc/x"}]}),
        json!({"toolCallId": "toolu_1", "sessionUpdate": "tool_call_update"}),
        json!({"toolCallId": "toolu_1", "sessionUpdate": "tool_call_update", "status": "completed"}),
    ]);
    let view = |summary: &str, status, locations: &[&str], diffs: Vec<FileDiff>| {
        AgentEvent::Call(Box::new(CallView {
            id: "toolu_1".into(),
            summary: summary.into(),
            status,
            locations: locations.iter().map(|l| (*l).to_owned()).collect(),
            diffs,
            detail: None,
            output: None,
        }))
    };
    let diff = || {
        vec![FileDiff {
            path: "notes.txt".into(),
            old: Some("a\n".into()),
            new: "b\n".into(),
        }]
    };
    assert_eq!(
        out,
        [
            view("Edit: Edit", CallStatus::Pending, &[], Vec::new()),
            view(
                "Edit: Edit `notes.txt`",
                CallStatus::Pending,
                &["notes.txt:1", "/etc/x"],
                diff()
            ),
            view(
                "Edit: Edit `notes.txt`",
                CallStatus::Completed,
                &["notes.txt:1", "/etc/x"],
                diff()
            ),
        ]
    );
}

#[test]
fn a_failed_call_says_why_and_a_question_shows_its_call_first() {
    let mut stream = Stream::new(PathBuf::from("/w"));
    let mut out = Vec::new();
    stream.asked_about("g1", Some(ToolKind::Execute), Some("touch x"));
    stream.show_asked("g1", &mut out);
    stream.show_asked("g1", &mut out);
    stream.update(
        json!({"toolCallId": "g1", "sessionUpdate": "tool_call_update", "status": "failed",
               "rawOutput": "User refused permission to run tool",
               "content": [{"type": "content", "content": {"type": "text", "text": "```\nUser refused permission to run tool\n```"}}]}),
        &mut out,
    );
    let view = |status, detail: Option<&str>| {
        AgentEvent::Call(Box::new(CallView {
            id: "g1".into(),
            summary: "Execute: touch x".into(),
            status,
            locations: Vec::new(),
            diffs: Vec::new(),
            detail: detail.map(str::to_owned),
            output: None,
        }))
    };
    assert_eq!(
        out,
        [
            view(CallStatus::Pending, None),
            view(
                CallStatus::Failed,
                Some("User refused permission to run tool")
            ),
        ]
    );
}

#[test]
fn the_adapters_own_warning_is_a_notice_not_answer_text() {
    let chunk = |text: &str| json!({"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": text}});
    let warning =
        "**Warning:** We're changing auto mode to no longer charge for classifier requests…";
    let out = events(&[chunk("Done."), chunk(&format!("\n\n{warning}"))]);
    assert_eq!(
        out,
        [
            AgentEvent::Text("Done.".into()),
            AgentEvent::Notice(warning.into())
        ]
    );
    // A model's text that starts so, streamed in pieces, stays text.
    let out = events(&[chunk("**Warning:** "), chunk("this deletes files.")]);
    assert!(
        !out.iter().any(|e| matches!(e, AgentEvent::Notice(_))),
        "{out:?}"
    );
}
