//! The agent guard's own process: it starts every agent chatmd asks for, each as the
//! leader of a process group of its own, tells chatmd each one's end, and SIGKILLs
//! every group it started once chatmd is gone.
//!
//! It waits on two things at once (`poll`): its socket to chatmd (a request, or the
//! end of file that says chatmd is gone: the kernel closes a dead process's end, so a
//! SIGKILL of chatmd is seen too) and its signals through a `signalfd` (SIGCHLD; a
//! SIGHUP, SIGINT, SIGTERM or SIGQUIT only makes it look whether chatmd is still its
//! parent). It is a child subreaper: what an agent leaves orphaned becomes its child,
//! and it reaps it. When an agent exits, what is left of its group gets the agent's
//! settle time to end by itself, then is SIGKILLed; only then is the end reported,
//! so chatmd's turn is over with nothing of it left running.

use std::collections::HashMap;
use std::os::fd::{AsFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use nix::errno::Errno;
use nix::sys::prctl;
use nix::sys::signal::{SigSet, Signal, killpg};
use nix::sys::signalfd::{SfdFlags, SignalFd};
use nix::sys::wait::{WaitPidFlag, WaitStatus, waitpid};
use nix::unistd::{Pid, getppid};
use process_wrap::std::{CommandWrap, ResetSigmask};
use rustix::event::{PollFd, PollFlags};

use super::guard_wire::{self, Incoming, Received, Reply, Start};

/// How often a group that is being SIGKILLed is looked at.
const TICK: Duration = Duration::from_millis(1);

/// How often a group left to end by itself is looked at.
const SETTLE_TICK: Duration = Duration::from_millis(5);

/// The longest a group is left to end by itself (chatmd asks 10 s at most).
const MAX_SETTLE: Duration = Duration::from_secs(60);

/// How long SIGKILLs are sent to a group before its agent's end is reported anyway
/// (a process stuck in the kernel, or one that left the group, is chatmd's to report).
const KILL_FOR: Duration = Duration::from_secs(1);

/// An agent the guard started.
struct Agent {
    /// How long what it started may go on by itself once it exited.
    settle: Duration,
    /// Its raw wait status once it exited, with when.
    ended: Option<(i32, Instant)>,
}

/// Runs the guard for chatmd (process `parent`), reading requests from `socket`.
/// Returns the guard's exit code.
pub(super) fn run(parent: i32, socket: OwnedFd) -> i32 {
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
    // Blocked, so they only arrive through the signalfd; an agent's mask is cleared
    // again as it starts (`ResetSigmask`), or it would ignore chatmd's SIGTERM.
    if let Err(error) = watched.thread_block() {
        eprintln!("chatmd: the agent guard cannot block signals: {error}");
        return 126;
    }
    let signals =
        match SignalFd::with_flags(&watched, SfdFlags::SFD_NONBLOCK | SfdFlags::SFD_CLOEXEC) {
            Ok(signals) => signals,
            Err(error) => {
                eprintln!("chatmd: the agent guard cannot watch its signals: {error}");
                return 126;
            }
        };
    // A second way to learn of chatmd's death; the socket's end is the first.
    if let Err(error) = prctl::set_pdeathsig(Signal::SIGHUP) {
        eprintln!("chatmd: the agent guard cannot watch chatmd: {error}");
        return 126;
    }
    // What an agent leaves orphaned becomes the guard's child, not init's: the guard
    // reaps it (an init that never reaps, as in some containers, would leave zombies
    // in the group for good).
    let _ = prctl::set_child_subreaper(true);
    if getppid().as_raw() != parent {
        return 129;
    }
    // Started through `/proc/self/fd/<n>`, the guard would show as `<n>` in `ps -e`
    // and `top`.
    let _ = prctl::set_name(c"chatmd-guard");
    let mut guard = Guard {
        parent,
        socket,
        agents: HashMap::new(),
        incoming: None,
    };
    let code = guard.serve(&signals);
    guard.kill_all();
    code
}

struct Guard {
    parent: i32,
    socket: OwnedFd,
    agents: HashMap<i32, Agent>,
    incoming: Option<Incoming>,
}

impl Guard {
    /// Serves chatmd until it is gone; returns the exit code.
    fn serve(&mut self, signals: &SignalFd) -> i32 {
        loop {
            let timeout = self.next_look().map(|tick| rustix::event::Timespec {
                tv_sec: 0,
                tv_nsec: tick.as_nanos() as _,
            });
            let mut fds = [
                PollFd::new(&self.socket, PollFlags::IN),
                PollFd::new(signals, PollFlags::IN),
            ];
            match rustix::event::poll(&mut fds, timeout.as_ref()) {
                Ok(_) | Err(rustix::io::Errno::INTR) => {}
                Err(error) => {
                    eprintln!("chatmd: the agent guard cannot wait: {error}");
                    return 1;
                }
            }
            let (from_chatmd, signalled) =
                (!fds[0].revents().is_empty(), !fds[1].revents().is_empty());
            if from_chatmd {
                match guard_wire::receive(&self.socket) {
                    Ok(Some(packet)) => {
                        if let Err(error) = self.take(packet) {
                            eprintln!("chatmd: the agent guard stops: {error}");
                            return 1;
                        }
                    }
                    // chatmd is gone (or closed its end): its agents go with it.
                    Ok(None) => return 0,
                    Err(error) => {
                        eprintln!("chatmd: the agent guard lost chatmd: {error}");
                        return 1;
                    }
                }
            }
            if signalled {
                while let Ok(Some(info)) = signals.read_signal() {
                    if info.ssi_signo != Signal::SIGCHLD as u32 && getppid().as_raw() != self.parent
                    {
                        return 0;
                    }
                }
                self.reap();
            }
            self.end_emptied();
        }
    }

    /// Takes one packet of a request; starts the agent once the request is whole.
    fn take(&mut self, packet: guard_wire::Packet) -> Result<(), guard_wire::Malformed> {
        match guard_wire::take_packet(packet, self.incoming.take())? {
            Received::Partial(incoming) => self.incoming = Some(incoming),
            Received::Whole {
                request,
                start,
                stdio,
            } => {
                let started = start.map(|start| {
                    let settle = Duration::from_millis(start.settle_ms).min(MAX_SETTLE);
                    start_agent(&start, stdio).map(|pid| (pid, settle))
                });
                let reply = match started {
                    Ok(Ok((pid, settle))) => {
                        self.agents.insert(
                            pid,
                            Agent {
                                settle,
                                ended: None,
                            },
                        );
                        Reply::Started { request, pid }
                    }
                    Ok(Err(error)) => Reply::Failed {
                        request,
                        errno: error.raw_os_error().unwrap_or(0),
                    },
                    Err(guard_wire::Malformed) => Reply::Failed {
                        request,
                        errno: Errno::EINVAL as i32,
                    },
                };
                // A chatmd that cannot hear the answer is gone: the next read says so.
                let _ = guard_wire::send_reply(self.socket.as_fd(), reply);
            }
        }
        Ok(())
    }

    /// Reaps every child that ended: an agent (its group then gets its settle time)
    /// or an orphan handed to the guard.
    fn reap(&mut self) {
        loop {
            let (pid, status) = match waitpid(None::<Pid>, Some(WaitPidFlag::WNOHANG)) {
                Ok(WaitStatus::Exited(pid, code)) => (pid, (code & 0xff) << 8),
                Ok(WaitStatus::Signaled(pid, signal, core)) => {
                    (pid, signal as i32 | if core { 0x80 } else { 0 })
                }
                Ok(WaitStatus::StillAlive) | Err(_) => return,
                Ok(_) => continue,
            };
            if let Some(agent) = self.agents.get_mut(&pid.as_raw()) {
                agent.ended = Some((status, Instant::now()));
            }
        }
    }

    /// How soon a group must be looked at again: none while every agent runs.
    fn next_look(&self) -> Option<Duration> {
        let now = Instant::now();
        self.agents
            .values()
            .filter_map(|agent| {
                let (_, ended_at) = agent.ended?;
                Some(if now >= ended_at + agent.settle {
                    TICK
                } else {
                    SETTLE_TICK
                })
            })
            .min()
    }

    /// Reports the end of each exited agent whose group is empty (or was SIGKILLed
    /// for long enough), SIGKILLing the groups whose settle time is over.
    fn end_emptied(&mut self) {
        let now = Instant::now();
        let mut over = Vec::new();
        for (&pid, agent) in &self.agents {
            let Some((status, ended_at)) = agent.ended else {
                continue;
            };
            let group = Pid::from_raw(pid);
            // ESRCH: the group is empty.
            if killpg(group, None).is_err() {
                over.push((pid, status));
                continue;
            }
            let settle = agent.settle;
            if now >= ended_at + settle {
                // EPERM: what is left is not the guard's to kill.
                if killpg(group, Signal::SIGKILL).is_err() || now >= ended_at + settle + KILL_FOR {
                    over.push((pid, status));
                }
            }
        }
        for (pid, status) in over {
            self.agents.remove(&pid);
            let _ = guard_wire::send_reply(self.socket.as_fd(), Reply::Ended { pid, status });
        }
    }

    /// SIGKILLs every group the guard started and waits (bounded) until they are
    /// empty, reaping what was handed to it.
    fn kill_all(&mut self) {
        let deadline = Instant::now() + KILL_FOR;
        loop {
            self.reap();
            self.agents
                .retain(|&pid, _| killpg(Pid::from_raw(pid), Signal::SIGKILL).is_ok());
            if self.agents.is_empty() || Instant::now() >= deadline {
                return;
            }
            std::thread::sleep(TICK);
        }
    }
}

/// Starts the agent `start` with the standard streams `stdio` as the leader of a new
/// process group; returns its process id.
fn start_agent(start: &Start, stdio: Vec<OwnedFd>) -> std::io::Result<i32> {
    let [stdin, stdout, stderr]: [OwnedFd; guard_wire::STDIO] = stdio
        .try_into()
        .map_err(|_| std::io::Error::from(std::io::ErrorKind::InvalidInput))?;
    let mut command = CommandWrap::from(Command::new(&start.program));
    command
        .command_mut()
        .args(&start.args)
        .env_clear()
        .envs(start.env.iter().map(|(key, value)| (key, value)))
        .current_dir(&start.folder)
        .stdin(Stdio::from(stdin))
        .stdout(Stdio::from(stdout))
        .stderr(Stdio::from(stderr))
        .process_group(0);
    let child = command.wrap(ResetSigmask).spawn()?;
    // The guard reaps it itself (`waitpid` of any child), so its handle is not kept.
    i32::try_from(child.id()).map_err(std::io::Error::other)
}

/// The socket a guard was started with (its stdin), as a descriptor of its own.
pub(super) fn socket_from_stdin() -> std::io::Result<OwnedFd> {
    std::io::stdin().as_fd().try_clone_to_owned()
}
