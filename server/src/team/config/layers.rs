//! Layering `chatmd.toml` files: every file from the workspace root down to the team
//! folder applies, and the nearer file wins key by key. A file the user has not trusted
//! applies without its trust-needing keys, each one reported where it is written.

use std::ops::Range;
use std::path::{Path, PathBuf};

use super::{CONFIG_FILE_NAME, MemberSettings, parse_config};
use crate::agent_config::preset_names;
use crate::agent_config::{ACP, COMMAND};
use crate::team::folders::read_text;
use crate::team::problem::{ConfigProblem, Severity};
use crate::team::trust::{TrustKey, UntrustedConfig, UserTrust, trust_command};

/// The merged configuration of a team folder.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Layered {
    /// `human`, with the file and range that set it.
    pub human: Option<(String, PathBuf, Range<usize>)>,
    /// Merged `[members.*]`: the nearest file's tables in its order, then tables only
    /// farther files define, in theirs.
    pub members: Vec<MemberSettings>,
    /// Files whose trust-needing settings were left out, nearest first.
    pub untrusted: Vec<UntrustedConfig>,
}

/// The `chatmd.toml` files that apply to `team_folder`, nearest first: the team folder
/// and each parent up to and including the workspace root.
pub(crate) fn config_files(workspace_root: &Path, team_folder: &Path) -> Vec<PathBuf> {
    team_folder
        .ancestors()
        .take_while(|dir| dir.starts_with(workspace_root))
        .map(|dir| dir.join(CONFIG_FILE_NAME))
        .filter(|file| file.symlink_metadata().is_ok())
        .collect()
}

/// Reads, validates and merges every `chatmd.toml` that applies to `team_folder`.
pub(crate) fn load_layers(
    workspace_root: &Path,
    team_folder: &Path,
    trust: &UserTrust,
    problems: &mut Vec<ConfigProblem>,
) -> Layered {
    let files = config_files(workspace_root, team_folder);
    let mut parsed = Vec::new();
    let mut untrusted = Vec::new();
    for file in &files {
        match read_text(workspace_root, file) {
            Ok(text) => {
                let first = problems.len();
                let mut config = parse_config(workspace_root, file, &text, trust, problems);
                if !config.trust.is_empty() && !trust.trusts_file(file, text.as_bytes()) {
                    report_untrusted(file, &config, problems);
                    // In file order, as a reader meets them.
                    problems[first..].sort_by_key(|p| p.range.as_ref().map(|r| r.start));
                    config.drop_trusted_keys();
                    untrusted.push(UntrustedConfig {
                        file: file.clone(),
                        items: config.trust.clone(),
                    });
                }
                parsed.push((file, config));
            }
            Err(error) => problems.push(ConfigProblem::new(
                file,
                error.range,
                Severity::Error,
                format!("cannot read {CONFIG_FILE_NAME}: {}", error.message),
            )),
        }
    }

    let mut layered = Layered {
        untrusted,
        ..Layered::default()
    };
    // Team order: nearest file first.
    for (_, config) in &parsed {
        for member in &config.members {
            if !layered
                .members
                .iter()
                .any(|m| m.name.eq_ignore_ascii_case(&member.name))
            {
                layered.members.push(MemberSettings {
                    name: member.name.clone(),
                    ..MemberSettings::default()
                });
            }
        }
    }
    // Values: farthest file first, so nearer files overwrite.
    for (file, config) in parsed.into_iter().rev() {
        if let Some((human, range)) = config.human {
            layered.human = Some((human, file.clone(), range));
        }
        for member in config.members {
            if let Some(slot) = layered
                .members
                .iter_mut()
                .find(|m| m.name.eq_ignore_ascii_case(&member.name))
            {
                slot.overlay(member);
            }
        }
    }
    for member in &layered.members {
        unnamed_program(member, &layered.untrusted, problems);
    }
    layered
}

/// The problem of an `agent = "acp"` or `agent = "command"` member that names no program
/// to run: neither a `preset` (ACP) nor a `command` (one left out until its file is
/// trusted counts: the trust problem says what to do).
fn unnamed_program(
    member: &MemberSettings,
    untrusted: &[UntrustedConfig],
    problems: &mut Vec<ConfigProblem>,
) {
    let withheld = untrusted
        .iter()
        .flat_map(|config| &config.items)
        .any(|item| {
            item.key == TrustKey::Command && item.member.eq_ignore_ascii_case(&member.name)
        });
    if member.command.is_some() || withheld {
        return;
    }
    let message = match member.agent.as_deref() {
        Some(ACP) if member.preset.is_none() => format!(
            "@{} is an ACP member (`agent = \"acp\"`) but names no agent to run: set `preset = \
             \"<name>\"` (one of {}) or `command = \"<program>\"` (and `args`)",
            member.name,
            preset_names()
        ),
        Some(COMMAND) => format!(
            "@{} runs a program (`agent = \"command\"`) but names none: set `command = \
             \"<program>\"` (and `args`), e.g. `command = \"cargo\"`, `args = [\"test\"]`",
            member.name
        ),
        _ => return,
    };
    let Some((file, range)) = &member.declared_at else {
        return;
    };
    problems.push(ConfigProblem::new(
        file,
        Some(range.clone()),
        Severity::Error,
        message,
    ));
}

/// One problem on each setting that was left out, saying why and how to trust the file.
fn report_untrusted(file: &Path, config: &super::FileConfig, problems: &mut Vec<ConfigProblem>) {
    for item in &config.trust {
        if item.key == TrustKey::McpServers {
            problems.push(ConfigProblem::untrusted(
                file,
                item.range.clone(),
                format!(
                    "`mcp_servers` are not passed to @{}'s agent until you trust this file: {}. \
                     @{} runs without them until then; review the file, then run `{}` or use \
                     the quick fix \"Trust this chatmd.toml…\"",
                    item.member,
                    item.key.why(&item.member),
                    item.member,
                    trust_command(file)
                ),
            ));
            continue;
        }
        if !item.key.blocks_member() {
            problems.push(ConfigProblem::untrusted(
                file,
                item.range.clone(),
                format!(
                    "`{}` allow rules are not applied until you trust this file: {}. @{} asks \
                     you instead until then; review the file, then run `{}` or use the quick \
                     fix \"Trust this chatmd.toml…\"",
                    item.key.name(),
                    item.key.why(&item.member),
                    item.member,
                    trust_command(file)
                ),
            ));
            continue;
        }
        problems.push(ConfigProblem::untrusted(
            file,
            item.range.clone(),
            format!(
                "`{}` is not applied until you trust this file: {}. @{} is not run until \
                 then; review the file, then run `{}` or use the quick fix \"Trust this \
                 chatmd.toml…\"",
                item.key.name(),
                item.key.why(&item.member),
                item.member,
                trust_command(file)
            ),
        ));
    }
}
