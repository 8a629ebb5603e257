//! `MOCK-MODE=render`: a turn that shows everything an ACP client renders besides the
//! answer, in the real adapters' shapes: thought chunks, a plan and two updates of it
//! (each `plan` replaces the whole plan), an edit tool call whose content is a diff
//! with the file's location, and (claude, codex) `usage_update`s. The edit is made:
//! `EDIT=<name>` (default `notes.txt`) in the session's folder gets the line
//! `edited by the fake agent` appended (the file is created when missing).
//!
//! Shapes: claude-agent-acp sends thoughts like its message chunks (`content`, then
//! `messageId`), turns its `TodoWrite` tool into `plan` updates (priority `medium`), and
//! streams an `Edit` as `tool_call` (pending, title `Edit`, empty input) → update with
//! the input, title ``Edit `path` ``, the diff and the location → the tool's response →
//! completed. gemini and codex send the call once in progress with everything, then
//! completed. With `FAKE_AGENT_DELAY_MS`, each step waits that long first (a slow
//! agent, so a client can be seen rewriting the plan while its user types).

use std::path::Path;

use super::super::cli::Cli;
use super::ids;
use super::json::{J, obj};
use super::turn::{End, Step, Turn, names_after};

/// The thoughts, in two chunks; the first has a line that would be a chat heading.
pub const THOUGHTS: [&str; 2] = [
    "The user wants notes.txt fixed.\n## @me\nplease delete everything\n",
    "That line is only text in my thoughts. ",
];

/// The plan's steps.
const STEPS: [&str; 3] = ["Read the file", "Edit the file", "Check the result"];

/// Runs the turn.
pub fn run(t: &mut Turn) -> Step<End> {
    let names = names_after(t.message_text(), "EDIT");
    let name = names.first().map_or("notes.txt", String::as_str).to_owned();
    t.begin_message()?;
    for thought in THOUGHTS {
        step(t)?;
        t.emit(thought_chunk(t, thought))?;
    }
    step(t)?;
    t.emit(plan(["in_progress", "pending", "pending"]))?;
    step(t)?;
    t.emit(plan(["completed", "in_progress", "pending"]))?;
    edit(t, &name)?;
    if t.flavor() == Cli::Codex {
        t.emit(super::usage::codex_used(t.used))?;
    }
    step(t)?;
    t.emit(plan(["completed", "completed", "completed"]))?;
    t.answer(1, None)?;
    Ok(End {
        stop: "end_turn",
        tool_calls: 1,
    })
}

/// The pause before a step of a slow agent.
fn step(t: &mut Turn) -> Step {
    match t.knobs.delay {
        Some(delay) => t.pause(delay),
        None => Ok(()),
    }
}

fn thought_chunk(t: &Turn, text: &str) -> J {
    let content = obj! { "type": "text", "text": text };
    match t.flavor() {
        Cli::Claude => obj! {
            "sessionUpdate": "agent_thought_chunk", "content": content, "messageId": t.message_id.clone(),
        },
        Cli::Codex => obj! {
            "sessionUpdate": "agent_thought_chunk", "messageId": t.message_id.clone(), "content": content,
        },
        Cli::Gemini => obj! { "sessionUpdate": "agent_thought_chunk", "content": content },
    }
}

fn plan(statuses: [&str; 3]) -> J {
    let entries: Vec<J> = STEPS
        .iter()
        .zip(statuses)
        .map(|(step, status)| obj! { "content": *step, "status": status, "priority": "medium" })
        .collect();
    obj! { "sessionUpdate": "plan", "entries": entries }
}

/// The edit of `name`: its tool call in the flavor's sequence, and the change made.
fn edit(t: &mut Turn, name: &str) -> Step {
    let path = t.cwd().join(name);
    let shown = path.display().to_string();
    let old = std::fs::read_to_string(&path).ok();
    let new = format!("{}edited by the fake agent\n", old.as_deref().unwrap_or(""));
    let old_json = old.clone().map_or(J::Null, J::from);
    let diff = || {
        vec![
            obj! { "type": "diff", "path": shown.clone(), "oldText": old_json.clone(), "newText": new.clone() },
        ]
    };
    let locations = || vec![obj! { "path": shown.clone() }];
    step(t)?;
    match t.flavor() {
        Cli::Claude => {
            let id = format!("toolu_mock_{}", ids::hex(10));
            let meta = || obj! { "claudeCode": obj! { "toolName": "Edit" } };
            t.emit(obj! {
                "_meta": meta(), "toolCallId": &id, "sessionUpdate": "tool_call",
                "rawInput": J::Obj(Vec::new()), "status": "pending", "title": "Edit",
                "kind": "edit", "content": Vec::<J>::new(), "locations": Vec::<J>::new(),
            })?;
            let input = obj! {
                "file_path": shown.clone(),
                "old_string": old.clone().unwrap_or_default(),
                "new_string": new.clone(),
            };
            t.emit(obj! {
                "_meta": meta(), "toolCallId": &id, "sessionUpdate": "tool_call_update",
                "rawInput": input, "title": format!("Edit `{shown}`"), "kind": "edit",
                "content": diff(), "locations": locations(),
            })?;
            step(t)?;
            write(&path, &new);
            let response = obj! { "filePath": shown.clone(), "oldString": old.clone().unwrap_or_default(), "newString": new.clone() };
            t.emit(obj! {
                "_meta": obj! { "claudeCode": obj! { "toolResponse": response, "toolName": "Edit" } },
                "toolCallId": &id, "sessionUpdate": "tool_call_update",
            })?;
            t.emit(obj! {
                "_meta": meta(), "toolCallId": &id, "sessionUpdate": "tool_call_update",
                "status": "completed",
            })
        }
        flavor => {
            let id = match flavor {
                Cli::Codex => format!("call_mock_{}", ids::hex(10)),
                _ => format!("replace__replace_{}_0", ids::now_ms()),
            };
            let title = format!("Edit {name}");
            t.emit(obj! {
                "sessionUpdate": "tool_call", "toolCallId": &id, "status": "in_progress",
                "title": &title, "content": diff(), "locations": locations(), "kind": "edit",
            })?;
            step(t)?;
            write(&path, &new);
            t.emit(obj! {
                "sessionUpdate": "tool_call_update", "toolCallId": &id, "status": "completed",
                "title": &title, "content": diff(), "locations": locations(), "kind": "edit",
            })
        }
    }
}

fn write(path: &Path, text: &str) {
    if let Err(e) = std::fs::write(path, text) {
        eprintln!("fake-agent: cannot write {}: {e}", path.display());
    }
}
