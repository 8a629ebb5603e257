//! `chatmd members [PATH] [--json]`: finds the workspace and team folder for a chat file
//! or a folder, loads the team, and prints it as a table or as JSON.

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, bail};

use super::homes;
use super::report::Report;
use crate::agents::Registry;
use crate::document::chat::Chat;
use crate::team::{self, TeamPlace, UserConfig, is_chat_file};

#[derive(Debug, clap::Args)]
pub(super) struct MembersArgs {
    /// A `.chat.md` file (its team: front matter `team:`, else its folder) or a team folder.
    #[arg(default_value = ".")]
    path: PathBuf,
    /// Print JSON (stable field names) instead of a table.
    #[arg(long)]
    json: bool,
    /// Show what each member has spent in the chat PATH (answers, tokens, cost) against
    /// its `budget:`, instead of the team.
    #[arg(long)]
    usage: bool,
}

/// Where the team is, and the chat it was asked for, if one was given.
pub(super) struct Target {
    pub place: TeamPlace,
    pub chat: Option<PathBuf>,
}

pub(super) fn run(args: &MembersArgs) -> ExitCode {
    if args.usage {
        return super::usage::run(&args.path, args.json);
    }
    let target = match find_target(&args.path) {
        Ok(target) => target,
        Err(error) => {
            eprintln!("chatmd members: {error:#}");
            return ExitCode::from(2);
        }
    };
    let team = target.place.load(&UserConfig::from_env().load_trust());
    let (agent_kinds, registry_problems) = Registry::load(None);
    for problem in registry_problems {
        eprintln!("chatmd members: {problem}");
    }
    let mut report = Report::new(&target, &team, &agent_kinds);
    report.problems.extend(homes::unignored(
        &team,
        &target.place.root,
        &homes::Git::on_path(),
    ));
    let mut out = io::stdout().lock();
    let written = if args.json {
        serde_json::to_writer_pretty(&mut out, &report)
            .map_err(io::Error::from)
            .and_then(|()| writeln!(out))
    } else {
        super::table::write_table(&report, &mut out)
    };
    super::output_written(
        "members",
        written.and_then(|()| out.flush()),
        ExitCode::SUCCESS,
    )
}

/// PATH is a team folder, or a chat file whose front matter may name its team.
fn find_target(path: &Path) -> anyhow::Result<Target> {
    let path = path
        .canonicalize()
        .with_context(|| format!("cannot read {}", path.display()))?;
    if path.is_dir() {
        return Ok(Target {
            place: TeamPlace::of_folder(&path),
            chat: None,
        });
    }
    if !is_chat_file(&path) {
        bail!(
            "{} is neither a folder nor a .chat.md file; give a team folder or a chat",
            path.display()
        );
    }
    let text = std::fs::read_to_string(&path)
        .with_context(|| format!("cannot read {}", path.display()))?;
    let working = team::current_folder();
    let mut place = team::locate(working.as_deref(), &path, &Chat::parse(&text));
    if let Some(error) = place.refused.take() {
        return Err(anyhow::Error::new(error))
            .with_context(|| format!("the team of {} cannot be used", path.display()));
    }
    Ok(Target {
        place,
        chat: Some(path),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    /// `team:` from a chat's front matter, as [`team::locate`] reads it.
    fn front_matter_team(text: &str) -> Option<String> {
        Chat::parse(text).front_matter?.team.map(|t| t.value)
    }

    #[test]
    fn front_matter_team_reads_only_a_leading_block() {
        let team = |text: &str| front_matter_team(text);
        assert_eq!(
            team("---\ntitle: x\nteam: ../Team_A\n---\n## @me\n"),
            Some("../Team_A".into())
        );
        assert_eq!(team("---\r\nteam: 'q'\r\n...\r\n"), Some("q".into()));
        assert_eq!(team("---\ntitle: x\n---\n"), None);
        assert_eq!(team("---\nteam: [unclosed\n---\n"), None);
        assert_eq!(team("\n---\nteam: x\n---\n"), None);
        assert_eq!(team("---\nteam: x\n"), None);
    }
}
