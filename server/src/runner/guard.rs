//! The agent guard: one small process beside chatmd that starts every agent for it,
//! so that no agent outlives chatmd, even when chatmd is killed without a chance to
//! clean up (SIGKILL, the OOM killer, a crash).
//!
//! chatmd starts `chatmd-agent-guard __agent-guard <chatmd pid>` at its first agent,
//! with one end of a socket pair as its stdin, and asks it to start each agent
//! (`guard_client.rs`, `guard_wire.rs`): the guard starts it as the leader of a
//! process group of its own, with chatmd's pipes as its stdin, stdout and stderr, in
//! its folder and with its environment, and reports its end. Since the guard is the
//! agent's parent from the start, there is no moment in which an agent runs that the
//! guard does not know of. When chatmd is gone (its end of the socket closes with it,
//! and the kernel sends the guard a parent-death signal), the guard SIGKILLs every
//! group it started: the agents and whatever they started (`guard_loop.rs`).
//!
//! For chatmd the agent is a child as before: its process group is the agent's, it
//! waits for its exit status, and the runner signals the group directly.
//!
//! The guard is the small `chatmd-agent-guard` binary when it lies beside `chatmd`
//! and speaks this build's protocol (asked once, [`PROTOCOL_ARG`]): one guard per
//! chatmd, not one per agent, so eight warm agents cost one small process. The file is
//! kept open and started through `/proc/self/fd`, so a newer one installed meanwhile
//! is not started with this build's protocol. Otherwise `chatmd` is its own guard.

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The hidden first argument that runs the guard instead of the command line.
pub const GUARD_ARG: &str = "__agent-guard";

/// The first argument that asks a guard program which arguments it takes: it prints
/// [`PROTOCOL`] and exits.
pub const PROTOCOL_ARG: &str = "__agent-guard-protocol";

/// The guard's arguments in this build; changed whenever they change, so a guard of
/// another build is never started with them.
const PROTOCOL: &str =
    "chatmd agent guard 3: <parent pid>; starts agents asked for on its stdin (a seqpacket socket)";

/// The program the runner starts as guard, when guarding is on.
static GUARD: OnceLock<PathBuf> = OnceLock::new();

/// The small guard program to prefer, when its arguments are this build's.
static SMALL: OnceLock<PathBuf> = OnceLock::new();

/// The guard chosen at the first agent's start: the small one (through its file kept
/// open) or [`GUARD`].
static CHOSEN: OnceLock<(PathBuf, Option<std::fs::File>)> = OnceLock::new();

/// Starts every agent of this process through the guard mode of `program` (a `chatmd`
/// binary; the `chatmd` binary itself passes `/proc/self/exe`). Without this call
/// (tests and benchmarks that run the runner in their own process) agents are started
/// directly: they still die with a clean exit, not with a SIGKILL of the process.
/// The first call wins.
pub fn guard_agents_with(program: impl Into<PathBuf>) {
    let _ = GUARD.set(program.into());
}

/// With guarding on, starts agents through `small` instead (the `chatmd-agent-guard`
/// binary) when it speaks this build's arguments. The first call wins.
pub fn prefer_small_guard(small: impl Into<PathBuf>) {
    let _ = SMALL.set(small.into());
}

/// The guard program, when guarding is on (Linux only: it needs `PR_SET_PDEATHSIG`).
pub(crate) fn program() -> Option<&'static Path> {
    if !cfg!(target_os = "linux") {
        return None;
    }
    let own = GUARD.get()?;
    let (chosen, _) = CHOSEN.get_or_init(|| {
        match SMALL
            .get()
            .and_then(|small| super::guard_probe::pinned_if_ours(small, PROTOCOL_ARG, PROTOCOL))
        {
            Some((pinned, file)) => (pinned, Some(file)),
            None => (own.clone(), None),
        }
    });
    Some(chosen)
}

/// When this process was started as a guard (`args` are its arguments after the
/// program name), runs the guard and returns its exit code; `None` otherwise.
pub fn run_if_guard(mut args: impl Iterator<Item = OsString>) -> Option<i32> {
    let first = args.next();
    if first.as_deref() == Some(OsStr::new(PROTOCOL_ARG)) {
        // The answer goes to whoever asked, on stdout (not a log line).
        use std::io::Write;
        let mut out = std::io::stdout();
        let written = out
            .write_all(PROTOCOL.as_bytes())
            .and_then(|()| out.flush());
        return Some(if written.is_ok() { 0 } else { 1 });
    }
    if first.as_deref() != Some(OsStr::new(GUARD_ARG)) {
        return None;
    }
    let parent = args.next().and_then(|p| p.to_str()?.parse::<i32>().ok());
    let (Some(parent), None) = (parent, args.next()) else {
        eprintln!(
            "chatmd: usage: chatmd {GUARD_ARG} <parent pid> (chatmd starts it; not run by hand)"
        );
        return Some(2);
    };
    Some(run_guard(parent))
}

#[cfg(target_os = "linux")]
fn run_guard(parent: i32) -> i32 {
    match super::guard_loop::socket_from_stdin() {
        Ok(socket) => super::guard_loop::run(parent, socket),
        Err(error) => {
            eprintln!("chatmd: the agent guard has no socket to chatmd: {error}");
            126
        }
    }
}

/// Without `PR_SET_PDEATHSIG` and `signalfd` there is no guard: chatmd starts its
/// agents itself there ([`program`] is `None`).
#[cfg(not(target_os = "linux"))]
fn run_guard(_parent: i32) -> i32 {
    eprintln!("chatmd: the agent guard runs on Linux only");
    2
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn other_command_lines_are_not_the_guard() {
        let args = |list: &[&str]| {
            list.iter()
                .map(OsString::from)
                .collect::<Vec<_>>()
                .into_iter()
        };
        assert_eq!(run_if_guard(args(&["send", "a.chat.md"])), None);
        assert_eq!(run_if_guard(args(&[])), None);
        assert_eq!(run_if_guard(args(&[GUARD_ARG, "not-a-pid"])), Some(2));
        assert_eq!(run_if_guard(args(&[GUARD_ARG, "1", "sh"])), Some(2));
    }
}
