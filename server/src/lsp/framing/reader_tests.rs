use super::*;
use pretty_assertions::assert_eq;

/// Every frame of `input`, read in pieces of `piece` bytes (a pipe delivers what it has).
async fn frames_in_pieces(input: &[u8], piece: usize) -> Vec<Frame> {
    let (mut client, server) = tokio::io::duplex(1 << 20);
    let input = input.to_vec();
    let writer = tokio::spawn(async move {
        use tokio::io::AsyncWriteExt;
        for chunk in input.chunks(piece.max(1)) {
            client.write_all(chunk).await.unwrap();
        }
    });
    let mut reader = FrameReader::new(server);
    let mut frames = Vec::new();
    while let Some(frame) = reader.next().await.unwrap() {
        frames.push(frame);
    }
    writer.await.unwrap();
    frames
}

async fn frames(input: &[u8]) -> Vec<Frame> {
    let whole = frames_in_pieces(input, usize::MAX).await;
    for piece in [1, 2, 7, 64] {
        assert_eq!(
            frames_in_pieces(input, piece).await,
            whole,
            "in pieces of {piece}"
        );
    }
    whole
}

fn body(text: &str) -> Frame {
    Frame::Body(text.as_bytes().to_vec())
}

fn framed(text: &str) -> String {
    format!("Content-Length: {}\r\n\r\n{text}", text.len())
}

fn bad(why: &str) -> Frame {
    Frame::BadHeader(why.into())
}

#[tokio::test]
async fn frames_are_read_with_any_header_case_and_extra_headers() {
    let input = format!(
        "{}content-length: 2\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n{{}}\n\nContent-Length:3\n\nabc",
        framed("hello")
    );
    assert_eq!(
        frames(input.as_bytes()).await,
        [body("hello"), body("{}"), body("abc")]
    );
}

#[tokio::test]
async fn a_bad_content_length_is_skipped() {
    for length in ["abc", "-5", "+5", "5 5", "", "99999999999999999999999"] {
        let input = format!(
            "Content-Length: {length}\r\n\r\n{{\"a\":1}}{}",
            framed("next")
        );
        let found = frames(input.as_bytes()).await;
        assert_eq!(found.len(), 2, "{length}: {found:?}");
        assert!(matches!(&found[0], Frame::BadHeader(_)), "{length}");
        assert_eq!(found[1], body("next"), "{length}");
    }
}

#[tokio::test]
async fn a_missing_content_length_is_skipped() {
    let input = format!("Content-Type: x\r\n\r\n{{\"a\":1}}{}", framed("next"));
    assert_eq!(
        frames(input.as_bytes()).await,
        [bad("a header without Content-Length"), body("next")]
    );
}

#[tokio::test]
async fn garbage_between_frames_is_skipped() {
    let input = format!(
        "{}garbage\r\nmore garbage {}\r\n\r\n{}",
        framed("one"),
        "x".repeat(20_000),
        framed("two")
    );
    assert_eq!(frames(input.as_bytes()).await, [body("one"), body("two")]);
}

#[tokio::test]
async fn a_body_shorter_than_its_length_leaves_the_next_header_mid_line() {
    // The next frame's header follows the rest of the body on the same line.
    let input = format!("Content-Length: 3\r\n\r\nabcdef{}", framed("next"));
    assert_eq!(frames(input.as_bytes()).await, [body("abc"), body("next")]);
}

#[tokio::test]
async fn a_mention_of_content_length_in_garbage_is_not_a_header() {
    let input = format!(
        "Content-Length: x\r\n\r\n{{\"text\":\"Content-Length: 5 bytes\"}}{}",
        framed("next")
    );
    let found = frames(input.as_bytes()).await;
    assert_eq!(found[1..], [body("next")]);
}

#[tokio::test]
async fn a_body_over_the_limit_is_skipped_unread() {
    let huge = "1".repeat(MAX_BODY + 1);
    let input = format!("{}{}", framed(&huge), framed("next"));
    assert_eq!(
        frames_in_pieces(input.as_bytes(), 1 << 16).await,
        [Frame::TooLarge(MAX_BODY as u64 + 1), body("next")]
    );
}

/// A document sync may be larger than any other message, up to its own cap: the
/// reader tells it from the body's first bytes, in however small pieces they come.
#[tokio::test]
async fn a_document_sync_over_the_usual_limit_is_read_whole() {
    let sync = |size: usize| {
        let head = r#"{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"t":""#;
        format!("{head}{}\"}}}}", "a".repeat(size - head.len() - 3))
    };
    let large = sync(MAX_BODY + 10);
    let other = format!("{{\"x\":\"{}\"}}", "a".repeat(MAX_BODY));
    let input = [framed(&large), framed(&other), framed("next")].concat();
    for piece in [1000, 1 << 16] {
        let found = frames_in_pieces(input.as_bytes(), piece).await;
        assert!(found[0] == body(&large), "in pieces of {piece}");
        assert_eq!(
            found[1..],
            [Frame::TooLarge(other.len() as u64), body("next")],
            "in pieces of {piece}"
        );
    }
    let header = format!("Content-Length: {}\r\n\r\n", MAX_SYNC_BODY + 1);
    let head = r#"{"jsonrpc":"2.0","method":"textDocument/didOpen","params":"#;
    let mut over = [header.as_bytes(), head.as_bytes()].concat();
    over.resize(over.len() + MAX_SYNC_BODY + 1 - head.len(), b'a');
    over.extend_from_slice(framed("next").as_bytes());
    assert_eq!(
        frames_in_pieces(&over, 1 << 20).await,
        [Frame::TooLarge(MAX_SYNC_BODY as u64 + 1), body("next")]
    );
}

#[tokio::test]
async fn the_input_ending_inside_a_frame_ends_the_frames() {
    assert_eq!(frames(b"Content-Length: 10\r\n\r\nabc").await, []);
    assert_eq!(
        frames(b"Content-Length: 10\r\n").await,
        [bad("the input ended inside a header")]
    );
    assert_eq!(frames(b"").await, []);
    assert_eq!(frames(b"\r\n\r\n").await, []);
}

#[tokio::test]
async fn an_unread_part_is_read_first() {
    let input = framed("two");
    let (mut client, server) = tokio::io::duplex(1 << 10);
    tokio::io::AsyncWriteExt::write_all(&mut client, input.as_bytes())
        .await
        .unwrap();
    drop(client);
    let mut reader = FrameReader::new(server);
    reader.unread(framed("one").as_bytes());
    assert_eq!(reader.next().await.unwrap(), Some(body("one")));
    assert_eq!(reader.next().await.unwrap(), Some(body("two")));
    assert_eq!(reader.next().await.unwrap(), None);
}

#[test]
fn a_header_start_is_found_inside_bytes() {
    assert_eq!(
        find_header_start(b"abc}Content-Length: 12\r\n\r\n"),
        Some(4)
    );
    assert_eq!(find_header_start(b"abc content-length: 12\n"), Some(4));
    assert_eq!(find_header_start(b"Content-Length: 12\r\n"), None);
    assert_eq!(find_header_start(b"abc Content-Length: twelve\r\n"), None);
    assert_eq!(find_header_start(b"abc Content-Length: 12"), Some(4));
    assert_eq!(find_header_start(b"abc Content-Le"), None);
}

#[test]
fn a_header_start_is_found_inside_a_body_even_cut() {
    assert_eq!(
        find_header_in_body(b"{}Content-Length: 12\r\n\r\n{"),
        Some(2)
    );
    assert_eq!(find_header_in_body(b"{}Content-Length: 1"), Some(2));
    assert_eq!(find_header_in_body(b"{}Content-Le"), Some(2));
    assert_eq!(find_header_in_body(b"{}c"), Some(2));
    assert_eq!(
        find_header_in_body(b"{\"t\":\"Content-Length: 5 bytes\"}"),
        None
    );
    assert_eq!(find_header_in_body(b"Content-Length: 5\r\n"), Some(0));
    assert_eq!(find_header_in_body(b"{\"a\":1}"), None);
}

/// Bodies larger than [`TAKE_FROM`] are handed over in the buffer they were read into;
/// what comes before and after them reads as before.
#[tokio::test]
async fn large_bodies_between_small_ones_read_whole() {
    let large = |fill: char| format!("[\"{}\"]", fill.to_string().repeat(TAKE_FROM + 10));
    let (a, b) = (large('a'), large('é'));
    let input = [
        framed("[1]"),
        framed(&a),
        framed(&b),
        "garbage".into(),
        framed("[2]"),
    ]
    .concat();
    let want = vec![body("[1]"), body(&a), body(&b), body("[2]")];
    for piece in [usize::MAX, 4096, 65_536 + 3] {
        assert_eq!(
            frames_in_pieces(input.as_bytes(), piece).await,
            want,
            "in pieces of {piece}"
        );
    }
}
