//! Malformed frames and messages, unknown requests, and how the server exits.

use serde_json::{Value, json};

use crate::stdio::*;

#[test]
fn a_fractional_request_id_gets_an_error_and_the_server_keeps_answering() {
    let mut server = Server::start();
    server.send_raw(&frame(r#"{"jsonrpc":"2.0","id":1.5,"method":"shutdown"}"#));
    assert_eq!(error_of(&server.answer()), (Value::Null, INVALID_REQUEST));
    server.still_answers();
}

#[test]
fn an_id_that_is_an_object_a_bool_or_too_large_gets_an_error_and_the_server_keeps_answering() {
    let mut server = Server::start();
    for id in [
        "{}",
        "true",
        "[1]",
        "18446744073709551616",
        "9223372036854775808",
    ] {
        let body = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"shutdown"}}"#);
        server.send_raw(&frame(&body));
        assert_eq!(
            error_of(&server.answer()),
            (Value::Null, INVALID_REQUEST),
            "{id}"
        );
        server.still_answers();
    }
}

#[test]
fn a_duplicated_key_gets_an_error_and_the_server_keeps_answering() {
    let mut server = Server::start();
    server.send_raw(&frame(
        r#"{"jsonrpc":"2.0","id":70,"method":"chatmd/turns","method":"shutdown"}"#,
    ));
    assert_eq!(error_of(&server.answer()), (json!(70), INVALID_REQUEST));
    server.send_raw(&frame(r#"{"jsonrpc":"2.0","id":71,"id":72,"method":"x"}"#));
    assert_eq!(error_of(&server.answer()), (Value::Null, INVALID_REQUEST));
    server.still_answers();
}

#[test]
fn a_bad_content_length_is_skipped() {
    let mut server = Server::start();
    for header in [
        "Content-Length: abc",
        "Content-Length: -5",
        "Content-Type: application/vscode-jsonrpc",
    ] {
        // The body that header should have delimited is skipped with it.
        let body = r#"{"jsonrpc":"2.0","id":80,"method":"shutdown"}"#;
        server.send_raw(format!("{header}\r\n\r\n{body}").as_bytes());
        assert_eq!(
            error_of(&server.answer()),
            (Value::Null, PARSE_ERROR),
            "{header}"
        );
        server.still_answers();
    }
}

#[test]
fn garbage_between_frames_and_a_wrong_content_length_are_skipped() {
    let mut server = Server::start();
    server.send_raw(b"garbage\r\nno header at all\r\n\r\n");
    server.still_answers();
    // A Content-Length 10 bytes too long: the next frame's header is inside the body.
    let body = r#"{"jsonrpc":"2.0","method":"initialized","params":{}}"#;
    server.send_raw(format!("Content-Length: {}\r\n\r\n{body}", body.len() + 10).as_bytes());
    server.send(&json!({"jsonrpc": "2.0", "id": 90, "method": "chatmd/turns", "params": {}}));
    assert_eq!(error_of(&server.answer()), (Value::Null, PARSE_ERROR));
    assert_eq!(server.answer()["id"], 90);
    // A Content-Length too short: the rest of the body is garbage before the next header.
    server.send_raw(format!("Content-Length: 10\r\n\r\n{body}").as_bytes());
    assert_eq!(error_of(&server.answer()), (Value::Null, PARSE_ERROR));
    server.still_answers();
}

#[test]
fn what_is_not_json_rpc_gets_an_error_and_the_server_keeps_answering() {
    let mut server = Server::start();
    server.send_raw(&frame("not json"));
    assert_eq!(error_of(&server.answer()), (Value::Null, PARSE_ERROR));
    server.send_raw(&frame("[1, 2]"));
    assert_eq!(error_of(&server.answer()), (Value::Null, INVALID_REQUEST));
    server.send_raw(&frame(r#"{"jsonrpc":"1.0","id":5,"method":"x"}"#));
    assert_eq!(error_of(&server.answer()), (json!(5), INVALID_REQUEST));
    server.send_raw(b"Content-Length: 4\r\n\r\n\xff\xfe{}");
    assert_eq!(error_of(&server.answer()), (Value::Null, PARSE_ERROR));
    // A malformed notification has no id to answer: dropped.
    server.send_raw(&frame(r#"{"jsonrpc":"2.0","method":7}"#));
    server.still_answers();
}

#[test]
fn an_unknown_request_is_answered_even_a_dollar_one() {
    let mut server = Server::start();
    for method in ["$/unknown", "chatmd/unknown", "$/cancelRequest"] {
        let answer = server.request(method, json!({}));
        let (_, code) = error_of(&answer);
        assert!(
            [METHOD_NOT_FOUND, INVALID_REQUEST].contains(&code),
            "{method}: {answer}"
        );
    }
    server.still_answers();
}

#[test]
fn a_malformed_answer_from_the_editor_does_not_stop_the_server() {
    let mut server = Server::start();
    server.send_raw(&frame(r#"{"jsonrpc":"2.0","id":7,"error":"no"}"#));
    server.send_raw(&frame(r#"{"jsonrpc":"2.0","id":{},"result":1}"#));
    server.still_answers();
}

#[test]
fn exit_after_shutdown_exits_with_0() {
    let mut server = Server::start();
    assert_eq!(
        server.request("shutdown", Value::Null)["result"],
        Value::Null
    );
    // The input stays open, as some editors keep it: `exit` alone must end the server.
    server.send(&json!({"jsonrpc": "2.0", "method": "exit"}));
    assert_eq!(server.exit_status().code(), Some(0));
}

#[test]
fn exit_without_shutdown_exits_with_1() {
    let mut server = Server::start();
    server.send(&json!({"jsonrpc": "2.0", "method": "exit"}));
    assert_eq!(server.exit_status().code(), Some(1));
}

#[test]
fn the_input_closing_without_shutdown_exits_with_1() {
    let mut server = Server::start();
    server.stdin = None;
    assert_eq!(server.exit_status().code(), Some(1));
}
