//! The server's memory with a long chat open: the real `chatmd` binary over stdio,
//! as an editor runs it, in a folder with the chat's members.

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use serde_json::{Value, json};

/// Resident memory of the server, in MB.
pub struct Memory {
    /// After `initialize`, before any document is open.
    pub idle: f64,
    /// Once the chat's diagnostics are published.
    pub open: f64,
    /// The most the process held at any point.
    pub peak: f64,
    /// How many diagnostics the chat got.
    pub diagnostics: usize,
}

/// Opens `chat` in a fresh server; None where `/proc` does not tell memory.
pub fn with_chat_open(chat: &str) -> Option<Memory> {
    let dir = tempfile::tempdir().expect("temporary folder");
    for (member, role) in [
        ("reviewer", "CLAUDE.md"),
        ("tester", "AGENTS.md"),
        ("writer", "GEMINI.md"),
    ] {
        std::fs::create_dir(dir.path().join(member)).expect("member folder");
        std::fs::write(dir.path().join(member).join(role), "# role\n").expect("role file");
    }
    let path = dir.path().join("long.chat.md");
    std::fs::write(&path, chat).expect("chat file");
    let root = format!("file://{}", dir.path().display());
    let uri = format!("file://{}", path.display());

    let mut server = Server::start();
    server.send(&json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"capabilities": {}, "rootUri": root}}));
    server.until(|m| m["id"] == 1);
    server.send(&json!({"jsonrpc": "2.0", "method": "initialized", "params": {}}));
    let idle = server.memory("VmRSS")?;
    server.send(&json!({"jsonrpc": "2.0", "method": "textDocument/didOpen",
        "params": {"textDocument": {"uri": uri, "languageId": "chatmd", "version": 1, "text": chat}}}));
    let published = server.until(|m| {
        m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == uri.as_str()
    });
    let memory = Memory {
        idle,
        open: server.memory("VmRSS")?,
        peak: server.memory("VmHWM")?,
        diagnostics: published["params"]["diagnostics"]
            .as_array()
            .map_or(0, Vec::len),
    };
    server.send(&json!({"jsonrpc": "2.0", "id": 2, "method": "shutdown"}));
    server.until(|m| m["id"] == 2);
    server.send(&json!({"jsonrpc": "2.0", "method": "exit"}));
    server.exited = true;
    Some(memory)
}

struct Server {
    child: Child,
    /// Closed at the end: the server reads stdin until it ends.
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
    /// `exit` was sent: the server ends by itself.
    exited: bool,
}

impl Server {
    fn start() -> Server {
        let mut child = Command::new(env!("CARGO_BIN_EXE_chatmd"))
            .arg("lsp")
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
            exited: false,
        }
    }

    fn send(&mut self, message: &Value) {
        let body = message.to_string();
        let stdin = self.stdin.as_mut().expect("stdin open");
        write!(stdin, "Content-Length: {}\r\n\r\n{body}", body.len()).expect("write");
        stdin.flush().expect("flush");
    }

    /// Reads messages until one satisfies `wanted`; returns it.
    fn until(&mut self, wanted: impl Fn(&Value) -> bool) -> Value {
        loop {
            let mut length = 0;
            loop {
                let mut line = String::new();
                assert!(
                    self.stdout.read_line(&mut line).expect("read") > 0,
                    "server quit"
                );
                match line.trim_end().split_once(": ") {
                    Some(("Content-Length", n)) => length = n.parse().expect("length"),
                    _ if line.trim_end().is_empty() => break,
                    _ => {}
                }
            }
            let mut body = vec![0; length];
            self.stdout.read_exact(&mut body).expect("body");
            let message = serde_json::from_slice(&body).expect("JSON");
            if wanted(&message) {
                return message;
            }
        }
    }

    /// A `/proc/<pid>/status` memory line (`VmRSS`, `VmHWM`) in MB.
    fn memory(&self, key: &str) -> Option<f64> {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).ok()?;
        let kb: f64 = status
            .lines()
            .find_map(|l| l.strip_prefix(key)?.strip_prefix(':'))?
            .trim()
            .trim_end_matches(" kB")
            .parse()
            .ok()?;
        Some(kb / 1024.0)
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
