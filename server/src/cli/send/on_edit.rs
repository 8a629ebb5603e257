//! `chatmd send --on-edit fresh|tell|fork`: before anything runs, each member whose
//! session saw a message the user has changed since (`conversation::seen`) is named,
//! and the choice is written on its answer, as the editor's quick fixes write it, or
//! the chat is forked at the first changed message (as Fork from here does). Without
//! a choice nothing is sent: resuming would answer from a history the file no longer
//! shows.

use std::path::{Path, PathBuf};

use clap::ValueEnum;

use super::Refused;
use super::port::SendPort;
use crate::conversation::actions;
use crate::conversation::problems::Problem;
use crate::conversation::roster::Roster;
use crate::conversation::seen::{self, NextTurn};
use crate::team::Team;
use crate::turns::engine::load_team;
use crate::turns::file_port::create::create_unique;
use crate::turns::{Context, Edited, EditorPort, Snapshot};

/// What a member whose session saw an edited message does next.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum OnEdit {
    /// Start a new session from the file as it is now.
    Fresh,
    /// Go on with the session, told first how the changed messages read now.
    Tell,
    /// Write a new chat up to the first changed message (its members start sessions
    /// of their own there) and send nothing here.
    Fork,
}

/// How the changed messages were settled.
#[derive(Debug, Default)]
pub struct Settled {
    /// One line per member whose session saw a changed message.
    pub warnings: Vec<String>,
    /// The choice was written (false: none was given, so nothing may run).
    pub chosen: bool,
    /// The fork written for `--on-edit fork`.
    pub forked: Option<PathBuf>,
}

/// Names each member whose session saw a changed message and, with `choice`, writes
/// it on that member's answer.
pub(super) async fn settle(
    port: &mut SendPort,
    ctx: &Context,
    choice: Option<OnEdit>,
) -> Result<Settled, Refused> {
    let snapshot = port.snapshot().await?;
    let team = port.team_before_the_round(ctx, &snapshot.chat);
    let warnings = changed_in(&team, &snapshot).0;
    if warnings.is_empty() {
        return Ok(Settled::default());
    }
    let next = match choice {
        None => {
            return Ok(Settled {
                warnings,
                ..Settled::default()
            });
        }
        Some(OnEdit::Fork) => {
            let forked = fork(ctx, &snapshot)?;
            return Ok(Settled {
                warnings,
                chosen: true,
                forked: Some(forked),
            });
        }
        Some(OnEdit::Fresh) => NextTurn::Fresh,
        Some(OnEdit::Tell) => NextTurn::Tell,
    };
    drop(snapshot);
    let wanted = format!("{}={}", seen::NEXT_KEY, next.as_str());
    let settled = port.edit_until_applied(20, |snapshot| {
        let (warnings, found) = changed(ctx, snapshot);
        let edits: Vec<_> = found
            .iter()
            .flat_map(|p| &p.fixes)
            .filter(|f| f.edits.iter().any(|(_, line)| line.contains(&wanted)))
            .flat_map(|f| f.edits.iter().cloned())
            .collect();
        Ok::<_, Refused>((!edits.is_empty()).then_some((edits, warnings)))
    });
    match settled.await? {
        Edited::Applied(warnings) => Ok(Settled {
            warnings,
            chosen: true,
            forked: None,
        }),
        Edited::Unneeded => Ok(Settled::default()),
        Edited::GaveUp => Err(Refused::KeepsChanging(ctx.chat_path.clone())),
    }
}

/// Writes the chat up to its first changed message as `<name>-fork.chat.md` next to it.
fn fork(ctx: &Context, snapshot: &Snapshot) -> Result<PathBuf, Refused> {
    let (text, chat) = (&*snapshot.text, &*snapshot.chat);
    let (_, found) = changed(ctx, snapshot);
    let first = found.iter().map(|p| p.range.start).min().unwrap_or(0);
    let line = text[..first].matches('\n').count();
    let name = ctx
        .chat_path
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("chat.chat.md");
    let forked = actions::fork(text, chat, u32::try_from(line).unwrap_or(u32::MAX), name)
        .map_err(|e| Refused::Fork(e.to_string()))?;
    let stem = name.strip_suffix(".chat.md").unwrap_or(name);
    let folder = ctx.chat_path.parent().unwrap_or(Path::new("."));
    create_unique(folder, &format!("{stem}-fork"), &forked)
        .map_err(|e| Refused::Fork(e.to_string()))
}

/// A line for each member whose session saw a changed message, and the warnings.
fn changed(ctx: &Context, snapshot: &Snapshot) -> (Vec<String>, Vec<Problem>) {
    changed_in(&load_team(ctx, &snapshot.chat), snapshot)
}

/// [`changed`] with the chat's team already read.
fn changed_in(team: &Team, snapshot: &Snapshot) -> (Vec<String>, Vec<Problem>) {
    let (text, chat) = (&*snapshot.text, &*snapshot.chat);
    let roster = Roster::new(team, chat.front_matter.as_ref());
    let found = seen::problems(text, chat, &roster);
    let lines = found
        .iter()
        .map(|p| {
            let line = text[..p.range.start].matches('\n').count() + 1;
            format!("line {line} ({}): {}", &text[p.range.clone()], p.message)
        })
        .collect();
    (lines, found)
}
