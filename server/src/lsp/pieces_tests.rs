use proptest::prelude::*;

use super::*;
use crate::lsp::edit_model_tests::{edit, edit_both};
use crate::lsp::outline_window::Shown;
use crate::lsp::{folding, symbols};

/// What a user's chat is made of, cut so that random edits make and break headings,
/// fences, status comments, line breaks of every kind and wide characters.
const PARTS: &[&str] = &[
    "\n",
    "\r\n",
    "\r",
    "text ",
    "a longer line of an answer that goes on well past the summary's sixty characters\n",
    "@a ",
    "[NEXT: b]",
    "## @a\n",
    "## @bot (x)\n",
    "## @me\r\n",
    "```\n",
    "~~~\n",
    "   ```rust\n",
    "<!-- chatmd id=t1 agent=claude status=done -->\n",
    "<!-- chatmd id=t2 agent=\"my \\\"agent\\\"\" status=running seen=a,b -->\n",
    "<!-- chatmd id=\"x\n",
    "- [ ] allow\n",
    "> quote\n",
    "---\n",
    "title: 漢字\n",
    "é😀漢字",
    "\"quoted\" \\slash\ttab",
];

fn chat_text() -> impl Strategy<Value = String> {
    proptest::collection::vec(0..PARTS.len(), 0..40)
        .prop_map(|v| v.iter().map(|&i| PARTS[i]).collect())
}

/// An edit as (where, how many bytes on it replaces, which part it inserts).
fn edits() -> impl Strategy<Value = Vec<(usize, usize, usize)>> {
    proptest::collection::vec((0usize..4000, 0usize..60, 0..PARTS.len() + 1), 1..10)
}

fn document(text: &str) -> Document {
    Document::new("file:///ws/a.chat.md".parse().unwrap(), 1, text.to_owned())
}

/// A limit a chat of a few dozen parts goes over, so that its earlier messages are
/// grouped and the groups move as edits add and remove messages.
const FEW: Shown = Shown { items: 3, group: 2 };

/// The outline and the folds as a fresh server computes them from the whole text.
fn from_scratch(text: &str, enc: PositionEncoding) -> (String, String) {
    from_scratch_showing(text, enc, Shown::DEFAULT)
}

fn from_scratch_showing(text: &str, enc: PositionEncoding, shown: Shown) -> (String, String) {
    let fresh = document(text);
    let outline = serde_json::to_string(&symbols::document_symbols(&fresh, enc, shown)).unwrap();
    let folds = serde_json::to_string(&folding::folding_ranges(&fresh, enc, shown)).unwrap();
    (outline, folds)
}

fn answers(doc: &Document, enc: PositionEncoding) -> (String, String) {
    answers_showing(doc, enc, Shown::DEFAULT)
}

fn answers_showing(doc: &Document, enc: PositionEncoding, shown: Shown) -> (String, String) {
    (
        String::from_utf8(outline_json(doc, enc, shown).to_vec()).unwrap(),
        String::from_utf8(folding_json(doc, enc, shown).to_vec()).unwrap(),
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    /// After every edit, the outline and the folds assembled from kept pieces are
    /// byte for byte those of a from-scratch computation on the new text.
    #[test]
    fn kept_pieces_answer_as_a_fresh_computation(
        text in chat_text(),
        edits in edits(),
        utf8 in any::<bool>(),
        few in any::<bool>(),
    ) {
        let enc = if utf8 { PositionEncoding::Utf8 } else { PositionEncoding::Utf16 };
        let shown = if few { FEW } else { Shown::DEFAULT };
        let mut doc = document(&text);
        let mut model = text;
        prop_assert_eq!(answers_showing(&doc, enc, shown), from_scratch_showing(&model, enc, shown));
        for (at, len, part) in edits {
            let insert = PARTS.get(part).copied().unwrap_or("");
            edit_both(&mut doc, &mut model, (at, len), insert, enc);
            prop_assert_eq!(doc.text.to_string(), model.clone());
            prop_assert_eq!(
                answers_showing(&doc, enc, shown),
                from_scratch_showing(&model, enc, shown),
                "{:?}",
                model
            );
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// The kept answers are spliced across any run of edits, whichever of them the
    /// editor asked for in between (an answer not asked for after some edits is
    /// spliced over all of them at once): each answer is byte for byte a fresh one.
    #[test]
    fn spliced_answers_equal_fresh_ones_whenever_asked(
        text in chat_text(),
        edits in proptest::collection::vec(
            (0usize..4000, 0usize..60, 0..PARTS.len() + 1, 0u8..4),
            1..12,
        ),
        few in any::<bool>(),
    ) {
        let enc = PositionEncoding::Utf16;
        let shown = if few { FEW } else { Shown::DEFAULT };
        let mut doc = document(&text);
        let mut model = text;
        prop_assert_eq!(answers_showing(&doc, enc, shown), from_scratch_showing(&model, enc, shown));
        for (at, len, part, asked) in edits {
            let insert = PARTS.get(part).copied().unwrap_or("");
            edit_both(&mut doc, &mut model, (at, len), insert, enc);
            let (outline, folds) = from_scratch_showing(&model, enc, shown);
            if asked & 1 != 0 {
                let kept = String::from_utf8(outline_json(&doc, enc, shown).to_vec()).unwrap();
                prop_assert_eq!(kept, outline, "{:?}", model);
            }
            if asked & 2 != 0 {
                let kept = String::from_utf8(folding_json(&doc, enc, shown).to_vec()).unwrap();
                prop_assert_eq!(kept, folds, "{:?}", model);
            }
        }
        prop_assert_eq!(
            answers_showing(&doc, enc, shown),
            from_scratch_showing(&model, enc, shown),
            "{:?}",
            model
        );
    }
}

/// A keystroke that adds no line copies every other message's entries from the answers
/// kept: only the edited message's are written anew, and the answer is a fresh one's.
#[test]
fn a_keystroke_writes_only_its_messages_entries_anew() {
    let enc = PositionEncoding::Utf16;
    let text: String = (0..300)
        .map(|i| {
            format!(
                "## @m{i}
answer {i}
```
code
```

"
            )
        })
        .collect();
    let mut doc = document(&text);
    let before = answers(&doc, enc);
    let at = text.find("answer 150").unwrap();
    edit(&mut doc, at, at, "x", enc);
    let edited = text.replacen("answer 150", "xanswer 150", 1);
    let anew = || WRITTEN_ANEW.get();
    let outline = String::from_utf8(outline_json(&doc, enc, Shown::DEFAULT).to_vec()).unwrap();
    assert!(
        (1..=3).contains(&anew()),
        "{} outline entries written",
        anew()
    );
    let folds = String::from_utf8(folding_json(&doc, enc, Shown::DEFAULT).to_vec()).unwrap();
    assert!(
        (1..=3).contains(&anew()),
        "{} messages' folds written",
        anew()
    );
    assert_eq!((outline, folds), from_scratch(&edited, enc));
    assert_ne!(before, from_scratch(&edited, enc));
    // A line break moves every later message: their entries are written anew.
    edit(&mut doc, at, at, "\n", enc);
    let edited = text.replacen("answer 150", "\nxanswer 150", 1);
    assert_eq!(answers(&doc, enc), from_scratch(&edited, enc));
    assert!(
        (150..=152).contains(&anew()),
        "{} messages' folds written",
        anew()
    );
}

/// A request still working on an older version (its snapshot taken before an edit)
/// answers for that version, and the edited document for its own.
#[test]
fn a_snapshot_of_an_older_version_keeps_its_answer() {
    let enc = PositionEncoding::Utf16;
    let text = "## @me\nfirst\n\n## @bot\n```\ncode\n```\n\n## @me\nlast\n";
    let mut doc = document(text);
    let before = answers(&doc, enc);
    let snapshot = doc.clone();
    let at = text.find("first").unwrap();
    edit(&mut doc, at, at, "## @bot\nnew message\n\n", enc);
    let edited = text.replacen("first", "## @bot\nnew message\n\nfirst", 1);
    assert_eq!(answers(&doc, enc), from_scratch(&edited, enc));
    assert_eq!(answers(&snapshot, enc), before);
    assert_eq!(before, from_scratch(text, enc));
    // The snapshot edited on its own afterwards does not take the other's pieces.
    let mut other = snapshot.clone();
    let at = text.find("last").unwrap();
    edit(&mut other, at, at + 4, "changed\n\n## @a\nx", enc);
    let other_text = text.replacen("last", "changed\n\n## @a\nx", 1);
    assert_eq!(answers(&other, enc), from_scratch(&other_text, enc));
    assert_eq!(answers(&doc, enc), from_scratch(&edited, enc));
}

/// An edit keeps the pieces of the messages it did not touch: after a keystroke in
/// one message of many, only the re-parsed messages have no piece.
#[test]
fn an_edit_remakes_only_the_pieces_of_the_messages_it_touched() {
    let enc = PositionEncoding::Utf16;
    let text: String = (0..200)
        .map(|i| format!("## @m{i}\nanswer {i}\n\n"))
        .collect();
    let mut doc = document(&text);
    answers(&doc, enc);
    let at = text.find("answer 100").unwrap();
    edit(&mut doc, at, at, "x", enc);
    let missing = |doc: &Document| doc.pieces.empty_slots();
    let remade = missing(&doc);
    assert!((1..=3).contains(&remade), "{remade} pieces made again");
    answers(&doc, enc);
    assert_eq!(missing(&doc), 0);
}

/// Messages that leave the listed ones (a new message pushes them into a group) and
/// come back (it is deleted) are written anew, not copied from where they were in an
/// older answer.
#[test]
fn messages_listed_again_after_being_grouped_are_written_anew() {
    let enc = PositionEncoding::Utf16;
    let text: String = (0..4)
        .map(|i| format!("## @m{i}\nanswer {i}\n\n"))
        .collect();
    let mut doc = document(&text);
    let first = answers_showing(&doc, enc, FEW);
    assert_eq!(first, from_scratch_showing(&text, enc, FEW));
    assert!(first.0.contains("messages 1–2") && first.0.contains("@m2: answer 2"));
    let end = text.len();
    edit(&mut doc, end, end, "## @m4\nanswer 4\n", enc);
    let longer = format!("{text}## @m4\nanswer 4\n");
    let grouped = answers_showing(&doc, enc, FEW);
    assert_eq!(grouped, from_scratch_showing(&longer, enc, FEW));
    assert!(grouped.0.contains("messages 3–4") && !grouped.0.contains("@m2: answer 2"));
    edit(&mut doc, end, longer.len(), "", enc);
    assert_eq!(answers_showing(&doc, enc, FEW), first);
}
