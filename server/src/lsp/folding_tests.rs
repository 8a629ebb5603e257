use super::*;
use pretty_assertions::assert_eq;

fn document(text: &str) -> Document {
    Document::new("file:///ws/a.chat.md".parse().unwrap(), 1, text.to_owned())
}

/// The folds written in one pass are, byte for byte, the JSON of [`folding_ranges`]:
/// line breaks of every kind, fences in the preamble, in lists, left open, a text
/// without a final line break, empty messages, and messages longer than the rope's
/// chunks.
#[test]
fn one_pass_json_is_the_json_of_the_ranges() {
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
        many,
    ];
    for text in texts {
        let doc = document(&text);
        for enc in [PositionEncoding::Utf16, PositionEncoding::Utf8] {
            let want = serde_json::to_vec(&folding_ranges(&doc, enc)).unwrap();
            assert_eq!(
                String::from_utf8(folding_ranges_json(&doc, enc)).unwrap(),
                String::from_utf8(want).unwrap(),
                "{text:?}"
            );
        }
    }
}
