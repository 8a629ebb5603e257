//! Workspace trust: what the user accepted from a workspace, recorded outside it.
//!
//! A workspace `chatmd.toml` (a cloned repository) must not run code on Send until the
//! user says so: the keys that choose programs, arguments, environment or a CLI's
//! settings folder ([`TrustKey`]) apply only while the file's path and content hash are
//! in the user's trust store, `$XDG_CONFIG_HOME/chatmd/trusted.toml` (else
//! `~/.config/chatmd/trusted.toml`). The same store names the symlinks out of the
//! workspace that the user accepts (a member's `work -> /srv/billing`); a link is
//! accepted only while it points where it pointed when it was recorded. Files inside
//! the user's own config folder need no trust.

mod chat;
mod links;
mod own_demo;
mod shown;
mod store;

use std::ops::Range;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

pub use chat::{ChatAllow, TrustedChat, TrustedRule, chat_allows};
pub(crate) use links::link_out;
pub use shown::{key_list, shell_word, trust_command};
use store::StoreFile;
pub use store::{TrustError, TrustedFile, TrustedLink};

use super::paths::{normalize, resolve_existing};

/// The name of the trust store in the user's config folder.
pub const TRUST_FILE_NAME: &str = "trusted.toml";

/// A `chatmd.toml` key that can run code or weaken an agent's safety, and so applies
/// only once the user trusts the file that sets it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum TrustKey {
    /// The program a member runs.
    Command,
    /// Extra arguments: they can turn approvals and sandboxes off.
    Args,
    /// Variables: `LD_PRELOAD`, `NODE_OPTIONS`, `PYTHONPATH` run other code.
    Env,
    /// The CLI's settings folder: a repository's settings can hold hooks and MCP
    /// servers, which the CLI runs.
    Home,
    /// An ACP session mode: some let the agent act without asking
    /// (`bypassPermissions`, `yolo`, `agent-full-access`).
    Mode,
    /// ACP config options: an agent may offer such switches among them.
    Options,
    /// Permission rules that allow: they let the agent act without asking.
    Permissions,
    /// An agent CLI's own settings file in the member's folder (hooks, MCP servers,
    /// permission modes: `agent_settings.rs`).
    AgentSettings,
    /// MCP servers passed to an ACP agent: a stdio server is a program the agent runs.
    McpServers,
}

impl TrustKey {
    /// The key as written in `chatmd.toml`.
    pub fn name(self) -> &'static str {
        match self {
            TrustKey::Command => "command",
            TrustKey::Args => "args",
            TrustKey::Env => "env",
            TrustKey::Home => "home",
            TrustKey::Mode => "mode",
            TrustKey::Options => "options",
            TrustKey::Permissions => "permissions",
            TrustKey::AgentSettings => "agent settings",
            TrustKey::McpServers => "mcp_servers",
        }
    }

    /// Why the key needs trust, for a member.
    pub fn why(self, handle: &str) -> String {
        match self {
            TrustKey::Command => format!("it chooses the program @{handle} runs"),
            TrustKey::Args => {
                format!("arguments can turn off @{handle}'s approvals and sandbox")
            }
            TrustKey::Env => format!(
                "variables such as LD_PRELOAD or NODE_OPTIONS can make @{handle}'s CLI run \
                 other code"
            ),
            TrustKey::Home => format!(
                "@{handle}'s CLI would take its settings (hooks, MCP servers) from this folder"
            ),
            TrustKey::Mode | TrustKey::Options => format!(
                "a mode or option can let @{handle} act without asking (`bypassPermissions`, \
                 `yolo`)"
            ),
            TrustKey::Permissions => {
                format!("its allow rules would let @{handle}'s agent act without asking you")
            }
            TrustKey::AgentSettings => format!(
                "@{handle}'s CLI runs the hooks and MCP servers of its settings by itself, and \
                 their modes and rules let it act without asking"
            ),
            TrustKey::McpServers => format!(
                "@{handle}'s agent would run these programs and send its tools' calls to these \
                 servers"
            ),
        }
    }

    /// Whether the member is not run while the key waits for trust. An allow rule left
    /// out only means the member asks: it runs.
    pub fn blocks_member(self) -> bool {
        // Without its MCP servers the member still works, with its own tools.
        !matches!(self, TrustKey::Permissions | TrustKey::McpServers)
    }
}

/// One setting of a workspace `chatmd.toml` that needs trust.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TrustItem {
    /// The member's handle (`[members.NAME]`).
    pub member: String,
    pub key: TrustKey,
    /// The bytes of `key = value` in the file (or of the value, for a table).
    pub range: Range<usize>,
    /// What it sets, one line each, as shown before the user trusts it:
    /// `command = "/ws/bin/agent"`, `env LD_PRELOAD = "./evil.so"`.
    pub shown: Vec<String>,
}

/// A workspace `chatmd.toml` whose trust-needing settings were not applied.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UntrustedConfig {
    pub file: PathBuf,
    pub items: Vec<TrustItem>,
}

impl UntrustedConfig {
    /// The keys this file sets for `handle`, each once, in [`TrustKey`] order.
    pub fn keys_of(&self, handle: &str) -> Vec<TrustKey> {
        let mut keys: Vec<TrustKey> = self
            .items
            .iter()
            .filter(|item| item.member.eq_ignore_ascii_case(handle))
            .map(|item| item.key)
            .collect();
        keys.sort();
        keys.dedup();
        keys
    }

    /// The keys this file sets for `handle` that keep it from running until trusted.
    pub fn blocking_keys_of(&self, handle: &str) -> Vec<TrustKey> {
        let mut keys = self.keys_of(handle);
        keys.retain(|key| key.blocks_member());
        keys
    }

    /// The members it sets something for, in file order, each once.
    pub fn members(&self) -> Vec<&str> {
        let mut members: Vec<&str> = Vec::new();
        for item in &self.items {
            if !members.iter().any(|m| m.eq_ignore_ascii_case(&item.member)) {
                members.push(&item.member);
            }
        }
        members
    }
}

/// `path` made absolute against `cwd`, with `.` and `..` resolved as written.
pub fn absolute(cwd: &Path, path: &Path) -> PathBuf {
    normalize(&cwd.join(path))
}

/// The lowercase hex SHA-256 of `content`.
pub fn content_hash(content: &[u8]) -> String {
    Sha256::digest(content)
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect()
}

/// The path that identifies a file in the store: its folder resolved, its own name kept.
/// Not the file a symlink leads to: a `chatmd.toml` linked to a trusted one elsewhere
/// resolves its relative paths from its own folder, so it is a different file.
fn file_identity(file: &Path) -> PathBuf {
    link_identity(file)
}

/// The path that identifies a link in the store: its folder resolved, its own name kept
/// (the link itself, not where it leads).
fn link_identity(link: &Path) -> PathBuf {
    let link = normalize(link);
    match (link.parent(), link.file_name()) {
        (Some(parent), Some(name)) => resolve_existing(parent).join(name),
        _ => link,
    }
}

/// Where the user's own chatmd configuration lives: `$XDG_CONFIG_HOME/chatmd`, else
/// `~/.config/chatmd`. Nothing in it needs trust.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct UserConfig {
    dir: Option<PathBuf>,
}

impl UserConfig {
    /// From the environment of this process.
    pub fn from_env() -> UserConfig {
        UserConfig::from_vars(
            std::env::var_os("XDG_CONFIG_HOME").as_deref(),
            std::env::var_os("HOME").as_deref(),
        )
    }

    /// From given variable values (tests cannot set the environment). A relative
    /// `XDG_CONFIG_HOME` is ignored, as the XDG spec says.
    pub fn from_vars(
        xdg_config_home: Option<&std::ffi::OsStr>,
        home: Option<&std::ffi::OsStr>,
    ) -> UserConfig {
        let config_home = match xdg_config_home.map(Path::new) {
            Some(xdg) if xdg.is_absolute() => Some(xdg.to_path_buf()),
            _ => home
                .filter(|h| !h.is_empty())
                .map(|h| Path::new(h).join(".config")),
        };
        UserConfig {
            dir: config_home.map(|c| c.join("chatmd")),
        }
    }

    /// The configuration under `config_home` (what `XDG_CONFIG_HOME` would say).
    pub fn with_config_home(config_home: &Path) -> UserConfig {
        UserConfig {
            dir: Some(config_home.join("chatmd")),
        }
    }

    /// The `chatmd` config folder, when there is a home to put it in.
    pub fn dir(&self) -> Option<&Path> {
        self.dir.as_deref()
    }

    /// The trust store's path.
    pub fn trust_store(&self) -> Option<PathBuf> {
        self.dir.as_ref().map(|dir| dir.join(TRUST_FILE_NAME))
    }

    /// What the user trusts now. A store that cannot be read trusts nothing and says why
    /// in [`UserTrust::problem`].
    pub fn load_trust(&self) -> UserTrust {
        let own_dir = self.dir.as_deref().map(resolve_existing);
        let mut trust = UserTrust {
            own_dir,
            ..UserTrust::default()
        };
        let Some(path) = self.trust_store() else {
            return trust;
        };
        match store::read(&path) {
            Ok(file) => {
                trust.files = file.files;
                trust.links = file.links;
                trust.chats = file.chats;
            }
            Err(error) => trust.problem = Some((path, error.to_string())),
        }
        trust
    }

    fn store_path(&self) -> Result<PathBuf, TrustError> {
        self.trust_store().ok_or(TrustError::NoConfigFolder)
    }

    /// Records `file` with the hash of `content` (the text the user was shown), in
    /// place of an earlier record of the same file.
    pub fn trust_file(&self, file: &Path, content: &[u8]) -> Result<TrustedFile, TrustError> {
        let entry = TrustedFile {
            path: file_identity(file),
            sha256: content_hash(content),
        };
        self.replace(entry, |store| &mut store.files, |f| &f.path)
    }

    /// Records the symlink `link` with where it leads now.
    pub fn trust_link(&self, link: &Path) -> Result<TrustedLink, TrustError> {
        let entry = TrustedLink {
            path: link_identity(link),
            target: resolve_existing(link),
        };
        self.replace(entry, |store| &mut store.links, |l| &l.path)
    }

    /// Puts `entry` in its list of the store in place of the one for the same path.
    fn replace<T: Clone>(
        &self,
        entry: T,
        list: impl Fn(&mut StoreFile) -> &mut Vec<T>,
        path_of: impl Fn(&T) -> &PathBuf,
    ) -> Result<T, TrustError> {
        let path = self.store_path()?;
        store::update(&path, |store| {
            let list = list(store);
            list.retain(|e| path_of(e) != path_of(&entry));
            list.push(entry.clone());
        })?;
        Ok(entry)
    }

    /// Forgets `path` (a file or a link); whether there was anything to forget.
    pub fn revoke(&self, path: &Path) -> Result<bool, TrustError> {
        let store_path = self.store_path()?;
        let (file, link) = (file_identity(path), link_identity(path));
        let mut removed = false;
        store::update(&store_path, |store| {
            let before = store.files.len() + store.links.len() + store.chats.len();
            store.files.retain(|f| f.path != file && f.path != link);
            store.links.retain(|l| l.path != link && l.path != file);
            store.chats.retain(|c| c.path != file);
            removed = store.files.len() + store.links.len() + store.chats.len() != before;
        })?;
        Ok(removed)
    }

    /// Everything recorded, for `chatmd trust --list`.
    pub fn list(&self) -> Result<(Vec<TrustedFile>, Vec<TrustedLink>), TrustError> {
        let StoreFile { files, links, .. } = store::read(&self.store_path()?)?;
        Ok((files, links))
    }
}

/// What the user trusts, as read from the store.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct UserTrust {
    files: Vec<TrustedFile>,
    links: Vec<TrustedLink>,
    chats: Vec<TrustedChat>,
    /// The user's config folder, resolved.
    own_dir: Option<PathBuf>,
    /// The store and why it could not be read (then nothing is trusted).
    pub problem: Option<(PathBuf, String)>,
}

impl UserTrust {
    /// Trust that accepts only the given links (for tests and callers that hold no store).
    pub fn with_links(links: &[&Path]) -> UserTrust {
        UserTrust {
            links: links
                .iter()
                .map(|link| TrustedLink {
                    path: link_identity(link),
                    target: resolve_existing(link),
                })
                .collect(),
            ..UserTrust::default()
        }
    }

    /// Whether `file`, with this content, is trusted: recorded with the same hash,
    /// inside the user's own config folder, or the demo of the source tree chatmd was
    /// built from (see `own_demo`).
    pub fn trusts_file(&self, file: &Path, content: &[u8]) -> bool {
        let identity = file_identity(file);
        if self
            .own_dir
            .as_ref()
            .is_some_and(|own| identity.starts_with(own))
            || own_demo::is_own_demo(&identity, content)
        {
            return true;
        }
        let Some(entry) = self.files.iter().find(|f| f.path == identity) else {
            return false;
        };
        entry.sha256 == content_hash(content)
    }

    /// Whether the user accepted the symlink `link` leading to `target` (resolved).
    pub fn allows_link(&self, link: &Path, target: &Path) -> bool {
        let identity = link_identity(link);
        self.links
            .iter()
            .any(|l| l.path == identity && l.target == target)
    }
}

#[cfg(test)]
mod tests;
