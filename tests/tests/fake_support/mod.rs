//! Running the built fake agent under a CLI's name in a temp folder, with a clean
//! environment and a deadline on every wait (no sleeps).
#![allow(dead_code)] // each test binary uses a different part

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, Command, Output, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::thread;
use std::time::Duration;

/// The longest any single wait may take before the test fails.
pub const DEADLINE: Duration = Duration::from_secs(30);

/// A temp folder with the fake installed as `bin/{claude,codex,gemini}` and an empty
/// working folder `work/` (not a git repository).
pub struct Sandbox {
    pub dir: tempfile::TempDir,
    pub bin: PathBuf,
    pub work: PathBuf,
}

impl Sandbox {
    pub fn new() -> Sandbox {
        let dir = tempfile::tempdir().expect("temp dir");
        let fake = PathBuf::from(env!("CARGO_BIN_EXE_fake-agent"));
        let bin =
            chatmd_tests::fake_agent::install(&fake, &dir.path().join("bin")).expect("install");
        let work = dir.path().join("work");
        std::fs::create_dir_all(&work).expect("work dir");
        Sandbox { dir, bin, work }
    }

    /// `cli` with `args`, in `work/`, with nothing inherited from the test's environment.
    pub fn command(&self, cli: &str, args: &[&str]) -> Command {
        let mut command = Command::new(self.bin.join(cli));
        command
            .args(args)
            .current_dir(&self.work)
            .env_clear()
            .env("PATH", &self.bin)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        command
    }

    /// A file path inside the sandbox.
    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }
}

/// Runs `command` to its end (feeding `stdin` when given), within [`DEADLINE`].
pub fn run(mut command: Command, stdin: Option<&[u8]>) -> Output {
    if stdin.is_some() {
        command.stdin(Stdio::piped());
    }
    let mut child = command.spawn().expect("spawn fake-agent");
    if let Some(bytes) = stdin {
        let mut pipe = child.stdin.take().expect("stdin pipe");
        let bytes = bytes.to_vec();
        thread::spawn(move || {
            let _ = pipe.write_all(&bytes);
        });
    }
    wait(child)
}

/// Waits for `child` and collects its output, within [`DEADLINE`].
pub fn wait(child: Child) -> Output {
    let pid = child.id();
    let (tx, rx) = mpsc::channel();
    thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    match rx.recv_timeout(DEADLINE) {
        Ok(output) => output.expect("wait for fake-agent"),
        Err(_) => {
            kill(pid, "KILL");
            panic!("fake-agent (pid {pid}) did not finish within {DEADLINE:?}");
        }
    }
}

/// The stdout lines of `child` as they come, read on a thread.
pub fn lines(child: &mut Child) -> Receiver<Vec<u8>> {
    let stdout = child.stdout.take().expect("stdout pipe");
    let (tx, rx) = mpsc::channel();
    thread::spawn(move || {
        let reader = BufReader::new(stdout);
        for line in reader.split(b'\n') {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    rx
}

/// The next line from [`lines`], failing the test after [`DEADLINE`].
pub fn next_line(rx: &Receiver<Vec<u8>>) -> Vec<u8> {
    rx.recv_timeout(DEADLINE)
        .expect("a stdout line within the deadline")
}

/// Asserts that the stream from [`lines`] ended (EOF) with no further line.
pub fn assert_closed(rx: &Receiver<Vec<u8>>, what: &str) {
    match rx.recv_timeout(DEADLINE) {
        Err(mpsc::RecvTimeoutError::Disconnected) => {}
        Ok(line) => panic!("{what}: got {:?}", String::from_utf8_lossy(&line)),
        Err(mpsc::RecvTimeoutError::Timeout) => {
            panic!("{what}: stdout still open after {DEADLINE:?}")
        }
    }
}

/// Sends `signal` (a name like `TERM`) to process `pid`.
pub fn kill(pid: u32, signal: &str) {
    let status = Command::new("kill")
        .arg(format!("-{signal}"))
        .arg(pid.to_string())
        .status()
        .expect("run kill");
    assert!(status.success(), "kill -{signal} {pid}");
}

/// Sends `signal` to every process of group `pgid`.
pub fn kill_group(pgid: u32, signal: &str) {
    let status = Command::new("kill")
        .arg(format!("-{signal}"))
        .arg("--")
        .arg(format!("-{pgid}"))
        .status()
        .expect("run kill");
    assert!(status.success(), "kill -{signal} -- -{pgid}");
}

/// The process group of `pid`, from `/proc/<pid>/stat`.
pub fn process_group(pid: u32) -> Option<u32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let after_name = &stat[stat.rfind(')')? + 1..];
    after_name.split_whitespace().nth(2)?.parse().ok()
}

/// Whether this test runs as root (the fake claude refuses skip-permissions then).
pub fn is_root() -> bool {
    std::fs::read_to_string("/proc/self/status").is_ok_and(|status| {
        status
            .lines()
            .find_map(|line| line.strip_prefix("Uid:"))
            .and_then(|ids| ids.split_whitespace().nth(1))
            == Some("0")
    })
}
