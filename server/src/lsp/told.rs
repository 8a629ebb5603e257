//! What members' agents told about themselves during their turns, kept per team folder
//! and member for the editor features: the commands they take after `/` (completion in
//! a chat), the settings their sessions offer (completion of `mode`/`model` in
//! `chatmd.toml`), and that one needs a login (a diagnostic on the member until it
//! answers again). Each report replaces the last of its kind. Kept in memory only: a
//! new server learns it again from the next turns.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::agents::AgentEvent;
use crate::agents::{AgentCommand, AuthMethod, ConfigChoice};

/// That a member's agent needs a login: what to do, and what it offers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoginProblem {
    /// One line with the exact login command (the same words as the turn's error).
    pub advice: String,
    pub methods: Vec<AuthMethod>,
}

/// What one member's agent told last.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MemberInfo {
    pub commands: Vec<AgentCommand>,
    pub options: Vec<ConfigChoice>,
    pub login: Option<LoginProblem>,
    /// When its options were last reported (a count), to pick the latest of several
    /// teams under one `chatmd.toml`.
    options_stamp: u64,
}

/// Everything kept, by team folder and member (handles compared without case).
#[derive(Debug, Default)]
pub struct Told {
    members: HashMap<(PathBuf, String), MemberInfo>,
    clock: u64,
}

fn key(folder: &Path, member: &str) -> (PathBuf, String) {
    (folder.to_path_buf(), member.to_ascii_lowercase())
}

impl Told {
    /// Takes in `event` of `member` of the team in `folder` (other events are
    /// ignored). Returns whether the member's login problem changed.
    pub fn take(&mut self, folder: &Path, member: &str, event: &AgentEvent) -> bool {
        match event {
            AgentEvent::LoginNeeded { advice, methods } => {
                let problem = Some(LoginProblem {
                    advice: advice.clone(),
                    methods: methods.clone(),
                });
                let info = self.members.entry(key(folder, member)).or_default();
                let changed = info.login != problem;
                info.login = problem;
                changed
            }
            AgentEvent::Commands(commands) => {
                let info = self.members.entry(key(folder, member)).or_default();
                info.commands = commands.clone();
                false
            }
            AgentEvent::Options(options) => {
                self.clock += 1;
                let info = self.members.entry(key(folder, member)).or_default();
                info.options = options.clone();
                info.options_stamp = self.clock;
                false
            }
            _ => false,
        }
    }

    /// `member` answered: its login problem is over. Returns whether it had one.
    pub fn answered(&mut self, folder: &Path, member: &str) -> bool {
        self.members
            .get_mut(&key(folder, member))
            .and_then(|info| info.login.take())
            .is_some()
    }

    /// Whether any member has a login problem (else nothing needs looking up when a
    /// turn ends).
    pub fn any_login(&self) -> bool {
        self.members.values().any(|info| info.login.is_some())
    }

    /// What `member` of the team in `folder` told.
    pub fn member(&self, folder: &Path, member: &str) -> Option<&MemberInfo> {
        self.members.get(&key(folder, member))
    }

    /// The settings `member` was last offered in any team at or under `folder` (the
    /// folder of a `chatmd.toml`, whose `[members.X]` apply to the teams below it).
    pub fn options_under(&self, folder: &Path, member: &str) -> Option<&[ConfigChoice]> {
        let member = member.to_ascii_lowercase();
        self.members
            .iter()
            .filter(|((team, handle), info)| {
                *handle == member && team.starts_with(folder) && info.options_stamp > 0
            })
            .max_by_key(|(_, info)| info.options_stamp)
            .map(|(_, info)| info.options.as_slice())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agents::ConfigValue;
    use pretty_assertions::assert_eq;

    fn choice(id: &str, values: &[&str]) -> ConfigChoice {
        ConfigChoice {
            id: id.into(),
            name: id.into(),
            category: Some(id.into()),
            current: None,
            values: values
                .iter()
                .map(|v| ConfigValue {
                    value: (*v).into(),
                    name: (*v).into(),
                    description: None,
                })
                .collect(),
        }
    }

    fn login(advice: &str) -> AgentEvent {
        AgentEvent::LoginNeeded {
            advice: advice.into(),
            methods: Vec::new(),
        }
    }

    #[test]
    fn each_report_replaces_the_last_per_team_and_member() {
        let mut told = Told::default();
        let (team, other) = (Path::new("/w/team"), Path::new("/w/other"));
        let command = |name: &str| AgentCommand {
            name: name.into(),
            description: String::new(),
            hint: None,
        };
        told.take(team, "Writer", &AgentEvent::Commands(vec![command("a")]));
        told.take(team, "writer", &AgentEvent::Commands(vec![command("b")]));
        told.take(other, "writer", &AgentEvent::Commands(vec![command("c")]));
        assert_eq!(
            told.member(team, "WRITER").unwrap().commands,
            [command("b")]
        );
        assert_eq!(
            told.member(other, "writer").unwrap().commands,
            [command("c")]
        );
        assert_eq!(told.member(team, "reviewer"), None);
        assert!(!told.take(team, "writer", &AgentEvent::Text("hi".into())));
    }

    #[test]
    fn a_login_problem_lasts_until_the_member_answers() {
        let mut told = Told::default();
        let team = Path::new("/w/team");
        assert!(!told.any_login());
        assert!(told.take(team, "writer", &login("Log in.")));
        assert!(
            !told.take(team, "writer", &login("Log in.")),
            "the same again"
        );
        assert!(told.take(team, "writer", &login("Log in now.")));
        assert!(told.any_login());
        assert_eq!(
            told.member(team, "writer").unwrap().login,
            Some(LoginProblem {
                advice: "Log in now.".into(),
                methods: Vec::new()
            })
        );
        assert!(!told.answered(team, "reviewer"));
        assert!(told.answered(team, "writer"));
        assert!(!told.answered(team, "writer"), "cleared once");
        assert!(!told.any_login());
    }

    #[test]
    fn a_config_files_members_get_the_latest_options_of_the_teams_below_it() {
        let mut told = Told::default();
        let (a, b) = (Path::new("/w/a"), Path::new("/w/b/c"));
        told.take(
            a,
            "writer",
            &AgentEvent::Options(vec![choice("mode", &["x"])]),
        );
        told.take(
            b,
            "writer",
            &AgentEvent::Options(vec![choice("mode", &["y"])]),
        );
        assert_eq!(
            told.options_under(Path::new("/w"), "Writer"),
            Some(&[choice("mode", &["y"])][..])
        );
        assert_eq!(
            told.options_under(a, "writer"),
            Some(&[choice("mode", &["x"])][..])
        );
        assert_eq!(told.options_under(Path::new("/w/b/d"), "writer"), None);
        // Commands alone do not count as options.
        told.take(Path::new("/z"), "writer", &AgentEvent::Commands(Vec::new()));
        assert_eq!(told.options_under(Path::new("/z"), "writer"), None);
    }
}
