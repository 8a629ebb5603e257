use super::*;
use crate::lsp::{symbols, symbols_json};
use pretty_assertions::assert_eq;

fn document(text: &str) -> Document {
    Document::new("file:///ws/a.chat.md".parse().unwrap(), 1, text.to_owned())
}

/// The folds and the outline written in one pass from the rope are, byte for byte,
/// the JSON of [`folding_ranges`] and of `symbols::document_symbols` (both made from
/// the whole text as one string):
/// line breaks of every kind, fences in the preamble, in lists, left open, a text
/// without a final line break, empty messages, and messages longer than the rope's
/// chunks.
#[test]
fn one_pass_json_is_the_json_of_the_results() {
    let line = "a line of a long answer, 😀 漢字 é\n";
    let many: String = (0..300)
        .map(|i| format!("## @m{i}\n{}\n```\ncode {i}\n```\n\n", line.repeat(i % 90)))
        .collect();
    let texts = [
        String::new(),
        "no messages at all\n".to_owned(),
        "---\r\ntitle: 漢字 😀\r\n---\r\n```\r\npreamble code\r\n```\r\n\r\n## @me\r\nhi 😀\r\n```\r\ncode\r\n```\r\n\r\n## @bot\n<!-- chatmd id=t1 agent=claude status=done -->\nanswer\n".to_owned(),
        "## @me\rold mac\rline\r\r## @bot\rx\r".to_owned(),
        "## @me\n1. list\n   ```rust\n   loop {}\n   ```\n2. more\n\n## @bot\n```\nnever closed\n\n\n".to_owned(),
        "## @me\n\n## @bot\n\n## @me\nno final break".to_owned(),
        "Preamble only, then 😀\r\n\r\n## @me 😀 extra\r\n<!-- chatmd id=t9 agent=codex status=failed -->\r\n\r\n\r\n".to_owned(),
        "## @bot\n<!-- chatmd broken status\nlong first line: 漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字\n".to_owned(),
        // What JSON escapes: quotes, backslashes, a tab and a control char in a
        // summary and in a quoted agent; a status that is no status; an empty agent.
        "## @me\n  \"quoted\" \\back\\slash\ttab \u{1b} and on and on and on and on and on and on and on\n\n## @bot\n<!-- chatmd id=t1 agent=\"my \\\"agent\\\"\" status=nonsense -->\nok\n\n## @bot\n<!-- chatmd status=done agent= -->\nx\n\n## @bot\n<!-- chatmd agent= -->\ny\n".to_owned(),
        many,
    ];
    for text in texts {
        let doc = document(&text);
        for enc in [PositionEncoding::Utf16, PositionEncoding::Utf8] {
            let want = serde_json::to_vec(&folding_ranges(
                &doc,
                enc,
                crate::lsp::outline_window::Shown::DEFAULT,
            ))
            .unwrap();
            assert_eq!(
                String::from_utf8(folding_ranges_json(&doc, enc)).unwrap(),
                String::from_utf8(want).unwrap(),
                "{text:?}"
            );
            let want = serde_json::to_vec(&symbols::document_symbols(
                &doc,
                enc,
                crate::lsp::outline_window::Shown::DEFAULT,
            ))
            .unwrap();
            assert_eq!(
                String::from_utf8(symbols_json::document_symbols_json(&doc, enc)).unwrap(),
                String::from_utf8(want).unwrap(),
                "{text:?}"
            );
        }
    }
}
