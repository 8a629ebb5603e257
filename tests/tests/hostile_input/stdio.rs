//! `chatmd lsp` over its stdio, frames read on a thread of their own, and the JSON-RPC
//! bits the tests check.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::Duration;

use serde_json::{Value, json};

/// Long enough for a loaded machine; a server that went deaf never answers at all.
pub const TIMEOUT: Duration = Duration::from_secs(20);

/// `chatmd lsp` over its stdio, initialized; frames read on a thread of their own.
pub struct Server {
    /// Taken by [`Server::exit_status`].
    child: Option<Child>,
    pid: u32,
    pub stdin: Option<ChildStdin>,
    frames: Receiver<Value>,
    next_id: i64,
}

impl Server {
    pub fn start() -> Server {
        Server::start_in(None)
    }

    pub fn start_in(root: Option<&std::path::Path>) -> Server {
        let mut command = Command::new(assert_cmd::cargo::cargo_bin("chatmd"));
        if let Some(root) = root {
            command.current_dir(root);
        }
        let mut child = command
            .arg("lsp")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start chatmd lsp");
        let stdin = child.stdin.take();
        let mut stdout = BufReader::new(child.stdout.take().unwrap());
        let (tx, frames) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            while let Some(frame) = read_frame(&mut stdout) {
                if tx.send(frame).is_err() {
                    break;
                }
            }
        });
        let mut server = Server {
            pid: child.id(),
            child: Some(child),
            stdin,
            frames,
            next_id: 1,
        };
        let mut params = json!({"capabilities": {}});
        if let Some(root) = root {
            params["rootUri"] = format!("file://{}", root.display()).into();
        }
        let init = server.request("initialize", params);
        assert_eq!(init["result"]["serverInfo"]["name"], "chatmd");
        server.send(&json!({"jsonrpc": "2.0", "method": "initialized", "params": {}}));
        server
    }

    pub fn send_raw(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(bytes).expect("write to the server");
        stdin.flush().expect("flush");
    }

    pub fn send(&mut self, message: &Value) {
        self.send_raw(&frame(&message.to_string()));
    }

    /// The next frame from the server; `None` once it closed stdout.
    pub fn next(&mut self) -> Option<Value> {
        match self.frames.recv_timeout(TIMEOUT) {
            Ok(frame) => Some(frame),
            Err(RecvTimeoutError::Disconnected) => None,
            Err(RecvTimeoutError::Timeout) => panic!("the server said nothing for {TIMEOUT:?}"),
        }
    }

    /// The next answer (a frame without a method), skipping notifications.
    pub fn answer(&mut self) -> Value {
        loop {
            let frame = self.next().expect("the server answers");
            if frame.get("method").is_none() {
                return frame;
            }
        }
    }

    /// The id of the next request sent.
    pub fn next_id(&mut self) -> i64 {
        self.next_id += 1;
        self.next_id - 1
    }

    pub fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id();
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        let answer = self.answer();
        assert_eq!(answer["id"], id, "answers come in order here: {answer}");
        answer
    }

    /// A valid request after hostile input: the server must still answer it.
    pub fn still_answers(&mut self) {
        let answer = self.request("chatmd/turns", json!({}));
        assert!(answer.get("result").is_some(), "{answer}");
    }

    /// Waits for the process to end, at most `TIMEOUT` (then kills it and fails).
    pub fn exit_status(&mut self) -> ExitStatus {
        let mut child = self.child.take().expect("not waited for yet");
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let _ = tx.send(child.wait().expect("wait"));
        });
        match rx.recv_timeout(TIMEOUT) {
            Ok(status) => status,
            Err(_) => {
                let pid = nix::unistd::Pid::from_raw(self.pid as i32);
                let _ = nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGKILL);
                panic!("the server did not exit within {TIMEOUT:?}");
            }
        }
    }

    /// The next answer, waiting at most `timeout` for each frame (a large chat's
    /// outline takes longer than [`TIMEOUT`] in a debug build on a loaded machine).
    pub fn answer_within(&mut self, timeout: Duration) -> Value {
        loop {
            let frame = match self.frames.recv_timeout(timeout) {
                Ok(frame) => frame,
                Err(e) => panic!("no answer within {timeout:?}: {e}"),
            };
            if frame.get("method").is_none() {
                return frame;
            }
        }
    }

    /// Fails when the server's peak resident memory passed `mb` MB.
    pub fn assert_peak_below(&self, mb: u64) {
        let kb = self.memory_kb("VmHWM");
        assert!(
            kb / 1024 < mb,
            "the server's memory peaked at {} MB",
            kb / 1024
        );
    }

    /// A memory figure of the server from `/proc/<pid>/status` (`VmRSS`, `VmHWM`), kB.
    pub fn memory_kb(&self, field: &str) -> u64 {
        let status =
            std::fs::read_to_string(format!("/proc/{}/status", self.pid)).expect("/proc status");
        status
            .lines()
            .find_map(|l| l.strip_prefix(field)?.strip_prefix(':'))
            .and_then(|v| v.trim().trim_end_matches(" kB").parse().ok())
            .unwrap_or_else(|| panic!("{field} in /proc/{}/status", self.pid))
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

fn read_frame(reader: &mut impl BufRead) -> Option<Value> {
    let body = chatmd_tests::lsp_client::read_body(reader)?;
    Some(serde_json::from_slice(&body).expect("the server writes JSON"))
}

pub fn frame(body: &str) -> Vec<u8> {
    format!("Content-Length: {}\r\n\r\n{body}", body.len()).into_bytes()
}

/// The error of an answer: (id, code).
pub fn error_of(answer: &Value) -> (Value, i64) {
    let code = answer["error"]["code"]
        .as_i64()
        .unwrap_or_else(|| panic!("an error answer: {answer}"));
    (answer["id"].clone(), code)
}

pub const INVALID_REQUEST: i64 = -32600;
pub const PARSE_ERROR: i64 = -32700;
pub const METHOD_NOT_FOUND: i64 = -32601;
