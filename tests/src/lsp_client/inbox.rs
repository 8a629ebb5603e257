//! The receiving side of the test client: a reader task turns the server's output into
//! messages, which are filed as responses, automatic answers or queued for the tests.

use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::DuplexStream;
use tokio::sync::mpsc;
use tokio::time::Instant;

use super::framing::{self, FrameReader};
use super::{SERVER_END_GRACE, SUMMARY_CHARS, TestClient};

/// What the reader task hands to the client.
pub(super) enum Incoming {
    Message(Value),
    /// The server wrote something that is not a valid frame or JSON; reading stopped.
    Broken(String),
}

impl TestClient {
    /// Receives and files messages until `take` finds what the caller waits for.
    pub(super) async fn wait_for<T>(
        &mut self,
        what: &str,
        mut take: impl FnMut(&mut Self) -> Option<T>,
    ) -> T {
        let first_new = self.log.len();
        let deadline = Instant::now() + self.timeout;
        loop {
            if let Some(found) = take(self) {
                return found;
            }
            match tokio::time::timeout_at(deadline, self.incoming.recv()).await {
                Ok(Some(Incoming::Message(message))) => self.file(message).await,
                Ok(Some(Incoming::Broken(why))) => {
                    let report = self.report(first_new, false).await;
                    panic!("the server's output broke while waiting for {what}: {why}\n{report}")
                }
                Ok(None) => {
                    let report = self.report(first_new, true).await;
                    panic!("the server closed its output while waiting for {what}\n{report}")
                }
                Err(_) => {
                    let report = self.report(first_new, false).await;
                    panic!(
                        "timed out after {:?} waiting for {what}\n{report}",
                        self.timeout
                    )
                }
            }
        }
    }

    /// The next server→client request or notification whose method is one of
    /// `methods`, whole (`method`, `params`, and `id` for a request, which is then
    /// answered with [`TestClient::respond`]): for a test that reacts to several kinds
    /// of events as they come.
    pub async fn expect_message(&mut self, methods: &[&str]) -> Value {
        assert!(
            methods
                .iter()
                .all(|method| !self.auto_responses.contains_key(*method)),
            "one of {methods:?} is answered automatically"
        );
        let what = format!("one of {methods:?}");
        let message = self
            .wait_for(&what, |client| {
                client.take_queued(|m| m.method().is_some_and(|method| methods.contains(&method)))
            })
            .await;
        if message.has_id() {
            self.unanswered.insert(message["id"].to_string());
        }
        message
    }

    /// Files every message already received, without waiting.
    pub(super) async fn receive_available(&mut self) {
        while let Ok(incoming) = self.incoming.try_recv() {
            match incoming {
                Incoming::Message(message) => self.file(message).await,
                Incoming::Broken(why) => panic!("the server's output broke: {why}"),
            }
        }
    }

    /// Sorts one message into responses, automatic answers or the queue.
    pub(super) async fn file(&mut self, message: Value) {
        self.log.push(summarize(&message));
        assert_eq!(
            message["jsonrpc"], "2.0",
            "server message without \"jsonrpc\": \"2.0\": {message}"
        );
        match (message.method(), message.has_id()) {
            (Some(method), true) => {
                if let Some(result) = self.auto_responses.get(method).cloned() {
                    let params = message.get("params").cloned().unwrap_or(Value::Null);
                    self.auto_answered.push((method.to_owned(), params));
                    let answer = json!({"jsonrpc": "2.0", "id": message["id"], "result": result});
                    if let Some(line) = self.log.last_mut() {
                        line.insert_str(0, "(answered automatically) ");
                    }
                    self.write_message(&answer).await;
                } else {
                    self.queue.push_back(message);
                }
            }
            (Some(_), false) => self.queue.push_back(message),
            (None, true) => {
                let key = message["id"].to_string();
                if let Some(earlier) = self.responses.insert(key, message) {
                    panic!("two responses with the same id; the first was {earlier}");
                }
            }
            (None, false) => panic!("server message is neither request nor response: {message}"),
        }
    }

    pub(super) fn take_queued(&mut self, wanted: impl Fn(&Value) -> bool) -> Option<Value> {
        let index = self.queue.iter().position(wanted)?;
        self.queue.remove(index)
    }

    /// What a failure message shows: messages received since `first_new`, the unclaimed
    /// queue and whether the server is still running (with its panic, if it panicked).
    pub(super) async fn report(&mut self, first_new: usize, server_gone: bool) -> String {
        let mut report = String::new();
        let received = &self.log[first_new.min(self.log.len())..];
        report.push_str(&format!("received during the wait ({}):\n", received.len()));
        for line in received {
            report.push_str(&format!("  {line}\n"));
        }
        report.push_str(&format!("still unclaimed ({}):\n", self.queue.len()));
        for message in &self.queue {
            report.push_str(&format!("  {}\n", summarize(message)));
        }
        // A server that closed a pipe is usually ending; give it a moment to finish so a
        // panic message can be shown.
        let grace = if server_gone {
            SERVER_END_GRACE
        } else {
            Duration::ZERO
        };
        let server = match self.server.take() {
            Some(mut handle) => match tokio::time::timeout(grace, &mut handle).await {
                Ok(Ok(())) => "the server future has returned".to_owned(),
                Ok(Err(error)) => format!("the server failed: {}", join_error(error)),
                Err(_) => {
                    self.server = Some(handle);
                    "the server is still running".to_owned()
                }
            },
            None => "the server has been shut down".to_owned(),
        };
        report.push_str(&server);
        report
    }
}

/// Reads frames from the server until its output ends or breaks.
pub(super) async fn read_messages(input: DuplexStream, sender: mpsc::UnboundedSender<Incoming>) {
    let mut frames = FrameReader::new(input);
    loop {
        let incoming = match frames.read_frame().await {
            Ok(Some(body)) => match serde_json::from_slice(&body) {
                Ok(message) => Incoming::Message(message),
                Err(error) => Incoming::Broken(format!(
                    "a body is not JSON ({error}): {}",
                    framing::preview(&body)
                )),
            },
            Ok(None) => return,
            Err(error) => Incoming::Broken(error.to_string()),
        };
        let broken = matches!(incoming, Incoming::Broken(_));
        if sender.send(incoming).is_err() || broken {
            return;
        }
    }
}

/// Shape queries on JSON-RPC messages.
pub(super) trait MessageExt {
    fn method(&self) -> Option<&str>;
    fn has_id(&self) -> bool;
}

impl MessageExt for Value {
    fn method(&self) -> Option<&str> {
        self.get("method").and_then(Value::as_str)
    }

    fn has_id(&self) -> bool {
        self.get("id").is_some()
    }
}

pub(super) fn params_of(mut message: Value) -> Value {
    message
        .get_mut("params")
        .map(Value::take)
        .unwrap_or(Value::Null)
}

/// One line naming the kind of message, its method or id, and the start of its JSON.
pub(super) fn summarize(message: &Value) -> String {
    let kind = match (message.method(), message.has_id()) {
        (Some(method), true) => format!("request {method} id={}", message["id"]),
        (Some(method), false) => format!("notification {method}"),
        (None, _) => format!("response id={}", message["id"]),
    };
    let text = message.to_string();
    let mut short: String = text.chars().take(SUMMARY_CHARS).collect();
    if short.len() < text.len() {
        short.push_str(&format!("… ({} bytes)", text.len()));
    }
    format!("{kind}: {short}")
}

pub(super) fn join_error(error: tokio::task::JoinError) -> String {
    if !error.is_panic() {
        return error.to_string();
    }
    let payload = error.into_panic();
    if let Some(message) = payload.downcast_ref::<&str>() {
        format!("panicked: {message}")
    } else if let Some(message) = payload.downcast_ref::<String>() {
        format!("panicked: {message}")
    } else {
        "panicked".to_owned()
    }
}
