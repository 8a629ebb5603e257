use proptest::prelude::*;

use super::Document;
use crate::document::text::PositionEncoding;
use crate::lsp::edit_model_tests::edit_both;

/// A chat with `answers` long answers (after a human message each), edited once at
/// its end (a rope, no longer the opened string), and its model.
fn long_answer_edited(answers: usize) -> (Document, String) {
    let answer = "é answer line\n".repeat(10_000);
    let text = (0..answers)
        .map(|n| format!("## @me\nquestion {n}\n\n## @a\n{answer}\n"))
        .collect::<String>();
    let (mut doc, mut model) = opened(text);
    let end = model.len();
    edit_both(&mut doc, &mut model, (end, 0), "x", PositionEncoding::Utf16);
    (doc, model)
}

/// A large message is read once per version and shared; an edit reads it anew.
#[test]
fn a_large_message_is_read_once_per_version() {
    let enc = PositionEncoding::Utf16;
    let (mut doc, mut model) = long_answer_edited(1);
    let range = doc.chat.messages[1].range();
    assert!(range.len() > super::LARGE_PART);
    let (mut a, mut b) = (String::new(), String::new());
    let first = doc.part(range.clone(), &mut a);
    let second = doc.part(range.clone(), &mut b);
    assert_eq!(&*first, &model[range.clone()]);
    assert!(shared_alike(&first, &second), "read twice");
    drop((first, second));
    let at = model.find("answer line").unwrap();
    edit_both(&mut doc, &mut model, (at, 0), "new ", enc);
    let range = doc.chat.messages[1].range();
    assert_eq!(&*doc.part(range.clone(), &mut a), &model[range]);
}

/// Whether two parts are the same bytes of one shared text.
fn shared_alike(a: &super::Part, b: &super::Part) -> bool {
    use super::Part::Shared;
    matches!((a, b), (Shared { text: x, at: i }, Shared { text: y, at: j })
        if std::sync::Arc::ptr_eq(x, y) && i == j)
}

/// After a key in a large message, its readers share the text the re-parse read: the
/// message is not copied out of the rope again. What they read is the new text, for the
/// edited message and for the others.
#[test]
fn a_key_in_a_large_message_is_read_by_the_reparse_alone() {
    let enc = PositionEncoding::Utf16;
    let (mut doc, mut model) = long_answer_edited(2);
    let at = model.find("answer line").unwrap();
    edit_both(&mut doc, &mut model, (at, 0), "new ", enc);
    let kept = doc.large_part.lock().unwrap().clone();
    let (from, read) = kept.expect("the re-parse's text is kept");
    let range = doc.chat.messages[1].range();
    assert!(from <= range.start && range.end <= from + read.len());
    let (mut a, mut b) = (String::new(), String::new());
    let first = doc.part(range.clone(), &mut a);
    assert_eq!(&*first, &model[range.clone()]);
    match &first {
        super::Part::Shared { text, .. } => assert!(std::sync::Arc::ptr_eq(text, &read)),
        super::Part::Borrowed(_) => panic!("copied out of the rope again"),
    }
    assert!(shared_alike(&first, &doc.part(range, &mut b)));
    drop(first);
    // Another large message is read anew, and then kept.
    let last = doc.chat.messages[3].range();
    assert_eq!(&*doc.part(last.clone(), &mut a), &model[last]);
    for m in &doc.chat.messages {
        assert_eq!(&*doc.part(m.range(), &mut a), &model[m.range()]);
    }
}

/// A chat of a few messages, and edits of it: (at, length, what is inserted, a number
/// below `pick` for the test to use).
fn edited(pick: usize) -> impl Strategy<Value = (String, Vec<(usize, usize, String, usize)>)> {
    let text = "(## @a\n|é😀|x|\n|\r\n){0,30}";
    let step = (0usize..200, 0usize..20, "(## @b\n|y|é|\n){0,3}", 0..pick);
    (text, proptest::collection::vec(step, 1..12))
}

/// The document opened with `text`, and its model.
fn opened(text: String) -> (Document, String) {
    let doc = Document::new("file:///ws/a.chat.md".parse().unwrap(), 1, text.clone());
    (doc, text)
}

proptest! {
    /// The text from a byte on is the text's, whatever was read before and
    /// wherever the edits since were (before it, in it, after it), and a
    /// snapshot taken before an edit keeps its own.
    #[test]
    fn the_text_from_a_byte_on_follows_every_edit(
        (text, steps) in edited(200),
    ) {
        let enc = PositionEncoding::Utf16;
        let (mut doc, mut model) = opened(text);
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

    /// Each message's text is the text's after every edit, whatever the re-parse read
    /// and which messages were read before (in tests every message is a large one).
    #[test]
    fn each_message_reads_its_own_text_after_every_edit(
        (text, steps) in edited(8),
    ) {
        let enc = PositionEncoding::Utf16;
        let (mut doc, mut model) = opened(text);
        let mut buf = String::new();
        for (at, len, insert, first) in steps {
            edit_both(&mut doc, &mut model, (at, len), &insert, enc);
            let messages = &doc.chat.messages;
            let order = messages.iter().skip(first).chain(messages.iter().take(first));
            for m in order {
                let range = m.range();
                prop_assert_eq!(&*doc.part(range.clone(), &mut buf), &model[range]);
            }
        }
    }
}

/// The features of one version find the chat's team once (a keystroke's diagnostics
/// and code lenses share it); the next version finds it again and sees a member added
/// meanwhile, and so does this version once the team's files are known to have changed.
#[test]
fn a_versions_features_find_the_team_once_and_an_edit_finds_it_again() {
    use std::sync::{Arc, Mutex};
    let dir = tempfile::tempdir().unwrap();
    let uri = tower_lsp_server::ls_types::Uri::from_file_path(dir.path().join("c.chat.md"));
    let state = Mutex::new(super::State {
        root: Some(dir.path().to_owned()),
        ..super::State::default()
    });
    let mut doc = Document::new(uri.unwrap(), 1, "## @me\n@ops hi\n".to_owned());
    let members = |team: &crate::team::Team| -> Vec<String> {
        team.members.iter().map(|m| m.handle.clone()).collect()
    };
    let first = doc.team(&state).team;
    assert!(members(&first).is_empty());
    std::fs::create_dir(dir.path().join("ops")).unwrap();
    std::fs::write(dir.path().join("ops/CLAUDE.md"), "You deploy.\n").unwrap();
    assert!(Arc::ptr_eq(&first, &doc.team(&state).team), "read once");
    let end = doc
        .text
        .byte_to_position(doc.text.len_bytes(), PositionEncoding::Utf16);
    doc.apply_change(Some((end, end)), "!", PositionEncoding::Utf16);
    assert_eq!(members(&doc.team(&state).team), ["ops"]);

    // A change the watchers report reaches the open documents' versions too.
    std::fs::create_dir(dir.path().join("qa")).unwrap();
    std::fs::write(dir.path().join("qa/AGENTS.md"), "You test.\n").unwrap();
    let mut s = state.lock().unwrap();
    s.documents.insert(doc.uri.clone(), doc.clone());
    s.forget_teams();
    let open = s.documents[&doc.uri].clone();
    drop(s);
    assert_eq!(members(&open.team(&state).team), ["ops", "qa"]);
}
