//! Hover on `@handle` (on a context reference: `references.rs`; on the title: the
//! chat's usage, `usage.rs`; on `routing:` and `chair:` values and a council's
//! `Answer A`: `routing_help.rs`): who the member is, which agent runs it, where, with
//! which role files, whether its CLI is installed, and what its agent told in its last
//! turn (that it needs a login, its commands after `/`).

use std::fmt::Write;
use std::sync::Mutex;

use tower_lsp_server::ls_types::*;

use super::convert;
use super::state::{ChatTeam, Document, State, agent_kinds, find_cli, lock};
use crate::agents::{self, probe};
use crate::conversation::roster::Roster;
use crate::document::text::PositionEncoding;

pub fn hover(
    state: &Mutex<State>,
    doc: &Document,
    enc: PositionEncoding,
    position: Position,
) -> Option<Hover> {
    let text = doc.flat();
    let offset = convert::offset(&doc.text, position, enc);
    let Some(range) = doc.chat.handle_at(offset) else {
        if let Some(usage) = super::usage::hover(doc, &text, enc, offset) {
            return Some(usage);
        }
        let ChatTeam { team, root, .. } = doc.team(state);
        let roster = Roster::new(&team, doc.chat.front_matter.as_ref());
        if let Some(mode) = super::routing_help::hover(doc, &text, &roster, offset, enc) {
            return Some(mode);
        }
        return super::references::hover(doc, &text, &roster, &root, enc, offset);
    };
    let handle = text[range.clone()].trim_start_matches('@');
    let ChatTeam { team, root, .. } = doc.team(state);
    let roster = Roster::new(&team, doc.chat.front_matter.as_ref());
    let mut md = String::new();
    if roster.is_human(handle) {
        let _ = write!(md, "**@{handle}** — the human in this chat");
    } else if let Some(member) = roster.member(handle) {
        let _ = writeln!(md, "**@{}** — {}", member.handle, member.agent);
        if let Some(summary) = member.role_summary() {
            let _ = writeln!(md, "\n{summary}");
        }
        if let Some(paragraph) = member.role_paragraph() {
            // Quoted: a list in the role stays apart from the facts listed below.
            let _ = writeln!(md);
            for line in paragraph.lines() {
                let _ = writeln!(md, ">{}{line}", if line.is_empty() { "" } else { " " });
            }
        }
        if !roster.takes_part(&member.handle) {
            let _ = writeln!(md, "\n*Not in this chat's `members:` list.*");
        }
        let _ = writeln!(md, "\n- workdir: `{}`", member.workdir.display());
        if let Some(role) = &member.role_file {
            let _ = writeln!(md, "- role file: `{}`", role.display());
        }
        if let Some(error) = &member.role_error {
            let _ = writeln!(md, "- role file problem: {error}");
        }
        let loaded = agents::role_files_loaded(member, &root);
        if !loaded.is_empty() {
            let list: Vec<String> = loaded
                .iter()
                .map(|p| format!("`{}`", p.display()))
                .collect();
            let _ = writeln!(md, "- the CLI also loads: {}", list.join(", "));
        }
        // A built-in CLI, unless the member runs a program of its own.
        let cli = member.kind().filter(|_| member.command.is_none());
        match (cli, find_cli(state, member)) {
            (Some(_), Ok(path)) => {
                // A CLI inside the workspace is never run to ask its version (the
                // workspace could ship it); say so rather than "unknown".
                let in_workspace =
                    !root.as_os_str().is_empty() && probe::inside_workspace(&path, &root);
                let version = if in_workspace {
                    probe::NOT_PROBED_IN_WORKSPACE.to_string()
                } else {
                    probe::probe_version(&path, Some(&root))
                        .unwrap_or_else(|| probe::version_unknown(&path.display().to_string()))
                };
                let _ = writeln!(md, "- CLI: `{}` ({version})", path.display());
            }
            (Some(kind), Err(_)) => {
                let _ = writeln!(
                    md,
                    "- CLI: **`{}` is not installed** — `{}`",
                    kind.binary(),
                    agents::kinds::spec_of(kind).install_command
                );
            }
            // Another kind's program is not run to ask its version: it may not have one.
            (None, Ok(path)) => {
                let _ = writeln!(
                    md,
                    "- program: `{}` (no version: chatmd asks only the agent CLIs it knows)",
                    path.display()
                );
            }
            (None, Err(error)) => {
                let hint = agent_kinds(state)
                    .entry(&member.agent)
                    .and_then(|entry| crate::agents::program::member_install_hint(entry, member))
                    .map(|hint| format!(" — `{hint}`"))
                    .unwrap_or_default();
                let _ = writeln!(md, "- program: **{error}**{hint}");
            }
        }
        told(state, &team.folder, &member.handle, &mut md);
    } else {
        let _ = write!(
            md,
            "**@{handle}** is not a member of this team (folder `{}`).",
            team.folder.display()
        );
    }
    Some(Hover {
        contents: HoverContents::Markup(MarkupContent {
            kind: MarkupKind::Markdown,
            value: md,
        }),
        range: Some(convert::range(&doc.text, &range, enc)),
    })
}

/// The most command names a hover lists.
const COMMANDS_SHOWN: usize = 12;

/// What the member's agent told in its last turn: that it needs a login, its commands.
fn told(state: &Mutex<State>, folder: &std::path::Path, handle: &str, md: &mut String) {
    let Some(info) = lock(state).told.member(folder, handle).cloned() else {
        return;
    };
    if let Some(login) = &info.login {
        let _ = writeln!(md, "- **needs a login**: {}", login.advice);
    }
    if !info.commands.is_empty() {
        let names: Vec<String> = info
            .commands
            .iter()
            .take(COMMANDS_SHOWN)
            .map(|c| format!("`/{}`", c.name))
            .collect();
        let more = info.commands.len().saturating_sub(COMMANDS_SHOWN);
        let more = if more > 0 {
            format!(" and {more} more")
        } else {
            String::new()
        };
        let _ = writeln!(md, "- commands after `/`: {}{more}", names.join(", "));
    }
}
