//! Tests of what a scan keeps per message ([`super`]) and of the messages' views of it.

use crate::document::chat::{Chat, Message};
use pretty_assertions::assert_eq;

/// A chat of 500,000 short messages keeps one record and one message each: a field
/// added to either shows here.
#[test]
fn a_message_s_record_and_view_stay_small() {
    assert_eq!(std::mem::size_of::<super::Record>(), 24);
    assert_eq!(std::mem::size_of::<Message>(), 16);
}

/// A message moved 2 GiB or more (past its 32-bit shift) has every part where it is
/// now, and moved back it is the message it was.
#[test]
fn a_message_moved_past_its_32_bit_shift_keeps_its_parts() {
    let text = "## @me\nhi @bob\n\n## @bob\n<!-- chatmd id=t1 agent=bob status=done -->\n\
                > **Permission** `p1` — bob wants to run `ls` (Execute)\n\
                > - [ ] allow once · - [x] reject\n\n```sh\nls\n```\n[NEXT: me] [DONE]\n";
    let chat = Chat::parse(text);
    let far = 3isize << 30;
    let moved = |r: crate::document::ByteRange| r.start + far as usize..r.end + far as usize;
    for original in &chat.messages {
        let mut message = original.clone();
        // In two steps, the second past what 32 bits reach.
        message.shift(far / 2);
        message.shift(far - far / 2);
        assert_eq!(message.range(), moved(original.range()));
        assert_eq!(message.header(), moved(original.header()));
        assert_eq!(message.handle_range(), moved(original.handle_range()));
        assert_eq!(message.body_range(), moved(original.body_range()));
        assert_eq!(message.status_range(), original.status_range().map(moved));
        let mentions = |m: &Message| m.mentions().map(|m| m.range).collect::<Vec<_>>();
        let original_mentions: Vec<_> = mentions(original).into_iter().map(moved).collect();
        assert_eq!(mentions(&message), original_mentions);
        assert_eq!(message.markers().count(), original.markers().count());
        assert_eq!(
            message.permissions().count(),
            original.permissions().count()
        );
        assert_eq!(
            message.code_blocks().count(),
            original.code_blocks().count()
        );
        message.shift(-far);
        assert_eq!(&message, original);
    }
    assert!(chat.messages[1].permissions().count() == 1);
    assert!(chat.messages[1].code_blocks().count() == 1);
    assert!(chat.messages[1].markers().count() == 2);
}

/// Where a message's heading, status line and body are, after line breaks of each
/// kind (and none, at the end of the text).
#[test]
fn heading_status_and_body_lie_after_each_kind_of_line_break() {
    let text = "## @me\r\nhi\r\n## @bob\n<!-- chatmd id=t1 status=done -->\r\nanswer\n\
                ## @ann\r\n<!-- chatmd id=t2 -->\n## @me\n<!-- chatmd id=t3 -->\n## @end";
    let chat = Chat::parse(text);
    let parts: Vec<_> = chat
        .messages
        .iter()
        .map(|m| {
            (
                &text[m.header()],
                m.handle(text),
                m.status_range().map(|r| &text[r]),
                m.body(text),
            )
        })
        .collect();
    assert_eq!(
        parts,
        [
            ("## @me", "me", None, "hi\r\n"),
            (
                "## @bob",
                "bob",
                Some("<!-- chatmd id=t1 status=done -->"),
                "answer\n"
            ),
            ("## @ann", "ann", Some("<!-- chatmd id=t2 -->"), ""),
            ("## @me", "me", Some("<!-- chatmd id=t3 -->"), ""),
            ("## @end", "end", None, ""),
        ]
    );
}
