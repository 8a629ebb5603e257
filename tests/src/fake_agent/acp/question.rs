//! `MOCK-MODE=ask`: the agent asks the user a question with `elicitation/create` (form
//! mode, one property with titled choices, as the ACP schema's `ElicitationFormMode`
//! describes; `ASK=url` asks to open a URL instead, `ElicitationUrlMode`; `ASK=claude`
//! asks as claude-agent-acp does for AskUserQuestion) and quotes
//! the client's whole result in its answer (`tool_result="{"action":…}"`), so a test
//! sees exactly what the agent received. A `cancel` ends the turn as cancelled. Only a
//! client that declared `elicitation` is asked; another gets an answer saying so.

use serde_json::Value;

use super::json::{J, obj};
use super::turn::{End, Step, Stop, Turn, names_after};

pub fn run(t: &mut Turn) -> Step<End> {
    if !t.agent.client_elicits {
        t.answer(0, Some("the client takes no elicitation".into()))?;
        return Ok(End {
            stop: "end_turn",
            tool_calls: 0,
        });
    }
    let shape = names_after(t.message_text(), "ASK");
    let sid = t.sid.clone();
    let claude = shape.first().map(String::as_str) == Some("claude");
    let params = if claude {
        ask_user_question(t)?
    } else if shape.first().map(String::as_str) == Some("url") {
        obj! {
            "sessionId": sid, "mode": "url", "elicitationId": "elicit-1",
            "url": "https://example.com/oauth/authorize?client=fake",
            "message": "Sign in to the fake MCP server",
        }
    } else {
        let choice = |value: &str, title: &str| obj! { "const": value, "title": title };
        obj! {
            "sessionId": sid, "mode": "form", "message": "Which color should the button be?",
            "requestedSchema": obj! {
                "type": "object",
                "properties": obj! { "color": obj! {
                    "type": "string", "title": "Color",
                    "oneOf": J::Arr(vec![choice("blue", "Blue"), choice("red", "Red")]),
                } },
                "required": J::Arr(vec![J::from("color")]),
            },
        }
    };
    let response = t.ask("elicitation/create", params)?;
    let result = received(&response)?;
    if claude {
        // The tool call ends with what Claude Code made of the answer.
        t.emit(obj! {
            "toolCallId": CLAUDE_CALL, "sessionUpdate": "tool_call_update", "status": "completed",
            "rawOutput": result.clone(),
        })?;
    }
    t.answer(0, Some(result))?;
    Ok(End {
        stop: "end_turn",
        tool_calls: 0,
    })
}

/// The id of the AskUserQuestion tool call of `ASK=claude`.
const CLAUDE_CALL: &str = "toolu_fake_ask_1";

/// `ASK=claude`: Claude Code's AskUserQuestion as claude-agent-acp 0.101.0 puts it to
/// the client (recorded in `fixtures/acp/recorded/claude-ask.jsonl`): the tool call,
/// its input, then a form whose choice `question_0` has an optional free-text "Other"
/// beside it (`question_0_custom`), no `required`, and the tool call's id.
fn ask_user_question(t: &mut Turn) -> Step<J> {
    let call = CLAUDE_CALL;
    let meta = || obj! { "claudeCode": obj! { "toolName": "AskUserQuestion" } };
    t.emit(obj! {
        "_meta": meta(), "toolCallId": call, "sessionUpdate": "tool_call", "rawInput": obj! {},
        "status": "pending", "title": "Asking for your input", "kind": "other",
        "content": J::Arr(vec![]),
    })?;
    let question = "Which color should the button be?";
    t.emit(obj! {
        "_meta": meta(), "toolCallId": call, "sessionUpdate": "tool_call_update",
        "title": question, "kind": "other",
        "content": J::Arr(vec![obj! { "type": "content",
            "content": obj! { "type": "text", "text": question } }]),
    })?;
    let choice = |label: &str, description: &str| {
        obj! { "const": label, "title": label, "description": description }
    };
    Ok(obj! {
        "mode": "form", "sessionId": t.sid.clone(), "toolCallId": call, "message": question,
        "requestedSchema": obj! {
            "type": "object",
            "properties": obj! {
                "question_0": obj! {
                    "type": "string", "title": "Color",
                    "oneOf": J::Arr(vec![choice("Blue", "cool"), choice("Red", "warm")]),
                },
                "question_0_custom": obj! {
                    "type": "string", "title": "Other",
                    "description": "Type your own answer, or add a note to the option you chose above (optional).",
                },
            },
        },
    })
}

/// The client's result as one line of JSON; `cancel` stops the turn.
fn received(response: &Value) -> Step<String> {
    if let Some(error) = response.get("error") {
        return Ok(format!("error {error}"));
    }
    let result = &response["result"];
    match result["action"].as_str() {
        Some("cancel") => Err(Stop::Cancelled),
        Some("accept" | "decline") => Ok(result.to_string()),
        _ => {
            eprintln!("fake-agent: not an elicitation result: {response}");
            Ok(result.to_string())
        }
    }
}
