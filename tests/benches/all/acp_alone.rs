//! The fake ACP agent (the fake `claude-agent-acp`) driven alone, the way chatmd drives
//! an ACP member (`initialize`, `session/new`, `session/prompt`, each on the last one's
//! answer): the baseline of every ACP row, measured in the same run.

use std::io::{BufRead, BufReader, Lines, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// One fake ACP agent on a live connection.
pub struct AcpAlone {
    child: Child,
    stdin: ChildStdin,
    out: Lines<BufReader<ChildStdout>>,
    next_id: i64,
    cwd: std::path::PathBuf,
}

/// One prompt's times, from the moment it was sent.
pub struct Prompted {
    /// To its first answer chunk.
    pub first: Duration,
    /// To its result.
    pub end: Duration,
}

impl AcpAlone {
    /// Starts the fake in `bin` with `knobs` in `cwd` and initializes it.
    pub fn start(bin: &Path, cwd: &Path, knobs: &[(&str, String)]) -> AcpAlone {
        let mut child = super::turns::fake(bin, "claude-agent-acp", cwd, knobs)
            .stdin(Stdio::piped())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let out = BufReader::new(child.stdout.take().unwrap()).lines();
        let mut agent = AcpAlone {
            child,
            stdin,
            out,
            next_id: 0,
            cwd: cwd.to_path_buf(),
        };
        agent.request(
            "initialize",
            json!({"protocolVersion": 1, "clientCapabilities": {},
                   "clientInfo": {"name": "bench", "version": "0"}}),
        );
        agent
    }

    /// The agent's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// A new session on the connection: its id.
    pub fn new_session(&mut self) -> Value {
        let cwd = self.cwd.clone();
        let (result, _) = self.request("session/new", json!({"cwd": cwd, "mcpServers": []}));
        result["sessionId"].clone()
    }

    /// One prompt on `session`.
    pub fn prompt(&mut self, session: &Value) -> Prompted {
        let asked = Instant::now();
        let (_, first) = self.request(
            "session/prompt",
            json!({"sessionId": session, "prompt": [{"type": "text", "text": "hi"}]}),
        );
        Prompted {
            first: first.map_or(Duration::ZERO, |at| at - asked),
            end: asked.elapsed(),
        }
    }

    /// Closes its stdin and waits for it to exit.
    pub fn end(mut self) {
        drop(self.stdin);
        self.child.wait().unwrap();
    }

    /// Sends a request and reads until its response: its result, and when the first
    /// non-empty answer chunk came meanwhile.
    fn request(&mut self, method: &str, params: Value) -> (Value, Option<Instant>) {
        self.next_id += 1;
        let id = self.next_id;
        let line = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        writeln!(self.stdin, "{line}").unwrap();
        let mut first = None;
        for line in self.out.by_ref() {
            let message: Value = serde_json::from_str(&line.unwrap()).unwrap();
            let update = &message["params"]["update"];
            if first.is_none()
                && update["sessionUpdate"] == "agent_message_chunk"
                && update["content"]["text"]
                    .as_str()
                    .is_some_and(|t| !t.is_empty())
            {
                first = Some(Instant::now());
            }
            if message["id"].as_i64() == Some(id) && message.get("method").is_none() {
                return (message["result"].clone(), first);
            }
        }
        panic!("the fake ACP agent ended before answering {method}");
    }
}
