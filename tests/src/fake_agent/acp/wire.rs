//! ACP's transport as the real adapters use it (the ACP TypeScript SDK's `ndJsonStream`):
//! one JSON-RPC message per line on stdin and stdout. A thread reads stdin and records
//! every line to `FAKE_ACP_LOG`; the main thread writes.

use std::collections::VecDeque;
use std::fs::File;
use std::io::{BufRead, BufReader, Write};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use serde_json::Value;

use super::json::{J, obj};

/// What arrives on stdin.
#[derive(Debug)]
pub enum Event {
    Msg(Value),
    /// A line that is not a JSON object: the SDK logs it and drops it.
    Malformed(String),
    /// stdin closed.
    Eof,
}

/// The incoming messages, with those put aside during a turn to handle after it.
pub struct Inbox {
    rx: Receiver<Event>,
    backlog: VecDeque<Value>,
    eof: bool,
}

impl Inbox {
    /// Starts the reader thread; each line is appended to `log` first when given.
    pub fn start(mut log: Option<File>) -> Inbox {
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(std::io::stdin()).split(b'\n') {
                let Ok(line) = line else { break };
                let text = String::from_utf8_lossy(&line).trim().to_string();
                if text.is_empty() {
                    continue;
                }
                let event = match serde_json::from_str::<Value>(&text) {
                    Ok(value) if value.is_object() => Event::Msg(value),
                    _ => Event::Malformed(text.clone()),
                };
                if let Some(file) = &mut log {
                    let entry = match &event {
                        Event::Msg(_) => text,
                        _ => obj! { "malformed": text }.line(),
                    };
                    // One write per line: a test may read the file while the fake runs.
                    let _ = file.write_all(format!("{entry}\n").as_bytes());
                }
                if tx.send(event).is_err() {
                    return;
                }
            }
            let _ = tx.send(Event::Eof);
        });
        Inbox {
            rx,
            backlog: VecDeque::new(),
            eof: false,
        }
    }

    /// The next message to handle between turns: the backlog first.
    pub fn next(&mut self) -> Event {
        if let Some(msg) = self.backlog.pop_front() {
            return Event::Msg(msg);
        }
        self.recv(None).unwrap_or(Event::Eof)
    }

    /// The next event from stdin (not the backlog) within `wait` (`None`: forever).
    pub fn recv(&mut self, wait: Option<Duration>) -> Option<Event> {
        if self.eof {
            return Some(Event::Eof);
        }
        let event = match wait {
            None => self.rx.recv().unwrap_or(Event::Eof),
            Some(wait) => match self.rx.recv_timeout(wait) {
                Ok(event) => event,
                Err(RecvTimeoutError::Timeout) => return None,
                Err(RecvTimeoutError::Disconnected) => Event::Eof,
            },
        };
        if matches!(event, Event::Eof) {
            self.eof = true;
        }
        Some(event)
    }

    /// The next event before `deadline` (`None` once it has passed).
    pub fn recv_until(&mut self, deadline: Instant) -> Option<Event> {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            // Still take what has already arrived: a cancel sent with the last chunk counts.
            return self.recv(Some(Duration::ZERO));
        }
        self.recv(Some(left))
    }

    /// Keeps `msg` to handle once the running turn is over.
    pub fn defer(&mut self, msg: Value) {
        self.backlog.push_back(msg);
    }
}

/// What the SDK prints on stderr for a line it cannot parse (it answers nothing).
pub fn report_malformed(line: &str) {
    eprintln!("Failed to parse JSON message: {line} SyntaxError: Unexpected token in JSON");
}

/// The writer of stdout.
pub struct Out {
    stdout: std::io::Stdout,
}

impl Default for Out {
    fn default() -> Out {
        Out {
            stdout: std::io::stdout(),
        }
    }
}

impl Out {
    /// Writes one message; a closed stdout ends the process as a broken pipe would.
    pub fn send(&mut self, msg: &J) {
        let mut lock = self.stdout.lock();
        let written = lock
            .write_all(format!("{msg}\n").as_bytes())
            .and_then(|()| lock.flush());
        if written.is_err() {
            std::process::exit(141);
        }
    }

    pub fn result(&mut self, id: &Value, result: J) {
        self.send(&obj! { "jsonrpc": "2.0", "id": id, "result": result });
    }

    pub fn error(&mut self, id: &Value, error: J) {
        self.send(&obj! { "jsonrpc": "2.0", "id": id, "error": error });
    }

    pub fn notify(&mut self, method: &str, params: J) {
        self.send(&obj! { "jsonrpc": "2.0", "method": method, "params": params });
    }

    pub fn request(&mut self, id: u64, method: &str, params: J) {
        self.send(&obj! { "jsonrpc": "2.0", "id": id, "method": method, "params": params });
    }

    /// A `session/update` notification.
    pub fn update(&mut self, session: &str, update: J) {
        self.notify(
            "session/update",
            obj! { "sessionId": session, "update": update },
        );
    }
}

/// The ACP TypeScript SDK's `RequestError`s, as the real adapters send them.
pub mod errors {
    use super::{J, obj};

    /// `RequestError.methodNotFound(method)`.
    pub fn method_not_found(method: &str) -> J {
        obj! {
            "code": -32601i64,
            "message": format!("\"Method not found\": {method}"),
            "data": obj! { "method": method },
        }
    }

    /// Any other exception in a handler: `RequestError.internalError({details})`.
    pub fn internal(details: &str) -> J {
        obj! { "code": -32603i64, "message": "Internal error", "data": obj! { "details": details } }
    }

    /// `RequestError.authRequired()` or gemini's `RequestError(-32000, message)`.
    pub fn auth(message: &str) -> J {
        obj! { "code": -32000i64, "message": message }
    }

    /// `RequestError.invalidParams(details)`: the SDK's schema check failed.
    pub fn invalid_params(details: &str) -> J {
        obj! { "code": -32602i64, "message": "Invalid params", "data": obj! { "details": details } }
    }

    /// `RequestError.resourceNotFound(uri)`.
    pub fn not_found(uri: &str) -> J {
        obj! { "code": -32002i64, "message": "Resource not found", "data": obj! { "uri": uri } }
    }

    /// The fake's own refusal of a client that breaks the protocol (no real agent checks
    /// this; the message says so).
    pub fn invalid_request(details: &str) -> J {
        obj! { "code": -32600i64, "message": "Invalid request", "data": obj! { "details": details } }
    }
}
