//! chatmd's side of its agent guard: starts the guard at the first agent (and again
//! if it ever ends), asks it to start each agent with pipes chatmd made, and hands
//! each agent's end to whoever waits for it.
//!
//! One thread reads the guard's answers in order: an agent's start is always read
//! before its end, so the end always finds who waits for it.

use std::collections::HashMap;
use std::ffi::OsString;
use std::os::fd::{AsFd, OwnedFd};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::Path;
use std::process::{Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::RecvTimeoutError;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use nix::sys::signal::Signal;
use process_wrap::std::{ChildWrapper, CommandWrap, ResetSigmask};
use rustix::net::{AddressFamily, SocketFlags, SocketType};
use tokio::sync::oneshot;

use super::group::signal_group;
use super::guard_wire::{self, Reply, Start};

/// How long a start may take the guard before chatmd gives up on it.
const ANSWER: Duration = Duration::from_secs(10);

/// The guard serving this process, once started.
static CURRENT: Mutex<Option<Arc<Connection>>> = Mutex::new(None);

/// A started agent as the guard reports it.
type Started = std::io::Result<(i32, oneshot::Receiver<ExitStatus>)>;

struct Connection {
    socket: OwnedFd,
    /// Held while a request's packets are sent, so two never interleave.
    sending: Mutex<()>,
    next_request: AtomicU64,
    waiting: Mutex<Waiting>,
}

#[derive(Default)]
struct Waiting {
    /// Set once the guard is gone: nothing more will be answered.
    gone: bool,
    starts: HashMap<u64, std::sync::mpsc::Sender<Started>>,
    ends: HashMap<i32, oneshot::Sender<ExitStatus>>,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// An agent the guard started: its process id and its end, when it comes.
pub(crate) struct GuardedChild {
    pid: i32,
    end: oneshot::Receiver<ExitStatus>,
    status: Option<ExitStatus>,
}

impl GuardedChild {
    pub(crate) fn id(&self) -> i32 {
        self.pid
    }

    /// Waits for the agent's end (reported once nothing of its group is left).
    /// Cancel-safe, and asked again it answers the same.
    pub(crate) async fn wait(&mut self) -> std::io::Result<ExitStatus> {
        if let Some(status) = self.status {
            return Ok(status);
        }
        match (&mut self.end).await {
            Ok(status) => {
                self.status = Some(status);
                Ok(status)
            }
            Err(_) => Err(std::io::Error::other(
                "the agent guard ended before the agent did",
            )),
        }
    }
}

/// The agent's three standard streams, chatmd's ends kept by the caller.
pub(crate) struct ChildStdio {
    pub stdin: OwnedFd,
    pub stdout: OwnedFd,
    pub stderr: OwnedFd,
}

/// Asks the guard program `guard` (started first if none runs) to start `start`
/// with `stdio`; the descriptors are closed here once the guard has its copies.
pub(crate) fn start(
    guard: &Path,
    start: &Start,
    stdio: ChildStdio,
) -> std::io::Result<GuardedChild> {
    let connection = connection(guard)?;
    let request = connection.next_request.fetch_add(1, Ordering::Relaxed);
    let (answer, answered) = std::sync::mpsc::channel();
    {
        let mut waiting = lock(&connection.waiting);
        if waiting.gone {
            return Err(gone());
        }
        waiting.starts.insert(request, answer);
    }
    let sent = {
        let _sending = lock(&connection.sending);
        guard_wire::send_start(
            connection.socket.as_fd(),
            request,
            start,
            [
                stdio.stdin.as_fd(),
                stdio.stdout.as_fd(),
                stdio.stderr.as_fd(),
            ],
        )
    };
    // chatmd's copies of the agent's ends: the agent's stdout ends only once no
    // process holds its write end.
    drop(stdio);
    if let Err(error) = sent {
        lock(&connection.waiting).starts.remove(&request);
        return Err(error);
    }
    let (pid, end) = match answered.recv_timeout(ANSWER) {
        Ok(started) => started?,
        Err(RecvTimeoutError::Timeout) => {
            lock(&connection.waiting).starts.remove(&request);
            return Err(std::io::Error::new(
                std::io::ErrorKind::TimedOut,
                "the agent guard did not start the agent in time",
            ));
        }
        Err(RecvTimeoutError::Disconnected) => return Err(gone()),
    };
    Ok(GuardedChild {
        pid,
        end,
        status: None,
    })
}

/// Starts the agent guard now, when guarding is on and none runs, so that its own
/// start (about a millisecond and a half of loading) overlaps chatmd's work before
/// the first agent instead of coming before it. `chatmd send` calls it once it knows
/// it will run turns; a guard that then starts no agent ends with chatmd.
///
/// On a thread of its own: the guard is forked (see [`connection`]), and the thread
/// that forks waits for its exec (half a millisecond, copying the page tables of a
/// large binary), while chatmd could read the team and the chat. The first agent's
/// start waits for this one to end (both take [`CURRENT`]), so there is one guard.
pub fn start_early() {
    let started = std::thread::Builder::new()
        .name("agent-guard-start".into())
        .spawn(|| {
            if let Some(guard) = super::guard::program()
                && let Err(error) = connection(guard)
            {
                // The first agent tries again, and reports what fails.
                tracing::debug!(%error, "the agent guard could not start early");
            }
        });
    if let Err(error) = started {
        tracing::debug!(%error, "the agent guard is started with the first agent");
    }
}

fn gone() -> std::io::Error {
    std::io::Error::other("the agent guard ended; it starts again with the next agent")
}

/// The running guard, started now if there is none.
fn connection(guard: &Path) -> std::io::Result<Arc<Connection>> {
    let mut current = lock(&CURRENT);
    if let Some(connection) = current.as_ref()
        && !lock(&connection.waiting).gone
    {
        return Ok(connection.clone());
    }
    let (ours, theirs) = rustix::net::socketpair(
        AddressFamily::UNIX,
        SocketType::SEQPACKET,
        SocketFlags::CLOEXEC,
        None,
    )?;
    let mut command = Command::new(guard);
    command
        .arg0("chatmd-agent-guard")
        .arg(super::guard::GUARD_ARG)
        .arg(std::process::id().to_string())
        .stdin(Stdio::from(theirs))
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        // Its own group: a signal to chatmd's group (Ctrl-C in a terminal, a kill of
        // the editor's group) does not end the guard before it ended the agents.
        .process_group(0);
    for own in crate::malloc::own_variables() {
        command.env_remove(own);
    }
    // Started by a fork (`ResetSigmask` is a `pre_exec`), not `posix_spawn`: glibc's
    // `posix_spawn` leaves its own internal signals (32 and 33) ignored in the child,
    // and the guard's agents would inherit that; through a fork they start as clean
    // as chatmd's own children.
    let process = CommandWrap::from(command).wrap(ResetSigmask).spawn()?;
    let reader = ours.try_clone()?;
    let connection = Arc::new(Connection {
        socket: ours,
        sending: Mutex::new(()),
        next_request: AtomicU64::new(0),
        waiting: Mutex::new(Waiting::default()),
    });
    let shared = connection.clone();
    std::thread::Builder::new()
        .name("agent-guard".into())
        .spawn(move || read_answers(reader, shared, process))?;
    *current = Some(connection.clone());
    Ok(connection)
}

/// Reads the guard's answers until it is gone, then fails whatever still waits and
/// reaps the guard.
fn read_answers(socket: OwnedFd, connection: Arc<Connection>, mut process: Box<dyn ChildWrapper>) {
    loop {
        let packet = match guard_wire::receive(&socket) {
            Ok(Some(packet)) => packet,
            Ok(None) => break,
            Err(error) => {
                tracing::warn!(%error, "reading the agent guard failed");
                break;
            }
        };
        let Ok(reply) = guard_wire::parse_reply(&packet.bytes) else {
            tracing::warn!("the agent guard sent a malformed answer");
            break;
        };
        let mut waiting = lock(&connection.waiting);
        match reply {
            Reply::Started { request, pid } => {
                let (ended, end) = oneshot::channel();
                let taken = waiting
                    .starts
                    .remove(&request)
                    .is_some_and(|answer| answer.send(Ok((pid, end))).is_ok());
                if taken {
                    waiting.ends.insert(pid, ended);
                } else {
                    // Started after its turn gave up waiting: nothing reads it.
                    signal_group(pid, Signal::SIGKILL);
                }
            }
            Reply::Failed { request, errno } => {
                if let Some(answer) = waiting.starts.remove(&request) {
                    let error = if errno == 0 {
                        std::io::Error::other("the agent guard could not start the agent")
                    } else {
                        std::io::Error::from_raw_os_error(errno)
                    };
                    let _ = answer.send(Err(error));
                }
            }
            Reply::Ended { pid, status } => {
                if let Some(ended) = waiting.ends.remove(&pid) {
                    let _ = ended.send(ExitStatus::from_raw(status));
                }
            }
        }
    }
    // Dropping the senders tells every waiter the guard is gone. Its agents are
    // init's now, and nothing would end them if chatmd died: they end here, so no
    // agent ever runs unguarded (their turns fail, saying the guard ended).
    let orphans = std::mem::replace(
        &mut *lock(&connection.waiting),
        Waiting {
            gone: true,
            ..Waiting::default()
        },
    );
    for &pid in orphans.ends.keys() {
        signal_group(pid, Signal::SIGKILL);
    }
    let _ = process.kill();
    let status = process.wait();
    tracing::warn!(
        agents = orphans.ends.len(),
        status = ?status.ok(),
        "the agent guard ended before chatmd (was it killed?); its running agents were \
         ended with it, and the next agent starts a new guard"
    );
}

/// The whole environment an agent gets: chatmd's own, less its allocator settings,
/// with the invocation's variables over it.
pub(crate) fn agent_environment(own: &[(String, String)]) -> Vec<(OsString, OsString)> {
    let allocator = crate::malloc::own_variables();
    let mut env: Vec<(OsString, OsString)> = std::env::vars_os()
        .filter(|(key, _)| {
            !allocator.iter().any(|variable| key == variable)
                && !own.iter().any(|(set, _)| key == set.as_str())
        })
        .collect();
    env.extend(
        own.iter()
            .map(|(key, value)| (OsString::from(key), OsString::from(value))),
    );
    env
}
