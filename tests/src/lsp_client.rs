//! An in-process LSP client for end-to-end tests: the real server runs on one end of two
//! in-memory pipes, this client speaks JSON-RPC with real `Content-Length` framing on the other.
//! [`TestClient::spawn_process`] puts a server process (`chatmd lsp`) behind the same pipes.
//!
//! Every wait is bounded by a timeout (default [`DEFAULT_TIMEOUT`]); on expiry the test fails
//! with a list of what arrived in the meantime. Messages nobody asked for yet are queued, so
//! the order in which a test asks for them does not have to match the order they arrived in.

mod framing;
mod inbox;
mod process;
mod uri;

use std::collections::{HashMap, HashSet, VecDeque};
use std::future::Future;
use std::path::Path;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncWriteExt, DuplexStream};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use inbox::{Incoming, MessageExt, join_error, params_of, read_messages};

pub use framing::{FrameReader, encode_frame, read_body};
pub use uri::{file_path, file_uri};

/// How long any single wait may take unless [`TestClient::set_timeout`] says otherwise.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);

/// Server→client requests answered with `null` unless a test opts out with
/// [`TestClient::set_auto_response`].
pub const AUTO_ANSWERED_METHODS: [&str; 3] = [
    "client/registerCapability",
    "window/workDoneProgress/create",
    "workspace/configuration",
];

/// Capacity of each in-memory pipe; larger messages simply take several reads.
const PIPE_BYTES: usize = 64 * 1024;

/// How long a failure report waits for a server that closed its pipes to finish.
const SERVER_END_GRACE: Duration = Duration::from_secs(1);

/// How much of each received message a failure message shows.
const SUMMARY_CHARS: usize = 300;

/// What [`TestClient::expect_response_or_request`] found first.
#[derive(Debug)]
pub enum Arrival {
    Response(Result<Value, Value>),
    /// A server→client request: `(id, params)`.
    Request(Value, Value),
}

/// A language client driving one server instance inside the test process.
pub struct TestClient {
    writer: DuplexStream,
    incoming: mpsc::UnboundedReceiver<Incoming>,
    reader: JoinHandle<()>,
    server: Option<JoinHandle<()>>,
    timeout: Duration,
    next_id: i64,
    /// Method of each request we sent, by id, for failure messages.
    sent: HashMap<i64, String>,
    /// Responses to our requests, keyed by the id's JSON text, until a test takes them.
    responses: HashMap<String, Value>,
    /// Notifications and server→client requests not yet taken, in arrival order.
    queue: VecDeque<Value>,
    /// Ids (JSON text) of server→client requests a test took and has not answered yet.
    unanswered: HashSet<String>,
    /// Result sent back automatically, per server→client request method.
    auto_responses: HashMap<String, Value>,
    /// Requests answered automatically: (method, params), in arrival order.
    auto_answered: Vec<(String, Value)>,
    /// How many auto-answered requests per method `expect_auto_answered` has returned.
    auto_claimed: HashMap<String, usize>,
    /// One line per received message, for failure messages.
    log: Vec<String>,
}

impl TestClient {
    /// Starts `serve(input, output)` as a task (so this must run inside a tokio runtime, e.g.
    /// `#[tokio::test]`) with the server reading `input` and writing `output`, and returns a
    /// client connected to the other ends.
    pub fn spawn<F, Fut>(serve: F) -> TestClient
    where
        F: FnOnce(DuplexStream, DuplexStream) -> Fut,
        Fut: Future<Output = ()> + Send + 'static,
    {
        let (writer, server_input) = tokio::io::duplex(PIPE_BYTES);
        let (server_output, client_input) = tokio::io::duplex(PIPE_BYTES);
        let server = tokio::spawn(serve(server_input, server_output));
        let (sender, incoming) = mpsc::unbounded_channel();
        // A separate reader task keeps the server's output drained at all times, so a server
        // that writes a lot never blocks on us, and waits can be cancelled by a timeout
        // without losing half a frame.
        let reader = tokio::spawn(read_messages(client_input, sender));
        let auto_responses = AUTO_ANSWERED_METHODS
            .iter()
            .map(|method| (method.to_string(), Value::Null))
            .collect();
        TestClient {
            writer,
            incoming,
            reader,
            server: Some(server),
            timeout: DEFAULT_TIMEOUT,
            next_id: 0,
            sent: HashMap::new(),
            responses: HashMap::new(),
            queue: VecDeque::new(),
            unanswered: HashSet::new(),
            auto_responses,
            auto_answered: Vec::new(),
            auto_claimed: HashMap::new(),
            log: Vec::new(),
        }
    }

    /// Sets how long each later wait (and each write) may take.
    pub fn set_timeout(&mut self, timeout: Duration) {
        self.timeout = timeout;
    }

    /// Answers server→client requests of `method` automatically with `result` (`Some`), or
    /// stops doing so (`None`) so a test can take them with [`Self::expect_request`]. Affects
    /// requests received after the call.
    pub fn set_auto_response(&mut self, method: &str, result: Option<Value>) {
        match result {
            Some(result) => self.auto_responses.insert(method.to_owned(), result),
            None => self.auto_responses.remove(method),
        };
    }

    // ----- sending -----

    /// Sends a request and waits for its response: `Ok(result)` or `Err(error object)`.
    /// Everything else that arrives meanwhile is queued for the `expect_*` methods.
    pub async fn request(&mut self, method: &str, params: Value) -> Result<Value, Value> {
        let id = self.send_request(method, params).await;
        self.expect_response(id).await
    }

    /// Sends a request with a fresh id without waiting; pair with [`Self::expect_response`].
    pub async fn send_request(&mut self, method: &str, params: Value) -> i64 {
        self.next_id += 1;
        let id = self.next_id;
        let mut message = json!({"jsonrpc": "2.0", "id": id, "method": method});
        if !params.is_null() {
            message["params"] = params;
        }
        self.sent.insert(id, method.to_owned());
        self.write_message(&message).await;
        id
    }

    /// Waits for the response to request `id`: `Ok(result)` or `Err(error object)`.
    /// Waits for a response with `"id": null`: the server's answer to a message it could
    /// not read (JSON-RPC "Parse error" and friends). Returns the whole response.
    pub async fn expect_response_null_id(&mut self) -> Value {
        self.wait_for("a response with id null", |client| {
            client.responses.remove("null")
        })
        .await
    }

    pub async fn expect_response(&mut self, id: i64) -> Result<Value, Value> {
        let key = id.to_string();
        let method = self.sent.get(&id).cloned().unwrap_or_default();
        let what = format!("the response to request {id} `{method}`");
        let response = self
            .wait_for(&what, |client| client.responses.remove(&key))
            .await;
        match (response.get("result"), response.get("error")) {
            (Some(result), None) => Ok(result.clone()),
            (None, Some(error)) => Err(error.clone()),
            _ => panic!("malformed response to `{method}`: {response}"),
        }
    }

    /// Waits for whichever comes first: the response to request `id`, or a server→client
    /// request `method` (to be answered with [`Self::respond`]).
    pub async fn expect_response_or_request(&mut self, id: i64, method: &str) -> Arrival {
        let key = id.to_string();
        let what = format!("the response to request {id} or a server request `{method}`");
        let arrival = self
            .wait_for(&what, |client| {
                if let Some(response) = client.responses.remove(&key) {
                    return Some(Err(response));
                }
                client
                    .take_queued(|m| m.has_id() && m.method() == Some(method))
                    .map(Ok)
            })
            .await;
        match arrival {
            Ok(mut request) => {
                let id = request["id"].take();
                self.unanswered.insert(id.to_string());
                Arrival::Request(id, params_of(request))
            }
            Err(response) => match (response.get("result"), response.get("error")) {
                (Some(result), None) => Arrival::Response(Ok(result.clone())),
                (None, Some(error)) => Arrival::Response(Err(error.clone())),
                _ => panic!("malformed response to request {id}: {response}"),
            },
        }
    }

    /// Waits for whichever comes first: the response to request `id` (`None` for no
    /// request), or a server→client request of one of `methods`, as
    /// `Err((method, id, params))` (to be answered with [`Self::respond`]).
    pub async fn expect_response_or_one_of(
        &mut self,
        id: Option<i64>,
        methods: &[&str],
    ) -> Result<Result<Value, Value>, (String, Value, Value)> {
        let key = id.map(|id| id.to_string());
        let what = format!("the response to request {id:?} or a server request {methods:?}");
        let arrival = self
            .wait_for(&what, |client| {
                if let Some(key) = &key
                    && let Some(response) = client.responses.remove(key)
                {
                    return Some(Err(response));
                }
                client
                    .take_queued(|m| m.has_id() && m.method().is_some_and(|m| methods.contains(&m)))
                    .map(Ok)
            })
            .await;
        match arrival {
            Ok(mut request) => {
                let id = request["id"].take();
                let method = request["method"].as_str().unwrap_or_default().to_owned();
                self.unanswered.insert(id.to_string());
                Err((method, id, params_of(request)))
            }
            Err(response) => match (response.get("result"), response.get("error")) {
                (Some(result), None) => Ok(Ok(result.clone())),
                (None, Some(error)) => Ok(Err(error.clone())),
                _ => panic!("malformed response to request {id:?}: {response}"),
            },
        }
    }

    /// Sends a notification (`params` is left out when `Null`).
    pub async fn notify(&mut self, method: &str, params: Value) {
        let mut message = json!({"jsonrpc": "2.0", "method": method});
        if !params.is_null() {
            message["params"] = params;
        }
        self.write_message(&message).await;
    }

    /// Writes bytes exactly as given, without framing: for malformed-input tests.
    pub async fn send_raw(&mut self, bytes: &[u8]) {
        self.write_bytes(bytes).await;
    }

    /// Sends `$/cancelRequest` for one of our requests.
    pub async fn cancel(&mut self, id: i64) {
        self.notify("$/cancelRequest", json!({"id": id})).await;
    }

    // ----- lifecycle -----

    /// Sends `initialize` (with `rootUri`, `rootPath` and `workspaceFolders` from `root`),
    /// then `initialized`; returns the initialize result. Panics if initialize fails.
    pub async fn initialize(&mut self, capabilities: Value, root: Option<&Path>) -> Value {
        let capabilities = if capabilities.is_null() {
            json!({})
        } else {
            capabilities
        };
        let (root_uri, root_path, folders) = match root {
            Some(root) => {
                let uri = file_uri(root);
                let name = root
                    .file_name()
                    .map_or_else(|| uri.clone(), |n| n.to_string_lossy().into_owned());
                (
                    json!(uri),
                    json!(root.to_string_lossy()),
                    json!([{"uri": uri, "name": name}]),
                )
            }
            None => (Value::Null, Value::Null, Value::Null),
        };
        let params = json!({
            "processId": std::process::id(),
            "clientInfo": {"name": "chatmd-tests", "version": env!("CARGO_PKG_VERSION")},
            "rootPath": root_path,
            "rootUri": root_uri,
            "workspaceFolders": folders,
            "capabilities": capabilities,
        });
        let result = match self.request("initialize", params).await {
            Ok(result) => result,
            Err(error) => panic!("initialize failed: {error}"),
        };
        self.notify("initialized", json!({})).await;
        result
    }

    /// Sends `shutdown` (which must answer `null`) and `exit`, then waits for the server
    /// future to end. Panics if the server does not end in time or panicked.
    pub async fn shutdown(&mut self) {
        let answer = self.request("shutdown", Value::Null).await;
        assert_eq!(answer, Ok(Value::Null), "shutdown must answer null");
        self.notify("exit", Value::Null).await;
        let mut server = self
            .server
            .take()
            .expect("the server was already shut down");
        // Keep answering what the server still asks (a request of a handler that began
        // before `shutdown` holds the server up until it is answered), as an editor does.
        let deadline = tokio::time::Instant::now() + self.timeout;
        let ended = loop {
            tokio::select! {
                ended = &mut server => break Some(ended),
                incoming = self.incoming.recv() => match incoming {
                    Some(inbox::Incoming::Message(message)) => self.file(message).await,
                    // The output is closed or broken: only the server's end is left.
                    _ => break tokio::time::timeout_at(deadline, &mut server).await.ok(),
                },
                () = tokio::time::sleep_until(deadline) => break None,
            }
        };
        match ended {
            Some(Ok(())) => {}
            Some(Err(error)) => panic!("the server failed during shutdown: {}", join_error(error)),
            None => panic!(
                "the server future did not end within {:?} after `exit`",
                self.timeout
            ),
        }
    }

    // ----- documents and commands -----

    /// `textDocument/didOpen` with language id `chatmd` and version 1.
    pub async fn open(&mut self, uri: &str, text: &str) {
        self.open_as(uri, "chatmd", text).await;
    }

    /// `textDocument/didOpen` with the given language id and version 1.
    pub async fn open_as(&mut self, uri: &str, language_id: &str, text: &str) {
        let document = json!({"uri": uri, "languageId": language_id, "version": 1, "text": text});
        self.notify("textDocument/didOpen", json!({"textDocument": document}))
            .await;
    }

    /// `textDocument/didChange`; `changes` is the `contentChanges` array (a single change
    /// object is wrapped in one).
    pub async fn change(&mut self, uri: &str, version: i32, changes: Value) {
        let changes = match changes {
            Value::Array(_) => changes,
            single => json!([single]),
        };
        let params = json!({
            "textDocument": {"uri": uri, "version": version},
            "contentChanges": changes,
        });
        self.notify("textDocument/didChange", params).await;
    }

    /// `textDocument/didClose`.
    pub async fn close(&mut self, uri: &str) {
        self.notify(
            "textDocument/didClose",
            json!({"textDocument": {"uri": uri}}),
        )
        .await;
    }

    /// `workspace/executeCommand` (`arguments` left out when `Null`), waiting for the answer.
    pub async fn execute_command(
        &mut self,
        command: &str,
        arguments: Value,
    ) -> Result<Value, Value> {
        let mut params = json!({"command": command});
        if !arguments.is_null() {
            params["arguments"] = arguments;
        }
        self.request("workspace/executeCommand", params).await
    }

    // ----- receiving -----

    /// The params of the next notification `method` (`Null` if it had none).
    pub async fn expect_notification(&mut self, method: &str) -> Value {
        let what = format!("notification `{method}`");
        let message = self
            .wait_for(&what, |client| {
                client.take_queued(|m| !m.has_id() && m.method() == Some(method))
            })
            .await;
        params_of(message)
    }

    /// The diagnostics of the next `textDocument/publishDiagnostics` for `uri` (compared as
    /// strings, exactly).
    pub async fn expect_diagnostics(&mut self, uri: &str) -> Vec<Value> {
        let what = format!("diagnostics for {uri}");
        let message = self
            .wait_for(&what, |client| {
                client.take_queued(|m| {
                    !m.has_id()
                        && m.method() == Some("textDocument/publishDiagnostics")
                        && m["params"]["uri"] == uri
                })
            })
            .await;
        match params_of(message).get_mut("diagnostics").map(Value::take) {
            Some(Value::Array(diagnostics)) => diagnostics,
            other => panic!("publishDiagnostics for {uri} without a diagnostics array: {other:?}"),
        }
    }

    /// The next server→client request `method` as `(id, params)`; answer it with
    /// [`Self::respond`]. Methods answered automatically must be opted out first.
    pub async fn expect_request(&mut self, method: &str) -> (Value, Value) {
        assert!(
            !self.auto_responses.contains_key(method),
            "`{method}` is answered automatically; call \
             `set_auto_response({method:?}, None)` before the server sends it"
        );
        let what = format!("server request `{method}`");
        let mut message = self
            .wait_for(&what, |client| {
                client.take_queued(|m| m.has_id() && m.method() == Some(method))
            })
            .await;
        let id = message["id"].take();
        self.unanswered.insert(id.to_string());
        (id, params_of(message))
    }

    /// Answers a server→client request taken with [`Self::expect_request`].
    pub async fn respond(&mut self, id: Value, result: Value) {
        self.claim_answer(&id);
        self.write_message(&json!({"jsonrpc": "2.0", "id": id, "result": result}))
            .await;
    }

    /// Answers a server→client request taken with [`Self::expect_request`] with an error.
    pub async fn respond_error(&mut self, id: Value, code: i64, message: &str) {
        self.claim_answer(&id);
        let error = json!({"code": code, "message": message});
        self.write_message(&json!({"jsonrpc": "2.0", "id": id, "error": error}))
            .await;
    }

    /// The params of every notification `method` that has arrived so far, without waiting.
    pub async fn drain_notifications(&mut self, method: &str) -> Vec<Value> {
        self.receive_available().await;
        let (taken, kept) = std::mem::take(&mut self.queue)
            .into_iter()
            .partition(|m| !m.has_id() && m.method() == Some(method));
        self.queue = kept;
        taken.into_iter().map(params_of).collect()
    }

    /// The params of every request `method` answered automatically so far.
    pub fn auto_answered(&self, method: &str) -> Vec<Value> {
        self.auto_answered
            .iter()
            .filter(|(m, _)| m == method)
            .map(|(_, params)| params.clone())
            .collect()
    }

    /// Waits for the next automatically answered request `method` (counting only those not
    /// returned by an earlier call) and returns its params.
    pub async fn expect_auto_answered(&mut self, method: &str) -> Value {
        let seen = self.auto_claimed.get(method).copied().unwrap_or(0);
        let what = format!("automatically answered request `{method}`");
        let params = self
            .wait_for(&what, |client| {
                let mut matching = client.auto_answered.iter().filter(|(m, _)| m == method);
                matching.nth(seen).map(|(_, params)| params.clone())
            })
            .await;
        self.auto_claimed.insert(method.to_owned(), seen + 1);
        params
    }

    // ----- writing -----

    fn claim_answer(&mut self, id: &Value) {
        assert!(
            self.unanswered.remove(&id.to_string()),
            "no server request with id {id} is waiting for an answer (take it with expect_request)"
        );
    }

    async fn write_message(&mut self, message: &Value) {
        let body = serde_json::to_vec(message).expect("a JSON value always serializes");
        self.write_bytes(&encode_frame(&body)).await;
    }

    async fn write_bytes(&mut self, bytes: &[u8]) {
        let writer = &mut self.writer;
        let write = async {
            writer.write_all(bytes).await?;
            writer.flush().await
        };
        match tokio::time::timeout(self.timeout, write).await {
            Ok(Ok(())) => {}
            Ok(Err(error)) => {
                let report = self.report(self.log.len(), true).await;
                panic!("writing to the server failed: {error}\n{report}")
            }
            Err(_) => panic!(
                "timed out after {:?} writing {} bytes to the server (is it reading its input?)",
                self.timeout,
                bytes.len()
            ),
        }
    }
}

impl Drop for TestClient {
    fn drop(&mut self) {
        self.reader.abort();
        if let Some(server) = &self.server {
            server.abort();
        }
    }
}
