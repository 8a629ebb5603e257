//! ACP's JSON-RPC 2.0 framing: one JSON object per line each way, no headers. Outgoing
//! messages are the protocol crate's envelopes around its typed params; an incoming
//! line is read into a request of the agent's, a notification, or a response to one of
//! ours. Anything else (a line of noise, a response to no id) reads as nothing.

use agent_client_protocol::v1::schema::{
    Error, JsonRpcMessage, Notification, Request, RequestId, Response,
};
use serde::Serialize;
use serde_json::Value;

/// One message from the agent.
#[derive(Debug)]
pub enum Incoming {
    /// The agent asks something and waits for the answer with this `id` (echoed as it
    /// came: agents number from 0, and an id may be a string).
    Request {
        id: RequestId,
        method: String,
        params: Value,
    },
    Notification {
        method: String,
        params: Value,
    },
    /// The answer to our request `id`: its result, or the agent's error.
    Response {
        id: RequestId,
        outcome: Result<Value, AgentError>,
    },
}

/// A JSON-RPC error the agent answered with, as the protocol crate reads it (its code,
/// message and data), or its raw object when even that does not read.
#[derive(Debug)]
pub struct AgentError {
    pub code: Option<i64>,
    pub message: String,
    pub data: Option<Value>,
}

/// `line` read as one message, or `None` when it is not one (blank, not JSON, not an
/// object, or an object that is neither a request, a notification nor a response).
pub fn read(line: &str) -> Option<Incoming> {
    let Value::Object(mut object) = serde_json::from_str::<Value>(line.trim()).ok()? else {
        return None;
    };
    let id = match object.remove("id") {
        Some(id) => Some(serde_json::from_value::<RequestId>(id).ok()?),
        None => None,
    };
    if let Some(Value::String(method)) = object.remove("method") {
        let params = object.remove("params").unwrap_or(Value::Null);
        return Some(match id {
            Some(id) => Incoming::Request { id, method, params },
            None => Incoming::Notification { method, params },
        });
    }
    let id = id?;
    let outcome = match (object.remove("result"), object.remove("error")) {
        (_, Some(error)) => Err(agent_error(error)),
        (Some(result), None) => Ok(result),
        (None, None) => return None,
    };
    Some(Incoming::Response { id, outcome })
}

fn agent_error(error: Value) -> AgentError {
    match serde_json::from_value::<Error>(error.clone()) {
        Ok(error) => AgentError {
            code: Some(i64::from(i32::from(error.code))),
            message: error.message,
            data: error.data,
        },
        Err(_) => {
            let field = |name: &str| error.get(name).cloned();
            AgentError {
                code: field("code").as_ref().and_then(Value::as_i64),
                message: field("message")
                    .and_then(|m| m.as_str().map(str::to_owned))
                    .unwrap_or_default(),
                data: field("data"),
            }
        }
    }
}

/// Our request `id` (we number ours from 1), as a line.
pub fn request<P: Serialize>(id: i64, method: &str, params: P) -> Vec<u8> {
    line(&JsonRpcMessage::wrap(Request {
        id: RequestId::Number(id),
        method: method.into(),
        params: Some(params),
    }))
}

/// A notification (no answer comes), as a line.
pub fn notification<P: Serialize>(method: &str, params: P) -> Vec<u8> {
    line(&JsonRpcMessage::wrap(Notification {
        method: method.into(),
        params: Some(params),
    }))
}

/// The answer to the agent's request `id`, as a line.
pub fn result<R: Serialize>(id: &RequestId, result: R) -> Vec<u8> {
    line(&JsonRpcMessage::wrap(Response::<R, Error>::Result {
        id: id.clone(),
        result,
    }))
}

/// An error answer to the agent's request `id`, as a line.
pub fn error(id: &RequestId, error: Error) -> Vec<u8> {
    line(&JsonRpcMessage::wrap(Response::<Value, Error>::Error {
        id: id.clone(),
        error,
    }))
}

/// `message` as one line of JSON. These types always serialize (no map has a key that
/// is not a string); were one not to, the agent gets nothing rather than chatmd a panic.
fn line<T: Serialize>(message: &T) -> Vec<u8> {
    match serde_json::to_vec(message) {
        Ok(mut bytes) => {
            bytes.push(b'\n');
            bytes
        }
        Err(error) => {
            tracing::error!("an ACP message did not serialize: {error}");
            Vec::new()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    #[test]
    fn requests_notifications_and_responses_are_told_apart() {
        let request = read(r#"{"jsonrpc":"2.0","id":0,"method":"fs/read_text_file","params":{}}"#);
        assert!(
            matches!(&request, Some(Incoming::Request { id: RequestId::Number(0), method, .. }) if method == "fs/read_text_file")
        );
        let named = read(r#"{"jsonrpc":"2.0","id":"a-1","method":"x"}"#);
        assert!(
            matches!(named, Some(Incoming::Request { id: RequestId::Str(id), .. }) if id == "a-1")
        );
        let notice = read(r#"{"jsonrpc":"2.0","method":"_auth/status_update","params":{}}"#);
        assert!(matches!(notice, Some(Incoming::Notification { .. })));
        let answer = read(
            r#"{"jsonrpc":"2.0","id":2,"error":{"code":-32000,"message":"Authentication required"}}"#,
        );
        let Some(Incoming::Response {
            id,
            outcome: Err(error),
        }) = answer
        else {
            panic!("{answer:?}");
        };
        assert_eq!(
            (id, error.code, error.message.as_str()),
            (
                RequestId::Number(2),
                Some(-32000),
                "Authentication required"
            )
        );
        for noise in [
            "",
            "[STARTUP] Phase",
            "[1,2]",
            r#"{"jsonrpc":"2.0","id":3}"#,
            r#"{"id":1.5,"result":{}}"#,
        ] {
            assert!(read(noise).is_none(), "{noise}");
        }
    }

    #[test]
    fn outgoing_messages_are_one_line_each() {
        let id = RequestId::Number(0);
        assert_eq!(
            String::from_utf8(error(&id, Error::method_not_found())).unwrap(),
            "{\"jsonrpc\":\"2.0\",\"id\":0,\"error\":{\"code\":-32601,\"message\":\"Method not found\"}}\n"
        );
        assert_eq!(
            String::from_utf8(request(1, "m", json!({"a": 1}))).unwrap(),
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":{\"a\":1}}\n"
        );
        assert_eq!(
            String::from_utf8(notification("n", json!({}))).unwrap(),
            "{\"jsonrpc\":\"2.0\",\"method\":\"n\",\"params\":{}}\n"
        );
        let id = RequestId::Str("x".into());
        assert_eq!(
            String::from_utf8(result(&id, json!({}))).unwrap(),
            "{\"jsonrpc\":\"2.0\",\"id\":\"x\",\"result\":{}}\n"
        );
    }
}
