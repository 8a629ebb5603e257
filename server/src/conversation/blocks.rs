//! The blocks the server writes at the end of an answer: the agent's tool calls (one
//! line each, with how they ended) and what it was not allowed to do, with the member
//! `args` that would allow it.

use crate::agents::code_span;
use crate::agents::{Denial, ToolStatus};
use crate::document::quoted::toml_string;

/// One tool call of a turn, as the tools block lists it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolEntry {
    /// The CLI's id of the call, when it gives one.
    pub id: Option<String>,
    /// `Bash: cargo test`.
    pub summary: String,
    pub status: ToolStatus,
    /// The first line of a failure.
    pub detail: Option<String>,
}

/// Tool activity, collapsed so it does not crowd the answer: one line per call, with
/// how it failed (or that it never finished).
pub fn tools_block(tools: &[ToolEntry]) -> String {
    let mut out = format!("\n<details><summary>Tools ({})</summary>\n\n", tools.len());
    for tool in tools {
        out.push_str("- ");
        out.push_str(&one_line(&tool.summary));
        match (tool.status, &tool.detail) {
            (ToolStatus::Completed, _) => {}
            (ToolStatus::Failed, Some(detail)) => {
                out.push_str(" — failed: ");
                out.push_str(&one_line(detail));
            }
            (ToolStatus::Failed, None) => out.push_str(" — failed"),
            (ToolStatus::Started, _) => out.push_str(" — did not finish"),
        }
        out.push('\n');
    }
    out.push_str("\n</details>\n");
    out
}

/// What the agent was not allowed to do, as a quote at the end of its answer: each
/// refused tool and its input, and the member `args` that would allow them all
/// (`args` are the member's own, `allow` what to add).
pub fn not_allowed(
    member: &str,
    agent: &str,
    denied: &[Denial],
    args: &[String],
    allow: &[String],
) -> String {
    let n = denied.len();
    let (actions, need, them) = if n == 1 {
        ("action", "needs", "it")
    } else {
        ("actions", "need", "them")
    };
    let mut out = format!(
        "\n> **Not allowed** — @{member}'s {} refused {n} {actions} that {need} approval:\n",
        code(agent)
    );
    for denial in denied {
        out.push_str("> - ");
        out.push_str(&code(&denial.tool));
        if let Some(input) = &denial.input {
            out.push_str(": ");
            out.push_str(&code(input));
        }
        out.push('\n');
    }
    if !allow.is_empty() {
        let all: Vec<String> = args.iter().chain(allow).map(|a| toml_string(a)).collect();
        out.push_str(&format!(
            ">\n> To allow {them} for @{member}, set its `args` in chatmd.toml \
             (`[members.{member}]`): {}\n",
            code(&format!("args = [{}]", all.join(", ")))
        ));
    }
    out
}

/// `text` on one line as inline code.
fn code(text: &str) -> String {
    code_span(&one_line(text))
}

/// `text` on one line (a list item must not break).
fn one_line(text: &str) -> String {
    text.replace(['\r', '\n'], " ")
}

/// A tool call starting or ending: a new entry, or the call's entry updated in place.
pub fn record_tool(
    tools: &mut Vec<ToolEntry>,
    id: Option<String>,
    summary: String,
    status: ToolStatus,
    detail: Option<String>,
) {
    let known = id
        .as_deref()
        .and_then(|id| tools.iter().position(|t| t.id.as_deref() == Some(id)))
        // A CLI without ids: the last call of that name still running.
        .or_else(|| {
            (id.is_none() && status != ToolStatus::Started)
                .then(|| {
                    tools
                        .iter()
                        .rposition(|t| t.summary == summary && t.status == ToolStatus::Started)
                })
                .flatten()
        });
    match known {
        Some(i) => {
            let entry = &mut tools[i];
            entry.status = status;
            entry.detail = detail;
            if summary != "tool" {
                entry.summary = summary;
            }
        }
        None => tools.push(ToolEntry {
            id,
            summary,
            status,
            detail,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn entry(
        id: Option<&str>,
        summary: &str,
        status: ToolStatus,
        detail: Option<&str>,
    ) -> ToolEntry {
        ToolEntry {
            id: id.map(str::to_owned),
            summary: summary.into(),
            status,
            detail: detail.map(str::to_owned),
        }
    }

    #[test]
    fn each_tool_call_is_one_entry_updated_as_it_ends() {
        use ToolStatus::{Completed, Failed, Started};
        let mut tools = Vec::new();
        let mut event = |id: Option<&str>, summary: &str, status, detail: Option<&str>| {
            record_tool(
                &mut tools,
                id.map(str::to_owned),
                summary.into(),
                status,
                detail.map(str::to_owned),
            );
        };
        event(Some("a"), "Bash: touch x", Started, None);
        event(Some("b"), "Read: x", Started, None);
        event(Some("a"), "Bash: touch x", Failed, Some("blocked"));
        event(Some("b"), "tool", Completed, None);
        // codex's file changes come only completed.
        event(Some("c"), "Edit: src/main.rs", Completed, None);
        // Without ids: the last running call of that name.
        event(None, "Shell: ls", Started, None);
        event(None, "Shell: ls", Completed, None);
        assert_eq!(
            tools,
            [
                entry(Some("a"), "Bash: touch x", Failed, Some("blocked")),
                entry(Some("b"), "Read: x", Completed, None),
                entry(Some("c"), "Edit: src/main.rs", Completed, None),
                entry(None, "Shell: ls", Completed, None),
            ]
        );
    }

    #[test]
    fn tool_calls_are_listed_once_with_how_they_ended() {
        let entry = |summary: &str, status, detail: Option<&str>| ToolEntry {
            id: None,
            summary: summary.into(),
            status,
            detail: detail.map(str::to_owned),
        };
        let block = tools_block(&[
            entry("Bash: echo hi", ToolStatus::Completed, None),
            entry(
                "Bash: touch x",
                ToolStatus::Failed,
                Some("touch in '/w/x' was blocked."),
            ),
            entry("Shell: cargo test", ToolStatus::Failed, None),
            entry("Bash: sleep 100", ToolStatus::Started, None),
        ]);
        assert_eq!(
            block,
            "\n<details><summary>Tools (4)</summary>\n\n\
             - Bash: echo hi\n\
             - Bash: touch x — failed: touch in '/w/x' was blocked.\n\
             - Shell: cargo test — failed\n\
             - Bash: sleep 100 — did not finish\n\
             \n</details>\n"
        );
    }

    #[test]
    fn refusals_say_how_to_allow_them() {
        let denial = |tool: &str, input: Option<&str>| Denial {
            tool: tool.into(),
            input: input.map(str::to_owned),
        };
        let two = [
            denial("Bash", Some("touch tool-wrote.txt")),
            denial("Write", Some("src/x.rs")),
        ];
        let allow = ["--allowedTools", "Bash(touch:*)", "Write"].map(String::from);
        assert_eq!(
            not_allowed(
                "reviewer",
                "claude",
                &two,
                &["--model".into(), "opus".into()],
                &allow
            ),
            "\n> **Not allowed** — @reviewer's `claude` refused 2 actions that need approval:\n\
             > - `Bash`: `touch tool-wrote.txt`\n\
             > - `Write`: `src/x.rs`\n\
             >\n\
             > To allow them for @reviewer, set its `args` in chatmd.toml (`[members.reviewer]`): \
             `args = [\"--model\", \"opus\", \"--allowedTools\", \"Bash(touch:*)\", \"Write\"]`\n"
        );
        let one = [denial("WebFetch", None)];
        assert_eq!(
            not_allowed(
                "r",
                "claude",
                &one,
                &[],
                &["--allowedTools".into(), "WebFetch".into()]
            ),
            "\n> **Not allowed** — @r's `claude` refused 1 action that needs approval:\n\
             > - `WebFetch`\n\
             >\n\
             > To allow it for @r, set its `args` in chatmd.toml (`[members.r]`): \
             `args = [\"--allowedTools\", \"WebFetch\"]`\n"
        );
        assert_eq!(code("a `b` c"), "``a `b` c``");
        assert_eq!(code("`x"), "`` `x ``");
    }
}
