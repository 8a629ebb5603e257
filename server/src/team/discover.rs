//! `load_team_with`: members from folders plus `chatmd.toml`, in team order, with every
//! problem found on the way collected instead of failing.

use std::path::{Path, PathBuf};

use super::config::{MemberSettings, load_layers};
use super::folders::{MemberFolder, find_member_folders, read_text, read_text_anywhere};
use super::model::{Member, Team};
use super::paths::{contain, leads_outside, normalize};
use super::problem::{ConfigProblem, Severity};
use super::role_files_loaded;
use super::trust::{UserTrust, link_out, trust_command};
use crate::agent_config::SessionSettings;

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
///
/// `trust` is what the user trusts: the `chatmd.toml` files whose `command`, `args`,
/// `env` and `home` apply, and the links out of the workspace that may be followed.
/// Untrusted settings are left out (and listed in [`Team::untrusted`]); a member that
/// depends on a link the user did not accept is left out of the team. Callers with a
/// chat find its root and folder with [`super::locate`].
pub fn load_team_with(workspace_root: &Path, team_folder: &Path, trust: &UserTrust) -> Team {
    let root = normalize(workspace_root);
    let folder = normalize(team_folder);
    let mut problems = Vec::new();
    let mut team = Team {
        folder: folder.clone(),
        human: DEFAULT_HUMAN.to_owned(),
        instruction: None,
        members: Vec::new(),
        problems: Vec::new(),
        untrusted: Vec::new(),
    };
    if let Some((store, why)) = &trust.problem {
        problems.push(ConfigProblem::new(store, None, Severity::Warning, why));
    }
    if let Err(error) = contain(&root, &root, &folder) {
        problems.push(ConfigProblem::new(
            &folder,
            None,
            Severity::Error,
            format!("this team folder cannot be used: {error}"),
        ));
        team.problems = problems;
        return team;
    }

    let config = load_layers(&root, &folder, trust, &mut problems);
    team.untrusted = config.untrusted;
    team.instruction = read_instruction(&root, &folder, &mut problems);
    let mut found = find_member_folders(&root, &folder, trust, &mut problems);
    let mut reader = Reader {
        root: &root,
        trust,
        problems: &mut problems,
    };
    for settings in config.members {
        let position = found
            .iter()
            .position(|f| f.handle.eq_ignore_ascii_case(&settings.name));
        let member = match position {
            Some(index) => reader.member_from_folder(found.remove(index), settings),
            None => reader.member_from_config(&folder, settings),
        };
        team.members.extend(member);
    }
    for member_folder in found {
        let member = reader.member_from_folder(member_folder, MemberSettings::default());
        team.members.extend(member);
    }

    // The CLIs' own settings in the members' folders wait for trust like chatmd.toml's.
    let settings = super::agent_settings::untrusted_settings(&team.members, &root, trust);
    for config in &settings {
        problems.push(super::agent_settings::problem(config));
    }
    team.untrusted.extend(settings);

    if let Some((human, file, range)) = config.human {
        if let Some(member) = team.member(&human) {
            problems.push(ConfigProblem::new(
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

fn read_instruction(
    root: &Path,
    folder: &Path,
    problems: &mut Vec<ConfigProblem>,
) -> Option<String> {
    let file = folder.join(TEAM_INSTRUCTION_FILE);
    file.symlink_metadata().ok()?;
    match read_text(root, &file) {
        Ok(text) => Some(text),
        Err(error) => {
            problems.push(ConfigProblem::new(
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

/// Turns folders and settings into members, leaving out those that depend on a link
/// out of the workspace the user did not accept.
struct Reader<'a> {
    root: &'a Path,
    trust: &'a UserTrust,
    problems: &'a mut Vec<ConfigProblem>,
}

impl Reader<'_> {
    fn member_from_folder(
        &mut self,
        found: MemberFolder,
        settings: MemberSettings,
    ) -> Option<Member> {
        let agent = found.kind.name().to_owned();
        let mut member = self.member(found.handle.clone(), agent, found.folder, settings)?;
        member.role_file = Some(found.role_file.clone());
        if !self.files_stay_inside(&member) {
            return None;
        }
        let read = match link_out(self.root, &found.role_file) {
            // Accepted by the user (files_stay_inside checked it).
            Some(_) => read_text_anywhere(&found.role_file),
            None => read_text(self.root, &found.role_file),
        };
        match read {
            Ok(text) => member.role_text = Some(text),
            Err(error) => {
                let message = format!(
                    "cannot read role file {}: {}",
                    found.kind.role_file_name(),
                    error.message
                );
                self.problems.push(ConfigProblem::new(
                    &found.role_file,
                    error.range,
                    Severity::Error,
                    format!("{message}; {} has no role until then", found.handle),
                ));
                member.role_error = Some(message);
            }
        }
        Some(member)
    }

    /// A member that only `[members.NAME]` defines: it needs an `agent`.
    fn member_from_config(
        &mut self,
        team_folder: &Path,
        settings: MemberSettings,
    ) -> Option<Member> {
        let Some(agent) = settings.agent.clone() else {
            let (file, range) = settings
                .declared_at
                .clone()
                .map_or((team_folder.to_path_buf(), None), |(f, r)| (f, Some(r)));
            self.problems.push(ConfigProblem::new(
                file,
                range,
                Severity::Warning,
                format!(
                    "`[members.{0}]` matches no member folder in {1} and sets no `agent`, so \
                     it is ignored here. Add a folder {0}/ with a role file, or set `agent`",
                    settings.name,
                    team_folder.display()
                ),
            ));
            return None;
        };
        let own = team_folder.join(&settings.name);
        let folder = if own.is_dir() && leads_outside(self.root, &own).is_none() {
            own
        } else {
            team_folder.to_path_buf()
        };
        let handle = settings.name.clone();
        let member = self.member(handle, agent, folder, settings)?;
        self.files_stay_inside(&member).then_some(member)
    }

    fn member(
        &mut self,
        handle: String,
        default_agent: String,
        folder: PathBuf,
        settings: MemberSettings,
    ) -> Option<Member> {
        if settings.blocked {
            // Its `workdir` or `home` leads out through a link; reported where it is set.
            return None;
        }
        let workdir = match settings.workdir {
            Some(workdir) => workdir,
            None => self.default_workdir(&handle, &folder)?,
        };
        Some(Member {
            handle,
            agent: settings.agent.unwrap_or(default_agent),
            preset: settings.preset,
            folder,
            role_file: None,
            role_text: None,
            role_error: None,
            instructions: settings.instructions,
            workdir,
            home: settings.home,
            env: settings.env,
            args: settings.args.unwrap_or_default(),
            command: settings.command,
            timeout: settings.timeout,
            idle_timeout: settings.idle_timeout,
            // On by default: a member continues its CLI's session unless `resume = false`
            // (ignored for a plain command, which has no session to continue).
            resume: settings.resume.unwrap_or(true),
            thoughts: settings.thoughts.unwrap_or_default(),
            session: SessionSettings {
                mode: settings.mode,
                model: settings.model,
                options: settings.options.into_iter().collect(),
                asking_mode: None,
                mcp_servers: settings.mcp_servers,
            },
            permissions: settings.permissions,
        })
    }

    /// `work/` when the member folder has one, else the member folder itself. A `work`
    /// link out of the workspace is followed only when the user accepted it: a
    /// repository could ship `work -> /`.
    fn default_workdir(&mut self, handle: &str, folder: &Path) -> Option<PathBuf> {
        let work = folder.join("work");
        if let Some((link, target)) = link_out(self.root, &work)
            && link == work
            && !self.trust.allows_link(&link, &target)
        {
            self.problems.push(ConfigProblem::new(
                &work,
                None,
                Severity::Warning,
                format!(
                    "@{handle} is left out: `work` is a link to {}, outside the workspace, and \
                     a repository could ship such a link. If you made it, accept it with `{}`",
                    target.display(),
                    trust_command(&link)
                ),
            ));
            return None;
        }
        if work.is_dir() {
            return Some(work);
        }
        if let Ok(target) = std::fs::read_link(&work) {
            self.problems.push(ConfigProblem::new(
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
        Some(folder.to_path_buf())
    }

    /// Whether the member's role file and the files its CLI loads by itself from the
    /// workspace stay inside it (or leave through links the user accepted). Otherwise
    /// the member is left out: chatmd would not read such a file, but the CLI would.
    fn files_stay_inside(&mut self, member: &Member) -> bool {
        let loaded = role_files_loaded(member, self.root);
        let files = member.role_file.iter().chain(loaded.iter());
        for file in files {
            let Some((link, target)) = link_out(self.root, file) else {
                continue;
            };
            if self.trust.allows_link(&link, &target) {
                continue;
            }
            let how = if link == *file {
                format!("{} is a link to {}", file.display(), target.display())
            } else {
                format!(
                    "{} goes through the link {} to {}",
                    file.display(),
                    link.display(),
                    target.display()
                )
            };
            self.problems.push(ConfigProblem::new(
                &member.folder,
                None,
                Severity::Warning,
                format!(
                    "@{} is left out: {how}, outside the workspace, and its CLI would load it. \
                     A repository could ship such a link; if you made it, accept it with `{}`",
                    member.handle,
                    trust_command(&link)
                ),
            ));
            return false;
        }
        true
    }
}

#[cfg(test)]
mod tests;
