//! The agent's process group: spawned as its leader (process-wrap), signalled as a
//! whole, and watched until empty, so no grandchild outlives its turn.

use std::ffi::OsString;
use std::os::fd::OwnedFd;
use std::path::Path;
use std::process::Stdio;

use nix::errno::Errno;
use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;
use process_wrap::tokio::{ChildWrapper, CommandWrap, KillOnDrop, ProcessGroup};
use tokio::process::{ChildStderr, ChildStdin, ChildStdout};
use tokio::time::Instant;

use crate::agents::{Invocation, Stdin};

use super::guard_client::{self, ChildStdio, GuardedChild};
use super::guard_wire::Start;

/// How often an emptying group is looked at.
const POLL: std::time::Duration = std::time::Duration::from_millis(5);

/// A started child with its pipes taken out.
pub(crate) struct Spawned {
    pub child: AgentChild,
    pub group: Group,
    /// Present when the invocation has a prompt to write.
    pub stdin: Option<ChildStdin>,
    pub stdout: ChildStdout,
    pub stderr: ChildStderr,
}

/// The agent's process, started by chatmd itself or by its agent guard.
pub(crate) enum AgentChild {
    /// chatmd's own child (no guard: the runner inside a test process).
    Direct(Box<dyn ChildWrapper>),
    /// The guard's child; the guard reports its end.
    Guarded(GuardedChild),
}

impl AgentChild {
    /// Waits for the agent's exit. Cancel-safe.
    pub(crate) async fn wait(&mut self) -> std::io::Result<std::process::ExitStatus> {
        match self {
            AgentChild::Direct(child) => child.wait().await,
            AgentChild::Guarded(child) => child.wait().await,
        }
    }
}

/// Starts `program` as the leader of a new process group.
///
/// With guarding on (the `chatmd` binary), the agent guard (see `guard`) starts it,
/// and kills its group if chatmd dies without cleaning up. Without it (the runner
/// inside a test process) chatmd starts it itself: a normal exit kills it (drop), a
/// SIGKILL of the process does not.
/// `settle` is how long what the agent started may go on by itself once the agent
/// exited (an agent that saves its session as it exits: [`Session::exit_grace`]).
///
/// [`Session::exit_grace`]: crate::agents::Session::exit_grace
pub(crate) fn spawn(
    program: &Path,
    invocation: &Invocation,
    settle: std::time::Duration,
) -> std::io::Result<Spawned> {
    match super::guard::program() {
        Some(guard) => spawn_guarded(guard, program, invocation, settle),
        None => spawn_direct(program, invocation),
    }
}

fn spawn_guarded(
    guard: &Path,
    program: &Path,
    invocation: &Invocation,
    settle: std::time::Duration,
) -> std::io::Result<Spawned> {
    let (stdin_theirs, stdin_ours) = match invocation.stdin {
        Stdin::Null => (std::fs::File::open("/dev/null")?.into(), None),
        Stdin::Prompt(_) => {
            let (read, write) = std::io::pipe()?;
            (OwnedFd::from(read), Some(write))
        }
    };
    let (stdout_ours, stdout_theirs) = std::io::pipe()?;
    let (stderr_ours, stderr_theirs) = std::io::pipe()?;
    let start = Start {
        settle_ms: u64::try_from(settle.as_millis()).unwrap_or(u64::MAX),
        program: program.as_os_str().to_owned(),
        folder: invocation.cwd.clone(),
        args: invocation.args.iter().map(OsString::from).collect(),
        env: guard_client::agent_environment(&invocation.env),
    };
    let child = guard_client::start(
        guard,
        &start,
        ChildStdio {
            stdin: stdin_theirs,
            stdout: stdout_theirs.into(),
            stderr: stderr_theirs.into(),
        },
    )?;
    // The group exists before anything else can fail, so it dies on every path.
    let group = Group {
        pgid: Pid::from_raw(child.id()),
        armed: true,
    };
    let stdin = stdin_ours
        .map(|write| ChildStdin::from_std(std::process::ChildStdin::from(OwnedFd::from(write))))
        .transpose()?;
    let stdout =
        ChildStdout::from_std(std::process::ChildStdout::from(OwnedFd::from(stdout_ours)))?;
    let stderr =
        ChildStderr::from_std(std::process::ChildStderr::from(OwnedFd::from(stderr_ours)))?;
    Ok(Spawned {
        child: AgentChild::Guarded(child),
        group,
        stdin,
        stdout,
        stderr,
    })
}

fn spawn_direct(program: &Path, invocation: &Invocation) -> std::io::Result<Spawned> {
    let mut command = CommandWrap::with_new(program, |command| {
        for own in crate::malloc::own_variables() {
            command.env_remove(own);
        }
        command
            .args(&invocation.args)
            .envs(invocation.env.iter().map(|(k, v)| (k, v)))
            .current_dir(&invocation.cwd)
            .stdin(match invocation.stdin {
                Stdin::Null => Stdio::null(),
                Stdin::Prompt(_) => Stdio::piped(),
            })
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
    });
    command.wrap(ProcessGroup::leader()).wrap(KillOnDrop);
    let mut child = command.spawn()?;
    let pid = child
        .id()
        .and_then(|id| i32::try_from(id).ok())
        .ok_or_else(|| std::io::Error::other("the child has no process id"))?;
    let group = Group {
        pgid: Pid::from_raw(pid),
        armed: true,
    };
    let missing = || std::io::Error::other("a pipe of the child is missing");
    let stdin = child.stdin().take();
    let stdout = child.stdout().take().ok_or_else(missing)?;
    let stderr = child.stderr().take().ok_or_else(missing)?;
    Ok(Spawned {
        child: AgentChild::Direct(child),
        group,
        stdin,
        stdout,
        stderr,
    })
}

/// A process group that is SIGKILLed when dropped unless disarmed, so even a turn
/// future dropped halfway leaves no process behind.
#[derive(Debug)]
pub(crate) struct Group {
    pgid: Pid,
    armed: bool,
}

impl Group {
    /// The group's id (its leader's process id).
    pub(crate) fn id(&self) -> i32 {
        self.pgid.as_raw()
    }

    /// Signals every process of the group; an empty group is not an error. Once the
    /// leader is reaped its id is only held while the group has members, so the group
    /// is probed first: a signal never goes to a reused id of an emptied group.
    pub(crate) fn signal(&self, signal: Signal) {
        signal_group(self.pgid.as_raw(), signal);
    }

    /// Whether a process of the group is still running (zombies do not count: they
    /// hold nothing but a process-table slot, and their reaper is not us).
    pub(crate) fn has_live_members(&self) -> bool {
        match killpg(self.pgid, None) {
            Err(Errno::ESRCH) => false,
            _ => live_members_in_proc(self.pgid.as_raw()).unwrap_or(true),
        }
    }

    /// Waits until the group has no running process, or `deadline`. Returns whether
    /// it emptied.
    pub(crate) async fn wait_empty(&self, deadline: Instant) -> bool {
        loop {
            if !self.has_live_members() {
                return true;
            }
            if Instant::now() >= deadline {
                return false;
            }
            tokio::time::sleep(POLL).await;
        }
    }

    /// SIGKILLs the group until it has no running process, or `deadline` (a process
    /// forked while the first signal was on its way gets the next one). Returns whether
    /// it emptied.
    pub(crate) async fn kill_and_wait(&self, deadline: Instant) -> bool {
        loop {
            if !self.has_live_members() {
                return true;
            }
            self.signal(Signal::SIGKILL);
            if Instant::now() >= deadline {
                return false;
            }
            tokio::time::sleep(POLL).await;
        }
    }

    /// Called once the group is known empty: a group id can be reused afterwards, and
    /// a late kill must never reach a stranger.
    pub(crate) fn disarm(&mut self) {
        self.armed = false;
    }
}

impl Drop for Group {
    fn drop(&mut self) {
        if self.armed {
            self.signal(Signal::SIGKILL);
        }
    }
}

/// Signals every process of group `pgid`, probed first (see [`Group::signal`]); an
/// empty group is not an error.
pub(super) fn signal_group(pgid: i32, signal: Signal) {
    let pgid = Pid::from_raw(pgid);
    match killpg(pgid, None).and_then(|()| killpg(pgid, signal)) {
        Ok(()) | Err(Errno::ESRCH) => {}
        Err(error) => tracing::debug!(pgid = pgid.as_raw(), %error, "killpg failed"),
    }
}

/// Scans `/proc` for a process of group `pgid` that is not a zombie. `None` where
/// there is no `/proc` to read.
fn live_members_in_proc(pgid: i32) -> Option<bool> {
    let found =
        processes()?.any(|(_, state, group)| group == pgid && !matches!(state, 'Z' | 'X' | 'x'));
    Some(found)
}

/// Every process `/proc` lists now, as its id, state and process group (one that
/// ends meanwhile is left out); `None` where there is no `/proc` to read.
pub(crate) fn processes() -> Option<impl Iterator<Item = (u32, char, i32)>> {
    let entries = std::fs::read_dir("/proc").ok()?;
    Some(entries.flatten().filter_map(|entry| {
        let pid: u32 = entry.file_name().to_str()?.parse().ok()?;
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
        let (state, group) = parse_stat(&stat)?;
        Some((pid, state, group))
    }))
}

/// The state and process group of a `/proc/<pid>/stat` line. The command name may
/// hold spaces and parentheses, so fields are counted after its last `)`.
pub(crate) fn parse_stat(stat: &str) -> Option<(char, i32)> {
    let after = &stat[stat.rfind(')')? + 1..];
    let mut fields = after.split_ascii_whitespace();
    let state = fields.next()?.chars().next()?;
    let _parent = fields.next()?;
    let group = fields.next()?.parse().ok()?;
    Some((state, group))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_state_and_group_even_with_odd_command_names() {
        assert_eq!(
            parse_stat("4242 (sleep) S 1 4240 4240 0 -1 4194560 ..."),
            Some(('S', 4240))
        );
        assert_eq!(parse_stat("77 (a) b (c)) Z 1 70 70 0"), Some(('Z', 70)));
        assert_eq!(parse_stat("garbage"), None);
    }
}
