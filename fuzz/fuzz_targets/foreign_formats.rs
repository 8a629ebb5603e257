//! The importer of other tools' chat files. Whatever the text, `foreign::detect`,
//! `foreign::parse` and `foreign::convert` do not panic, in every format. A detection's
//! marker is one line of the text. A conversion is a chatmd document whose front matter
//! has no problems and whose messages are all from the human or the assistant given
//! (nothing in the imported text forges another member's message), one per user and
//! assistant message of the file at least; and it loses nothing: every line of every
//! message and of the preamble is in it (a `## @x` line escaped as `## \@x`, a control
//! character of a heading label as a space).
//!
//! Input: the first byte picks the format (`% 4`, or the detected one when `& 4`) and
//! the handles (`>> 3`: `me`/`assistant`, or invalid ones that fall back to those, or
//! others); the rest is the file (invalid UTF-8 replaced).
#![no_main]

use chatmd::document::chat::Chat;
use chatmd::document::foreign::{self, ForeignFormat, Role};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let text = String::from_utf8_lossy(rest);
    let detected = foreign::detect(&text);
    if let Some(d) = &detected {
        let marker = text
            .get(d.marker.clone())
            .unwrap_or_else(|| panic!("marker {:?} off the text", d.marker));
        assert!(
            !marker.is_empty() && !marker.contains(['\n', '\r']),
            "{marker:?}"
        );
    }
    let format = match &detected {
        Some(d) if pick & 4 != 0 => d.format,
        _ => ForeignFormat::ALL[usize::from(pick % 4)],
    };
    let (human, assistant, expect) = match (pick >> 3) % 4 {
        0 => ("me", "assistant", ("me", "assistant")),
        1 => ("@alice", " bob ", ("alice", "bob")),
        2 => ("", "## @x", ("me", "assistant")),
        _ => ("a.b-c_1", "@9", ("a.b-c_1", "9")),
    };

    let (preamble, messages) = foreign::parse(&text, format);
    let out = foreign::convert(&text, format, human, assistant);

    let chat = Chat::parse(&out);
    let fm = chat
        .front_matter
        .as_ref()
        .unwrap_or_else(|| panic!("no front matter in {out:?}"));
    assert_eq!(fm.problems, [], "{out:?}");
    for m in &chat.messages {
        let handle = m.handle(&out);
        assert!(
            handle == expect.0 || handle == expect.1,
            "a message from @{handle} in {out:?}"
        );
    }
    let sides = messages
        .iter()
        .filter(|m| matches!(m.role, Role::User | Role::Assistant))
        .count();
    let others = messages
        .iter()
        .filter(|m| matches!(m.role, Role::Other(_)))
        .count();
    assert!(
        sides <= chat.messages.len() && chat.messages.len() <= sides + others,
        "{sides} user and assistant messages and {others} others became {} in {out:?}",
        chat.messages.len()
    );

    let kept = normalized(&out);
    for line in preamble
        .iter()
        .chain(messages.iter().map(|m| &m.text))
        .flat_map(|t| t.split('\n'))
    {
        assert!(kept.contains(&normalized(line)), "{line:?} lost in {out:?}");
    }
});

/// The text as a conversion may write it: without the backslashes that escape `@`,
/// control characters as spaces, line ends as `\n`.
fn normalized(text: &str) -> String {
    text.replace("\r\n", "\n")
        .chars()
        .filter(|&c| c != '\\')
        .map(|c| if c.is_control() && c != '\n' { ' ' } else { c })
        .collect()
}
