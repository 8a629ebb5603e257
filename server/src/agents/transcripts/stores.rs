//! The stored sessions of a CLI that ran in given folders, found by the kind's session
//! store (`SessionStore` in its `KindSpec`; see `agent-clis.md`, checked on the recorded
//! runs):
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
use crate::agents::kinds::{SessionPlace, spec_of};
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
    var.unwrap_or_else(|| spec_of(kind).default_state_in(home))
}

/// The sessions of `kind` in the state folder `state` that ran in one of `folders`
/// (absolute), newest file first; none for a kind that stores no sessions.
pub fn sessions_in(kind: AgentKind, state: &Path, folders: &[PathBuf]) -> Vec<StoredSession> {
    let Some(store) = &spec_of(kind).store else {
        return Vec::new();
    };
    let root: PathBuf = store
        .sessions_dir
        .iter()
        .fold(state.to_path_buf(), |dir, part| dir.join(part));
    let hashes: Vec<String> = folders
        .iter()
        .map(|f| content_hash(f.as_os_str().as_encoded_bytes()))
        .collect();
    let mut found: Vec<(std::time::SystemTime, StoredSession)> = walkdir::WalkDir::new(&root)
        .min_depth(store.depth)
        .max_depth(store.depth)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| {
            e.file_type().is_file() && is_jsonl(e.path()) && (store.is_session_file)(e.path())
        })
        .filter_map(|e| {
            let (session, place) = (store.peek)(e.path())?;
            let here = match place {
                SessionPlace::Folder(cwd) => folders.iter().any(|f| Path::new(&cwd) == f),
                SessionPlace::Hash(hash) => hashes.contains(&hash),
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

fn is_jsonl(path: &Path) -> bool {
    path.file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|name| name.ends_with(".jsonl"))
}

/// The file name of `path`, or `""`.
pub(in crate::agents) fn file_name(path: &Path) -> &str {
    path.file_name().and_then(|n| n.to_str()).unwrap_or("")
}

/// The JSON values of a stored session's first lines (the lines that are not JSON
/// left out), which say what session it is and where it ran.
pub(in crate::agents) fn first_values(path: &Path) -> Option<impl Iterator<Item = Value>> {
    let file = std::fs::File::open(path).ok()?;
    Some(
        BufReader::new(file)
            .lines()
            .take(64)
            .map_while(Result::ok)
            .filter_map(|line| serde_json::from_str::<Value>(&line).ok()),
    )
}

/// The text at `value`, owned.
pub(in crate::agents) fn text(value: Option<&Value>) -> Option<String> {
    value.and_then(Value::as_str).map(str::to_owned)
}
