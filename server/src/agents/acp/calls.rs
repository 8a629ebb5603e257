//! An ACP agent's tool calls as the turn shows them: what is known of each call
//! (updates carry only what changed; `content` and `locations`, when present, replace
//! the last ones), made into a [`CallView`] each time it changes. Also the names the
//! tool lines and permission summaries give kinds and titles.

use std::path::Path;

use agent_client_protocol::v1::schema::{
    ContentBlock, ToolCallContent, ToolCallLocation, ToolCallStatus, ToolKind,
};
use serde_json::Value;

use crate::agents::output::{push_quote, sanitized};
use crate::agents::tools::error_line;
use crate::agents::{CallStatus, CallView, FileDiff};

/// What is known of one tool call.
#[derive(Debug, Default, Clone)]
pub struct Call {
    pub kind: Option<ToolKind>,
    pub title: Option<String>,
    pub status: Option<CallStatus>,
    pub locations: Vec<String>,
    pub diffs: Vec<FileDiff>,
    pub detail: Option<String>,
    /// The terminals its content embeds (`terminalId`s), and the last one's output.
    pub terminals: Vec<String>,
    pub output: Option<String>,
    /// The last `rawInput` and the text of the last `content` (a plan approval's plan
    /// may be only there: `permission.rs`).
    pub raw_input: Option<Value>,
    pub text: Option<String>,
    /// What was last reported, so a repeat is not reported again.
    pub reported: Option<CallView>,
}

impl Call {
    /// Takes in a report's content and locations (each replaces the last when given).
    pub fn take(
        &mut self,
        cwd: &Path,
        content: Option<&[ToolCallContent]>,
        raw_output: Option<&Value>,
        locations: Option<&[ToolCallLocation]>,
    ) {
        if let Some(content) = content {
            self.text = content_text(content).or(self.text.take());
            let diffs: Vec<FileDiff> = content
                .iter()
                .filter_map(|item| match item {
                    ToolCallContent::Diff(diff) => Some(FileDiff {
                        path: shown_path(cwd, &diff.path),
                        old: diff.old_text.as_deref().map(|t| sanitized(t).into_owned()),
                        new: sanitized(&diff.new_text).into_owned(),
                    }),
                    _ => None,
                })
                .collect();
            if !diffs.is_empty() {
                self.diffs = diffs;
            }
            for item in content {
                if let ToolCallContent::Terminal(terminal) = item {
                    let id = terminal.terminal_id.to_string();
                    if !self.terminals.contains(&id) {
                        self.terminals.push(id);
                    }
                }
            }
        }
        if self.status == Some(CallStatus::Failed) {
            self.detail = detail(content.unwrap_or_default(), raw_output);
        }
        if let Some(locations) = locations {
            self.locations = locations
                .iter()
                .map(|l| {
                    let path = shown_path(cwd, &l.path);
                    match l.line {
                        Some(line) => format!("{path}:{line}"),
                        None => path,
                    }
                })
                .collect();
        }
    }

    /// The call as it stands, when it changed since the last report. Paths inside the
    /// session's folder `cwd` are shown relative to it, in the title too.
    pub fn view(&mut self, id: &str, cwd: &Path) -> Option<CallView> {
        let folder = format!("{}/", cwd.display());
        let title = self.title.as_deref().map(|t| {
            if folder.len() > 1 {
                t.replace(&folder, "")
            } else {
                t.to_owned()
            }
        });
        let view = CallView {
            id: id.to_owned(),
            summary: summary(self.kind, title.as_deref()),
            status: self.status.unwrap_or(CallStatus::Pending),
            locations: self.locations.clone(),
            diffs: self.diffs.clone(),
            detail: self.detail.clone(),
            output: self.output.clone(),
        };
        if self.reported.as_ref() == Some(&view) {
            return None;
        }
        self.reported = Some(view.clone());
        Some(view)
    }
}

/// The text blocks of a tool call's `content`, joined by blank lines; `None` when it
/// has none.
pub fn content_text(content: &[ToolCallContent]) -> Option<String> {
    let texts: Vec<&str> = content
        .iter()
        .filter_map(|item| match item {
            ToolCallContent::Content(block) => match &block.content {
                ContentBlock::Text(text) if !text.text.trim().is_empty() => {
                    Some(text.text.as_str())
                }
                _ => None,
            },
            _ => None,
        })
        .collect();
    (!texts.is_empty()).then(|| texts.join("\n\n"))
}

/// `path` relative to the session's folder when it lies inside it (shorter, and the
/// same on every machine), else as the agent gave it; on one line.
fn shown_path(cwd: &Path, path: &Path) -> String {
    let shown = path.strip_prefix(cwd).unwrap_or(path);
    first_line(&shown.display().to_string())
}

pub fn call_status(status: ToolCallStatus) -> CallStatus {
    match status {
        ToolCallStatus::InProgress => CallStatus::InProgress,
        ToolCallStatus::Completed => CallStatus::Completed,
        ToolCallStatus::Failed => CallStatus::Failed,
        _ => CallStatus::Pending,
    }
}

/// The first line of a tool's text output (not a code fence's: claude-agent-acp
/// fences it), else of its raw output, for a failure.
fn detail(content: &[ToolCallContent], raw_output: Option<&Value>) -> Option<String> {
    let text = content.iter().find_map(|item| match item {
        ToolCallContent::Content(content) => match &content.content {
            ContentBlock::Text(text) => Some(text.text.as_str()),
            _ => None,
        },
        _ => None,
    });
    let text = text.or_else(|| raw_output.and_then(Value::as_str))?;
    let unfenced: Vec<&str> = text
        .lines()
        .filter(|line| !line.trim_start().starts_with("```"))
        .collect();
    error_line(&unfenced.join("\n"))
}

/// The kind's name as the tool list shows it (`Execute`); `None` for `other`.
pub fn kind_label(kind: ToolKind) -> Option<&'static str> {
    Some(match kind {
        ToolKind::Read => "Read",
        ToolKind::Edit => "Edit",
        ToolKind::Delete => "Delete",
        ToolKind::Move => "Move",
        ToolKind::Search => "Search",
        ToolKind::Execute => "Execute",
        ToolKind::Think => "Think",
        ToolKind::Fetch => "Fetch",
        ToolKind::SwitchMode => "Switch mode",
        _ => return None,
    })
}

/// The protocol's name of a kind (`execute`, `switch_mode`), as permission summaries
/// show it.
pub fn kind_name(kind: ToolKind) -> &'static str {
    match kind {
        ToolKind::Read => "read",
        ToolKind::Edit => "edit",
        ToolKind::Delete => "delete",
        ToolKind::Move => "move",
        ToolKind::Search => "search",
        ToolKind::Execute => "execute",
        ToolKind::Think => "think",
        ToolKind::Fetch => "fetch",
        ToolKind::SwitchMode => "switch_mode",
        _ => "other",
    }
}

/// A call's line in the tool list: `Execute: touch x`, the title alone for a call of
/// kind `other`, the kind alone (or `tool`) without a title.
pub fn summary(kind: Option<ToolKind>, title: Option<&str>) -> String {
    let label = kind.and_then(kind_label);
    let title = title.map(first_line).filter(|t| !t.is_empty());
    match (label, title) {
        (Some(label), Some(title)) => {
            let mut summary = format!("{label}: ");
            push_quote(&mut summary, &title);
            summary
        }
        (None, Some(title)) => {
            let mut summary = String::new();
            push_quote(&mut summary, &title);
            summary
        }
        (Some(label), None) => label.to_owned(),
        (None, None) => "tool".to_owned(),
    }
}

/// The first line of `text`, clean and trimmed.
pub fn first_line(text: &str) -> String {
    sanitized(text)
        .lines()
        .next()
        .unwrap_or("")
        .trim()
        .to_owned()
}
