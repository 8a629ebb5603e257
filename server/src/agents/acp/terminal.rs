//! `terminal/*`: chatmd runs an agent's command itself, in the member's workdir (or the
//! absolute `cwd` the request names), as the leader of its own process group like the
//! runner runs agents, so a kill, a release, a cancel of the turn or the end of the
//! turn (the session dropped: a timeout, a crash) stops it and everything it started.
//! Its output (stdout and stderr, as they come) is kept up to the request's
//! `outputByteLimit` (cut from the start, at a character boundary) and shown, as it
//! grows, folded under the tool line whose content embeds the terminal
//! (`conversation/activity.rs`). The answers are the schema's: `create` → `terminalId`;
//! `output` → `output`, `truncated`, and `exitStatus` once it exited; `wait_for_exit` →
//! `exitCode` and `signal`, when it exits; `kill` and `release` → `{}`.
//!
//! Reader threads fill each terminal's shared state and wake the runner
//! ([`Session::set_waker`](crate::agents::Session::set_waker)), which calls back
//! `woken`: new output goes to the document, exits answer the waits.

use std::io::Read;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use agent_client_protocol::v1::schema::{Error, RequestId};
use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;
use serde_json::{Value, json};

use super::rpc;
use crate::agents::output::sanitized;
use crate::agents::session::{Outbox, Waker};

/// The output kept when the request sets no `outputByteLimit`: as much as a long
/// answer, so a chatty command cannot fill the memory.
const DEFAULT_OUTPUT_LIMIT: usize = 1024 * 1024;

/// What the reader threads know of one terminal.
#[derive(Debug, Default)]
struct Shared {
    output: String,
    truncated: bool,
    limit: usize,
    /// `(exitCode, signal)` once the process exited.
    exit: Option<(Option<i32>, Option<String>)>,
    /// The output changed since the document was last told.
    changed: bool,
}

/// One command the agent runs through chatmd.
#[derive(Debug)]
struct Terminal {
    id: String,
    /// The leader's pid: the process group's id.
    group: i32,
    shared: Arc<Mutex<Shared>>,
    /// The agent released it: its id answers no more requests, but the output it
    /// printed before is still shown.
    released: bool,
    /// Told once the leader was reaped (the sender drops then too).
    reaped: Receiver<()>,
    /// A kill was sent; [`Terminals::reap_killed`] waits for it to take.
    killed: bool,
}

/// The terminals of a turn, and the waits for their exits.
pub struct Terminals {
    next: u64,
    running: Vec<Terminal>,
    /// `terminal/wait_for_exit` requests not answered yet: (request, terminal id).
    waits: Vec<(RequestId, String)>,
    /// Tells the runner of news; none outside a runner (nothing would be told).
    waker: Waker,
}

impl Default for Terminals {
    fn default() -> Terminals {
        Terminals {
            next: 1,
            running: Vec::new(),
            waits: Vec::new(),
            waker: std::sync::Arc::new(|| {}),
        }
    }
}

impl std::fmt::Debug for Terminals {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Terminals")
            .field("running", &self.running)
            .field("waits", &self.waits)
            .finish_non_exhaustive()
    }
}

fn lock(shared: &Mutex<Shared>) -> MutexGuard<'_, Shared> {
    shared
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl Terminals {
    /// How the terminals tell the runner of news (output, an exit).
    pub fn set_waker(&mut self, waker: Waker) {
        self.waker = waker;
    }

    /// Answers the agent's `terminal/*` request `id` (or keeps a `wait_for_exit` until
    /// the exit), with `cwd` the member's workdir.
    pub fn request(&mut self, id: RequestId, method: &str, params: &Value, cwd: &Path) -> Vec<u8> {
        let named = params.get("terminalId").and_then(Value::as_str);
        let found = named.and_then(|name| {
            self.running
                .iter()
                .position(|t| t.id == name && !t.released)
        });
        match (method, found) {
            ("terminal/create", _) => match self.create(params, cwd) {
                Ok(terminal) => rpc::result(&id, json!({ "terminalId": terminal })),
                Err(message) => rpc::error(&id, Error::internal_error().data(json!(message))),
            },
            ("terminal/output", Some(index)) => {
                let shared = lock(&self.running[index].shared);
                let mut result = json!({"output": shared.output, "truncated": shared.truncated});
                if let Some(exit) = &shared.exit {
                    result["exitStatus"] = exit_status(exit);
                }
                rpc::result(&id, result)
            }
            ("terminal/wait_for_exit", Some(index)) => {
                let exit = lock(&self.running[index].shared).exit.clone();
                match exit {
                    Some(exit) => rpc::result(&id, exit_status(&exit)),
                    None => {
                        self.waits.push((id, self.running[index].id.clone()));
                        Vec::new()
                    }
                }
            }
            ("terminal/kill", Some(index)) => {
                self.running[index].kill();
                rpc::result(&id, json!({}))
            }
            ("terminal/release", Some(index)) => {
                self.running[index].kill();
                self.running[index].released = true;
                rpc::result(&id, json!({}))
            }
            (
                "terminal/output" | "terminal/wait_for_exit" | "terminal/kill" | "terminal/release",
                None,
            ) => {
                let message = format!("no terminal {}", named.unwrap_or("(none named)"));
                rpc::error(&id, Error::invalid_params().data(json!(message)))
            }
            _ => rpc::error(&id, Error::method_not_found()),
        }
    }

    fn create(&mut self, params: &Value, cwd: &Path) -> Result<String, String> {
        let program = params
            .get("command")
            .and_then(Value::as_str)
            .filter(|c| !c.is_empty())
            .ok_or("terminal/create without a command")?;
        let args: Vec<&str> = params
            .get("args")
            .and_then(Value::as_array)
            .map(|args| args.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let folder = params
            .get("cwd")
            .and_then(Value::as_str)
            .map(PathBuf::from)
            .filter(|c| c.is_absolute())
            .unwrap_or_else(|| cwd.to_path_buf());
        let mut command = Command::new(program);
        command
            .args(&args)
            .current_dir(&folder)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            // Its own group, as the runner starts agents: one signal stops all of it.
            .process_group(0);
        for pair in params
            .get("env")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if let (Some(name), Some(value)) = (pair["name"].as_str(), pair["value"].as_str()) {
                command.env(name, value);
            }
        }
        let mut child = command
            .spawn()
            .map_err(|error| format!("cannot run {program}: {error}"))?;
        let limit = params
            .get("outputByteLimit")
            .and_then(Value::as_u64)
            .map_or(DEFAULT_OUTPUT_LIMIT, |l| l as usize);
        let shared = Arc::new(Mutex::new(Shared {
            limit,
            ..Shared::default()
        }));
        let readers: Vec<_> = [
            child
                .stdout
                .take()
                .map(|r| Box::new(r) as Box<dyn Read + Send>),
            child
                .stderr
                .take()
                .map(|r| Box::new(r) as Box<dyn Read + Send>),
        ]
        .into_iter()
        .flatten()
        .map(|pipe| read_into(pipe, Arc::clone(&shared), Arc::clone(&self.waker)))
        .collect();
        let group = child.id() as i32;
        let (waiter, wake) = (Arc::clone(&shared), Arc::clone(&self.waker));
        let (reaped_tx, reaped) = channel();
        std::thread::spawn(move || {
            let status = child.wait();
            let _ = reaped_tx.send(());
            // The output is whole once both pipes ended (or the group is gone).
            for reader in readers {
                let _ = reader.join();
            }
            let exit = match status {
                Ok(status) => (status.code(), status.signal().map(signal_name)),
                Err(_) => (None, None),
            };
            lock(&waiter).exit = Some(exit);
            wake();
        });
        let id = format!("term-{}", self.next);
        self.next += 1;
        tracing::debug!(terminal = %id, %program, "an agent's command runs in a terminal");
        self.running.push(Terminal {
            id: id.clone(),
            group,
            shared,
            released: false,
            reaped,
            killed: false,
        });
        Ok(id)
    }

    /// What changed since the last call: each terminal's output that grew, and the
    /// answers to the waits whose terminal exited.
    pub fn news(&mut self) -> (Vec<(String, String)>, Vec<u8>) {
        let mut outputs = Vec::new();
        for terminal in &self.running {
            let mut shared = lock(&terminal.shared);
            if shared.changed {
                shared.changed = false;
                outputs.push((terminal.id.clone(), sanitized(&shared.output).into_owned()));
            }
        }
        let mut answers = Vec::new();
        let running = &self.running;
        self.waits.retain(|(request, terminal)| {
            let exit = running
                .iter()
                .find(|t| t.id == *terminal)
                .map(|t| lock(&t.shared).exit.clone());
            match exit {
                Some(Some(exit)) => {
                    answers.extend(rpc::result(request, exit_status(&exit)));
                    false
                }
                Some(None) => true,
                None => false,
            }
        });
        (outputs, answers)
    }

    /// Stops every command still running (the turn is cancelled or over).
    pub fn kill_all(&mut self) {
        for terminal in &mut self.running {
            terminal.kill();
        }
    }

    /// Waits, up to `within` in all, until every command sent a kill is reaped.
    /// A signal is delivered when its process next runs: on a busy machine a killed
    /// command could still show as running when the turn's end is written, and the
    /// user would read `cancelled` while it is still there.
    pub fn reap_killed(&mut self, within: Duration) {
        let deadline = Instant::now() + within;
        for terminal in self.running.iter_mut().filter(|t| t.killed) {
            let left = deadline.saturating_duration_since(Instant::now());
            match terminal.reaped.recv_timeout(left) {
                Ok(()) | Err(RecvTimeoutError::Disconnected) => terminal.killed = false,
                Err(RecvTimeoutError::Timeout) => {
                    tracing::warn!(terminal = %terminal.id, "a killed command was not reaped in {within:?}");
                }
            }
        }
    }
}

impl Drop for Terminals {
    fn drop(&mut self) {
        self.kill_all();
    }
}

impl Terminal {
    /// Kills the whole group, unless it has exited (its id may be another's by now).
    fn kill(&mut self) {
        if lock(&self.shared).exit.is_none() {
            let _ = killpg(Pid::from_raw(self.group), Signal::SIGKILL);
            self.killed = true;
        }
    }
}

/// A thread that appends what `pipe` gives to the terminal's output, keeping its last
/// `limit` bytes, and wakes the runner.
fn read_into(
    mut pipe: Box<dyn Read + Send>,
    shared: Arc<Mutex<Shared>>,
    wake: Waker,
) -> std::thread::JoinHandle<()> {
    std::thread::spawn(move || {
        let mut buffer = [0u8; 8192];
        while let Ok(read) = pipe.read(&mut buffer) {
            if read == 0 {
                break;
            }
            let mut state = lock(&shared);
            state
                .output
                .push_str(&String::from_utf8_lossy(&buffer[..read]));
            if state.output.len() > state.limit {
                let mut cut = state.output.len() - state.limit;
                while !state.output.is_char_boundary(cut) {
                    cut += 1;
                }
                state.output.drain(..cut);
                state.truncated = true;
            }
            state.changed = true;
            drop(state);
            wake();
        }
    })
}

fn exit_status((code, signal): &(Option<i32>, Option<String>)) -> Value {
    json!({"exitCode": code, "signal": signal})
}

/// `SIGKILL` for 9: the name the schema's `signal` carries.
fn signal_name(number: i32) -> String {
    Signal::try_from(number).map_or_else(|_| number.to_string(), |s| s.as_str().to_owned())
}

impl super::AcpSession {
    /// The agent's `terminal/*` request.
    pub(super) fn terminal(
        &mut self,
        id: RequestId,
        method: &str,
        params: &Value,
        out: &mut Outbox,
    ) {
        let line = self.terminals.request(id, method, params, &self.cwd);
        out.write(line);
    }

    /// The terminals have news: grown output goes under its tool line, and exits
    /// answer the agent's waits.
    pub(super) fn terminals_woken(&mut self, out: &mut Outbox) {
        let (outputs, answers) = self.terminals.news();
        for (terminal, output) in outputs {
            self.stream
                .terminal_output(&terminal, output, &mut out.events);
        }
        out.write(answers);
    }
}

#[cfg(test)]
mod tests;
