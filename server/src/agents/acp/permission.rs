//! `session/request_permission`: the agent's question becomes an
//! [`AgentEvent::Permission`](crate::agents::AgentEvent::Permission) with the agent's own
//! options in its order, and waits here until the user's answer (or a cancel) turns it
//! into the JSON-RPC response, echoing the agent's id exactly.

use agent_client_protocol::v1::schema::{
    PermissionOption as AcpOption, PermissionOptionKind, RequestId, RequestPermissionOutcome,
    RequestPermissionResponse, SelectedPermissionOutcome, ToolCallContent, ToolCallUpdate,
    ToolKind,
};
use serde::Deserialize;
use serde_json::Value;

use super::calls::{Call, content_text};
use super::rpc;
use super::updates::{Stream, first_line, kind_name};
use crate::agents::output::{code_span, quote};
use crate::agents::session::Outbox;
use crate::agents::{
    AgentEvent, AskedPlan, PermissionKind, PermissionOption, PermissionOutcome, PermissionRequest,
};

/// The params of a permission request, read leniently: an option of a kind this
/// version does not know is left out rather than the whole request.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Asked {
    tool_call: ToolCallUpdate,
    #[serde(default)]
    options: Vec<Value>,
}

/// One request waiting for the user.
#[derive(Debug)]
struct Pending {
    /// The agent's id, echoed in the answer.
    id: RequestId,
    /// The id the user's side answers by.
    key: crate::agents::RequestId,
    /// The option ids the agent offered: an answer must name one of them.
    options: Vec<String>,
}

/// The permission requests of a turn that wait for an answer, oldest first.
#[derive(Debug, Default)]
pub struct Permissions {
    pending: Vec<Pending>,
}

/// What became of a request of the agent's.
pub enum Asking {
    /// The user is asked; the answer comes as a command.
    User(PermissionRequest),
    /// Answered at once, with this line (nothing to ask: no option could be read).
    Answered(Vec<u8>),
}

impl Permissions {
    /// The agent's request `id` as the question for the user; `stream` learns the tool
    /// call it is about.
    pub fn ask(&mut self, id: RequestId, params: Value, stream: &mut Stream) -> Asking {
        let asked = match serde_json::from_value::<Asked>(params) {
            Ok(asked) => asked,
            Err(error) => {
                tracing::debug!("ACP permission request not read: {error}");
                return Asking::Answered(rpc::result(&id, response(&PermissionOutcome::Cancelled)));
            }
        };
        let options: Vec<PermissionOption> = asked.options.into_iter().filter_map(option).collect();
        if options.is_empty() {
            tracing::debug!("ACP permission request with no option chatmd can offer");
            return Asking::Answered(rpc::result(&id, response(&PermissionOutcome::Cancelled)));
        }
        let tool = asked.tool_call.tool_call_id.to_string();
        let fields = asked.tool_call.fields;
        stream.asked_about(&tool, fields.kind, fields.title.as_deref());
        let known = stream.call(&tool);
        let kind = fields.kind.or_else(|| known.and_then(|c| c.kind));
        let title = fields.title.or_else(|| known.and_then(|c| c.title.clone()));
        let plan = (kind == Some(ToolKind::SwitchMode))
            .then(|| asked_plan(fields.raw_input.as_ref(), fields.content.as_deref(), known))
            .flatten();
        let key = crate::agents::RequestId(id.to_string());
        self.pending.push(Pending {
            id,
            key: key.clone(),
            options: options.iter().map(|o| o.id.clone()).collect(),
        });
        Asking::User(PermissionRequest {
            id: key,
            summary: summary(kind, title.as_deref()),
            tool: Some(tool),
            options,
            kind: kind_name(kind.unwrap_or(ToolKind::Other)).to_string(),
            title: title.unwrap_or_default(),
            plan,
        })
    }

    /// The response line to `request`, or `None` when no such request waits (unknown,
    /// or answered already) or the answer names an option the agent did not offer.
    pub fn answer(
        &mut self,
        request: &crate::agents::RequestId,
        outcome: &PermissionOutcome,
    ) -> Option<Vec<u8>> {
        let index = self.pending.iter().position(|p| p.key == *request)?;
        if let PermissionOutcome::Selected(option) = outcome
            && !self.pending[index].options.contains(option)
        {
            tracing::debug!("option `{option}` was not offered for request {request}");
            return None;
        }
        let pending = self.pending.remove(index);
        Some(rpc::result(&pending.id, response(outcome)))
    }

    /// Every waiting request answered `cancelled`, as the protocol requires after
    /// `session/cancel`.
    pub fn cancel_all(&mut self) -> Vec<u8> {
        let cancelled = response(&PermissionOutcome::Cancelled);
        self.pending
            .drain(..)
            .flat_map(|pending| rpc::result(&pending.id, &cancelled))
            .collect()
    }
}

impl super::AcpSession {
    /// The agent's `session/request_permission` `id`: asked of the user (the call's
    /// line above it), or answered at once (`cancelled` after a cancel).
    pub(super) fn ask_permission(&mut self, id: RequestId, params: Value, out: &mut Outbox) {
        match self.permissions.ask(id, params, &mut self.stream) {
            Asking::Answered(line) => out.write(line),
            Asking::User(request) if self.cancelled => {
                let cancelled = PermissionOutcome::Cancelled;
                out.write(
                    self.permissions
                        .answer(&request.id, &cancelled)
                        .unwrap_or_default(),
                );
            }
            Asking::User(request) => self.put_to_user(request, out),
        }
    }

    /// Puts a request (a permission or a question) to the user, the call's line above
    /// it.
    pub(super) fn put_to_user(&mut self, request: PermissionRequest, out: &mut Outbox) {
        if let Some(tool) = &request.tool {
            self.stream.show_asked(tool, &mut out.events);
        }
        self.stream.block_ends();
        out.push(AgentEvent::Permission(Box::new(request)));
    }
}

fn response(outcome: &PermissionOutcome) -> RequestPermissionResponse {
    RequestPermissionResponse::new(match outcome {
        PermissionOutcome::Selected(option) => {
            RequestPermissionOutcome::Selected(SelectedPermissionOutcome::new(option.clone()))
        }
        PermissionOutcome::Cancelled => RequestPermissionOutcome::Cancelled,
    })
}

/// One offered option, or `None` (with a debug line) when it does not read.
fn option(value: Value) -> Option<PermissionOption> {
    let option = match serde_json::from_value::<AcpOption>(value) {
        Ok(option) => option,
        Err(error) => {
            tracing::debug!("ACP permission option left out: {error}");
            return None;
        }
    };
    let kind = match option.kind {
        PermissionOptionKind::AllowOnce => PermissionKind::AllowOnce,
        PermissionOptionKind::AllowAlways => PermissionKind::AllowAlways,
        PermissionOptionKind::RejectOnce => PermissionKind::RejectOnce,
        PermissionOptionKind::RejectAlways => PermissionKind::RejectAlways,
        _ => return None,
    };
    Some(PermissionOption {
        id: option.option_id.to_string(),
        name: option.name,
        kind,
    })
}

/// The plan of a plan approval (a `switch_mode` request), from wherever the adapter
/// put it, so that no plan is approved unseen. claude-agent-acp 0.49 sends it in the
/// request, as `rawInput.plan` and as its content; 0.101 titles the request "Approve
/// Plan" and may send the plan only in the call's own updates before it (their
/// content: the plan as display text), or as a file (`rawInput.planFilePath`).
fn asked_plan(
    input: Option<&Value>,
    content: Option<&[ToolCallContent]>,
    known: Option<&Call>,
) -> Option<AskedPlan> {
    let known_input = known.and_then(|c| c.raw_input.as_ref());
    input
        .and_then(plan)
        .or_else(|| content.and_then(content_text).map(AskedPlan::Text))
        .or_else(|| known_input.and_then(plan))
        .or_else(|| known.and_then(|c| c.text.clone()).map(AskedPlan::Text))
        .or_else(|| input.and_then(plan_file))
        .or_else(|| known_input.and_then(plan_file))
}

/// The most of a plan file that is read into a chat.
const PLAN_FILE_LIMIT: u64 = 256 * 1024;

/// The plan in the file `rawInput.planFilePath` names (an absolute path), or where it
/// is when it cannot be read.
fn plan_file(input: &Value) -> Option<AskedPlan> {
    use std::io::Read;
    let path = std::path::Path::new(input.get("planFilePath")?.as_str()?);
    if !path.is_absolute() {
        return None;
    }
    let mut text = String::new();
    let read = std::fs::File::open(path)
        .and_then(|file| file.take(PLAN_FILE_LIMIT).read_to_string(&mut text));
    Some(AskedPlan::Text(match read {
        Ok(_) if !text.trim().is_empty() => text,
        Ok(_) => format!("(the plan file {} is empty)", path.display()),
        Err(error) => format!(
            "(the plan is in {}, which cannot be read: {error})",
            path.display()
        ),
    }))
}

/// `rawInput.plan`: Markdown (claude-agent-acp's ExitPlanMode sends `{"plan":
/// "<Markdown>"}`), or a list read as steps (each a string, or an object with
/// `content` as ACP's plan entries have).
fn plan(input: &Value) -> Option<AskedPlan> {
    match input.get("plan")? {
        Value::String(text) if !text.trim().is_empty() => Some(AskedPlan::Text(text.clone())),
        Value::Array(items) => {
            let steps: Vec<String> = items
                .iter()
                .filter_map(|item| match item {
                    Value::String(step) => Some(step.clone()),
                    other => other.get("content")?.as_str().map(str::to_owned),
                })
                .collect();
            (!steps.is_empty()).then_some(AskedPlan::Steps(steps))
        }
        _ => None,
    }
}

/// What the agent wants to do, in one line: `run `touch x` (execute)` for a command,
/// `use `<title>` (<kind>)` for any other tool.
pub fn summary(kind: Option<ToolKind>, title: Option<&str>) -> String {
    let kind = kind.unwrap_or(ToolKind::Other);
    let verb = if kind == ToolKind::Execute {
        "run"
    } else {
        "use"
    };
    match title.map(first_line).filter(|t| !t.is_empty()) {
        Some(title) => format!("{verb} {} ({})", code_span(&quote(&title)), kind_name(kind)),
        None => format!("use a tool ({})", kind_name(kind)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_plan_is_text_or_steps() {
        let text = serde_json::json!({"plan": "# Plan\n\n1. Read"});
        assert_eq!(
            plan(&text),
            Some(AskedPlan::Text("# Plan\n\n1. Read".into()))
        );
        let steps =
            serde_json::json!({"plan": ["read", {"content": "write", "status": "pending"}, 3]});
        assert_eq!(
            plan(&steps),
            Some(AskedPlan::Steps(vec!["read".into(), "write".into()]))
        );
        assert_eq!(plan(&serde_json::json!({"plan": " "})), None);
        assert_eq!(plan(&serde_json::json!({"mode": "x"})), None);
    }

    #[test]
    fn a_plan_is_found_in_the_request_the_call_or_its_file() {
        let text = |t: &str| Some(AskedPlan::Text(t.into()));
        // 0.101: an "Approve Plan" request with only a file, after updates whose
        // content held the plan.
        let call = Call {
            raw_input: Some(serde_json::json!({})),
            text: Some("# Plan\n\n1. Read".into()),
            ..Call::default()
        };
        let file_only = serde_json::json!({"planFilePath": "/nonexistent/plan.md"});
        assert_eq!(
            asked_plan(Some(&file_only), Some(&[]), Some(&call)),
            text("# Plan\n\n1. Read")
        );
        let dir = tempfile::tempdir().expect("temp dir");
        let file = dir.path().join("plan.md");
        std::fs::write(&file, "1. Fix it\n").expect("write");
        let in_file = serde_json::json!({"planFilePath": file});
        assert_eq!(asked_plan(Some(&in_file), None, None), text("1. Fix it\n"));
        assert_eq!(
            asked_plan(Some(&file_only), None, None),
            text(
                "(the plan is in /nonexistent/plan.md, which cannot be read: No such file or \
                 directory (os error 2))"
            )
        );
        assert_eq!(asked_plan(Some(&serde_json::json!({})), None, None), None);
    }

    #[test]
    fn summaries_name_the_command_and_the_kind() {
        assert_eq!(
            summary(Some(ToolKind::Execute), Some("touch x\nmore")),
            "run `touch x` (execute)"
        );
        assert_eq!(
            summary(Some(ToolKind::Edit), Some("Edit src/lib.rs")),
            "use `Edit src/lib.rs` (edit)"
        );
        assert_eq!(summary(None, None), "use a tool (other)");
        assert_eq!(
            summary(Some(ToolKind::Execute), Some("echo `date`")),
            "run `` echo `date` `` (execute)"
        );
    }
}
