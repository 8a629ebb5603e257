//! The chat parser and its incremental re-parse. Whatever the text, `Chat::parse` does
//! not panic, renders the text back byte for byte, and tiles it: the preamble, then
//! messages that follow each other to the end, each part (heading, handle, status line,
//! body, mentions, markers, code) inside its message and on character boundaries.
//! After every edit of a sequence, the model updated the way the server updates it
//! (`Text::apply_change` or `Text::replace`, then `Chat::reparse`, as `lsp/state.rs`
//! does) equals a fresh parse of the resulting text.
//!
//! Input: the bytes are cut at every 0xFF (never part of UTF-8). The first piece is the
//! text; each further piece is one edit: its first byte says which kind (`% 4`: 0 a
//! byte range, the next 2 + 2 bytes its ends; 1 and 2 an LSP range in UTF-16 and UTF-8
//! columns, the next 4 bytes start line, start column, end line, end column; 3 the
//! whole text replaced), the rest is the new text. Invalid UTF-8 is replaced.
#![no_main]

use chatmd::document::chat::Chat;
use chatmd::document::inline::is_valid_handle;
use chatmd::document::text::{LineCol, PositionEncoding, Text};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut pieces = data.split(|&b| b == 0xFF);
    let initial = String::from_utf8_lossy(pieces.next().unwrap_or_default());
    let mut text = Text::new(&initial);
    let mut chat = Chat::parse(&initial);
    check_parse(&chat, &initial);

    for piece in pieces.take(16) {
        let Some((&kind, rest)) = piece.split_first() else {
            continue;
        };
        let edit = match kind % 4 {
            0 if rest.len() >= 4 => {
                let a = usize::from(u16::from_le_bytes([rest[0], rest[1]]));
                let b = usize::from(u16::from_le_bytes([rest[2], rest[3]]));
                text.replace(a..b, &String::from_utf8_lossy(&rest[4..]))
            }
            1 | 2 if rest.len() >= 4 => {
                let encoding = if kind % 4 == 1 {
                    PositionEncoding::Utf16
                } else {
                    PositionEncoding::Utf8
                };
                let start = LineCol::new(rest[0].into(), rest[1].into());
                let end = LineCol::new(rest[2].into(), rest[3].into());
                let new = String::from_utf8_lossy(&rest[4..]);
                text.apply_change(Some((start, end)), &new, encoding)
            }
            3 => {
                let new = String::from_utf8_lossy(rest);
                text.apply_change(None, &new, PositionEncoding::Utf16)
            }
            _ => continue,
        };
        let len = text.len_bytes();
        chat.reparse(&edit, len, |r| text.slice(r));
        let flat = text.to_string();
        let fresh = Chat::parse(&flat);
        assert_eq!(chat, fresh, "after {edit:?}, text {flat:?}");
    }
    let flat = text.to_string();
    check_parse(&chat, &flat);
});

/// What a parse of `text` must be, whatever the text.
fn check_parse(chat: &Chat, text: &str) {
    assert_eq!(chat.len, text.len());
    assert_eq!(chat.render(text), text, "render is the identity");
    let inside = |r: &std::ops::Range<usize>, outer: &std::ops::Range<usize>, what: &str| {
        assert!(
            outer.start <= r.start && r.start <= r.end && r.end <= outer.end,
            "{what} {r:?} not inside {outer:?} of {text:?}"
        );
        assert!(
            text.get(r.clone()).is_some(),
            "{what} {r:?} off a char boundary"
        );
    };
    let whole = 0..text.len();
    if let Some(fm) = &chat.front_matter {
        inside(&fm.block.range, &whole, "front matter");
        inside(&fm.block.yaml, &fm.block.range, "front matter YAML");
    }
    assert_eq!(chat.preamble.start, chat.body_start());
    inside(&chat.preamble, &whole, "preamble");
    let mut at = chat.preamble.end;
    for block in &chat.preamble_code_blocks {
        inside(&block.range, &chat.preamble, "preamble code block");
    }
    for m in &chat.messages {
        let range = m.range();
        assert_eq!(range.start, at, "messages follow each other in {text:?}");
        inside(&range, &whole, "message");
        let header = m.header();
        assert_eq!(header.start, range.start);
        inside(&header, &range, "heading");
        inside(&m.handle_range(), &header, "handle");
        assert!(
            is_valid_handle(m.handle(text)),
            "handle {:?}",
            m.handle(text)
        );
        if let Some(status) = m.status_range() {
            inside(&status, &(header.end..range.end), "status line");
            assert!(text[status].trim_start().starts_with("<!--"));
        }
        let body = m.body_range();
        assert_eq!(body.end, range.end);
        inside(&body, &(header.end..range.end), "body");
        for mention in m.mentions() {
            inside(&mention.range, &body, "mention");
            inside(&mention.handle, &mention.range, "mentioned handle");
            assert_eq!(&text[mention.range.start..mention.handle.start], "@");
            assert!(is_valid_handle(&text[mention.handle]));
        }
        for marker in m.markers() {
            inside(&marker.range, &body, "marker");
        }
        for block in m.code_blocks() {
            inside(&block.range, &(header.end..range.end), "code block");
            inside(&block.opening, &block.range, "code block opening");
        }
        for p in m.permissions() {
            inside(&p.range, &body, "permission block");
            inside(&p.id, &p.range, "permission id");
            for option in &p.options {
                inside(&option.label, &p.range, "permission option");
            }
        }
        at = range.end;
    }
    assert_eq!(
        at,
        text.len(),
        "the last message runs to the end of {text:?}"
    );
}
