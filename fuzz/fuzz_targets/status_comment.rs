//! Status comments round-trip. Any line that `StatusComment::parse` accepts renders to a
//! line that parses back to the same fields, and rendering is then stable; a refused
//! line's error range lies inside it on character boundaries. Any fields with valid keys
//! and any values render to one line (no line break of any kind: `\n`, `\r`, NEL,
//! U+2028, U+2029) that ends the comment only at its end (no `-->` or `--!>` earlier),
//! parses back to the same fields, and, as the status line of a message in a chat, is
//! what the chat parser reads there, without the values starting a message of their own.
//!
//! Input: the bytes are cut at every 0xFF. The first piece is a line to parse; the
//! others are key, value, key, value... (invalid UTF-8 replaced; a key's characters
//! that keys cannot hold are dropped, and `_` put first where needed).
#![no_main]

use chatmd::document::chat::Chat;
use chatmd::document::status::{StatusComment, is_valid_key};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut pieces = data.split(|&b| b == 0xFF);
    let line = String::from_utf8_lossy(pieces.next().unwrap_or_default());
    match StatusComment::parse(&line) {
        Ok(comment) => {
            let rendered = comment.render();
            check_rendered(&rendered);
            let again = StatusComment::parse(&rendered)
                .unwrap_or_else(|e| panic!("{rendered:?} (from {line:?}) does not parse: {e}"));
            assert_eq!(again, comment, "{line:?} -> {rendered:?}");
            assert_eq!(again.render(), rendered);
        }
        Err(error) => {
            if let Some(range) = error.range() {
                assert!(
                    range.start <= range.end && range.end <= line.len(),
                    "{error:?}"
                );
                assert!(line.get(range).is_some(), "{error:?} off a char boundary");
            }
        }
    }

    let rest: Vec<String> = pieces
        .map(|p| String::from_utf8_lossy(p).into_owned())
        .collect();
    let fields: Vec<(String, String)> = rest
        .chunks(2)
        .map(|kv| (key(&kv[0]), kv.get(1).cloned().unwrap_or_default()))
        .collect();
    let comment = StatusComment::from_fields(fields.clone()).expect("keys are valid");
    let rendered = comment.render();
    check_rendered(&rendered);
    let parsed = StatusComment::parse(&rendered)
        .unwrap_or_else(|e| panic!("{rendered:?} does not parse: {e}"));
    assert_eq!(parsed.fields(), &fields[..], "{rendered:?}");

    // As the server writes it: the status line of an agent's message.
    let doc = format!("## @me\nhi\n\n## @agent\n{rendered}\nok\n");
    let chat = Chat::parse(&doc);
    let handles: Vec<&str> = chat.messages.iter().map(|m| m.handle(&doc)).collect();
    assert_eq!(handles, ["me", "agent"], "{doc:?}");
    let message = &chat.messages[1];
    assert_eq!(message.status_comment(&doc), Some(&comment), "{doc:?}");
    assert_eq!(message.body(&doc), "ok\n");
    assert_eq!(chat.render(&doc), doc);
});

/// A rendered comment: one line, closed only at its end.
fn check_rendered(rendered: &str) {
    assert!(
        !rendered.contains(['\n', '\r', '\u{85}', '\u{2028}', '\u{2029}']),
        "{rendered:?} breaks the line"
    );
    assert!(rendered.starts_with("<!-- chatmd"), "{rendered:?}");
    let body = rendered
        .strip_suffix("-->")
        .unwrap_or_else(|| panic!("{rendered:?} is not closed"));
    assert!(
        !body.contains("-->") && !body.contains("--!>"),
        "{rendered:?} ends early"
    );
}

/// `raw` made a valid key.
fn key(raw: &str) -> String {
    let mut key: String = raw
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-'))
        .collect();
    if !key.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
        key.insert(0, '_');
    }
    debug_assert!(is_valid_key(&key));
    key
}
