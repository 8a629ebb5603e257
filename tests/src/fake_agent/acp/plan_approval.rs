//! `MOCK-MODE=exitplan` (claude only): the model calls ExitPlanMode with its plan, and
//! claude-agent-acp asks the client to approve it, as its `canUseTool` does: options
//! `bypassPermissions` (only where bypass is allowed), `acceptEdits` (allow_always),
//! `default` (allow_once), `plan` (reject_once); the tool call is kind `switch_mode`,
//! title "Ready to code?", its `rawInput` `{plan}` and its content the plan's text. An
//! approval switches the session to the chosen mode (`current_mode_update`, then
//! `config_option_update`); a refusal keeps it planning.
//!
//! With `FAKE_ACP_CLAUDE_VERSION=0.101.0` it plays claude-agent-acp 0.101's shape, as
//! its source (`dist/tool-calls/reporters/interaction.js`, `renderer.js`) builds it for
//! a client that is not JetBrains AIR: the call is titled "Approve Plan" and the plan
//! is the content (its `display` text) of the call's update once the input is
//! complete, whose `rawInput` names the plan's file (`planFilePath`); the request
//! repeats the title and that input, with no content. Not from a recorded run.
//! To a client that declares the `plan` capability, 0.101 then sends the approved plan
//! as a markdown `plan_update` (`planId: "plan-mode"`, the plan trimmed) after the
//! call's result, as its `dist/exit-plan.js` (`planModeUpdate`) and `acp-agent.js`
//! build it.

use serde_json::Value;

use super::super::cli::Cli;
use super::flavor;
use super::ids;
use super::json::{J, obj};
use super::turn::{End, Step, Stop, Turn};

/// The plan the mock model proposes.
pub const PLAN: &str =
    "# Plan\n\n1. Read `src/lib.rs`\n2. Fix the off-by-one in `count`\n3. Run `cargo test`";

/// What the tool answers the model.
const APPROVED: &str = "User has approved your plan. You can now start coding.";
const REFUSED: &str = "User rejected request to exit plan mode.";

pub fn run(t: &mut Turn) -> Step<End> {
    if t.flavor() != Cli::Claude {
        eprintln!("fake-agent: MOCK-MODE=exitplan is claude-agent-acp's; answering plainly");
        t.answer(0, None)?;
        return Ok(End {
            stop: "end_turn",
            tool_calls: 0,
        });
    }
    t.say("I have a plan.")?;
    let tool_id = format!("toolu_mock_{}", ids::hex(10));
    if version_0_101() {
        return approve_0_101(t, &tool_id);
    }
    let meta = || obj! { "claudeCode": obj! { "toolName": "ExitPlanMode" } };
    let raw_input = obj! { "plan": PLAN };
    let content =
        || vec![obj! { "type": "content", "content": obj! { "type": "text", "text": PLAN } }];
    t.emit(obj! {
        "_meta": meta(), "toolCallId": &tool_id, "sessionUpdate": "tool_call",
        "rawInput": J::Obj(Vec::new()), "status": "pending", "title": "Ready to code?",
        "kind": "switch_mode", "content": Vec::<J>::new(),
    })?;
    t.emit(obj! {
        "_meta": meta(), "toolCallId": &tool_id, "sessionUpdate": "tool_call_update",
        "rawInput": &raw_input, "title": "Ready to code?", "kind": "switch_mode",
        "content": content(),
    })?;
    let params = obj! {
        "options": options(),
        "sessionId": t.sid.clone(),
        "toolCall": obj! {
            "toolCallId": &tool_id, "rawInput": &raw_input, "title": "Ready to code?",
            "kind": "switch_mode", "content": content(),
        },
    };
    decide(t, &tool_id, params)
}

/// Whether claude plays claude-agent-acp 0.101 (`FAKE_ACP_CLAUDE_VERSION`).
fn version_0_101() -> bool {
    std::env::var("FAKE_ACP_CLAUDE_VERSION").is_ok_and(|v| v.trim() == "0.101.0")
}

/// 0.101's plan approval: "Approve Plan", the plan only in the call's update.
fn approve_0_101(t: &mut Turn, tool_id: &str) -> Step<End> {
    let meta = || obj! { "claudeCode": obj! { "toolName": "ExitPlanMode" } };
    let plan_file = std::env::temp_dir().join(format!("fake-acp-plan-{}.md", ids::hex(8)));
    let raw_input = obj! { "planFilePath": plan_file.display().to_string() };
    let display =
        vec![obj! { "type": "content", "content": obj! { "type": "text", "text": PLAN } }];
    t.emit(obj! {
        "_meta": meta(), "toolCallId": tool_id, "sessionUpdate": "tool_call",
        "name": "ExitPlanMode", "rawInput": J::Obj(Vec::new()), "status": "pending",
        "title": "Approve Plan", "kind": "switch_mode", "content": Vec::<J>::new(),
    })?;
    t.emit(obj! {
        "_meta": meta(), "toolCallId": tool_id, "sessionUpdate": "tool_call_update",
        "rawInput": &raw_input, "title": "Approve Plan", "kind": "switch_mode",
        "content": display,
    })?;
    let params = obj! {
        "options": options(),
        "sessionId": t.sid.clone(),
        "toolCall": obj! {
            "toolCallId": tool_id, "name": "ExitPlanMode", "status": "pending",
            "rawInput": &raw_input, "title": "Approve Plan", "kind": "switch_mode",
            "content": Vec::<J>::new(),
        },
    };
    decide(t, tool_id, params)
}

/// The options claude-agent-acp offers for a plan.
fn options() -> Vec<J> {
    let mut options = Vec::new();
    if flavor::claude_allows_bypass() {
        options.push(obj! { "kind": "allow_always", "name": "Yes, and bypass permissions", "optionId": "bypassPermissions" });
    }
    options.push(obj! { "kind": "allow_always", "name": "Yes, and auto-accept edits", "optionId": "acceptEdits" });
    options.push(obj! { "kind": "allow_once", "name": "Yes, and manually approve edits", "optionId": "default" });
    options.push(obj! { "kind": "reject_once", "name": "No, keep planning", "optionId": "plan" });
    options
}

/// Asks `params` and plays out the answer: the mode switch and the call's end.
fn decide(t: &mut Turn, tool_id: &str, params: J) -> Step<End> {
    let meta = || obj! { "claudeCode": obj! { "toolName": "ExitPlanMode" } };
    let response = t.ask("session/request_permission", params)?;
    let mode = approved_mode(&response)?;
    let result = match mode {
        Some(mode) => {
            t.emit(obj! { "sessionUpdate": "current_mode_update", "currentModeId": mode })?;
            if let Some(live) = t.agent.sessions.get_mut(&t.sid) {
                live.mode = mode.to_string();
            }
            let options = flavor::session_result(Cli::Claude, None, mode).at("configOptions");
            t.emit(obj! { "sessionUpdate": "config_option_update", "configOptions": options })?;
            t.emit(obj! {
                "_meta": meta(), "toolCallId": tool_id, "sessionUpdate": "tool_call_update",
                "status": "completed", "rawOutput": APPROVED, "title": "Exited Plan Mode",
            })?;
            if version_0_101() && t.agent.client_plans {
                t.emit(obj! {
                    "sessionUpdate": "plan_update",
                    "plan": obj! { "type": "markdown", "planId": "plan-mode", "content": PLAN.trim() },
                })?;
            }
            APPROVED
        }
        None => {
            t.emit(obj! {
                "_meta": meta(), "toolCallId": tool_id, "sessionUpdate": "tool_call_update",
                "status": "failed", "rawOutput": REFUSED,
                "content": vec![obj! { "type": "content", "content": obj! { "type": "text", "text": format!("```\n{REFUSED}\n```") } }],
            })?;
            REFUSED
        }
    };
    t.answer(1, Some(result.to_string()))?;
    Ok(End {
        stop: "end_turn",
        tool_calls: 1,
    })
}

/// The mode an approval chose, `None` for a refusal; `cancelled` ends the turn.
fn approved_mode(response: &Value) -> Step<Option<&'static str>> {
    let outcome = &response["result"]["outcome"];
    match outcome["outcome"].as_str() {
        Some("cancelled") => Err(Stop::Cancelled),
        Some("selected") => Ok(match outcome["optionId"].as_str() {
            Some("default") => Some("default"),
            Some("acceptEdits") => Some("acceptEdits"),
            Some("bypassPermissions") => Some("bypassPermissions"),
            _ => None,
        }),
        _ => {
            eprintln!("fake-agent: not a permission outcome: {response}");
            Ok(None)
        }
    }
}
