//! The output filter across splits: whatever an agent prints and however the stream
//! cuts it into pieces, the filter streams what the whole output filters to, and the
//! answer, inserted into a chat, never starts a message of its own nor holds a
//! permission block (only chatmd writes those).
//!
//! Input: the first byte says how many cuts (0–15), the next two bytes per cut say
//! where (taken modulo the output's length, moved back to a character boundary: a
//! piece is a `&str`), the rest is the output (invalid UTF-8 replaced).
#![no_main]

use chatmd::conversation::output::{OutputFilter, filtered};
use chatmd::document::chat::Chat;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&count, rest)) = data.split_first() else {
        return;
    };
    let cuts = usize::from(count % 16).min(rest.len() / 2);
    let (places, output) = rest.split_at(cuts * 2);
    let output = String::from_utf8_lossy(output);
    let mut at: Vec<usize> = places
        .chunks(2)
        .map(|p| {
            let mut i = usize::from(u16::from_le_bytes([p[0], p[1]])) % (output.len() + 1);
            while !output.is_char_boundary(i) {
                i -= 1;
            }
            i
        })
        .collect();
    at.sort_unstable();

    let mut filter = OutputFilter::new();
    let mut streamed = String::new();
    let mut start = 0;
    for &cut in &at {
        streamed.push_str(&filter.push(&output[start..cut]));
        start = cut;
    }
    streamed.push_str(&filter.push(&output[start..]));
    streamed.push_str(&filter.finish());
    let whole = filtered(&output);
    assert_eq!(streamed, whole, "cut at {at:?}");

    // As a turn ends its section and the next message follows (turns/live.rs).
    let mut doc = format!("## @me\nhi\n\n## @agent\n{whole}");
    if !doc.ends_with('\n') {
        doc.push('\n');
    }
    doc.push_str("\n## @me\nnext\n");
    let chat = Chat::parse(&doc);
    let handles: Vec<&str> = chat.messages.iter().map(|m| m.handle(&doc)).collect();
    assert_eq!(handles, ["me", "agent", "me"], "{doc:?}");
    assert_eq!(chat.messages[1].permissions().count(), 0, "{doc:?}");
});
