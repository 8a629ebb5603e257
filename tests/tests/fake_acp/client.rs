//! A tiny ACP client for the fake agent's tests: raw JSON lines over pipes, every wait
//! bounded by the fake's support deadline. Not the server's client: these tests check
//! the fake itself against the recordings.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Output, Stdio};
use std::sync::mpsc::Receiver;

use serde_json::{Value, json};

use crate::fake_support::{DEADLINE, assert_closed, lines, next_line, wait};

/// A temp folder with the fake installed under the ACP programs' names, a working
/// folder `work/` and a state folder per agent.
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
            chatmd_tests::fake_agent::install_acp(&fake, &dir.path().join("bin")).expect("install");
        let work = dir.path().join("work");
        for sub in ["work", "state/claude", "state/codex", "state/gemini"] {
            std::fs::create_dir_all(dir.path().join(sub)).expect("mkdir");
        }
        Sandbox { dir, bin, work }
    }

    pub fn state(&self, flavor: &str) -> PathBuf {
        self.dir.path().join("state").join(flavor)
    }

    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// The command a client runs for `flavor`, with the environment of the recordings:
    /// an isolated state folder, `IS_SANDBOX=1` (claude), codex in `workspace-write`.
    pub fn command(&self, flavor: &str) -> Command {
        let (program, args): (&str, &[&str]) = match flavor {
            "claude" => ("claude-agent-acp", &[]),
            "codex" => ("codex-acp", &[]),
            "gemini" => ("gemini", &["--acp"]),
            other => panic!("no flavor {other}"),
        };
        let mut command = Command::new(self.bin.join(program));
        command
            .args(args)
            .current_dir(&self.work)
            .env_clear()
            .env("PATH", &self.bin)
            .env("CLAUDE_CONFIG_DIR", self.state("claude"))
            .env("CODEX_HOME", self.state("codex"))
            .env("GEMINI_CLI_HOME", self.state("gemini"))
            .env("IS_SANDBOX", "1")
            .env("INITIAL_AGENT_MODE", "workspace-write")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        command
    }

    /// Starts `flavor` with `env` on top of [`Sandbox::command`]'s.
    pub fn start(&self, flavor: &str, env: &[(&str, &str)]) -> Agent {
        let mut command = self.command(flavor);
        for (k, v) in env {
            command.env(k, v);
        }
        Agent::spawn(command)
    }
}

/// A running fake agent.
pub struct Agent {
    child: Child,
    stdin: Option<ChildStdin>,
    rx: Receiver<Vec<u8>>,
}

impl Agent {
    pub fn spawn(mut command: Command) -> Agent {
        let mut child = command.spawn().expect("spawn fake-agent");
        let stdin = child.stdin.take();
        let rx = lines(&mut child);
        Agent { child, stdin, rx }
    }

    pub fn send_line(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin
            .write_all(format!("{line}\n").as_bytes())
            .and_then(|()| stdin.flush())
            .expect("write to the fake");
    }

    pub fn send(&mut self, msg: &Value) {
        self.send_line(&msg.to_string());
    }

    /// The next message, parsed (within the deadline).
    pub fn recv(&mut self) -> Value {
        let line = next_line(&self.rx);
        serde_json::from_slice(&line)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&line)))
    }

    /// Messages up to and including the response to request `id`.
    pub fn until_response(&mut self, id: u64) -> Vec<Value> {
        let mut got = Vec::new();
        loop {
            let msg = self.recv();
            let done = msg.get("method").is_none() && msg["id"] == id;
            got.push(msg);
            if done {
                return got;
            }
        }
    }

    /// Messages up to and including the first agent request (it has a `method` and an `id`).
    pub fn until_request(&mut self) -> Vec<Value> {
        let mut got = Vec::new();
        loop {
            let msg = self.recv();
            let done = msg.get("method").is_some() && msg.get("id").is_some();
            got.push(msg);
            if done {
                return got;
            }
        }
    }

    /// Every message until the agent closes stdout (it exits by itself).
    pub fn drain(&mut self) -> Vec<Value> {
        let mut got = Vec::new();
        while let Ok(line) = self.rx.recv_timeout(DEADLINE) {
            got.push(serde_json::from_slice(&line).expect("JSON"));
        }
        got
    }

    /// Closes stdin and waits for the exit; asserts nothing more was printed.
    pub fn close(mut self) -> Output {
        drop(self.stdin.take());
        let output = wait(self.child);
        assert_closed(&self.rx, "nothing after stdin closed");
        output
    }

    /// `initialize` as chatmd sends it (no fs, no terminal) and its result.
    pub fn initialize(&mut self) -> Value {
        self.send(&json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": 1,
            "clientCapabilities": {"fs": {"readTextFile": false, "writeTextFile": false}, "terminal": false},
            "clientInfo": {"name": "chatmd-tests", "version": "0.1.0"}}}));
        self.recv()
    }

    /// `session/new` in `cwd` (request id 2): the session id, after the slash commands.
    pub fn new_session(&mut self, cwd: &Path) -> String {
        self.send(&json!({"jsonrpc": "2.0", "id": 2, "method": "session/new",
            "params": {"cwd": cwd, "mcpServers": []}}));
        let got = self.until_response(2);
        let sid = got.last().unwrap()["result"]["sessionId"]
            .as_str()
            .unwrap_or_else(|| panic!("no session: {got:?}"))
            .to_string();
        let commands = self.recv();
        assert_eq!(
            commands["params"]["update"]["sessionUpdate"], "available_commands_update",
            "{commands}"
        );
        sid
    }

    /// Sends `session/prompt` with `text` as request `id`.
    pub fn prompt(&mut self, id: u64, sid: &str, text: &str) {
        self.send(
            &json!({"jsonrpc": "2.0", "id": id, "method": "session/prompt",
            "params": {"sessionId": sid, "prompt": [{"type": "text", "text": text}]}}),
        );
    }

    pub fn cancel(&mut self, sid: &str) {
        self.send(
            &json!({"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": sid}}),
        );
    }

    /// Answers the agent's request `id` with option `option` (or `cancelled` for `None`).
    pub fn answer(&mut self, id: &Value, option: Option<&str>) {
        let outcome = match option {
            Some(option) => json!({"outcome": "selected", "optionId": option}),
            None => json!({"outcome": "cancelled"}),
        };
        self.send(&json!({"jsonrpc": "2.0", "id": id, "result": {"outcome": outcome}}));
    }
}

/// The `sessionUpdate` kinds of `messages` (`result`/`error`/method for the others).
pub fn kinds(messages: &[Value]) -> Vec<String> {
    messages
        .iter()
        .map(|m| {
            if let Some(kind) = m["params"]["update"]["sessionUpdate"].as_str() {
                kind.to_string()
            } else if let Some(method) = m["method"].as_str() {
                method.to_string()
            } else if m.get("error").is_some() {
                "error".to_string()
            } else {
                "result".to_string()
            }
        })
        .collect()
}

/// The text of the `agent_message_chunk`s in `messages`.
pub fn text(messages: &[Value]) -> String {
    messages
        .iter()
        .filter(|m| m["params"]["update"]["sessionUpdate"] == "agent_message_chunk")
        .filter_map(|m| m["params"]["update"]["content"]["text"].as_str())
        .collect()
}
