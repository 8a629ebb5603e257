//! The agent guard: a small process between chatmd and each agent, so that no agent
//! outlives chatmd, even when chatmd is killed without a chance to clean up (SIGKILL,
//! the OOM killer, a crash).
//!
//! chatmd starts `chatmd __agent-guard <chatmd pid> <settle ms> <program> <args>...` (its own
//! binary, through `/proc/self/exe`) as the leader of a new process group; the guard
//! starts the agent in that same group, with the same stdin, stdout, stderr, folder and
//! environment, and waits. The guard asks the kernel for a signal when its parent dies
//! (`PR_SET_PDEATHSIG`, through nix's safe wrapper: no `pre_exec`, which would need
//! `unsafe`), then checks that its parent is still chatmd (it may have died before the
//! request). When chatmd is gone, the guard SIGKILLs its whole process group: the agent,
//! whatever the agent started (grandchildren too) and itself. When the agent ends first,
//! the guard SIGKILLs what is left of the group before it exits too: once it is gone,
//! nothing would end those processes if chatmd were killed before it ends the group.
//! An agent that leaves a process saving its session behind (Claude Code under
//! claude-agent-acp writes the session's cost record after the adapter exited) gets
//! `<settle ms>` for the rest of the group to end by itself first (0: none).
//!
//! The parent-death signal comes when the *thread* that started the guard exits, which
//! tokio's threads may do while chatmd lives on; so the signal only makes the guard
//! look: it acts when its parent is no longer chatmd's process.
//!
//! For chatmd the guard is the agent: its process group is the agent's, its exit status
//! is the agent's (an exit code is passed on, a killing signal is raised again on the
//! guard), and the runner signals the group as before.
//!
//! One guard runs beside every agent, so the guard is the small `chatmd-agent-guard`
//! binary when it lies beside `chatmd` and speaks this build's arguments (asked once,
//! [`PROTOCOL_ARG`]): as guard, `chatmd` itself cost each agent about 0.6 MB more of
//! its own memory (its relocated data and allocator). The file is kept open and
//! started through `/proc/self/fd`, so a newer one installed meanwhile is not started
//! with this build's arguments. Otherwise `chatmd` is its own guard.

use std::ffi::{OsStr, OsString};
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::ExitStatus;
use std::sync::OnceLock;

/// The hidden first argument that runs the guard instead of the command line.
pub const GUARD_ARG: &str = "__agent-guard";

/// The first argument that asks a guard program which arguments it takes: it prints
/// [`PROTOCOL`] and exits.
pub const PROTOCOL_ARG: &str = "__agent-guard-protocol";

/// The guard's arguments in this build; changed whenever they change, so a guard of
/// another build is never started with them.
const PROTOCOL: &str = "chatmd agent guard 2: <parent pid> <settle ms> <program> [args]...";

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
    let settle = args.next().and_then(|ms| ms.to_str()?.parse::<u64>().ok());
    let (Some(parent), Some(settle), Some(program)) = (parent, settle, args.next()) else {
        eprintln!("chatmd: usage: chatmd {GUARD_ARG} <parent pid> <settle ms> <program> [args]...");
        return Some(2);
    };
    let settle = std::time::Duration::from_millis(settle);
    Some(imp::guard(parent, settle, &program, args.collect()))
}

/// The exit status to end with: the agent's code, or 128 + the signal that killed it
/// (used only when raising that signal on the guard did not end it).
fn fallback_code(status: ExitStatus) -> i32 {
    match (status.code(), status.signal()) {
        (Some(code), _) => code,
        (None, Some(signal)) => 128 + signal,
        (None, None) => 1,
    }
}

#[cfg(target_os = "linux")]
mod imp {
    use std::ffi::OsString;
    use std::os::unix::process::ExitStatusExt;
    use std::process::{Command, ExitStatus};
    use std::time::{Duration, Instant};

    use nix::sys::prctl;
    use nix::sys::signal::{SigSet, Signal, killpg, raise};
    use nix::sys::wait::{WaitPidFlag, WaitStatus, waitpid};
    use nix::unistd::{Pid, getpgid, getpgrp, getppid, setpgid};
    use process_wrap::std::{CommandWrap, ResetSigmask};

    /// Starts the agent and waits for it; kills the group when chatmd dies first.
    pub(super) fn guard(
        parent: i32,
        settle: Duration,
        program: &OsString,
        args: Vec<OsString>,
    ) -> i32 {
        // Blocked from the start, so none is lost: they are taken with `wait` below.
        // A child inherits the mask: the agent's is cleared again (`ResetSigmask`), or
        // it would ignore the SIGTERM that asks it to stop.
        let mut watched = SigSet::empty();
        for signal in [
            Signal::SIGCHLD,
            Signal::SIGHUP,
            Signal::SIGINT,
            Signal::SIGTERM,
            Signal::SIGQUIT,
        ] {
            watched.add(signal);
        }
        if let Err(error) = watched.thread_block() {
            eprintln!("chatmd: the agent guard cannot block signals: {error}");
            return 126;
        }
        if let Err(error) = prctl::set_pdeathsig(Signal::SIGHUP) {
            eprintln!("chatmd: the agent guard cannot watch chatmd: {error}");
            return 126;
        }
        // What the agent leaves orphaned becomes the guard's child, not init's: the
        // guard reaps it at the end (an init that never reaps, as in some containers,
        // would leave zombies in the group for good).
        let _ = prctl::set_child_subreaper(true);
        // chatmd may have died before the request above: then nothing is started.
        if getppid().as_raw() != parent {
            return 129;
        }
        let mut command = CommandWrap::from(Command::new(program));
        command.command_mut().args(args);
        let mut child = match command.wrap(ResetSigmask).spawn() {
            Ok(child) => child,
            Err(error) => {
                eprintln!(
                    "chatmd: could not start `{}`: {error}",
                    program.to_string_lossy()
                );
                return if error.kind() == std::io::ErrorKind::NotFound {
                    127
                } else {
                    126
                };
            }
        };
        loop {
            match watched.wait() {
                Ok(Signal::SIGCHLD) => match child.try_wait() {
                    Ok(Some(status)) => {
                        // The agent's end is the turn's: once the guard is gone,
                        // nothing would kill what the agent left running if chatmd
                        // died before it does.
                        kill_the_rest(parent, settle);
                        return pass_on(status);
                    }
                    Ok(None) => {}
                    Err(error) => {
                        eprintln!("chatmd: the agent guard lost its agent: {error}");
                        return 1;
                    }
                },
                // A signal to the group (chatmd's SIGTERM on cancel reaches the agent
                // directly) or the parent-death signal: only chatmd's death matters.
                _ => {
                    if getppid().as_raw() != parent {
                        let _ = killpg(getpgrp(), Signal::SIGKILL);
                        // Not reached: the guard is in the group.
                        return 137;
                    }
                }
            }
        }
    }

    /// SIGKILLs every other process of the guard's group and waits until none is
    /// left, after letting them end by themselves for `settle` (while chatmd lives).
    /// The guard leads the group, so `killpg` of it would end the guard too: the
    /// guard first moves to chatmd's group (the group lives on under the guard's id,
    /// which nobody else can take while the guard runs), then kills the group as a
    /// whole. The kernel delivers a group's signal to a process forked meanwhile as
    /// well, and no list of the machine's processes is read (it cost every turn a read
    /// of `/proc/*/stat`). Whatever the agent left orphaned was handed to the guard
    /// (a child subreaper), which reaps it here, so no zombie keeps the group alive.
    fn kill_the_rest(parent: i32, settle: Duration) {
        let group = getpgrp();
        let chatmd_group = getpgid(Some(Pid::from_raw(parent)));
        if chatmd_group
            .and_then(|g| setpgid(Pid::from_raw(0), g))
            .is_err()
        {
            // Cannot leave the group (chatmd already gone, or in another session):
            // chatmd's runner kills the group when it sees the guard end.
            return;
        }
        let settled_by = Instant::now() + settle;
        // ESRCH: the group is empty.
        while killpg(group, None).is_ok()
            && Instant::now() < settled_by
            && getppid().as_raw() == parent
        {
            reap_orphans();
            std::thread::sleep(Duration::from_millis(5));
        }
        // Bounded: a process that cannot die (stuck in the kernel) is chatmd's to
        // report; the guard does not wait for ever.
        for _ in 0..1000 {
            // ESRCH: the group is empty; EPERM: what is left is not the guard's to kill.
            if killpg(group, Signal::SIGKILL).is_err() {
                return;
            }
            reap_orphans();
            std::thread::sleep(Duration::from_millis(1));
        }
    }

    /// Reaps every child that ended (orphans handed to the guard as subreaper).
    fn reap_orphans() {
        while let Ok(status) = waitpid(None::<Pid>, Some(WaitPidFlag::WNOHANG)) {
            if status == WaitStatus::StillAlive {
                return;
            }
        }
    }

    /// Ends the guard the way the agent ended.
    fn pass_on(status: ExitStatus) -> i32 {
        if let Some(number) = status.signal()
            && let Ok(signal) = Signal::try_from(number)
        {
            // No core file of the guard for the agent's crash.
            let _ = prctl::set_dumpable(false);
            let mut set = SigSet::empty();
            set.add(signal);
            let _ = set.thread_unblock();
            let _ = raise(signal);
            // std's stack-overflow handler takes the first SIGSEGV or SIGBUS and puts
            // the default action back; the second one ends the guard.
            let _ = raise(signal);
        }
        super::fallback_code(status)
    }
}

#[cfg(not(target_os = "linux"))]
mod imp {
    use std::ffi::OsString;
    use std::process::Command;

    /// Without `PR_SET_PDEATHSIG` the guard only passes the agent's status on.
    pub(super) fn guard(_parent: i32, program: &OsString, args: Vec<OsString>) -> i32 {
        match Command::new(program).args(args).status() {
            Ok(status) => super::fallback_code(status),
            Err(error) => {
                eprintln!(
                    "chatmd: could not start `{}`: {error}",
                    program.to_string_lossy()
                );
                127
            }
        }
    }
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
    }

    #[test]
    fn the_fallback_code_follows_the_shell() {
        assert_eq!(fallback_code(ExitStatus::from_raw(3 << 8)), 3);
        assert_eq!(fallback_code(ExitStatus::from_raw(15)), 143);
    }
}
