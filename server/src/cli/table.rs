//! The readable form of `chatmd members`: a header, one aligned row per member, the
//! files each CLI also loads, and the problems, with paths relative to the workspace.

use std::io::{self, Write};
use std::path::Path;

use super::report::{MemberReport, Report};
use crate::agents::registry::COMMAND;

pub(super) fn write_table(report: &Report, out: &mut dyn Write) -> io::Result<()> {
    let show = |path: &str| relative(&report.root, path);
    writeln!(out, "workspace         {}", report.workspace_root)?;
    writeln!(out, "team              {}", show(&report.team_folder))?;
    if let Some(chat) = &report.chat {
        writeln!(out, "chat              {}", show(chat))?;
    }
    writeln!(out, "human             {}", report.human)?;
    let instruction = report
        .team_instruction
        .as_deref()
        .map_or("none".to_owned(), show);
    writeln!(out, "team instruction  {instruction}")?;
    writeln!(out)?;

    if report.members.is_empty() {
        writeln!(
            out,
            "No members: add a folder holding CLAUDE.md, AGENTS.md or GEMINI.md to the team \
             folder."
        )?;
    } else {
        let mut rows = vec![[
            "HANDLE".to_owned(),
            "AGENT".to_owned(),
            "ROLE FILE".to_owned(),
            "WORKDIR".to_owned(),
            "CLI".to_owned(),
        ]];
        rows.extend(report.members.iter().map(|m| {
            [
                m.handle.clone(),
                match &m.preset {
                    Some(preset) => format!("{} ({preset})", m.agent),
                    None => m.agent.clone(),
                },
                role_cell(m, &show),
                show(&m.workdir),
                cli_cell(m),
            ]
        }));
        write_rows(out, &rows)?;
        writeln!(out)?;
        writeln!(
            out,
            "Role files each CLI also loads by itself (parents first):"
        )?;
        let width = report
            .members
            .iter()
            .map(|m| width(&m.handle))
            .max()
            .unwrap_or(0);
        for m in &report.members {
            let files = if m.auto_loaded.is_empty() {
                "nothing".to_owned()
            } else {
                m.auto_loaded
                    .iter()
                    .map(|f| show(f))
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            writeln!(out, "  {}  {files}", pad(&m.handle, width))?;
        }
        writeln!(out)?;
        writeln!(out, "Permission modes:")?;
        for m in &report.members {
            writeln!(out, "  {}  {}", pad(&m.handle, width), m.permission_mode)?;
        }
        if report.members.iter().any(|m| !m.mcp_servers.is_empty()) {
            writeln!(out)?;
            writeln!(out, "MCP servers:")?;
            for m in report.members.iter().filter(|m| !m.mcp_servers.is_empty()) {
                for s in &m.mcp_servers {
                    let handle = pad(&m.handle, width);
                    writeln!(
                        out,
                        "  {handle}  {} ({}): {}",
                        s.name, s.transport, s.target
                    )?;
                }
            }
        }
    }
    writeln!(out)?;

    if report.problems.is_empty() {
        return writeln!(out, "No problems.");
    }
    writeln!(out, "Problems:")?;
    for p in &report.problems {
        let at = match (p.line, p.column) {
            (Some(line), Some(column)) => format!(":{line}:{column}"),
            _ => String::new(),
        };
        writeln!(
            out,
            "  {}: {}{at}: {}",
            p.severity,
            show(&p.file),
            p.message
        )?;
    }
    Ok(())
}

fn role_cell(m: &MemberReport, show: &dyn Fn(&str) -> String) -> String {
    match (&m.role_file, &m.role_error) {
        (Some(file), Some(_)) => format!("{} (unreadable)", show(file)),
        (Some(file), None) => show(file),
        (None, _) => "-".to_owned(),
    }
}

fn cli_cell(m: &MemberReport) -> String {
    let cli = &m.cli;
    if m.agent == COMMAND
        && let Some(binary) = &cli.binary
    {
        // Where it is shows in --json; the table stays the same on every machine.
        return match cli.path {
            Some(_) => format!("`{binary}` found (a program, not an agent CLI: no version)"),
            None => format!("`{binary}` not found"),
        };
    }
    match (&cli.path, &cli.version, &cli.install_command) {
        (Some(path), Some(version), _) => format!("{version} ({path})"),
        (Some(path), None, _) => match &cli.version_note {
            Some(why) => format!("{why} ({path})"),
            None => format!("version unknown ({path})"),
        },
        (None, _, Some(install)) => format!("not installed — {install}"),
        (None, _, None) => "n/a (not a built-in agent)".to_owned(),
    }
}

/// `path` relative to the workspace root (`.` for the root), absolute when outside it.
fn relative(root: &Path, path: &str) -> String {
    match Path::new(path).strip_prefix(root) {
        Ok(rel) if rel.as_os_str().is_empty() => ".".to_owned(),
        Ok(rel) => rel.display().to_string(),
        Err(_) => path.to_owned(),
    }
}

fn width(cell: &str) -> usize {
    cell.chars().count()
}

fn pad(cell: &str, to: usize) -> String {
    format!("{cell}{}", " ".repeat(to.saturating_sub(width(cell))))
}

/// Columns separated by two spaces; the last column is not padded.
fn write_rows<const N: usize>(out: &mut dyn Write, rows: &[[String; N]]) -> io::Result<()> {
    let widths: Vec<usize> = (0..N)
        .map(|c| rows.iter().map(|r| width(&r[c])).max().unwrap_or(0))
        .collect();
    for row in rows {
        let cells: Vec<String> = row
            .iter()
            .enumerate()
            .map(|(c, cell)| {
                if c + 1 == N {
                    cell.clone()
                } else {
                    pad(cell, widths[c])
                }
            })
            .collect();
        writeln!(out, "{}", cells.join("  "))?;
    }
    Ok(())
}
