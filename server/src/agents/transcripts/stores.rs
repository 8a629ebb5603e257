//! Where each CLI keeps its sessions (see `agent-clis.md`; checked on the recorded runs),
//! and which folder each stored session ran in, read from its first lines:
//! - claude: `<CLAUDE_CONFIG_DIR or ~/.claude>/projects/<slug>/<id>.jsonl`, `cwd` on
//!   its first conversation line;
//! - codex: `<CODEX_HOME or ~/.codex>/sessions/YYYY/MM/DD/rollout-*.jsonl`, `cwd` in its
//!   first line (`session_meta`);
//! - gemini: `<GEMINI_CLI_HOME or ~>/.gemini/tmp/<project>/chats/session-*.jsonl`, whose
//!   header's `projectHash` is the SHA-256 of the folder it ran in.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::AgentKind;
use crate::team::trust::content_hash;

/// A stored session found on disk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredSession {
    pub kind: AgentKind,
    pub session: String,
    pub path: PathBuf,
}

/// The state folder of `kind`: its variable (`CLAUDE_CONFIG_DIR`, `CODEX_HOME`,
/// `GEMINI_CLI_HOME`) if set, else its default under `home`.
pub fn state_dir(kind: AgentKind, var: Option<PathBuf>, home: &Path) -> PathBuf {
    var.unwrap_or_else(|| match kind {
        AgentKind::Claude => home.join(".claude"),
        AgentKind::Codex => home.join(".codex"),
        AgentKind::Gemini => home.to_path_buf(),
    })
}

/// The sessions of `kind` in the state folder `state` that ran in one of `folders`
/// (absolute), newest file first.
pub fn sessions_in(kind: AgentKind, state: &Path, folders: &[PathBuf]) -> Vec<StoredSession> {
    let (root, depth) = match kind {
        AgentKind::Claude => (state.join("projects"), 2),
        AgentKind::Codex => (state.join("sessions"), 4),
        AgentKind::Gemini => (state.join(".gemini").join("tmp"), 3),
    };
    let hashes: Vec<String> = folders
        .iter()
        .map(|f| content_hash(f.as_os_str().as_encoded_bytes()))
        .collect();
    let mut found: Vec<(std::time::SystemTime, StoredSession)> = walkdir::WalkDir::new(&root)
        .min_depth(depth)
        .max_depth(depth)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file() && is_session_file(kind, e.path()))
        .filter_map(|e| {
            let (session, place) = peek(kind, e.path())?;
            let here = match place {
                Place::Folder(cwd) => folders.iter().any(|f| Path::new(&cwd) == f),
                Place::Hash(hash) => hashes.contains(&hash),
            };
            let modified = e.metadata().ok()?.modified().ok()?;
            here.then(|| {
                let path = e.into_path();
                (
                    modified,
                    StoredSession {
                        kind,
                        session,
                        path,
                    },
                )
            })
        })
        .collect();
    found.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.path.cmp(&b.1.path)));
    found.into_iter().map(|(_, s)| s).collect()
}

fn is_session_file(kind: AgentKind, path: &Path) -> bool {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    let in_chats = path
        .parent()
        .and_then(Path::file_name)
        .is_some_and(|p| p == "chats");
    name.ends_with(".jsonl")
        && match kind {
            AgentKind::Claude => true,
            AgentKind::Codex => name.starts_with("rollout-"),
            AgentKind::Gemini => name.starts_with("session-") && in_chats,
        }
}

/// Where a session ran: a folder, or (gemini) the hash of one.
enum Place {
    Folder(String),
    Hash(String),
}

/// The session id and the place of a stored session, from its first lines.
fn peek(kind: AgentKind, path: &Path) -> Option<(String, Place)> {
    let file = std::fs::File::open(path).ok()?;
    let mut session = None;
    for line in BufReader::new(file).lines().take(64) {
        let Ok(value) = serde_json::from_str::<Value>(&line.ok()?) else {
            continue;
        };
        let text = |v: Option<&Value>| v.and_then(Value::as_str).map(str::to_owned);
        match kind {
            AgentKind::Claude => {
                session = session.or_else(|| text(value.get("sessionId")));
                if let Some(cwd) = text(value.get("cwd")) {
                    return Some((session?, Place::Folder(cwd)));
                }
            }
            AgentKind::Codex => {
                let payload = value.get("payload")?;
                let id = text(payload.get("id"))?;
                return Some((id, Place::Folder(text(payload.get("cwd"))?)));
            }
            AgentKind::Gemini => {
                let id = text(value.get("sessionId"))?;
                return Some((id, Place::Hash(text(value.get("projectHash"))?)));
            }
        }
    }
    None
}
