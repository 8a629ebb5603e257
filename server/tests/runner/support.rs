//! Helpers for the runner's tests: throw-away `/bin/sh` agents, a tiny line parser,
//! and checks on processes, so each test reads as "this child, that outcome".

#![allow(dead_code)] // each test file uses its own share of the helpers

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use chatmd::agents::{AgentEvent, ExitInfo, Invocation, Limits, OutputParser, Stdin};
use chatmd::runner::{self, RunOutcome, Settings};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

/// No test may take longer than this; a hang fails instead of blocking the suite.
pub const GUARD: Duration = Duration::from_secs(60);

/// A short grace so the kill paths are quick to test.
pub fn quick() -> Settings {
    Settings {
        grace: Duration::from_millis(300),
        ..Settings::default()
    }
}

/// A folder holding one executable `/bin/sh` script, `agent.sh`.
pub struct Agent {
    pub dir: tempfile::TempDir,
    pub path: PathBuf,
}

impl Agent {
    pub fn new(body: &str) -> Self {
        // runner_guarded.rs runs these tests again with every agent started through
        // the agent guard, as the `chatmd` binary starts them.
        if module_path!().starts_with("runner_guarded::") {
            runner::guard_agents_with(env!("CARGO_BIN_EXE_chatmd"));
        }
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("agent.sh");
        std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        Self { dir, path }
    }

    /// A file in the agent's folder (e.g. where it writes a grandchild's pid).
    pub fn file(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// Runs the script in its own folder, stdin from `/dev/null`, ending at exit.
    /// The shell reads the script: executing a file just written races with other
    /// tests' forks, which may still hold it open for writing (`ETXTBSY`).
    pub fn invocation(&self) -> Invocation {
        Invocation {
            program: "/bin/sh".to_string(),
            args: vec![self.path.to_string_lossy().into_owned()],
            env: Vec::new(),
            create_dirs: Vec::new(),
            cwd: self.dir.path().to_path_buf(),
            stdin: Stdin::Null,
            limits: Limits {
                idle: None,
                total: GUARD,
                has_completion_event: false,
            },
            install_hint: None,
            session: Default::default(),
        }
    }
}

/// Plain text lines become `Text`; `DONE` is the completion event, `FAIL: why` a
/// failure. At exit, like a real adapter, it reports a non-zero exit as `Failed`
/// unless built `quiet` (then the runner's own account of the exit is tested).
#[derive(Default)]
pub struct TestParser {
    done: bool,
    quiet: bool,
}

impl TestParser {
    pub fn boxed() -> Box<dyn OutputParser> {
        Box::new(Self::default())
    }

    pub fn quiet() -> Box<dyn OutputParser> {
        Box::new(Self {
            done: false,
            quiet: true,
        })
    }
}

impl OutputParser for TestParser {
    fn line(&mut self, line: &str, out: &mut Vec<AgentEvent>) {
        if line == "DONE" {
            self.done = true;
            out.push(AgentEvent::Done {
                stop_reason: None,
                usage: None,
            });
        } else if let Some(message) = line.strip_prefix("FAIL: ") {
            self.done = true;
            out.push(AgentEvent::Failed {
                message: message.to_string(),
            });
        } else {
            out.push(AgentEvent::Text(line.to_string()));
        }
    }

    fn finish(&mut self, exit: &ExitInfo, out: &mut Vec<AgentEvent>) {
        if self.quiet || self.done {
            return;
        }
        out.push(match exit.code {
            Some(0) => AgentEvent::Done {
                stop_reason: Some("exit".into()),
                usage: None,
            },
            code => AgentEvent::Failed {
                message: format!("agent failed with {code:?}: {}", exit.stderr_tail),
            },
        });
    }
}

/// Counts lines and checks each is `expected`, emitting nothing (a flood test
/// measures the runner, not a channel of millions of events).
pub struct CountingParser {
    pub expected: String,
    pub lines: Arc<AtomicU64>,
    pub wrong: Arc<AtomicU64>,
}

impl OutputParser for CountingParser {
    fn line(&mut self, line: &str, _out: &mut Vec<AgentEvent>) {
        self.lines.fetch_add(1, Ordering::Relaxed);
        if line != self.expected {
            self.wrong.fetch_add(1, Ordering::Relaxed);
        }
    }

    fn finish(&mut self, _exit: &ExitInfo, _out: &mut Vec<AgentEvent>) {}
}

/// The completion event of [`TestParser`].
pub fn done() -> AgentEvent {
    AgentEvent::Done {
        stop_reason: None,
        usage: None,
    }
}

/// Runs a turn to its end, collecting every event; fails the test after `GUARD`.
pub async fn run_to_end(
    invocation: Invocation,
    parser: Box<dyn OutputParser>,
    settings: Settings,
) -> (RunOutcome, Vec<AgentEvent>) {
    let (events, mut received) = mpsc::channel(64);
    let collector = tokio::spawn(async move {
        let mut all = Vec::new();
        while let Some(event) = received.recv().await {
            all.push(event);
        }
        all
    });
    let turn = runner::run_with(
        invocation,
        parser,
        events,
        CancellationToken::new(),
        settings,
    );
    let outcome = tokio::time::timeout(GUARD, turn)
        .await
        .expect("the turn did not end");
    (outcome, collector.await.unwrap())
}

/// The text of the `Text` events.
pub fn texts(events: &[AgentEvent]) -> Vec<String> {
    events
        .iter()
        .filter_map(|event| match event {
            AgentEvent::Text(text) => Some(text.clone()),
            _ => None,
        })
        .collect()
}

/// A pid an agent wrote to a file.
pub fn read_pid(path: &Path) -> u32 {
    std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("no pid file {}: {e}", path.display()))
        .trim()
        .parse()
        .unwrap()
}

/// Whether `pid` is still a running process (a zombie is not: it is only waiting
/// for its new parent to reap it).
pub fn is_running(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => false,
        Ok(stat) => {
            let after = &stat[stat.rfind(')').unwrap() + 1..];
            let state = after.trim_start().chars().next().unwrap();
            !matches!(state, 'Z' | 'X' | 'x')
        }
    }
}

/// The process's peak resident memory (`VmHWM`), in bytes.
pub fn peak_rss() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = status.lines().find(|l| l.starts_with("VmHWM:")).unwrap();
    let kib: u64 = line.split_whitespace().nth(1).unwrap().parse().unwrap();
    kib * 1024
}
