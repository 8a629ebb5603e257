//! Printing a script with the fault knobs applied (delays, crash, hang, flood, garbage,
//! ignored SIGTERM, a grandchild), and recording what the fake received.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::{Value, json};

use super::Knobs;
use super::cli::{Cli, Decision};
use super::transcript::{Script, flood_line, garbage};

/// Set in the grandchild's environment: that process only sleeps.
pub const SLEEPER: &str = "FAKE_AGENT_SLEEPER";

/// Variables recorded when set: the state-isolation and trust variables.
pub(super) const RECORDED_ENV: [&str; 5] = [
    "CLAUDE_CONFIG_DIR",
    "CODEX_HOME",
    "GEMINI_CLI_HOME",
    "GEMINI_CLI_TRUST_WORKSPACE",
    "IS_SANDBOX",
];

/// Never returns: what a hung CLI does.
pub fn sleep_forever() -> ! {
    loop {
        std::thread::sleep(Duration::from_secs(3600));
    }
}

/// Prints `script` under the knobs; returns the exit code.
pub fn play(knobs: &Knobs, cli: Cli, script: Script) -> i32 {
    if knobs.ignore_term {
        ignore_sigterm();
    }
    if knobs.grandchild
        && let Err(message) = spawn_grandchild(knobs.grandchild_pid.as_deref())
    {
        return super::fail(&message);
    }
    // The explicit stderr knob comes first: tests use it to know the fake is running.
    if let Some(text) = &knobs.stderr {
        eprintln!("{text}");
    }
    if knobs.hang {
        sleep_forever();
    }
    eprint!("{}", script.stderr);
    let mut out = Printer {
        knobs,
        printed: 0,
        stdout: std::io::stdout().lock(),
        started: None,
    };
    out.check_faults();
    let mut lines = script.lines.iter();
    let result = (|| -> std::io::Result<()> {
        if let Some(first) = lines.next() {
            out.line(first.as_bytes(), true)?;
        }
        if knobs.garbage {
            for line in garbage() {
                out.line(&line, true)?;
            }
        }
        if let Some(mb) = knobs.flood_mb {
            let flood = flood_line(cli);
            let count = (mb * 1024 * 1024).div_ceil(flood.len() + 1);
            for _ in 0..count {
                out.line(flood.as_bytes(), false)?;
            }
        }
        for line in lines {
            out.line(line.as_bytes(), true)?;
        }
        out.stdout.flush()
    })();
    if result.is_err() {
        // The reader went away (broken pipe): stop like a CLI killed by SIGPIPE would.
        return 141;
    }
    if script.hang {
        sleep_forever();
    }
    knobs.exit.unwrap_or(script.code)
}

struct Printer<'a> {
    knobs: &'a Knobs,
    printed: usize,
    stdout: std::io::StdoutLock<'static>,
    /// When the first line went out, for `FAKE_AGENT_SPREAD_MS`.
    started: Option<std::time::Instant>,
}

impl Printer<'_> {
    fn line(&mut self, bytes: &[u8], delayed: bool) -> std::io::Result<()> {
        if let (Some(delay), true) = (self.knobs.delay, delayed) {
            std::thread::sleep(delay);
        }
        if let (Some((spread, lines)), true) = (self.knobs.spread, delayed) {
            // Line i goes out no sooner than i/lines of the spread after the first: an
            // even flood, however short each line's share (a sleep per line could not
            // be shorter than the scheduler's tick).
            let started = *self.started.get_or_insert_with(std::time::Instant::now);
            let due = spread.mul_f64(self.printed as f64 / lines.max(1) as f64);
            if let Some(ahead) = due.checked_sub(started.elapsed())
                && ahead >= std::time::Duration::from_millis(1)
            {
                std::thread::sleep(ahead);
            }
        }
        self.stdout.write_all(bytes)?;
        self.stdout.write_all(b"\n")?;
        self.stdout.flush()?;
        self.printed += 1;
        self.check_faults();
        Ok(())
    }

    /// Crash or hang once the line count says so.
    fn check_faults(&mut self) {
        if self.knobs.crash_at == Some(self.printed) {
            let _ = self.stdout.flush();
            std::process::abort();
        }
        if self.knobs.hang_after == Some(self.printed) {
            let _ = self.stdout.flush();
            sleep_forever();
        }
    }
}

/// Replaces SIGTERM's default action (exit) with a handler that does nothing visible.
/// Tokio keeps the handler installed for the life of the process.
fn ignore_sigterm() {
    let Ok(runtime) = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    else {
        return;
    };
    let installed = runtime.block_on(async {
        tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
    });
    // The listener and its runtime must outlive the script.
    std::mem::forget(installed);
    std::mem::forget(runtime);
}

/// Starts a sleeping child in this process group that shares stdout and stderr, so
/// only killing the whole group ends it and closes the pipes.
fn spawn_grandchild(pid_file: Option<&Path>) -> Result<(), String> {
    let exe = std::env::current_exe().map_err(|e| format!("cannot find own binary: {e}"))?;
    let child = Command::new(exe)
        .env(SLEEPER, "1")
        .stdin(Stdio::null())
        .spawn()
        .map_err(|e| format!("cannot start the grandchild: {e}"))?;
    if let Some(file) = pid_file {
        std::fs::write(file, child.id().to_string())
            .map_err(|e| format!("cannot write {}: {e}", file.display()))?;
    }
    // Not waited for: it must outlive this process unless the group is killed.
    std::mem::forget(child);
    Ok(())
}

/// Writes what the fake received to `path` as JSON.
pub fn record(
    path: &Path,
    cli: Cli,
    argv: &[String],
    cwd: &Path,
    decision: &Decision,
    knobs: &Knobs,
) -> std::io::Result<()> {
    let env: serde_json::Map<String, Value> = RECORDED_ENV
        .iter()
        .filter_map(|name| Some((name.to_string(), Value::from(std::env::var(name).ok()?))))
        .collect();
    let (stdin, prompt, resume, refused) = match decision {
        Decision::Run(run) => (
            run.stdin.clone(),
            Some(run.prompt.clone()),
            run.resume.clone(),
            Value::Null,
        ),
        Decision::Refuse {
            stderr,
            code,
            stdin,
        } => (
            stdin.clone(),
            None,
            None,
            json!({ "code": code, "stderr": stderr }),
        ),
        Decision::Print(_) | Decision::Serve(_) => (None, None, None, Value::Null),
    };
    let record = json!({
        "pid": std::process::id(),
        "as": cli.name(),
        "argv": argv,
        "cwd": cwd,
        "env": env,
        "stdin": stdin,
        "prompt": prompt,
        "resume": resume,
        "refused": refused,
        "signals": signal_state(),
    });
    let mut record = record;
    if let (Cli::Claude, Decision::Run(run)) = (cli, decision) {
        record["system"] = Value::from(super::sessions::model_system(knobs, run));
    }
    write_record(path, &record)
}

/// The signals this process started with blocked and ignored (`SigBlk`, `SigIgn` of
/// `/proc/self/status`, as hex masks): what whoever started it left it with.
fn signal_state() -> Value {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find_map(|line| line.strip_prefix(name))
            .map(|mask| mask.trim().to_string())
    };
    json!({ "blocked": field("SigBlk:"), "ignored": field("SigIgn:") })
}

/// Writes `record` to `path`: one line appended to a `.jsonl` file, else the whole file.
pub(super) fn write_record(path: &Path, record: &Value) -> std::io::Result<()> {
    if path.extension().is_some_and(|e| e == "jsonl") {
        // One line per run, so a test sees every run of a turn (a resume and its retry).
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)?;
        // One write: members running in parallel append to the same file.
        return file.write_all(format!("{record}\n").as_bytes());
    }
    std::fs::write(
        path,
        serde_json::to_string_pretty(record).unwrap_or_default(),
    )
}
