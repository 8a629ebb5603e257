use std::sync::Mutex;

use proptest::prelude::*;
use tower_lsp_server::ls_types::Uri;

use super::*;
use crate::conversation::problems::{self, Problem};
use crate::document::text::PositionEncoding;
use crate::lsp::code_lens::code_lenses;
use crate::lsp::diagnostics::{MAX_PROBLEMS, problems_of};
use crate::lsp::edit_model_tests::edit_both;
use crate::lsp::state::{State, team_of};

/// What a chat is made of, cut so that random edits make and break headings, mentions
/// of members the team has and lacks, status comments (malformed, queued, waiting on
/// a permission, with a session no agent issues, with a record of what a resumed
/// session saw), fences and the front matter.
const PARTS: &[&str] = &[
    "\n",
    "\r\n",
    "text ",
    "@a ",
    "@bot ",
    "@nobody ",
    "@me ",
    "[NEXT: bot]",
    "## @a\n",
    "## @bot\n",
    "## @me\n",
    "## @stranger\n",
    "```\n",
    "~~~\n",
    "<!-- chatmd id=t1 agent=claude status=done -->\n",
    "<!-- chatmd id=t2 agent=claude status=done session=nonsense -->\n",
    "<!-- chatmd id=t3 agent=codex status=waiting -->\n",
    "<!-- chatmd status=queued -->\n",
    "## @a\n<!-- chatmd id=t4 agent=claude status=done session=0f1e2d3c-aaaa seen=+0:abcdef.012345 -->\n",
    "<!-- chatmd id=\"x\n",
    "> [!permission] t3-p1 run `ls`\n",
    "- [ ] allow\n",
    "Shall I go on?\n",
    "---\n",
    "members: [a]\n",
    "é😀漢字",
];

fn chat_text() -> impl Strategy<Value = String> {
    proptest::collection::vec(0..PARTS.len(), 0..40)
        .prop_map(|v| v.iter().map(|&i| PARTS[i]).collect())
}

/// An edit as (where, how many bytes it replaces, which part it inserts).
fn edits() -> impl Strategy<Value = Vec<(usize, usize, usize)>> {
    proptest::collection::vec((0usize..4000, 0usize..60, 0..PARTS.len() + 1), 1..10)
}

/// A workspace with a team of two members (`a` runs claude, `bot` codex) and the URI
/// of a chat in it.
fn workspace() -> (tempfile::TempDir, Uri) {
    let dir = tempfile::tempdir().unwrap();
    for (member, role) in [("a", "CLAUDE.md"), ("bot", "AGENTS.md")] {
        std::fs::create_dir(dir.path().join(member)).unwrap();
        std::fs::write(dir.path().join(member).join(role), "You help.\n").unwrap();
    }
    let uri = Uri::from_file_path(dir.path().join("c.chat.md")).unwrap();
    (dir, uri)
}

fn state(root: &std::path::Path) -> Mutex<State> {
    Mutex::new(State {
        root: Some(root.to_owned()),
        ..State::default()
    })
}

/// Everything the editor is told after an edit, as a fresh server would say it: the
/// published problems (with their quick fixes) and the code lenses.
fn answers(state: &Mutex<State>, doc: &Document) -> (Vec<Problem>, String) {
    let (found, _) = problems_of(state, doc);
    let lenses = code_lenses(state, doc, PositionEncoding::Utf16);
    (found, serde_json::to_string(&lenses).unwrap())
}

/// The chat's own problems checked on the whole text at once, as before they were kept
/// per message.
fn whole_text_problems(state: &Mutex<State>, doc: &Document) -> Found {
    let text = doc.text.to_string();
    let team = team_of(state, doc.path.as_deref(), &doc.chat).team;
    let roster = Roster::new(&team, doc.chat.front_matter.as_ref());
    let clis = crate::lsp::diagnostics::Installed::of(state);
    problems::check_capped(&text, &doc.chat, &roster, &clis, MAX_PROBLEMS)
}

fn kept_problems(state: &Mutex<State>, doc: &Document) -> Found {
    let team = team_of(state, doc.path.as_deref(), &doc.chat).team;
    let roster = Roster::new(&team, doc.chat.front_matter.as_ref());
    let clis = crate::lsp::diagnostics::Installed::of(state);
    chat_problems(doc, &team, &roster, &clis, MAX_PROBLEMS)
}

fn same(a: &Found, b: &Found) -> bool {
    a.problems == b.problems
        && a.more == b.more
        && a.first_more == b.first_more
        && a.worst_more == b.worst_more
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// After every edit, the diagnostics and the code lenses of the edited document
    /// (its kept per-message checks) are those of a document opened with the new text,
    /// and the chat's own problems those of the whole-text check.
    #[test]
    fn kept_checks_answer_as_a_fresh_computation(text in chat_text(), edits in edits()) {
        let (dir, uri) = workspace();
        let state = state(dir.path());
        let enc = PositionEncoding::Utf16;
        let mut doc = Document::new(uri.clone(), 1, text.clone());
        let mut model = text;
        answers(&state, &doc);
        for (at, len, part) in edits {
            let insert = PARTS.get(part).copied().unwrap_or("");
            edit_both(&mut doc, &mut model, (at, len), insert, enc);
            let fresh = Document::new(uri.clone(), 1, model.clone());
            prop_assert_eq!(answers(&state, &doc), answers(&state, &fresh), "{:?}", model);
            let (kept, whole) = (kept_problems(&state, &doc), whole_text_problems(&state, &fresh));
            prop_assert!(same(&kept, &whole), "{:?}\n{:?}\n{:?}", model, kept, whole);
        }
    }
}

/// `lens_tail` as it walked every message in order before blocks.
fn lens_tail_in_order(
    doc: &Document,
    team: &Arc<Team>,
    roster: &Roster,
    running: &[String],
) -> usize {
    with_walk(doc, team, roster, |walk| {
        let (mut queued, mut counting, mut ai_before, mut last_ai) = (None, None, None, None);
        let mut sections = vec![None; running.len()];
        for i in 0..walk.len() {
            let (made, handles) = walk.with_handles(i);
            let facts = made.facts();
            if facts.queued {
                queued = Some(i);
            }
            if facts.counts {
                counting = Some(i);
                ai_before = last_ai;
            }
            if facts.ai {
                last_ai = Some(i);
            }
            for (member, section) in running.iter().zip(sections.iter_mut()) {
                if **made.handle(handles) == **member {
                    *section = Some(i);
                }
            }
        }
        [queued, counting, ai_before]
            .into_iter()
            .chain(sections)
            .map(|read| read.unwrap_or(usize::MAX))
            .fold(walk.len(), usize::min)
    })
}

/// `may_have_seen_changes` as it walked every message in order before blocks.
fn seen_changes_in_order(doc: &Document, team: &Arc<Team>, roster: &Roster) -> bool {
    let resuming: Vec<_> = roster.members.iter().filter(|m| m.resume).collect();
    let mut latest = vec![false; resuming.len()];
    with_walk(doc, team, roster, |walk| {
        for i in 0..walk.len() {
            let (made, handles) = walk.with_handles(i);
            let Some(agent) = made.session_agent() else {
                continue;
            };
            for (member, records) in resuming.iter().zip(latest.iter_mut()) {
                if member.agent == agent && member.handle.eq_ignore_ascii_case(made.handle(handles))
                {
                    *records = made.facts().records_seen;
                }
            }
        }
    });
    latest.contains(&true)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// With the blocks kept across edits (three messages each in tests): past a small
    /// limit the problems are counted as the whole-text check counts them, and the
    /// lenses' first message and the `seen=` question are those of a walk over every
    /// message.
    #[test]
    fn blocks_kept_across_edits_answer_as_every_message_does(
        text in chat_text(),
        edits in edits(),
        limit in 0usize..4,
    ) {
        let (dir, uri) = workspace();
        let state = state(dir.path());
        let enc = PositionEncoding::Utf16;
        let mut doc = Document::new(uri.clone(), 1, text.clone());
        let mut model = text;
        let team = team_of(&state, doc.path.as_deref(), &doc.chat).team;
        let clis = crate::lsp::diagnostics::Installed::of(&state);
        let running = ["a".to_owned(), "bot".to_owned(), "me".to_owned()];
        for (at, len, part) in edits {
            let roster = Roster::new(&team, doc.chat.front_matter.as_ref());
            chat_problems(&doc, &team, &roster, &clis, limit);
            let insert = PARTS.get(part).copied().unwrap_or("");
            edit_both(&mut doc, &mut model, (at, len), insert, enc);
            let roster = Roster::new(&team, doc.chat.front_matter.as_ref());
            let kept = chat_problems(&doc, &team, &roster, &clis, limit);
            let whole = problems::check_capped(&model, &doc.chat, &roster, &clis, limit);
            prop_assert!(same(&kept, &whole), "{:?}\n{:?}\n{:?}", model, kept, whole);
            for members in [&running[..0], &running[..1], &running[..]] {
                prop_assert_eq!(
                    lens_tail(&doc, &team, &roster, members),
                    lens_tail_in_order(&doc, &team, &roster, members),
                    "{:?}",
                    model
                );
            }
            prop_assert_eq!(
                may_have_seen_changes(&doc, &team, &roster),
                seen_changes_in_order(&doc, &team, &roster),
                "{:?}",
                model
            );
        }
    }
}

/// Past the limit, problems are counted as the whole-text check counts them.
#[test]
fn a_chat_over_the_limit_counts_the_rest_alike() {
    let (dir, uri) = workspace();
    let state = state(dir.path());
    let text: String = (0..600)
        .map(|i| format!("## @me\n@x{i} and @y{i}\n\n## @a\nok\n\n"))
        .collect();
    let mut doc = Document::new(uri.clone(), 1, text.clone());
    let before = kept_problems(&state, &doc);
    assert_eq!(before.problems.len(), MAX_PROBLEMS);
    // 1200 unknown mentions (and @a's CLI when it is not on this machine's PATH).
    assert!(before.more >= 200, "{}", before.more);
    let at = text.find("@x300").unwrap();
    let enc = PositionEncoding::Utf16;
    let pos = doc.text.byte_to_position(at, enc);
    doc.apply_change(Some((pos, pos)), "@z ", enc);
    let edited = text.replacen("@x300", "@z @x300", 1);
    let fresh = Document::new(uri, 1, edited);
    assert!(same(
        &kept_problems(&state, &doc),
        &whole_text_problems(&state, &fresh)
    ));
    assert_eq!(kept_problems(&state, &doc).more, before.more + 1);
}

/// A keystroke in one message makes only that message's checks again, and a change
/// of the team makes them all again (a new member is no longer unknown).
#[test]
fn an_edit_redoes_the_checks_of_its_message_and_a_new_team_all() {
    let (dir, uri) = workspace();
    let state = state(dir.path());
    let text: String = (0..200)
        .map(|i| format!("## @me\n@carol look at {i}\n\n## @a\nanswer {i}\n\n"))
        .collect();
    let enc = PositionEncoding::Utf16;
    let mut doc = Document::new(uri.clone(), 1, text.clone());
    let unknown = |found: &Found| {
        found
            .problems
            .iter()
            .filter(|p| p.code == "unknown-mention")
            .count()
    };
    assert_eq!(unknown(&kept_problems(&state, &doc)), 200);
    let at = text.find("answer 100").unwrap();
    let pos = doc.text.byte_to_position(at, enc);
    doc.apply_change(Some((pos, pos)), "x", enc);
    let redone = doc.checks.empty_slots();
    assert!((1..=3).contains(&redone), "{redone} messages checked again");
    kept_problems(&state, &doc);
    assert_eq!(doc.checks.empty_slots(), 0);

    std::fs::create_dir(dir.path().join("carol")).unwrap();
    std::fs::write(dir.path().join("carol").join("GEMINI.md"), "You check.\n").unwrap();
    let after = kept_problems(&state, &doc);
    assert_eq!(unknown(&after), 0);
    let fresh = Document::new(uri, 1, text.replacen("answer 100", "xanswer 100", 1));
    assert!(same(&after, &whole_text_problems(&state, &fresh)));
}

/// A resumed session that saw a message since edited is warned about, by the kept
/// checks as by a fresh open (the check reads the whole text only in such a chat).
#[test]
fn an_edit_of_a_message_a_session_saw_is_warned_about() {
    let (dir, uri) = workspace();
    let state = state(dir.path());
    let text = "## @me\nfirst question\n\n## @a\n<!-- chatmd id=t1 agent=claude status=done \
                session=0f1e2d3c-aaaa -->\nan answer\n\n## @me\nsecond\n";
    let mut doc = Document::new(uri.clone(), 1, text.to_owned());
    let (found, _) = problems_of(&state, &doc);
    assert!(!found.iter().any(|p| p.code == "seen-earlier-version"));
    // The answer now records what its turn saw: messages 0 and 1, hashed otherwise.
    let at = text.find(" -->").unwrap();
    let enc = PositionEncoding::Utf16;
    let pos = doc.text.byte_to_position(at, enc);
    doc.apply_change(Some((pos, pos)), " seen=0:abcdef.012345", enc);
    let edited = text.replacen(" -->", " seen=0:abcdef.012345 -->", 1);
    let (found, _) = problems_of(&state, &doc);
    assert!(
        found.iter().any(|p| p.code == "seen-earlier-version"),
        "{found:?}"
    );
    let fresh = Document::new(uri, 1, edited);
    assert_eq!(found, problems_of(&state, &fresh).0);
}

/// Whether members' CLIs are installed is asked while the document's kept checks are
/// locked; an edit locks the server's state and then those checks. Asking the state
/// there deadlocked the server (a Send's second turn typed while its problems were
/// computed, seen in the warm bench rows): the lookup needs no state once made.
#[test]
fn the_chats_problems_are_checked_while_the_server_state_is_held() {
    let (dir, uri) = workspace();
    let state = state(dir.path());
    let doc = Document::new(uri, 1, "## @me\n@a @bot go\n".to_owned());
    let team = team_of(&state, doc.path.as_deref(), &doc.chat).team;
    let roster = Roster::new(&team, doc.chat.front_matter.as_ref());
    let clis = crate::lsp::diagnostics::Installed::of(&state);
    let (done, checked) = std::sync::mpsc::channel();
    std::thread::scope(|scope| {
        // As `didChange` holds it while it applies an edit.
        let held = crate::lsp::state::lock(&state);
        scope.spawn(|| {
            let found = chat_problems(&doc, &team, &roster, &clis, MAX_PROBLEMS);
            let _ = done.send(found.problems.len());
        });
        let checked = checked.recv_timeout(std::time::Duration::from_secs(10));
        drop(held);
        assert!(checked.is_ok(), "the checks waited for the server's state");
    });
}
