//! Codex's tool items (commands, file changes, MCP calls, web searches) in the user's
//! terms: a one-line summary, and how a completed one went.

use std::fmt::Write as _;

use super::lines::Item;
use crate::agents::ToolStatus;
use crate::agents::output::{push_quote, sanitized};
use crate::agents::tools::error_line;

/// The summary of a tool item (`Shell: cargo test`); `None` for other items.
pub(super) fn summary(item: &Item<'_>) -> Option<String> {
    let mut summary = String::new();
    match item.kind.get()? {
        "command_execution" => {
            let command = shell_command(item.command.get().unwrap_or(""));
            summary.push_str("Shell: ");
            push_quote(
                &mut summary,
                &sanitized(command.lines().next().unwrap_or("")),
            );
        }
        "file_change" => {
            let paths: Vec<&str> = item
                .changes
                .0
                .iter()
                .filter_map(|change| change.get()?.path.get())
                .collect();
            summary.push_str("Edit: ");
            push_quote(&mut summary, &sanitized(&paths.join(", ")));
        }
        "mcp_tool_call" => {
            let _ = write!(
                summary,
                "MCP {}/{}",
                sanitized(item.server.get().unwrap_or("?")),
                sanitized(item.tool.get().unwrap_or("?"))
            );
        }
        "web_search" => {
            summary.push_str("Search: ");
            push_quote(&mut summary, &sanitized(item.query.get().unwrap_or("")));
        }
        _ => return None,
    }
    Some(summary)
}

/// How a completed tool item went: its status, and for commands the exit code too;
/// for a failure, what went wrong in one line.
pub(super) fn tool_status(item: &Item<'_>) -> (ToolStatus, Option<String>) {
    let status = item.status.get();
    let exit = item.exit_code.0.filter(|&c| c != 0);
    let failed = matches!(status, Some("failed" | "declined")) || exit.is_some();
    if !failed && !item.error.is_set() {
        return (ToolStatus::Completed, None);
    }
    let output = item
        .error
        .message()
        .or_else(|| item.aggregated_output.get())
        .and_then(error_line);
    let detail = match (status, exit, output) {
        (Some("declined"), _, _) => Some("declined".to_owned()),
        (_, Some(code), Some(output)) => Some(format!("exit {code}: {output}")),
        (_, Some(code), None) => Some(format!("exit {code}")),
        (_, None, output) => output,
    };
    (ToolStatus::Failed, detail)
}

/// The command inside codex's shell wrapper (`/bin/bash -lc 'echo hi'` → `echo hi`).
pub(super) fn shell_command(command: &str) -> &str {
    const WRAPPERS: [&str; 6] = [
        "/bin/bash -lc ",
        "bash -lc ",
        "/bin/zsh -lc ",
        "zsh -lc ",
        "/bin/sh -c ",
        "sh -c ",
    ];
    let Some(inner) = WRAPPERS.iter().find_map(|w| command.strip_prefix(w)) else {
        return command;
    };
    match inner.strip_prefix('\'').and_then(|i| i.strip_suffix('\'')) {
        Some(unquoted) if !unquoted.contains('\'') => unquoted,
        _ => inner,
    }
}
