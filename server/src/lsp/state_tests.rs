use proptest::prelude::*;

use super::Document;
use crate::document::text::PositionEncoding;
use crate::lsp::edit_model_tests::edit_both;

/// A large message is read once per version and shared; an edit reads it anew.
#[test]
fn a_large_message_is_read_once_per_version() {
    let enc = PositionEncoding::Utf16;
    let answer = "é answer line\n".repeat(10_000);
    let text = format!("## @me\nhi\n\n## @a\n{answer}\n## @me\nlast\n");
    let mut doc = Document::new("file:///ws/a.chat.md".parse().unwrap(), 1, text.clone());
    let mut model = text;
    // Edited once: a rope, no longer the opened string.
    let end = model.len();
    edit_both(&mut doc, &mut model, (end, 0), "x", enc);
    let range = doc.chat.messages[1].range();
    assert!(range.len() > super::LARGE_PART);
    let (mut a, mut b) = (String::new(), String::new());
    let first = doc.part(range.clone(), &mut a);
    let second = doc.part(range.clone(), &mut b);
    assert_eq!(&*first, &model[range.clone()]);
    let same = matches!((&first, &second), (super::Part::Shared(x), super::Part::Shared(y)) if std::sync::Arc::ptr_eq(x, y));
    assert!(same, "read twice");
    drop((first, second));
    let at = model.find("answer line").unwrap();
    edit_both(&mut doc, &mut model, (at, 0), "new ", enc);
    let range = doc.chat.messages[1].range();
    assert_eq!(&*doc.part(range.clone(), &mut a), &model[range]);
}

proptest! {
    /// The text from a byte on is the text's, whatever was read before and
    /// wherever the edits since were (before it, in it, after it), and a
    /// snapshot taken before an edit keeps its own.
    #[test]
    fn the_text_from_a_byte_on_follows_every_edit(
        text in "(## @a\n|é😀|x|\n|\r\n){0,30}",
        steps in proptest::collection::vec(
            (0usize..200, 0usize..20, "(## @b\n|y|é|\n){0,3}", 0usize..200),
            1..12,
        ),
    ) {
        let enc = PositionEncoding::Utf16;
        let mut doc = Document::new("file:///ws/a.chat.md".parse().unwrap(), 1, text.clone());
        let mut model = text;
        for (at, len, insert, from) in steps {
            let read = |doc: &Document, model: &str| {
                let from = from.min(model.len());
                let from = (0..=from).rev().find(|&b| model.is_char_boundary(b)).unwrap();
                (doc.text_from(from).to_string(), model[from..].to_owned())
            };
            let (got, want) = read(&doc, &model);
            prop_assert_eq!(got, want);
            let snapshot = (doc.clone(), model.clone());
            edit_both(&mut doc, &mut model, (at, len), &insert, enc);
            let (got, want) = read(&doc, &model);
            prop_assert_eq!(got, want);
            let (got, want) = read(&snapshot.0, &snapshot.1);
            prop_assert_eq!(got, want);
        }
    }
}
