//! Whose process runs a turn: the `host` and `pid` keys that an unfinished turn's
//! status comment carries (`queued`, `streaming`, `waiting`), so that another process
//! can tell a turn that still runs from one left behind by a process that is gone
//! (killed, crashed). The keys are removed when the turn ends
//! (`conversation::section::unstamp`).

use std::path::Path;
use std::sync::OnceLock;

use super::lock::{self, Probe};
use crate::document::status::StatusComment;

/// A process on a host.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Owner {
    pub host: String,
    pub pid: u32,
}

impl Owner {
    /// This process.
    pub fn this() -> &'static Owner {
        static THIS: OnceLock<Owner> = OnceLock::new();
        THIS.get_or_init(|| Owner {
            host: host_name(),
            pid: std::process::id(),
        })
    }

    /// The process a status comment names, when it names one.
    pub fn of(comment: &StatusComment) -> Option<Owner> {
        Some(Owner {
            host: comment.get("host")?.to_string(),
            pid: comment.get("pid")?.parse().ok()?,
        })
    }

    /// Writes this owner into a status comment.
    pub fn stamp(&self, comment: &mut StatusComment) {
        comment.set("host", self.host.as_str());
        comment.set("pid", self.pid.to_string());
    }

    /// Whether this owner is a process of this host.
    pub fn is_here(&self) -> bool {
        self.host == Owner::this().host
    }

    /// Whether this owner is this process.
    pub fn is_this_process(&self) -> bool {
        self == Owner::this()
    }
}

/// Whether the unfinished turn with this status comment, in the chat at `chat`, may
/// still run in another process: one on another host (chatmd cannot tell), or the
/// process holding the chat's lock. A turn of this process is for its own registry to
/// tell; a turn whose chat lock is free, or held by this process, runs nowhere else.
/// Where locks cannot be taken, the turn's process being alive is what counts.
pub fn runs_elsewhere(comment: &StatusComment, chat: Option<&Path>) -> bool {
    let owner = Owner::of(comment);
    match &owner {
        Some(owner) if !owner.is_here() => return true,
        Some(owner) if owner.is_this_process() => return false,
        _ => {}
    }
    let Some(chat) = chat else {
        return false;
    };
    match lock::probe(chat) {
        Probe::Other(holder) => {
            owner.is_none_or(|o| holder.pid.is_none_or(|pid| pid == o.pid) || alive(o.pid))
        }
        Probe::Free | Probe::Ours => false,
        // Without locks, a live process of this host named by the turn may run it.
        Probe::Unknown => owner.is_some_and(|o| alive(o.pid)),
    }
}

/// Whether a process with this id exists on this host (a zombie counts as gone: it
/// no longer runs anything). A process of another user exists too (`EPERM`).
pub fn alive(pid: u32) -> bool {
    use nix::errno::Errno;
    use nix::sys::signal::kill;
    use nix::unistd::Pid;
    let Ok(raw) = i32::try_from(pid) else {
        return false;
    };
    if raw <= 0 {
        return false;
    }
    match kill(Pid::from_raw(raw), None) {
        Ok(()) | Err(Errno::EPERM) => !is_zombie(pid),
        Err(_) => false,
    }
}

fn is_zombie(pid: u32) -> bool {
    // Linux only; elsewhere a zombie counts as alive (the lock decides then).
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        stat.rsplit(')')
            .next()
            .and_then(|rest| rest.split_whitespace().next())
            == Some("Z")
    })
}

fn host_name() -> String {
    nix::unistd::gethostname()
        .ok()
        .map(|name| name.to_string_lossy().into_owned())
        .filter(|name| !name.is_empty())
        .unwrap_or_else(|| "localhost".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn the_owner_goes_into_the_status_comment_and_out_again() {
        let mut c = StatusComment::parse("<!-- chatmd id=t1 status=streaming -->").unwrap();
        let owner = Owner {
            host: "build box".into(),
            pid: 4242,
        };
        owner.stamp(&mut c);
        assert_eq!(
            c.render(),
            "<!-- chatmd id=t1 status=streaming host=\"build box\" pid=4242 -->"
        );
        assert_eq!(Owner::of(&c), Some(owner));
        crate::conversation::section::unstamp(&mut c);
        assert_eq!(c.render(), "<!-- chatmd id=t1 status=streaming -->");
        assert_eq!(Owner::of(&c), None);
    }

    #[test]
    fn this_process_is_alive_and_a_reaped_child_is_not() {
        assert!(alive(std::process::id()));
        assert!(Owner::this().is_here() && Owner::this().is_this_process());
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let pid = child.id();
        child.wait().unwrap();
        assert!(!alive(pid));
        assert!(!alive(0));
    }
}
