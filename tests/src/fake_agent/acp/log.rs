//! Reading `FAKE_ACP_LOG`: what the client sent the fake, one JSON message a line, for
//! tests to assert what an ACP agent received.

use std::path::Path;

use serde_json::Value;

/// Every message in the log, in order (none when the log is missing).
fn messages(log: &Path) -> Vec<Value> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .collect()
}

/// The client's answers to the fake's questions (`elicitation/create`): their whole
/// result (`{"action": "accept", "content": {…}}`), in order.
pub fn questions_answered(log: &Path) -> Vec<Value> {
    messages(log)
        .into_iter()
        .filter(|m| m.get("result").is_some_and(|r| r.get("action").is_some()))
        .map(|mut m| m["result"].take())
        .collect()
}

/// The methods the client called or notified, in order, across the fake's runs.
pub fn methods_received(log: &Path) -> Vec<String> {
    messages(log)
        .iter()
        .filter_map(|m| m["method"].as_str().map(str::to_owned))
        .collect()
}

/// The process ids of the fake's runs, in the order they started (one `initialize`
/// each: a warm member's later turns add none).
pub fn started_pids(log: &Path) -> Vec<u32> {
    messages(log)
        .iter()
        .filter_map(|m| m["started"].as_u64())
        .filter_map(|pid| u32::try_from(pid).ok())
        .collect()
}

/// The client's answers to the fake's permission requests (their `outcome`), in order.
pub fn answers_received(log: &Path) -> Vec<Value> {
    messages(log)
        .into_iter()
        .filter(|m| m.get("result").is_some_and(|r| r.get("outcome").is_some()))
        .map(|mut m| m["result"]["outcome"].take())
        .collect()
}

/// The client's answers to the fake's requests other than permission requests (`fs/*`):
/// each response's `result`, or its `error`, in order.
pub fn other_answers_received(log: &Path) -> Vec<Value> {
    messages(log)
        .into_iter()
        .filter(|m| m.get("method").is_none() && m.get("id").is_some())
        .filter(|m| m.get("result").is_none_or(|r| r.get("outcome").is_none()))
        .map(|mut m| match m.get("error") {
            Some(_) => json_error(m["error"].take()),
            None => m["result"].take(),
        })
        .collect()
}

fn json_error(error: Value) -> Value {
    serde_json::json!({ "error": error })
}

/// The client's requests and notifications (`method`, `params`), in order, across the
/// fake's runs: what a test asserts of the settings and roots a session got.
pub fn requests_received(log: &Path) -> Vec<(String, Value)> {
    messages(log)
        .into_iter()
        .filter_map(|mut m| {
            let method = m["method"].as_str()?.to_owned();
            Some((method, m["params"].take()))
        })
        .collect()
}
