//! The real `chatmd lsp` binary over stdio, as an editor runs it: LSP framing both ways,
//! and its memory read from `/proc`.

use std::io::{BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use chatmd_tests::lsp_client::{encode_frame, read_body};
use serde_json::{Value, json};

/// The release `chatmd` binary, built once per run (cargo runs the bench with `CARGO`
/// set; the binary belongs to another package of the workspace, which a bench of this
/// one cannot depend on as a binary).
pub fn chatmd_binary() -> PathBuf {
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    BUILT.get_or_init(|| build_chatmd(None)).clone()
}

/// Builds the release `chatmd` binary with `feature` (an allocator, see
/// `server/Cargo.toml`; `glibc`: without the default allocator), or as it comes;
/// returns where it is. A binary built with a
/// feature is copied aside (`target/bench-allocators/chatmd-FEATURE`): the next build
/// links its output to the same `target/release/chatmd`, even when nothing was
/// compiled.
pub fn build_chatmd(feature: Option<&str>) -> PathBuf {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut args = vec![
        "build",
        "--release",
        "--locked",
        "-p",
        "chatmd",
        // chatmd and the agent guard it starts beside every agent.
        "--bins",
    ];
    match feature {
        Some("glibc") => args.push("--no-default-features"),
        Some(feature) => args.extend(["--features", feature]),
        None => {}
    }
    let status = Command::new(cargo)
        .args(&args)
        .stdout(Stdio::null())
        .status()
        .expect("run cargo build for the chatmd binary");
    assert!(status.success(), "cargo build of the chatmd binary failed");
    let built = assert_cmd::cargo::cargo_bin("chatmd");
    let Some(feature) = feature else {
        return built;
    };
    // target/bench-allocators/, beside target/release/.
    let folder = built
        .parent()
        .and_then(|release| release.parent())
        .expect("target/release/chatmd")
        .join("bench-allocators");
    std::fs::create_dir_all(&folder).expect("a folder for the binaries");
    let aside = folder.join(format!("chatmd-{feature}"));
    std::fs::copy(&built, &aside).expect("copy the binary aside");
    aside
}

pub struct Server {
    child: Child,
    /// Closed at the end: the server reads stdin until it ends.
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
    next_id: i64,
    /// `exit` was sent: the server ends by itself.
    exited: bool,
    /// How many `publishDiagnostics` a [`Server::round_trip`] read and dropped.
    pub published: usize,
    /// The versions whose `publishDiagnostics` [`Server::until`] read, by document:
    /// they may come while it waits for something else (a request's answer), and a
    /// later wait for them must not wait for ever.
    versions_published: std::collections::HashSet<(String, i64)>,
}

impl Server {
    pub fn start() -> Server {
        Self::start_with(&[])
    }

    /// The server with `env` added to its environment (an allocator's settings).
    pub fn start_with(env: &[(&str, String)]) -> Server {
        Self::start_binary(&chatmd_binary(), env)
    }

    /// [`Server::start_with`], `binary` instead of the usual build (another allocator).
    pub fn start_binary(binary: &std::path::Path, env: &[(&str, String)]) -> Server {
        let mut child = Command::new(binary)
            .arg("lsp")
            .envs(env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start chatmd lsp");
        let stdin = child.stdin.take().expect("stdin");
        let stdout = BufReader::new(child.stdout.take().expect("stdout"));
        Server {
            child,
            stdin: Some(stdin),
            stdout,
            next_id: 1,
            exited: false,
            published: 0,
            versions_published: Default::default(),
        }
    }

    /// `initialize` (UTF-16, as VS Code asks) and `initialized`, in the folder `root`.
    pub fn initialize(&mut self, root: &std::path::Path) {
        self.initialize_with(root, json!({}));
    }

    /// [`Server::initialize`] with the server's `initializationOptions`.
    pub fn initialize_with(&mut self, root: &std::path::Path, options: Value) {
        let root = format!("file://{}", root.display());
        self.request(
            "initialize",
            json!({"processId": null, "rootUri": root, "capabilities": {},
                   "initializationOptions": options}),
        );
        self.notify("initialized", json!({}));
    }

    pub fn notify(&mut self, method: &str, params: Value) {
        self.send(&json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    /// A notification's frame, encoded ahead of a [`Server::round_trip`].
    pub fn notification_frame(method: &str, params: Value) -> Vec<u8> {
        let message = json!({"jsonrpc": "2.0", "method": method, "params": params});
        encode_frame(message.to_string().as_bytes())
    }

    /// A request's frame, encoded ahead of a [`Server::round_trip`], and its id.
    pub fn request_frame(&mut self, method: &str, params: Value) -> (i64, Vec<u8>) {
        let id = self.next_id;
        self.next_id += 1;
        let message = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        (id, encode_frame(message.to_string().as_bytes()))
    }

    /// One round trip as an editor sees it, timed from the first byte of `frames`
    /// (encoded beforehand, ending with a request) written to the last byte of the
    /// answer's frame read (its `Content-Length` honoured). Frames the server sends
    /// meanwhile (notifications, its own requests) are read and dropped. Returns the
    /// time and the answer's body unparsed: the caller parses and checks it after the
    /// clock stopped, so a wrong answer still fails.
    pub fn round_trip(&mut self, frames: &[u8]) -> (Duration, Vec<u8>) {
        // tower-lsp-server writes `jsonrpc` first, then `method` for a notification or
        // request and `result` or `error` for a response: the start of a body tells
        // them apart without parsing 5.7 MB (the caller checks the answer's id).
        const NOT_AN_ANSWER: &[u8] = br#"{"jsonrpc":"2.0","method":"#;
        const PUBLISHED: &[u8] = br#"{"jsonrpc":"2.0","method":"textDocument/publishDiagnostics""#;
        let start = Instant::now();
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(frames).expect("write");
        stdin.flush().expect("flush");
        loop {
            let body = read_body(&mut self.stdout).expect("server quit");
            if !body.starts_with(NOT_AN_ANSWER) {
                return (start.elapsed(), body);
            }
            self.published += usize::from(body.starts_with(PUBLISHED));
        }
    }

    /// Sends a request and reads until its answer (notifications meanwhile are dropped).
    pub fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        let mut answer = self.until(|m| m["id"] == id && m.get("method").is_none());
        assert!(answer.get("error").is_none(), "{method} failed: {answer}");
        // Taken, not cloned: an editor parses the answer once and keeps it; a deep copy
        // of a 20k-symbol outline would be timed as part of the round trip.
        answer["result"].take()
    }

    /// Writes frames encoded beforehand.
    pub fn write(&mut self, frames: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(frames).expect("write");
        stdin.flush().expect("flush");
    }

    /// The next message the server writes.
    pub fn next_message(&mut self) -> Value {
        let body = read_body(&mut self.stdout).expect("server quit");
        serde_json::from_slice(&body).expect("JSON")
    }

    fn send(&mut self, message: &Value) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin
            .write_all(&encode_frame(message.to_string().as_bytes()))
            .expect("write");
        stdin.flush().expect("flush");
    }

    /// Reads messages until one satisfies `wanted`; returns it.
    pub fn until(&mut self, wanted: impl Fn(&Value) -> bool) -> Value {
        loop {
            let body = read_body(&mut self.stdout).expect("server quit");
            let message: Value = serde_json::from_slice(&body).expect("JSON");
            if message["method"] == "textDocument/publishDiagnostics"
                && let (Some(uri), Some(version)) = (
                    message["params"]["uri"].as_str(),
                    message["params"]["version"].as_i64(),
                )
            {
                self.versions_published.insert((uri.to_owned(), version));
            }
            if wanted(&message) {
                return message;
            }
        }
    }

    /// Waits until the diagnostics of `uri` at `version` are published (at once when
    /// they came while an earlier wait read on).
    pub fn published_at(&mut self, uri: &str, version: i64) {
        let key = (uri.to_owned(), version);
        while !self.versions_published.contains(&key) {
            self.until(|m| {
                m["method"] == "textDocument/publishDiagnostics"
                    && m["params"]["uri"] == uri
                    && m["params"]["version"] == version
            });
        }
    }

    /// A `/proc/<pid>/status` memory line (`VmRSS`, `VmHWM`) in MB.
    pub fn memory(&self, key: &str) -> f64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id()))
            .expect("/proc tells a process's memory");
        let kb: f64 = status
            .lines()
            .find_map(|l| l.strip_prefix(key)?.strip_prefix(':'))
            .expect("the memory line")
            .trim()
            .trim_end_matches(" kB")
            .parse()
            .expect("a number of kB");
        kb / 1024.0
    }

    /// The server's process id, to read its CPU time.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    pub fn shutdown(mut self) {
        self.request("shutdown", Value::Null);
        self.notify("exit", Value::Null);
        self.exited = true;
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        // Never leave the server behind, even when the bench failed half-way.
        self.stdin = None;
        if !self.exited {
            let _ = self.child.kill();
        }
        let _ = self.child.wait();
    }
}
