use super::*;
use pretty_assertions::assert_eq;
use serde_json::json;

fn verdict(body: &str) -> Verdict {
    check(body.as_bytes())
}

fn answered(body: &str) -> (Option<Value>, i64) {
    match verdict(body) {
        Verdict::Answer { id, code, .. } => (id, code),
        other => panic!("{body}: expected an answer, got {other:?}"),
    }
}

#[test]
fn what_tower_lsp_decodes_passes() {
    for body in [
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}"#,
        r#"{"jsonrpc":"2.0","id":"a","method":"x"}"#,
        r#"{"jsonrpc":"2.0","id":null,"method":"x"}"#,
        r#"{"jsonrpc":"2.0","id":-9223372036854775808,"method":"x"}"#,
        r#"{"jsonrpc":"2.0","method":"initialized","params":{"a":[1,2.5,true,null]}}"#,
        r#"{"jsonrpc":"2.0","id":1,"result":null}"#,
        r#"{"jsonrpc":"2.0","id":1,"error":{"code":-1,"message":"no","data":[1]}}"#,
        // A duplicate deeper down is the handler's business (the last one wins).
        r#"{"jsonrpc":"2.0","method":"x","params":{"a":1,"a":2}}"#,
        "  {\"jsonrpc\":\"2.0\",\"method\":\"x\"}\r\n",
    ] {
        assert_eq!(verdict(body), Verdict::Pass { exit: false }, "{body}");
    }
    assert_eq!(
        verdict(r#"{"jsonrpc":"2.0","method":"exit"}"#),
        Verdict::Pass { exit: true }
    );
}

#[test]
fn an_id_tower_lsp_cannot_decode_is_answered_with_a_null_id() {
    for id in [
        "1.5",
        "1.0",
        "1e3",
        "true",
        "{}",
        "[1]",
        "18446744073709551616",
        "9223372036854775808",
    ] {
        let body = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"shutdown"}}"#);
        assert_eq!(answered(&body), (None, INVALID_REQUEST), "{body}");
    }
}

#[test]
fn a_member_given_twice_is_answered() {
    assert_eq!(
        answered(r#"{"jsonrpc":"2.0","id":1,"id":2,"method":"x"}"#),
        (None, INVALID_REQUEST)
    );
    assert_eq!(
        answered(r#"{"jsonrpc":"2.0","id":4,"method":"x","method":"y"}"#),
        (Some(json!(4)), INVALID_REQUEST)
    );
    assert!(matches!(
        verdict(r#"{"jsonrpc":"2.0","method":"x","method":"y"}"#),
        Verdict::Drop(_)
    ));
}

#[test]
fn a_request_that_is_not_json_rpc_is_answered_with_its_id() {
    assert_eq!(
        answered(r#"{"jsonrpc":"1.0","id":3,"method":"x"}"#),
        (Some(json!(3)), INVALID_REQUEST)
    );
    assert_eq!(
        answered(r#"{"jsonrpc":"2.0","id":"k","method":5}"#),
        (Some(json!("k")), INVALID_REQUEST)
    );
    assert_eq!(
        answered(r#"{"jsonrpc":"2.0","id":3}"#),
        (Some(json!(3)), INVALID_REQUEST)
    );
    assert!(matches!(verdict(r#"{"method":"x"}"#), Verdict::Drop(_)));
    assert!(matches!(verdict("{}"), Verdict::Drop(_)));
}

#[test]
fn what_is_not_json_gets_a_parse_error_with_the_id_read_before_it() {
    assert_eq!(answered("hello"), (None, PARSE_ERROR));
    assert_eq!(answered(""), (None, PARSE_ERROR));
    assert_eq!(answered("\u{ff}"), (None, PARSE_ERROR));
    assert!(matches!(
        check(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xff\"}"),
        Verdict::Answer { id: None, code: PARSE_ERROR, message } if message.contains("not UTF-8")
    ));
    assert_eq!(
        answered(r#"{"jsonrpc":"2.0","id":7,"method":"x","params":{"#),
        (Some(json!(7)), PARSE_ERROR)
    );
    assert_eq!(
        answered(r#"{"jsonrpc":"2.0","id":7,"method":"x"} {}"#),
        (Some(json!(7)), PARSE_ERROR)
    );
    assert_eq!(answered(&"[".repeat(200)), (None, PARSE_ERROR));
}

#[test]
fn what_is_not_an_object_is_an_invalid_request() {
    for body in [
        "[]",
        "[{\"jsonrpc\":\"2.0\",\"method\":\"x\"}]",
        "5",
        "null",
        "\"s\"",
    ] {
        assert_eq!(answered(body), (None, INVALID_REQUEST), "{body}");
    }
}

#[test]
fn an_unknown_dollar_request_is_answered_and_its_notification_passes() {
    assert_eq!(
        answered(r#"{"jsonrpc":"2.0","id":9,"method":"$/foo"}"#),
        (Some(json!(9)), METHOD_NOT_FOUND)
    );
    assert_eq!(
        verdict(r#"{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":1}}"#),
        Verdict::Pass { exit: false }
    );
}

#[test]
fn a_malformed_answer_from_the_editor_becomes_an_error_for_its_request() {
    for body in [
        r#"{"jsonrpc":"2.0","id":5,"error":"no"}"#,
        r#"{"jsonrpc":"2.0","id":5,"error":{"code":1.5,"message":"no"}}"#,
        r#"{"jsonrpc":"2.0","id":5,"error":{"code":1,"message":"no","extra":1}}"#,
        r#"{"jsonrpc":"2.0","id":5,"error":{"message":"no"}}"#,
        r#"{"jsonrpc":"2.0","id":5,"error":{"code":1,"code":1,"message":"no"}}"#,
        r#"{"id":5,"result":{}}"#,
    ] {
        assert!(
            matches!(verdict(body), Verdict::FailedResponse { id, .. } if id == json!(5)),
            "{body}: {:?}",
            verdict(body)
        );
    }
    assert!(matches!(
        verdict(r#"{"jsonrpc":"2.0","id":1.5,"result":{}}"#),
        Verdict::Drop(_)
    ));
}

#[test]
fn a_message_with_too_many_values_is_refused_while_it_is_read() {
    let numbers = vec!["1"; MAX_VALUES].join(",");
    let body = format!(r#"{{"jsonrpc":"2.0","id":2,"method":"x","params":[{numbers}]}}"#);
    assert_eq!(answered(&body), (Some(json!(2)), INVALID_REQUEST));
    let fits = vec!["1"; MAX_VALUES - 10].join(",");
    let body = format!(r#"{{"jsonrpc":"2.0","id":2,"method":"x","params":[{fits}]}}"#);
    assert_eq!(verdict(&body), Verdict::Pass { exit: false });
}

/// What passes must be what tower-lsp-server decodes: its own types read it.
#[test]
fn every_passed_body_decodes_as_tower_lsp_reads_it() {
    use tower_lsp_server::jsonrpc::{Request, Response};
    for body in [
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}"#,
        r#"{"jsonrpc":"2.0","id":-9223372036854775808,"method":"x"}"#,
        r#"{"jsonrpc":"2.0","method":"x","params":{"a":1,"a":2}}"#,
    ] {
        assert_eq!(verdict(body), Verdict::Pass { exit: false });
        serde_json::from_str::<Request>(body).expect(body);
    }
    let body = r#"{"jsonrpc":"2.0","id":1,"error":{"code":-1,"message":"no","data":[1]}}"#;
    assert_eq!(verdict(body), Verdict::Pass { exit: false });
    serde_json::from_str::<Response>(body).expect(body);
    for body in [
        r#"{"jsonrpc":"2.0","id":1.5,"method":"x"}"#,
        r#"{"jsonrpc":"2.0","id":1,"id":2,"method":"x"}"#,
        r#"{"jsonrpc":"2.0","id":18446744073709551616,"method":"x"}"#,
    ] {
        assert!(serde_json::from_str::<Request>(body).is_err(), "{body}");
        assert_ne!(verdict(body), Verdict::Pass { exit: false });
    }
}
