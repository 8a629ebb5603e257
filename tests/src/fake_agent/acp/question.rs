//! `MOCK-MODE=ask`: the agent asks the user a question with `elicitation/create` (form
//! mode, one property with titled choices, as the ACP schema's `ElicitationFormMode`
//! describes; `ASK=url` asks to open a URL instead, `ElicitationUrlMode`) and quotes
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
    let url = names_after(t.message_text(), "ASK")
        .first()
        .map(String::as_str)
        == Some("url");
    let sid = t.sid.clone();
    let params = if url {
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
    t.answer(0, Some(result))?;
    Ok(End {
        stop: "end_turn",
        tool_calls: 0,
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
