//! The sessions the fake agent knows, kept in the agent's own state folder so that a new
//! process can resume or load them: `<state>/fake-acp-sessions/<id>.json`, where
//! `<state>` is what the real agent honours (`CLAUDE_CONFIG_DIR`, `CODEX_HOME`,
//! `GEMINI_CLI_HOME/.gemini`, else under `HOME`). With neither set, sessions live only
//! as long as the process.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::super::cli::Cli;

/// One prompt and what the agent answered.
#[derive(Clone, Debug, Default)]
pub struct Exchange {
    pub prompt: String,
    /// The answer's text (what had been streamed, for a cancelled turn).
    pub answer: String,
    pub user_id: String,
    pub agent_id: String,
    pub cancelled: bool,
}

/// A session and its history.
#[derive(Clone, Debug, Default)]
pub struct Session {
    pub id: String,
    pub cwd: PathBuf,
    /// Seconds since the Unix epoch.
    pub created: u64,
    pub exchanges: Vec<Exchange>,
    /// codex: the thread's title, set by its first finished turn.
    pub title: Option<String>,
    /// claude: what the session has cost so far, in dollars (what claude-agent-acp
    /// 0.101 reports on a resumed session: `usage.rs`).
    pub cost: f64,
}

impl Session {
    fn to_json(&self) -> Value {
        let exchanges: Vec<Value> = self
            .exchanges
            .iter()
            .map(|e| {
                json!({
                    "prompt": e.prompt, "answer": e.answer, "userId": e.user_id,
                    "agentId": e.agent_id, "cancelled": e.cancelled,
                })
            })
            .collect();
        json!({
            "id": self.id, "cwd": self.cwd, "created": self.created,
            "title": self.title, "exchanges": exchanges, "cost": self.cost,
        })
    }

    fn from_json(value: &Value) -> Option<Session> {
        let text = |v: &Value, k: &str| v[k].as_str().unwrap_or_default().to_string();
        Some(Session {
            id: value["id"].as_str()?.to_string(),
            cwd: PathBuf::from(value["cwd"].as_str()?),
            created: value["created"].as_u64().unwrap_or_default(),
            title: value["title"].as_str().map(str::to_string),
            cost: value["cost"].as_f64().unwrap_or_default(),
            exchanges: value["exchanges"]
                .as_array()?
                .iter()
                .map(|e| Exchange {
                    prompt: text(e, "prompt"),
                    answer: text(e, "answer"),
                    user_id: text(e, "userId"),
                    agent_id: text(e, "agentId"),
                    cancelled: e["cancelled"].as_bool().unwrap_or_default(),
                })
                .collect(),
        })
    }
}

/// Where the flavor keeps its state, from the environment.
pub fn state_dir(flavor: Cli) -> Option<PathBuf> {
    let var = |name: &str| {
        std::env::var_os(name)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    match flavor {
        Cli::Claude => var("CLAUDE_CONFIG_DIR").or_else(|| Some(var("HOME")?.join(".claude"))),
        Cli::Codex => var("CODEX_HOME").or_else(|| Some(var("HOME")?.join(".codex"))),
        Cli::Gemini => Some(
            var("GEMINI_CLI_HOME")
                .or_else(|| var("HOME"))?
                .join(".gemini"),
        ),
    }
}

/// The session files of one agent process.
pub struct Store {
    dir: Option<PathBuf>,
}

impl Store {
    pub fn new(flavor: Cli) -> Store {
        Store {
            dir: state_dir(flavor).map(|d| d.join("fake-acp-sessions")),
        }
    }

    fn path(&self, id: &str) -> Option<PathBuf> {
        let plain = !id.is_empty()
            && id
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
        Some(self.dir.as_ref()?.join(format!("{id}.json"))).filter(|_| plain)
    }

    /// Writes `session`; a failure is reported on stderr (the turn goes on).
    pub fn save(&self, session: &Session) {
        let Some(path) = self.path(&session.id) else {
            return;
        };
        let written = path
            .parent()
            .map_or(Ok(()), std::fs::create_dir_all)
            .and_then(|()| std::fs::write(&path, session.to_json().to_string()));
        if let Err(e) = written {
            eprintln!("fake-agent: cannot write {}: {e}", path.display());
        }
    }

    /// Writes `session` from a process of its own, `delay_ms` from now, and returns at
    /// once: as the Claude Code under claude-agent-acp 0.101 writes the session's cost
    /// record after the adapter exited. The writer stays in the agent's process group.
    pub fn save_later(&self, session: &Session, delay_ms: u64) {
        let Some(path) = self.path(&session.id) else {
            return;
        };
        let spawned = std::process::Command::new("sh")
            .args(["-c", "sleep \"$0\" && printf %s \"$1\" > \"$2\""])
            .arg(format!("{}.{:03}", delay_ms / 1000, delay_ms % 1000))
            .arg(session.to_json().to_string())
            .arg(&path)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn();
        if let Err(e) = spawned {
            eprintln!(
                "fake-agent: cannot start the writer of {}: {e}",
                path.display()
            );
        }
    }

    /// The stored session `id`, if it belongs to the project `cwd`.
    pub fn load(&self, id: &str, cwd: &Path) -> Option<Session> {
        let text = std::fs::read_to_string(self.path(id)?).ok()?;
        let session = Session::from_json(&serde_json::from_str(&text).ok()?)?;
        (session.cwd == cwd).then_some(session)
    }

    /// Whether any session of the project `cwd` is stored.
    pub fn any_for(&self, cwd: &Path) -> bool {
        let Some(dir) = &self.dir else { return false };
        let Ok(entries) = std::fs::read_dir(dir) else {
            return false;
        };
        entries.filter_map(Result::ok).any(|entry| {
            let id = entry
                .path()
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned());
            id.is_some_and(|id| self.load(&id, cwd).is_some())
        })
    }

    /// Forgets session `id` (gemini's failed load destroys it).
    pub fn delete(&self, id: &str) {
        if let Some(path) = self.path(id) {
            let _ = std::fs::remove_file(path);
        }
    }
}
