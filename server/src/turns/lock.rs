//! The chat lock: an advisory lock (`flock`) that `chatmd send` and the language server
//! both hold while they run turns in a chat, so that one member never runs twice on
//! one chat and an editor's buffer and the file on disk never get answers from two
//! processes at once. A process that finds the lock taken is told who holds it.
//!
//! Where the lock lives: not on the chat file itself (chatmd, and most editors, save by
//! renaming a new file over the old one, which would leave the lock on a file nobody
//! reads any more), and not next to it (that would litter the user's repository), but
//! in a private folder of the user's: `/run/user/<uid>/chatmd/locks` where that folder
//! exists (the runtime folder `$XDG_RUNTIME_DIR` points to), else
//! `/tmp/chatmd-<uid>/locks`. The environment is not read: an editor started from a
//! desktop and a terminal over ssh must find the same lock. There is one lock file per
//! chat, named by a hash of the chat's canonical path; it holds who holds the lock
//! (`pid`, `host`, `program`, `members`) and is removed when the lock is released.

use std::collections::HashMap;
use std::fs::{File, OpenOptions, TryLockError};
use std::io::Write;
use std::os::unix::fs::{FileExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock, Weak};
use std::time::{Duration, Instant};

use super::owner::Owner;

/// How long a taken lock is tried again before it counts as held: a lock is taken
/// for an instant by a process that only looks at it, or is being released.
const BUSY_WAIT: Duration = Duration::from_millis(250);

/// The program names written into a lock file.
pub const SEND: &str = "chatmd send";
pub const SERVER: &str = "chatmd server";

/// Who holds a chat's lock, as its lock file says.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Holder {
    pub pid: Option<u32>,
    pub host: Option<String>,
    pub program: Option<String>,
    /// The members it is running (may be empty between turns).
    pub members: Vec<String>,
}

impl std::fmt::Display for Holder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let who = match self.program.as_deref() {
            Some(SEND) => "`chatmd send`".to_string(),
            Some(SERVER) => "the chatmd server of an editor".to_string(),
            Some(other) => format!("`{other}`"),
            None => "another chatmd process".to_string(),
        };
        let process = match (self.pid, &self.host) {
            (Some(pid), Some(host)) if *host != Owner::this().host => {
                format!(" (pid {pid} on {host})")
            }
            (Some(pid), _) => format!(" (pid {pid})"),
            _ => String::new(),
        };
        if self.members.is_empty() {
            write!(f, "{who}{process} is running turns in this chat")
        } else {
            let members: Vec<String> = self.members.iter().map(|m| format!("@{m}")).collect();
            write!(
                f,
                "{} {} answering in this chat, run by {who}{process}",
                members.join(", "),
                if members.len() == 1 { "is" } else { "are" }
            )
        }
    }
}

/// Why a chat's lock could not be taken.
#[derive(Debug, thiserror::Error)]
pub enum LockError {
    #[error("{0}")]
    Busy(Holder),
    #[error("cannot take the chat's lock in {dir}: {source}")]
    Folder { dir: String, source: std::io::Error },
}

/// Whether a chat's lock is held, and by whom.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Probe {
    Free,
    /// The lock folder cannot be used: nobody can tell.
    Unknown,
    /// Held by this process.
    Ours,
    Other(Holder),
}

/// A held chat lock; clones share it, and it is released when the last one goes.
#[derive(Clone)]
pub struct ChatLock(Arc<Held>);

struct Held {
    /// The lock file.
    path: PathBuf,
    file: File,
    program: &'static str,
    /// The members running, with how many turns each (several ports of a server may
    /// run turns in one chat).
    members: Mutex<Vec<String>>,
}

/// The locks this process holds, by lock file: the server's turns in one chat share
/// one lock (`flock` locks of one process on two descriptors would exclude each other).
fn table() -> std::sync::MutexGuard<'static, HashMap<PathBuf, Weak<Held>>> {
    static TABLE: OnceLock<Mutex<HashMap<PathBuf, Weak<Held>>>> = OnceLock::new();
    TABLE
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|p| p.into_inner())
}

impl ChatLock {
    /// Takes the lock of the chat at `chat` for `program` ([`SEND`] or [`SERVER`]), or
    /// shares the one this process holds already.
    pub fn acquire(chat: &Path, program: &'static str) -> Result<ChatLock, LockError> {
        let path = lock_path(chat)?;
        let mut table = table();
        table.retain(|_, held| held.strong_count() > 0);
        if let Some(held) = table.get(&path).and_then(Weak::upgrade) {
            return Ok(ChatLock(held));
        }
        let deadline = Instant::now() + BUSY_WAIT;
        let folder = |source| LockError::Folder {
            dir: path.parent().unwrap_or(&path).display().to_string(),
            source,
        };
        let file = loop {
            let file = OpenOptions::new()
                .read(true)
                .write(true)
                .create(true)
                .truncate(false)
                .mode(0o600)
                .open(&path)
                .map_err(folder)?;
            match file.try_lock() {
                // The last holder removes the file as it releases it: a lock on a file
                // that is no longer at the path locks nothing.
                Ok(()) if same_file(&file, &path) => break file,
                Ok(()) => continue,
                Err(TryLockError::WouldBlock) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(10));
                }
                Err(TryLockError::WouldBlock) => {
                    return Err(LockError::Busy(read_holder(&path).unwrap_or_default()));
                }
                Err(TryLockError::Error(error)) => return Err(folder(error)),
            }
        };
        let held = Arc::new(Held {
            path: path.clone(),
            file,
            program,
            members: Mutex::new(Vec::new()),
        });
        held.write_info();
        table.insert(path, Arc::downgrade(&held));
        Ok(ChatLock(held))
    }

    /// `member` starts a turn: the lock file says so.
    pub fn add_member(&self, member: &str) {
        self.0.members().push(member.to_string());
        self.0.write_info();
    }

    /// `member`'s turn ended.
    pub fn remove_member(&self, member: &str) {
        {
            let mut members = self.0.members();
            if let Some(i) = members.iter().position(|m| m == member) {
                members.remove(i);
            }
        }
        self.0.write_info();
    }
}

impl Held {
    fn members(&self) -> std::sync::MutexGuard<'_, Vec<String>> {
        self.members.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn write_info(&self) {
        let owner = Owner::this();
        let mut members: Vec<String> = Vec::new();
        for member in self.members().iter() {
            if !members.contains(member) {
                members.push(member.clone());
            }
        }
        let info = format!(
            "pid={}\nhost={}\nprogram={}\nmembers={}\n",
            owner.pid,
            owner.host,
            self.program,
            members.join(" ")
        );
        // Rewritten in place: a reader that catches it half written shows less.
        let _ = self.file.set_len(0);
        let _ = self.file.write_all_at(info.as_bytes(), 0);
        let _ = (&self.file).flush();
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        // Removed while still locked, so that nobody takes a lock on it after this one
        // goes (see `acquire`); the lock goes with the descriptor.
        if same_file(&self.file, &self.path) {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

/// Whether the chat's lock is held, without taking it for longer than an instant.
pub fn probe(chat: &Path) -> Probe {
    let Ok(path) = lock_path(chat) else {
        return Probe::Unknown;
    };
    if table()
        .get(&path)
        .is_some_and(|held| held.strong_count() > 0)
    {
        return Probe::Ours;
    }
    let Ok(file) = File::open(&path) else {
        return Probe::Free;
    };
    match file.try_lock_shared() {
        Err(TryLockError::WouldBlock) => Probe::Other(read_holder(&path).unwrap_or_default()),
        _ => Probe::Free,
    }
}

fn read_holder(path: &Path) -> Option<Holder> {
    let text = std::fs::read_to_string(path).ok()?;
    let mut holder = Holder::default();
    for line in text.lines() {
        let Some((key, value)) = line.split_once('=') else {
            continue;
        };
        match key {
            "pid" => holder.pid = value.parse().ok(),
            "host" => holder.host = Some(value.to_string()),
            "program" => holder.program = Some(value.to_string()),
            "members" => {
                holder.members = value.split_whitespace().map(str::to_string).collect();
            }
            _ => {}
        }
    }
    Some(holder)
}

fn same_file(file: &File, path: &Path) -> bool {
    match (file.metadata(), std::fs::metadata(path)) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    }
}

/// The lock file of the chat at `chat` (its folder is made if needed).
fn lock_path(chat: &Path) -> Result<PathBuf, LockError> {
    let chat = std::fs::canonicalize(chat).unwrap_or_else(|_| chat.to_path_buf());
    let dir = lock_dir()?;
    let name: String = chat
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || c == '.' {
                c
            } else {
                '_'
            }
        })
        .take(64)
        .collect();
    let hash = crate::runner::fnv1a(chat.as_os_str().as_encoded_bytes());
    Ok(dir.join(format!("{hash:016x}-{name}.lock")))
}

fn lock_dir() -> Result<PathBuf, LockError> {
    crate::runner::private_folder("locks").map_err(|(dir, source)| LockError::Folder {
        dir: dir.display().to_string(),
        source,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn a_lock_is_shared_in_a_process_and_released_with_its_last_holder() {
        let dir = tempfile::tempdir().unwrap();
        let chat = dir.path().join("a.chat.md");
        std::fs::write(&chat, "").unwrap();
        assert_eq!(probe(&chat), Probe::Free);
        let first = ChatLock::acquire(&chat, SERVER).unwrap();
        let second = ChatLock::acquire(&chat, SERVER).unwrap();
        assert_eq!(probe(&chat), Probe::Ours);
        first.add_member("reviewer");
        let path = lock_path(&chat).unwrap();
        let holder = read_holder(&path).unwrap();
        assert_eq!(holder.members, ["reviewer"]);
        assert_eq!(holder.pid, Some(std::process::id()));
        assert_eq!(
            holder.to_string(),
            format!(
                "@reviewer is answering in this chat, run by the chatmd server of an editor (pid {})",
                std::process::id()
            )
        );
        drop(first);
        assert!(path.exists(), "still held by the second");
        drop(second);
        assert!(!path.exists(), "the lock file goes with the lock");
        assert_eq!(probe(&chat), Probe::Free);
    }

    #[test]
    fn a_lock_held_through_another_descriptor_is_busy() {
        let dir = tempfile::tempdir().unwrap();
        let chat = dir.path().join("b.chat.md");
        std::fs::write(&chat, "").unwrap();
        // Another process, as flock sees it: a lock on another open file description.
        let path = lock_path(&chat).unwrap();
        let other = File::create(&path).unwrap();
        other.lock().unwrap();
        std::fs::write(
            &path,
            "pid=1\nhost=elsewhere\nprogram=chatmd send\nmembers=\n",
        )
        .unwrap();
        match ChatLock::acquire(&chat, SEND) {
            Err(LockError::Busy(holder)) => assert_eq!(
                holder.to_string(),
                "`chatmd send` (pid 1 on elsewhere) is running turns in this chat"
            ),
            other => panic!("expected busy, got {:?}", other.err()),
        }
        assert!(matches!(probe(&chat), Probe::Other(_)));
        drop(other);
        let lock = ChatLock::acquire(&chat, SEND).unwrap();
        drop(lock);
    }
}
