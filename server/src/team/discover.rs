//! `load_team`: members from folders plus `chatmd.toml`, in team order, with every
//! problem found on the way collected instead of failing.

use std::path::{Path, PathBuf};

use super::config::{MemberSettings, load_layers};
use super::folders::{MemberFolder, find_member_folders, read_text};
use super::model::{Member, Severity, Team, TeamProblem};
use super::paths::{contain, leads_outside, normalize};

/// The human's handle when `chatmd.toml` does not set `human`.
pub const DEFAULT_HUMAN: &str = "me";

/// The file whose text every member of the team gets.
pub const TEAM_INSTRUCTION_FILE: &str = "team_instruction.md";

/// Reads a team folder: its member folders, role files, `team_instruction.md` and every
/// `chatmd.toml` from the workspace root down to it. Never fails: whatever is wrong ends
/// up in [`Team::problems`].
///
/// Team order: the `[members.*]` tables of the nearest `chatmd.toml` in file order (then
/// those only farther files define), then the remaining folders alphabetically.
pub fn load_team(workspace_root: &Path, team_folder: &Path) -> Team {
    let root = normalize(workspace_root);
    let folder = normalize(team_folder);
    let mut problems = Vec::new();
    let mut team = Team {
        folder: folder.clone(),
        human: DEFAULT_HUMAN.to_owned(),
        instruction: None,
        members: Vec::new(),
        problems: Vec::new(),
    };
    if let Err(error) = contain(&root, &root, &folder) {
        problems.push(TeamProblem::new(
            &folder,
            None,
            Severity::Error,
            format!("this team folder cannot be used: {error}"),
        ));
        team.problems = problems;
        return team;
    }

    let config = load_layers(&root, &folder, &mut problems);
    team.instruction = read_instruction(&root, &folder, &mut problems);
    let mut found = find_member_folders(&root, &folder, &mut problems);
    for settings in config.members {
        let position = found
            .iter()
            .position(|f| f.handle.eq_ignore_ascii_case(&settings.name));
        let member = match position {
            Some(index) => Some(member_from_folder(
                &root,
                found.remove(index),
                settings,
                &mut problems,
            )),
            None => member_from_config(&root, &folder, settings, &mut problems),
        };
        team.members.extend(member);
    }
    for member_folder in found {
        let member = member_from_folder(
            &root,
            member_folder,
            MemberSettings::default(),
            &mut problems,
        );
        team.members.push(member);
    }

    if let Some((human, file, range)) = config.human {
        if let Some(member) = team.member(&human) {
            problems.push(TeamProblem::new(
                file,
                Some(range),
                Severity::Warning,
                format!(
                    "`human = \"{human}\"` is also the handle of member `{}`; messages from \
                     `@{human}` will be taken as the human's. Choose another handle",
                    member.handle
                ),
            ));
        }
        team.human = human;
    }
    team.problems = problems;
    team
}

fn read_instruction(root: &Path, folder: &Path, problems: &mut Vec<TeamProblem>) -> Option<String> {
    let file = folder.join(TEAM_INSTRUCTION_FILE);
    file.symlink_metadata().ok()?;
    match read_text(root, &file) {
        Ok(text) => Some(text),
        Err(error) => {
            problems.push(TeamProblem::new(
                &file,
                error.range,
                Severity::Error,
                format!(
                    "cannot read {TEAM_INSTRUCTION_FILE}: {}; no member gets it until then",
                    error.message
                ),
            ));
            None
        }
    }
}

fn member_from_folder(
    root: &Path,
    found: MemberFolder,
    settings: MemberSettings,
    problems: &mut Vec<TeamProblem>,
) -> Member {
    let (role_text, role_error) = match read_text(root, &found.role_file) {
        Ok(text) => (Some(text), None),
        Err(error) => {
            let message = format!(
                "cannot read role file {}: {}",
                found.kind.role_file_name(),
                error.message
            );
            problems.push(TeamProblem::new(
                &found.role_file,
                error.range,
                Severity::Error,
                format!("{message}; {} has no role until then", found.handle),
            ));
            (None, Some(message))
        }
    };
    let agent = found.kind.name().to_owned();
    let mut member = member(found.handle, agent, found.folder, settings, problems);
    member.role_file = Some(found.role_file);
    member.role_text = role_text;
    member.role_error = role_error;
    member
}

/// A member that only `[members.NAME]` defines: it needs an `agent`.
fn member_from_config(
    root: &Path,
    team_folder: &Path,
    settings: MemberSettings,
    problems: &mut Vec<TeamProblem>,
) -> Option<Member> {
    let Some(agent) = settings.agent.clone() else {
        let (file, range) = settings
            .declared_at
            .clone()
            .map_or((team_folder.to_path_buf(), None), |(f, r)| (f, Some(r)));
        problems.push(TeamProblem::new(
            file,
            range,
            Severity::Warning,
            format!(
                "`[members.{0}]` matches no member folder in {1} and sets no `agent`, so it is \
                 ignored here. Add a folder {0}/ with a role file, or set `agent`",
                settings.name,
                team_folder.display()
            ),
        ));
        return None;
    };
    let own = team_folder.join(&settings.name);
    let folder = if own.is_dir() && leads_outside(root, &own).is_none() {
        own
    } else {
        team_folder.to_path_buf()
    };
    let handle = settings.name.clone();
    Some(member(handle, agent, folder, settings, problems))
}

fn member(
    handle: String,
    default_agent: String,
    folder: PathBuf,
    settings: MemberSettings,
    problems: &mut Vec<TeamProblem>,
) -> Member {
    let workdir = match settings.workdir {
        Some(workdir) => workdir,
        None => default_workdir(&folder, problems),
    };
    Member {
        handle,
        agent: settings.agent.unwrap_or(default_agent),
        folder,
        role_file: None,
        role_text: None,
        role_error: None,
        instructions: settings.instructions,
        workdir,
        home: settings.home,
        env: settings.env,
        args: settings.args.unwrap_or_default(),
        timeout: settings.timeout,
        idle_timeout: settings.idle_timeout,
        resume: settings.resume.unwrap_or(false),
    }
}

/// `work/` when the member folder has one (a symlink the user made may point anywhere),
/// else the member folder itself.
fn default_workdir(folder: &Path, problems: &mut Vec<TeamProblem>) -> PathBuf {
    let work = folder.join("work");
    if work.is_dir() {
        return work;
    }
    if let Ok(target) = std::fs::read_link(&work) {
        problems.push(TeamProblem::new(
            &work,
            None,
            Severity::Warning,
            format!(
                "`work` is a symlink to {}, which is not a folder; the member works in {} \
                 until the link is fixed",
                target.display(),
                folder.display()
            ),
        ));
    }
    folder.to_path_buf()
}
