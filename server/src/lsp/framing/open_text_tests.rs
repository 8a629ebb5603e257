use super::*;
use crate::lsp::framing::text_param::sync;
use pretty_assertions::assert_eq;
use serde::Deserialize;

#[derive(Deserialize)]
struct Params<P> {
    params: P,
}

fn open_body(members: &str, text_literal: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","method":"textDocument/didOpen",{members}"params":{{"textDocument":{{"uri":"file:///a.chat.md","languageId":"chatmd","version":3,"text":{text_literal}}}}}}}"#
    )
}

/// What the way of every other sync makes of `body`: serde_json's decoding.
fn by_serde(body: &str) -> Option<DidOpenTextDocumentParams> {
    serde_json::from_str::<Params<DidOpenTextDocumentParams>>(body)
        .ok()
        .map(|p| p.params)
}

fn opened(body: &str) -> Option<(DidOpenTextDocumentParams, Vec<u32>)> {
    match decode(body.as_bytes().to_vec()) {
        Ok(Decoded::Sync(DocSync::Open(params, lines))) => Some((params, lines)),
        _ => None,
    }
}

/// Texts of every kind decode here as serde_json decodes them, with their lines.
#[test]
fn a_did_open_decodes_as_serde_json_decodes_it() {
    for literal in [
        r#""""#,
        r###""## @me\nhi \"😀\"\r\n""###,
        r#""\u00e9\u6f22\ud83d\ude00 \u0000 \u2028 \/ \b\f\t""#,
        r#""\r\n\r\r\n\n\u000d\u000a\r\u000a\n\r""#,
        r#""返金の丸め処理 🙂\r\n```rust\r\nfn x() {}\r\n```\r\n""#,
    ] {
        let body = open_body("", literal);
        let (params, lines) = opened(&body).expect(literal);
        assert_eq!(Some(params.clone()), by_serde(&body), "{literal}");
        let text = params.text_document.text;
        assert_eq!(
            lines,
            crate::document::text::Text::from_string(text).line_starts(),
            "{literal}"
        );
    }
    // White space anywhere JSON allows it, members in another order, more members.
    let spaced = "{ \"jsonrpc\" : \"2.0\" ,\n \"method\" : \"textDocument/didOpen\" , \"params\" : { \"extra\" : [1, {\"a\": \"}\"}], \"textDocument\" : { \"text\" : \"a\\nb\" , \"uri\" : \"file:///a\", \"version\" : 2, \"languageId\" : \"x\" } } }";
    let (params, _) = opened(spaced).expect("decodes");
    assert_eq!(Some(params), by_serde(spaced));
}

/// A message this way does not take is given back untouched: another method, the
/// params before the method, no text where it is looked for.
#[test]
fn other_messages_are_given_back_as_they_were() {
    let params_first = r#"{"params":{"textDocument":{"text":"a","uri":"file:///a","version":2,"languageId":"x"}},"method":"textDocument/didOpen","jsonrpc":"2.0"}"#;
    let change = r#"{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"file:///a","version":2,"text":"a"},"contentChanges":[]}}"#;
    let escaped_key = open_body("", r#""a""#).replace(r#""text":"#, r#""te\u0078t":"#);
    let number = open_body("", "7");
    for body in [params_first, change, &escaped_key, &number, "[]", "", "{"] {
        match decode(body.as_bytes().to_vec()) {
            Err(back) => assert_eq!(back, body.as_bytes()),
            Ok(_) => panic!("taken: {body}"),
        }
    }
}

/// A text serde_json refuses opens nothing; a message that is no well-formed
/// notification goes on as it was sent, its text written again.
#[test]
fn refused_texts_and_messages_are_what_serde_json_makes_of_them() {
    for bad in [
        r#""\ud83d alone""#,
        r#""\x bad escape""#,
        "\"raw\ttab\"",
        r#""\u12 short""#,
    ] {
        let body = open_body("", bad);
        assert!(by_serde(&body).is_none(), "{bad}");
        assert!(
            matches!(decode(body.clone().into_bytes()), Ok(Decoded::BadText)),
            "{bad}"
        );
        // The way of every other sync refuses it too.
        assert!(
            !matches!(sync(body.into_bytes()), Decoded::Sync(_)),
            "{bad}"
        );
    }
    let literal = r###""## @me\nhi \"😀\"""###;
    for refused in [
        open_body(r#""id":1,"#, literal),
        open_body(r#""method":"textDocument/didOpen","#, literal),
        open_body("", literal).replace(r#""2.0""#, r#""1.0""#),
        open_body("", literal).replace(r#""version":3"#, r#""version":"3""#),
    ] {
        let Ok(Decoded::Other(back)) = decode(refused.clone().into_bytes()) else {
            panic!("not given back: {refused}");
        };
        let back: serde_json::Value = serde_json::from_slice(&back).expect("JSON");
        let sent: serde_json::Value = serde_json::from_str(&refused).unwrap_or(back.clone());
        assert_eq!(back, sent, "{refused}");
    }
    // A text that never ends: no JSON, as it was.
    let cut = r#"{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///a","languageId":"x","version":1,"text":"no end"#;
    let Ok(Decoded::Other(back)) = decode(cut.as_bytes().to_vec()) else {
        panic!("not given back");
    };
    assert!(serde_json::from_slice::<serde_json::Value>(&back).is_err());
}
