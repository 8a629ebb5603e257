use super::*;
use pretty_assertions::assert_eq;

/// A notification's params, the rest of it ignored.
#[derive(Deserialize)]
struct Params<P> {
    params: P,
}

fn open(body: &str) -> Option<DidOpenTextDocumentParams> {
    match sync(body.as_bytes().to_vec()) {
        Decoded::Sync(DocSync::Open(params, lines)) => {
            let text = &params.text_document.text;
            assert_eq!(
                lines,
                crate::document::text::Text::from_string(text.clone()).line_starts()
            );
            Some(params)
        }
        _ => None,
    }
}

fn change(body: &str) -> Option<DidChangeTextDocumentParams> {
    match sync(body.as_bytes().to_vec()) {
        Decoded::Sync(DocSync::Change(params)) => Some(params),
        _ => None,
    }
}

#[test]
fn params_decode_as_their_types_do() {
    let open_body = r###"{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///a.chat.md","languageId":"chatmd","version":3,"text":"## @me\nhi \"😀\"\r\n"}}}"###;
    let theirs: Params<DidOpenTextDocumentParams> = serde_json::from_str(open_body).unwrap();
    assert_eq!(open(open_body), Some(theirs.params));

    let changed = r#"{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"file:///a.chat.md","version":4},"contentChanges":[{"text":"all\n"},{"range":{"start":{"line":0,"character":1},"end":{"line":0,"character":2}},"rangeLength":1,"text":"\u00e9"}]}}"#;
    let theirs: Params<DidChangeTextDocumentParams> = serde_json::from_str(changed).unwrap();
    assert_eq!(change(changed), Some(theirs.params));

    let not_a_string = r#"{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///a","languageId":"x","version":1,"text":7}}}"#;
    assert_eq!(open(not_a_string), None);
}

/// The members in any order; a request, a duplicate member or another version is
/// not a sync; a text serde_json refuses opens nothing.
#[test]
fn only_well_formed_syncs_decode() {
    let params_first = r#"{"params":{"textDocument":{"text":"a\nb","uri":"file:///a.chat.md","version":2,"languageId":"chatmd"}},"method":"textDocument/didOpen","jsonrpc":"2.0"}"#;
    let opened = open(params_first).expect("decodes");
    assert_eq!(opened.text_document.text, "a\nb");
    assert_eq!(opened.text_document.version, 2);
    let open_with = |members: &str| {
        format!(
            r#"{{"jsonrpc":"2.0","method":"textDocument/didOpen",{members}"params":{{"textDocument":{{"uri":"file:///a","languageId":"x","version":1,"text":"t"}}}}}}"#
        )
    };
    assert!(open(&open_with("")).is_some());
    for refused in [
        open_with(r#""id":1,"#),
        open_with(r#""method":"textDocument/didOpen","#),
        open_with(r#""jsonrpc":"2.0","#),
        open_with("").replace(r#""2.0""#, r#""1.0""#),
    ] {
        assert!(
            matches!(sync(refused.clone().into_bytes()), Decoded::Other(_)),
            "{refused}"
        );
    }
    let lone = open_with("").replace(r#""text":"t""#, r#""text":"\ud83d""#);
    assert!(matches!(sync(lone.into_bytes()), Decoded::BadText));
}

/// A change replacing the whole text is decoded in the message's own buffer, to the
/// same params serde_json gives; one that does not decode goes the usual way.
#[test]
fn a_whole_text_change_decodes_as_serde_does() {
    let whole = r###"{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"file:///a.chat.md","version":9},"contentChanges":[{"text":"## @me\r\nhi \"\ud83d\ude00\" \\ \u00e9\n"}]}}"###;
    let theirs: Params<DidChangeTextDocumentParams> = serde_json::from_str(whole).unwrap();
    assert_eq!(change(whole), Some(theirs.params));
    let lone = whole.replace(r#"\ude00"#, "");
    assert!(matches!(sync(lone.into_bytes()), Decoded::Other(_)));
}
