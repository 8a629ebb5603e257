//! Hover on `@handle`: who the member is, which agent runs it, where, with which role
//! files, and whether its CLI is installed.

use std::fmt::Write;
use std::sync::Mutex;

use tower_lsp_server::ls_types::*;

use super::convert;
use super::diagnostics::team_of;
use super::state::{Document, State, lock};
use crate::conversation::problems::PathLookup;
use crate::conversation::roster::Roster;
use crate::document::text::PositionEncoding;
use crate::team;

pub fn hover(
    state: &Mutex<State>,
    doc: &Document,
    enc: PositionEncoding,
    position: Position,
) -> Option<Hover> {
    let text = doc.flat();
    let offset = convert::offset(&doc.text, position, enc);
    let range = doc.chat.handle_at(offset)?;
    let handle = text[range.clone()].trim_start_matches('@');
    let (team, _) = team_of(state, doc);
    let roster = Roster::new(&team, doc.chat.front_matter.as_ref());
    let mut md = String::new();
    if roster.is_human(handle) {
        let _ = write!(md, "**@{handle}** — the human in this chat");
    } else if let Some(member) = roster.member(handle) {
        let root = doc
            .path
            .as_deref()
            .map(|p| lock(state).root_for(p))
            .unwrap_or_default();
        let _ = writeln!(md, "**@{}** — {}", member.handle, member.agent);
        if let Some(summary) = member.role_summary() {
            let _ = writeln!(md, "\n{summary}");
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
        let loaded = team::role_files_loaded(member, &root);
        if !loaded.is_empty() {
            let list: Vec<String> = loaded
                .iter()
                .map(|p| format!("`{}`", p.display()))
                .collect();
            let _ = writeln!(md, "- the CLI also loads: {}", list.join(", "));
        }
        if let Some(kind) = member.kind() {
            let agent_path = lock(state).agent_path.clone();
            match PathLookup(agent_path.as_deref()).find(kind.binary()) {
                Some(path) => {
                    // A CLI inside the workspace is never run to ask its version (the
                    // workspace could ship it); say so rather than "unknown".
                    let in_workspace =
                        !root.as_os_str().is_empty() && team::inside_workspace(&path, &root);
                    let version = if in_workspace {
                        team::NOT_PROBED_IN_WORKSPACE.to_string()
                    } else {
                        team::probe_version(&path, Some(&root))
                            .unwrap_or_else(|| "version unknown".to_string())
                    };
                    let _ = writeln!(md, "- CLI: `{}` ({version})", path.display());
                }
                None => {
                    let _ = writeln!(
                        md,
                        "- CLI: **`{}` is not installed** — `{}`",
                        kind.binary(),
                        kind.install_command()
                    );
                }
            }
        }
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
