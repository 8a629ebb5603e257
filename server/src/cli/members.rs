//! `chatmd members [PATH] [--json]`: finds the workspace and team folder for a chat file
//! or a folder, loads the team, and prints it as a table or as JSON.

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, bail};

use super::homes;
use super::report::Report;
use crate::team::{load_team, resolve_team_folder};

#[derive(Debug, clap::Args)]
pub(super) struct MembersArgs {
    /// A `.chat.md` file (its team: front matter `team:`, else its folder) or a team folder.
    #[arg(default_value = ".")]
    path: PathBuf,
    /// Print JSON (stable field names) instead of a table.
    #[arg(long)]
    json: bool,
}

/// Where the team is: the workspace root, the team folder and the chat, if one was given.
pub(super) struct Target {
    pub root: PathBuf,
    pub team_folder: PathBuf,
    pub chat: Option<PathBuf>,
}

pub(super) fn run(args: &MembersArgs) -> ExitCode {
    let target = match find_target(&args.path) {
        Ok(target) => target,
        Err(error) => {
            eprintln!("chatmd members: {error:#}");
            return ExitCode::from(2);
        }
    };
    let team = load_team(&target.root, &target.team_folder);
    let mut report = Report::new(&target, &team);
    report.problems.extend(homes::unignored(
        &team,
        &target.root,
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
    match written.and_then(|()| out.flush()) {
        Ok(()) => ExitCode::SUCCESS,
        // `chatmd members | head` is fine.
        Err(error) if error.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("chatmd members: cannot write the output: {error}");
            ExitCode::FAILURE
        }
    }
}

/// PATH is a team folder, or a chat file whose front matter may name its team.
fn find_target(path: &Path) -> anyhow::Result<Target> {
    let path = path
        .canonicalize()
        .with_context(|| format!("cannot read {}", path.display()))?;
    if path.is_dir() {
        return Ok(Target {
            root: workspace_root(&path),
            team_folder: path,
            chat: None,
        });
    }
    let is_chat = path
        .file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n.ends_with(".chat.md"));
    if !is_chat {
        bail!(
            "{} is neither a folder nor a .chat.md file; give a team folder or a chat",
            path.display()
        );
    }
    let text = std::fs::read_to_string(&path)
        .with_context(|| format!("cannot read {}", path.display()))?;
    let folder = path.parent().unwrap_or(Path::new("/"));
    let root = workspace_root(folder);
    let team = front_matter_team(&text);
    let team_folder = resolve_team_folder(&root, &path, team.as_deref())
        .with_context(|| format!("the team of {} cannot be used", path.display()))?;
    Ok(Target {
        root,
        team_folder,
        chat: Some(path),
    })
}

/// The nearest folder holding `.git`, from `folder` upwards; else `folder` itself.
pub(super) fn workspace_root(folder: &Path) -> PathBuf {
    folder
        .ancestors()
        .find(|dir| dir.join(".git").exists())
        .unwrap_or(folder)
        .to_path_buf()
}

/// `team:` from a chat's front matter, read with the document model.
fn front_matter_team(text: &str) -> Option<String> {
    let block = crate::document::front_matter::locate(text)?;
    let fm = crate::document::front_matter::parse(text, &block);
    fm.team.map(|t| t.value)
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

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
