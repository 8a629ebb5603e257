//! `chatmd.toml`: one file parsed into validated member settings, every mistake a
//! `ConfigProblem` with its byte range; invalid values are dropped, valid ones kept.

use std::collections::BTreeMap;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::time::Duration;

use check::{Checker, assignment_range};
use raw::RawFile;

use super::model::is_valid_handle;
use super::problem::ConfigProblem;
use super::toml_check::parse_strict;
use super::trust::{TrustItem, UserTrust};
use crate::agent_config::SettingValue;

mod check;
mod layers;
mod mcp;
mod raw;
mod rules;
mod session;

pub(crate) use layers::load_layers;
pub use rules::TeamRule;

/// What chatmd does with a `chatmd.toml` that does not parse.
const UNTIL_FIXED: &str = "chatmd ignores this chatmd.toml until it is fixed";

/// The file name looked up from the team folder up to the workspace root.
pub const CONFIG_FILE_NAME: &str = "chatmd.toml";

/// What one `chatmd.toml` says, after validation.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct FileConfig {
    /// `human`, with the byte range of its value.
    pub human: Option<(String, Range<usize>)>,
    /// `[members.NAME]` tables in file order.
    pub members: Vec<MemberSettings>,
    /// The settings that apply only once the user trusts the file, in file order.
    pub trust: Vec<TrustItem>,
}

impl FileConfig {
    /// Leaves out every setting that needs trust (the file is not trusted).
    pub fn drop_trusted_keys(&mut self) {
        for member in &mut self.members {
            member.command = None;
            member.args = None;
            member.env.clear();
            member.home = None;
            member.mode = None;
            member.options.clear();
            member.mcp_servers.clear();
            // A reject rule only makes the member ask less: it stays.
            member.permissions.retain(|rule| {
                rule.decision == crate::document::front_matter::rules::Decision::Reject
            });
        }
    }
}

/// One `[members.NAME]` table; `None` means "not set here".
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct MemberSettings {
    pub name: String,
    /// The file and byte range of the table's name, for problems about the whole table.
    pub declared_at: Option<(PathBuf, Range<usize>)>,
    pub agent: Option<String>,
    /// An ACP preset name, checked against the list.
    pub preset: Option<String>,
    pub instructions: Option<String>,
    pub workdir: Option<PathBuf>,
    pub home: Option<PathBuf>,
    pub env: BTreeMap<String, String>,
    pub args: Option<Vec<String>>,
    /// The program to run instead of the agent kind's (resolved against the file's
    /// folder when it is a relative path).
    pub command: Option<String>,
    /// `permissions`: rules that answer the member's permission requests.
    pub permissions: Vec<TeamRule>,
    pub timeout: Option<Duration>,
    pub idle_timeout: Option<Duration>,
    pub resume: Option<bool>,
    /// How an ACP agent's thoughts show.
    pub thoughts: Option<crate::team::Thoughts>,
    /// An ACP member's session mode, model and config options (`options` by id).
    pub mode: Option<String>,
    pub model: Option<String>,
    pub options: BTreeMap<String, SettingValue>,
    /// An ACP member's MCP servers, in name order (a nearer file's server of the same
    /// name replaces the farther one's).
    pub mcp_servers: Vec<crate::agent_config::McpServer>,
    /// A path of this member leads out of the workspace through a link the user did not
    /// accept: the member is left out (the problem says why).
    pub blocked: bool,
}

impl MemberSettings {
    /// Applies a nearer file's settings over these, key by key (and `env` variable by
    /// variable).
    pub fn overlay(&mut self, nearer: MemberSettings) {
        fn take<T>(mine: &mut Option<T>, theirs: Option<T>) {
            if theirs.is_some() {
                *mine = theirs;
            }
        }
        take(&mut self.declared_at, nearer.declared_at);
        take(&mut self.agent, nearer.agent);
        take(&mut self.preset, nearer.preset);
        take(&mut self.instructions, nearer.instructions);
        take(&mut self.workdir, nearer.workdir);
        take(&mut self.home, nearer.home);
        take(&mut self.args, nearer.args);
        take(&mut self.command, nearer.command);
        take(&mut self.timeout, nearer.timeout);
        take(&mut self.idle_timeout, nearer.idle_timeout);
        take(&mut self.resume, nearer.resume);
        take(&mut self.thoughts, nearer.thoughts);
        take(&mut self.mode, nearer.mode);
        take(&mut self.model, nearer.model);
        self.env.extend(nearer.env);
        self.options.extend(nearer.options);
        for server in nearer.mcp_servers {
            self.mcp_servers.retain(|s| s.name != server.name);
            self.mcp_servers.push(server);
        }
        self.mcp_servers.sort_by(|a, b| a.name.cmp(&b.name));
        rules::overlay(&mut self.permissions, nearer.permissions);
        self.blocked |= nearer.blocked;
    }
}

/// Parses and validates one `chatmd.toml`. A file that does not parse yields one
/// problem and no settings; a bad value yields a problem and is left out. `trust`
/// says which links out of the workspace the user accepted (for `workdir` and `home`).
pub(crate) fn parse_config(
    workspace_root: &Path,
    file: &Path,
    text: &str,
    trust: &UserTrust,
    problems: &mut Vec<ConfigProblem>,
) -> FileConfig {
    let raw: RawFile = match parse_strict(file, text, UNTIL_FIXED) {
        Ok(raw) => raw,
        Err(problem) => {
            problems.push(*problem);
            return FileConfig::default();
        }
    };
    let first_new = problems.len();
    let mut check = Checker {
        root: workspace_root,
        file,
        base: file.parent().unwrap_or(Path::new("")),
        text,
        trust,
        items: Vec::new(),
        problems,
    };
    if let Some(command) = &raw.command {
        let range = assignment_range(text, command.span(), "command");
        check.error(
            range,
            "`command` at the top of chatmd.toml applies to no member; put it in a \
             `[members.NAME]` table"
                .to_owned(),
        );
    }
    let human = raw.human.and_then(|human| {
        if is_valid_handle(human.get_ref()) {
            let span = human.span();
            Some((human.into_inner(), span))
        } else {
            check.error(
                human.span(),
                format!(
                    "`human = \"{}\"` is not a valid handle; use letters, digits, `_`, `.` \
                     or `-`, starting with a letter or digit",
                    human.get_ref()
                ),
            );
            None
        }
    });
    let members = raw
        .members
        .0
        .into_iter()
        .filter_map(|(name, member)| check.member(name, member))
        .collect();
    let mut trust = std::mem::take(&mut check.items);
    trust.sort_by_key(|item| item.range.start);
    // Report in file order, as a reader meets them.
    problems[first_new..].sort_by_key(|p| p.range.as_ref().map(|r| r.start));
    FileConfig {
        human,
        members,
        trust,
    }
}

/// The settings of one `chatmd.toml` that need trust, as they are shown before the user
/// trusts the file; `Err` with the reason when the file does not parse (then nothing in
/// it applies, trusted or not).
pub fn trust_summary(
    workspace_root: &Path,
    file: &Path,
    text: &str,
) -> Result<Vec<TrustItem>, String> {
    if let Err(problem) = parse_strict::<RawFile>(file, text, UNTIL_FIXED) {
        return Err(problem.message);
    }
    let mut problems = Vec::new();
    Ok(parse_config(
        workspace_root,
        file,
        text,
        &UserTrust::default(),
        &mut problems,
    )
    .trust)
}

#[cfg(test)]
mod tests;
