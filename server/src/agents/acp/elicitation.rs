//! `elicitation/create`: a question of the agent's (claude-agent-acp's AskUserQuestion,
//! a form, a URL to open) becomes an [`AgentEvent::Permission`] whose request is a
//! question ([`PermissionRequest::is_question`]): the same block in the member's
//! section, the same answers (code actions, `chatmd.answer`, the terminal under
//! `chatmd send`), so every way a user already answers the agent works for questions
//! too. Each way to answer is an option; choosing one answers the agent `accept` with
//! the content that option stands for, "Decline" answers `decline`, and a cancel of the
//! turn (or a block never answered) `cancel`, as the schema's `ElicitationAction` says.
//!
//! A form is answerable in the file when it asks one thing with a list of answers
//! (one property: a string with `enum` or `oneOf`, a boolean, a multi-select; beside
//! it only optional free-text fields, which the answer leaves out), or nothing (an
//! acknowledgement). Free text and forms of several fields have no option
//! to tick: they are declined at once, with a notice, rather than left waiting for an
//! answer the file cannot give.

use agent_client_protocol::v1::schema::RequestId;
use serde_json::{Map, Value, json};

use super::rpc;
use crate::agents::output::{code_span, quote};
use crate::agents::session::Outbox;
use crate::agents::{
    AgentEvent, PermissionKind, PermissionOption, PermissionOutcome, PermissionRequest,
};

/// The option id of "Decline" (every question has it).
const DECLINE: &str = "decline";

/// One question waiting for the user.
#[derive(Debug)]
struct Pending {
    /// The agent's id, echoed in the answer.
    id: RequestId,
    /// The id the user's side answers by.
    key: crate::agents::RequestId,
    /// Each option's id and the `content` an `accept` by it carries (`None`: none).
    accepts: Vec<(String, Option<Value>)>,
}

/// The questions of a turn that wait for an answer, oldest first.
#[derive(Debug, Default)]
pub struct Questions {
    pending: Vec<Pending>,
}

impl super::AcpSession {
    /// The agent's question `id`: asked in the file (its tool's line above it), or
    /// answered at once (`cancel` after a cancel; `decline` where the file has no way
    /// to answer it).
    pub(super) fn elicit(&mut self, id: RequestId, params: &Value, out: &mut Outbox) {
        match self.questions.ask(id, params) {
            Elicited::Answered { line, why } => {
                tracing::debug!("ACP question declined: {why}");
                out.push(AgentEvent::Notice(format!(
                    "{} asked {why}; it was declined",
                    self.turn.agent
                )));
                out.write(line);
            }
            Elicited::User(request) if self.cancelled => {
                let cancelled = PermissionOutcome::Cancelled;
                out.write(
                    self.questions
                        .answer(&request.id, &cancelled)
                        .unwrap_or_default(),
                );
            }
            Elicited::User(request) => self.put_to_user(request, out),
        }
    }
}

/// What became of an `elicitation/create`.
pub enum Elicited {
    /// The user is asked; the answer comes as a command.
    User(PermissionRequest),
    /// Answered at once with this line (the file cannot answer it); `why` for the log.
    Answered { line: Vec<u8>, why: String },
}

impl Questions {
    /// The agent's request `id` as a question for the user.
    pub fn ask(&mut self, id: RequestId, params: &Value) -> Elicited {
        let message = one_line(params.get("message").and_then(Value::as_str).unwrap_or(""));
        let asked = match params.get("mode").and_then(Value::as_str) {
            Some("form") => form(params.get("requestedSchema").unwrap_or(&Value::Null)),
            Some("url") => match params.get("url").and_then(Value::as_str) {
                Some(url) => Ok(Asked {
                    summary: format!("asks you to open {}", code_span(&one_line(url))),
                    accepts: vec![("open".into(), "Opened it".into(), None)],
                }),
                None => Err("a URL question without a URL".to_string()),
            },
            other => Err(format!(
                "a question of mode {other:?}, which chatmd does not know"
            )),
        };
        let asked = match asked {
            Ok(asked) => asked,
            Err(why) => {
                let line = rpc::result(&id, json!({"action": "decline"}));
                return Elicited::Answered { line, why };
            }
        };
        let key = crate::agents::RequestId(id.to_string());
        let mut options: Vec<PermissionOption> = asked
            .accepts
            .iter()
            .map(|(option, name, _)| PermissionOption::new(option, name, PermissionKind::Answer))
            .collect();
        options.push(PermissionOption::new(
            DECLINE,
            "Decline",
            PermissionKind::RejectOnce,
        ));
        let summary = match message.is_empty() {
            true => asked.summary,
            false => format!("{}: {}", asked.summary, quote(&message)),
        };
        self.pending.push(Pending {
            id,
            key: key.clone(),
            accepts: asked
                .accepts
                .into_iter()
                .map(|(option, _, content)| (option, content))
                .collect(),
        });
        let tool = params
            .get("toolCallId")
            .and_then(Value::as_str)
            .map(str::to_owned);
        Elicited::User(PermissionRequest {
            id: key,
            summary,
            tool,
            options,
            kind: PermissionRequest::QUESTION.to_string(),
            title: message,
            plan: None,
        })
    }

    /// The response line to `request`, or `None` when no such question waits or the
    /// answer names no option of it.
    pub fn answer(
        &mut self,
        request: &crate::agents::RequestId,
        outcome: &PermissionOutcome,
    ) -> Option<Vec<u8>> {
        let index = self.pending.iter().position(|p| p.key == *request)?;
        let action = match outcome {
            PermissionOutcome::Cancelled => json!({"action": "cancel"}),
            PermissionOutcome::Selected(option) if option == DECLINE => {
                json!({"action": "decline"})
            }
            PermissionOutcome::Selected(option) => {
                let (_, content) = self.pending[index]
                    .accepts
                    .iter()
                    .find(|(id, _)| id == option)?;
                match content {
                    Some(content) => json!({"action": "accept", "content": content}),
                    None => json!({"action": "accept"}),
                }
            }
        };
        let pending = self.pending.remove(index);
        Some(rpc::result(&pending.id, action))
    }

    /// Every waiting question answered `cancel`, as after `session/cancel`.
    pub fn cancel_all(&mut self) -> Vec<u8> {
        let cancel = json!({"action": "cancel"});
        self.pending
            .drain(..)
            .flat_map(|pending| rpc::result(&pending.id, &cancel))
            .collect()
    }
}

/// A question the file can answer: what is asked, and each answer as (option id,
/// name, the `content` of the `accept` it gives).
struct Asked {
    summary: String,
    accepts: Vec<(String, String, Option<Value>)>,
}

/// A form's answers, or why the file cannot give them.
fn form(schema: &Value) -> Result<Asked, String> {
    let empty = Map::new();
    let properties = schema
        .get("properties")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    // claude-agent-acp puts an optional free-text "Other" field beside each
    // AskUserQuestion choice (`question_0_custom`): the file answers by the choice
    // and leaves such a field out, as the schema allows for a field not `required`.
    let required = |field: &str| {
        schema
            .get("required")
            .and_then(Value::as_array)
            .is_some_and(|names| names.iter().any(|name| name == field))
    };
    let optional_text = |(field, property): &(&String, &Value)| {
        !required(field)
            && choices(property).is_empty()
            && property.get("type") == Some(&json!("string"))
    };
    let asked: Vec<(&String, &Value)> = properties.iter().collect();
    let mut fields = asked.iter().filter(|field| !optional_text(field));
    let (field, property) = match (fields.next(), fields.next()) {
        (None, _) if asked.is_empty() => {
            // Nothing to fill in: the question is a yes or no.
            return Ok(Asked {
                summary: "asks".into(),
                accepts: vec![("ok".into(), "OK".into(), Some(json!({})))],
            });
        }
        (Some(only), None) => *only,
        // Free text only: declined below, naming the field.
        (None, _) => asked[0],
        (Some(_), Some(_)) => {
            return Err(format!(
                "a form of {} fields, which chatmd cannot show as choices",
                properties.len()
            ));
        }
    };
    let content = |value: Value| Some(json!({ field.as_str(): value }));
    let choices = choices(property);
    let accepts: Vec<(String, String, Option<Value>)> = match property.get("type") {
        Some(Value::String(t)) if t == "boolean" => vec![
            ("yes".into(), "Yes".into(), content(json!(true))),
            ("no".into(), "No".into(), content(json!(false))),
        ],
        Some(Value::String(t)) if t == "array" => choices
            .into_iter()
            .enumerate()
            .map(|(n, (value, name))| (format!("choice-{}", n + 1), name, content(json!([value]))))
            .collect(),
        _ => choices
            .into_iter()
            .enumerate()
            .map(|(n, (value, name))| (format!("choice-{}", n + 1), name, content(json!(value))))
            .collect(),
    };
    if accepts.is_empty() {
        return Err(format!(
            "a form asking `{field}` as free input, which chatmd cannot show as choices"
        ));
    }
    let title = property
        .get("title")
        .and_then(Value::as_str)
        .unwrap_or(field);
    Ok(Asked {
        summary: format!("asks ({})", one_line(title)),
        accepts,
    })
}

/// A property's listed values and their names: `oneOf`/`anyOf` (`const` and `title`),
/// else `enum` (the value is its own name); a multi-select's are in its `items`.
fn choices(property: &Value) -> Vec<(String, String)> {
    let within = property.get("items").unwrap_or(property);
    let titled = ["oneOf", "anyOf"]
        .iter()
        .find_map(|key| within.get(*key).and_then(Value::as_array));
    if let Some(titled) = titled {
        return titled
            .iter()
            .filter_map(|option| {
                let value = option.get("const")?.as_str()?;
                let title = option.get("title").and_then(Value::as_str).unwrap_or(value);
                Some((value.to_owned(), one_line(title)))
            })
            .collect();
    }
    within
        .get("enum")
        .and_then(Value::as_array)
        .map(|values| {
            values
                .iter()
                .filter_map(Value::as_str)
                .map(|value| (value.to_owned(), one_line(value)))
                .collect()
        })
        .unwrap_or_default()
}

/// The agent's words on one line, without control characters.
fn one_line(text: &str) -> String {
    let line: String = text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    line.trim().to_string()
}

#[cfg(test)]
mod tests;
