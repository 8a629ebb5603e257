use std::sync::Mutex;

use proptest::prelude::*;
use tower_lsp_server::ls_types::Uri;

use super::*;
use crate::document::chat::Chat;
use crate::document::text::PositionEncoding;
use crate::lsp::edit_model_tests::edit_both;
use crate::lsp::state::{State, team_of};

/// A workspace with a team of two members that resume their sessions (`a` runs
/// claude, `bot` codex) and the URI of a chat in it.
fn workspace() -> (tempfile::TempDir, Mutex<State>, Uri) {
    let dir = tempfile::tempdir().unwrap();
    for (member, role) in [("a", "CLAUDE.md"), ("bot", "AGENTS.md")] {
        std::fs::create_dir(dir.path().join(member)).unwrap();
        std::fs::write(dir.path().join(member).join(role), "You help.\n").unwrap();
    }
    let uri = Uri::from_file_path(dir.path().join("c.chat.md")).unwrap();
    let state = Mutex::new(State {
        root: Some(dir.path().to_owned()),
        ..State::default()
    });
    (dir, state, uri)
}

/// The warnings of `doc` from its kept facts, and those `seen::problems` finds in the
/// whole text of a chat opened with `text`.
fn both(state: &Mutex<State>, doc: &Document, text: &str) -> (Vec<Problem>, Vec<Problem>) {
    let team = team_of(state, doc.path.as_deref(), &doc.chat).team;
    let roster = Roster::new(&team, doc.chat.front_matter.as_ref());
    let kept = problems(doc, &roster);
    let chat = Chat::parse(text);
    (kept, seen::problems(text, &chat, &roster))
}

/// One message of a generated chat: who writes it, and for an answer how its status
/// comment records what its turn saw.
#[derive(Clone, Debug)]
enum Planned {
    Human(u8),
    Answer {
        member: u8,
        /// How many of the messages before it the record spans (0: no `seen=`).
        span: u8,
        resumed: bool,
        /// A hash in the record replaced: by `-` (not given), or by one that matches
        /// nothing.
        spoiled: Option<(u8, bool)>,
        /// The status comment names no session, or says what the user chose.
        no_session: bool,
        chosen: bool,
    },
    Bare(u8),
}

fn planned() -> impl Strategy<Value = Planned> {
    prop_oneof![
        3 => (0u8..4).prop_map(Planned::Human),
        4 => (0u8..2, 0u8..6, any::<bool>(), proptest::option::weighted(0.2, (0u8..6, any::<bool>())), proptest::bool::weighted(0.1), proptest::bool::weighted(0.1))
            .prop_map(|(member, span, resumed, spoiled, no_session, chosen)| Planned::Answer {
                member, span, resumed, spoiled, no_session, chosen,
            }),
        1 => (0u8..2).prop_map(Planned::Bare),
    ]
}

/// A chat whose answers record, with the real hashes, the messages before them.
fn chat_of(plan: &[Planned]) -> String {
    let mut text = String::new();
    for (n, message) in plan.iter().enumerate() {
        match message {
            Planned::Human(q) => text.push_str(&format!("## @me\nquestion {q}\n\n")),
            Planned::Bare(member) => text.push_str(&format!(
                "## @{}\nno record\n\n",
                ["a", "bot"][*member as usize]
            )),
            Planned::Answer {
                member,
                span,
                resumed,
                spoiled,
                no_session,
                chosen,
            } => {
                let chat = Chat::parse(&text);
                let count = chat.messages.len();
                let first = count.saturating_sub(*span as usize);
                let mut hashes: Vec<String> = (first..count)
                    .map(|i| seen::message_hash(&text, &chat.messages[i]))
                    .collect();
                if let Some((at, given)) = spoiled
                    && let Some(h) = hashes.get_mut(*at as usize)
                {
                    *h = if *given { "0a0b0c".into() } else { "-".into() };
                }
                let (handle, agent) = [("a", "claude"), ("bot", "codex")][*member as usize];
                let session = if *no_session {
                    String::new()
                } else {
                    format!(" session=s{member}")
                };
                let record = match (*span, hashes.is_empty()) {
                    (0, _) | (_, true) => String::new(),
                    _ => format!(
                        " seen={}{first}:{}",
                        if *resumed { "+" } else { "" },
                        hashes.join(".")
                    ),
                };
                let next = if *chosen { " next=tell" } else { "" };
                text.push_str(&format!(
                    "## @{handle}\n<!-- chatmd id=t{n} agent={agent} status=done{session}{record}{next} -->\nanswer {n}\n\n"
                ));
            }
        }
    }
    text
}

/// What an edit inserts: words, line breaks, headings and parts of status comments.
const PARTS: &[&str] = &[
    "x",
    "\n",
    "\r\n",
    "question 1",
    "## @me\n",
    "## @a\n",
    "## @bot\n",
    "## @me\nquestion 0\n\n",
    " seen=+0:",
    " session=s0",
    "-->",
    "é😀",
];

/// The edit that gives message `k` (of those there are, in turn) the author `who`: its
/// heading's handle, as (at, length), and the new handle.
fn renamed(doc: &Document, k: usize, who: usize) -> Option<((usize, usize), &'static str)> {
    let messages = &doc.chat.messages;
    let m = messages.get(k % messages.len().max(1))?;
    let handle = m.handle_range();
    Some(((handle.start, handle.len()), ["me", "a", "bot"][who]))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// After every edit, the warnings made from the kept facts are those
    /// `seen::problems` finds in the whole new text; also when several edits came
    /// between two warnings (an editor asks for them after some keys, not all).
    #[test]
    fn kept_facts_warn_as_the_whole_text_check(
        plan in proptest::collection::vec(planned(), 0..14),
        edits in proptest::collection::vec(
            (0usize..2000, 0usize..40, 0..PARTS.len() + 1, proptest::bool::weighted(0.7),
             proptest::option::weighted(0.25, (0usize..14, 0usize..3))),
            1..8,
        ),
    ) {
        let (_dir, state, uri) = workspace();
        let enc = PositionEncoding::Utf16;
        let text = chat_of(&plan);
        let mut doc = Document::new(uri, 1, text.clone());
        let mut model = text;
        let (kept, whole) = both(&state, &doc, &model);
        prop_assert_eq!(kept, whole, "{:?}", model);
        let last = edits.len() - 1;
        for (n, (at, len, part, asked, rename)) in edits.into_iter().enumerate() {
            match rename.and_then(|(k, who)| renamed(&doc, k, who)) {
                // Another author for one message: no message more or less.
                Some((range, handle)) => edit_both(&mut doc, &mut model, range, handle, enc),
                None => {
                    let insert = PARTS.get(part).copied().unwrap_or("");
                    edit_both(&mut doc, &mut model, (at, len), insert, enc);
                }
            }
            if asked || n == last {
                let (kept, whole) = both(&state, &doc, &model);
                prop_assert_eq!(kept, whole, "{:?}", model);
            }
        }
    }
}

/// A record of messages past the chat's end warns only when it holds one of them: a
/// run of none (its first hash not given) claims nothing.
#[test]
fn a_record_past_the_end_warns_only_for_a_message_it_holds() {
    let (_dir, state, uri) = workspace();
    let answer = |seen: &str| {
        format!(
            "## @me\nquestion\n\n## @a\n<!-- chatmd id=t1 agent=claude status=done session=s0 seen={seen} -->\nanswer\n\n"
        )
    };
    for (seen, warned) in [("5:-", 0), ("5:-.-", 0), ("5:0a0b0c", 1), ("1:-.0a0b0c", 1)] {
        let text = answer(seen);
        let doc = Document::new(uri.clone(), 1, text.clone());
        let (kept, whole) = both(&state, &doc, &text);
        assert_eq!(kept, whole, "{seen}");
        assert_eq!(kept.len(), warned, "{seen}");
    }
}

/// The generated chats hold what the property needs: a session that saw every message
/// as it reads is not warned about, and an edit of one it saw is, on that message.
#[test]
fn an_edit_of_a_seen_message_is_warned_about_on_it() {
    let (_dir, state, uri) = workspace();
    let answer = |span| Planned::Answer {
        member: 0,
        span,
        resumed: true,
        spoiled: None,
        no_session: false,
        chosen: false,
    };
    let plan = [Planned::Human(0), answer(1), Planned::Human(1), answer(3)];
    let text = chat_of(&plan);
    let mut doc = Document::new(uri, 1, text.clone());
    let (kept, whole) = both(&state, &doc, &text);
    assert_eq!((kept.len(), whole.len()), (0, 0), "{text}");
    let enc = PositionEncoding::Utf16;
    let at = text.find("question 1").unwrap();
    let pos = doc.text.byte_to_position(at, enc);
    doc.apply_change(Some((pos, pos)), "x", enc);
    let redone = doc.seen.empty_slots();
    assert!((1..=3).contains(&redone), "{redone} messages hashed again");
    let edited = text.replacen("question 1", "xquestion 1", 1);
    let (kept, whole) = both(&state, &doc, &edited);
    assert_eq!(kept, whole);
    assert_eq!(kept.len(), 1);
    let heading = edited[..at].rfind("## @me").unwrap();
    assert_eq!(kept[0].range, heading..heading + "## @me".len());
}
