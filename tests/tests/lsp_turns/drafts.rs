//! What the user writes while answers stream belongs to the user: a message started
//! during a turn is a draft that only an explicit Send sends; an edit the editor
//! reports in several notifications lands once; typing right after Send stays in the
//! user's message. Slow agents (0.2 s between chunks), as the real CLIs stream.

use chatmd_tests::sim_editor::Behaviour;
use pretty_assertions::assert_eq;

use crate::setup::{At, Setup, nothing_more, send};

/// One answer in four chunks, 0.2 s apart.
fn slow_reviewer(s: &str) -> Vec<(&'static str, String)> {
    vec![
        ("FAKE_AGENT_TEXT", s.to_string()),
        ("FAKE_AGENT_CHUNKS", "4".into()),
        ("FAKE_AGENT_DELAY_MS", "200".into()),
    ]
}

/// A team whose reviewer answers slowly and whose tester and writer record every run
/// (their record files exist only if they were started).
fn setup() -> Setup {
    let reviewer = slow_reviewer("one two three four");
    let reviewer: Vec<(&str, &str)> = reviewer.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let s = Setup::new(&[
        ("reviewer", &reviewer),
        (
            "tester",
            &[
                ("FAKE_AGENT_TEXT", "noted"),
                ("FAKE_AGENT_RECORD", "@RECORDS@/tester-ran.json"),
            ],
        ),
        (
            "writer",
            &[
                ("FAKE_AGENT_TEXT", "noted"),
                ("FAKE_AGENT_RECORD", "@RECORDS@/writer-ran.json"),
            ],
        ),
    ]);
    std::fs::create_dir_all(s.path("records")).expect("records folder");
    let records = s.path("records").display().to_string();
    let config = std::fs::read_to_string(s.path("team/chatmd.toml")).expect("read");
    s.write("team/chatmd.toml", &config.replace("@RECORDS@", &records));
    s
}

/// The status comments replaced by `<status>`, after checking each says `done`.
fn without_status(text: &str) -> String {
    let comment = regex::Regex::new(r"<!-- chatmd [^\n]* -->").expect("regex");
    for found in comment.find_iter(text) {
        assert!(found.as_str().contains("status=done"), "{text}");
    }
    comment.replace_all(text, "<status>").into_owned()
}

async fn draft_is_not_sent(behaviour: Behaviour, draft: &str) {
    let s = setup();
    let chat = "## @me\n@reviewer look\n";
    let (mut editor, uri) = s.open_chat(behaviour, "team/d.chat.md", chat).await;
    // While the answer streams, the user starts the next message at the end.
    editor.type_before_edit(3, &uri, At::End, &format!("\n## @me\n{draft}\n"));
    send(&mut editor, &uri).await;
    editor
        .run_until("the whole answer", |e| e.text(&uri).contains("status=done"))
        .await;
    nothing_more(&mut editor).await;
    assert_eq!(
        without_status(editor.text(&uri)),
        format!(
            "## @me\n@reviewer look\n\n## @reviewer\n<status>\none two three four\n\n## @me\n{draft}\n"
        ),
        "the draft stays as typed and nobody answers it"
    );
    for member in ["tester", "writer"] {
        assert!(
            !s.path(&format!("records/{member}-ran.json")).exists(),
            "@{member} was started on the user's draft"
        );
    }
}

#[tokio::test]
async fn a_draft_with_a_mention_is_not_sent_when_the_turn_ends_vscode() {
    draft_is_not_sent(Behaviour::VsCode, "@tester what about the tests").await;
}

#[tokio::test]
async fn a_draft_with_a_mention_is_not_sent_when_the_turn_ends_neovim() {
    draft_is_not_sent(Behaviour::Neovim, "@tester what about the tests").await;
}

#[tokio::test]
async fn a_draft_without_a_mention_is_not_sent_when_the_turn_ends_vscode() {
    // Without a mention, routing would ask the next member in turn (@tester).
    draft_is_not_sent(Behaviour::VsCode, "thinking about it").await;
}

#[tokio::test]
async fn a_draft_without_a_mention_is_not_sent_when_the_turn_ends_neovim() {
    draft_is_not_sent(Behaviour::Neovim, "thinking about it").await;
}

#[tokio::test]
async fn a_draft_does_not_stop_the_chain_the_answers_asked_for() {
    // The reviewer hands the word to the writer; the user's draft meanwhile is left
    // alone and the writer answers the reviewer, not the draft.
    let s = setup();
    let chat = "## @me\n@reviewer look\n";
    s.write(
        "team/chatmd.toml",
        &s.read("team/chatmd.toml")
            .replace("one two three four", "fine, @writer document it"),
    );
    let (mut editor, uri) = s.open_chat(Behaviour::VsCode, "team/c.chat.md", chat).await;
    editor.type_before_edit(3, &uri, At::End, "\n## @me\n@tester later\n");
    send(&mut editor, &uri).await;
    editor
        .run_until("the writer's answer and the reply stub", |e| {
            let t = e.text(&uri);
            t.matches("status=done").count() == 2 && t.ends_with("\n## @me\n")
        })
        .await;
    nothing_more(&mut editor).await;
    // The writer's section comes after the draft (sections are appended in the order
    // the turns start; the user's text is never moved).
    assert_eq!(
        without_status(editor.text(&uri)),
        "## @me\n@reviewer look\n\n## @reviewer\n<status>\nfine, @writer document it\n\n## @me\n@tester later\n\n## @writer\n<status>\nnoted\n\n## @me\n"
    );
    let record =
        std::fs::read_to_string(s.path("records/writer-ran.json")).expect("the writer ran");
    assert!(
        record.contains("fine, @writer document it") && !record.contains("@tester later"),
        "the writer answers the reviewer and never sees the draft: {record}"
    );
    assert!(!s.path("records/tester-ran.json").exists());
}

/// The end-of-turn edit (status comment and the last line break) reported in several
/// `didChange`s, as Neovim did at this speed: it is recognised and not sent again.
async fn split_echo_lands_once(behaviour: Behaviour) {
    let s = setup();
    let chat = "## @me\n@reviewer look\n";
    let (mut editor, uri) = s.open_chat(behaviour, "team/e.chat.md", chat).await;
    editor.split_echo = true;
    send(&mut editor, &uri).await;
    editor
        .run_until("the reply stub", |e| {
            let t = e.text(&uri);
            t.contains("status=done") && t.ends_with("## @me\n")
        })
        .await;
    nothing_more(&mut editor).await;
    assert_eq!(
        without_status(editor.text(&uri)),
        "## @me\n@reviewer look\n\n## @reviewer\n<status>\none two three four\n\n## @me\n"
    );
    assert_eq!(editor.stale, 0, "no edit was sent against an old version");
}

#[tokio::test]
async fn an_edit_echoed_in_several_notifications_lands_once_vscode() {
    split_echo_lands_once(Behaviour::VsCode).await;
}

#[tokio::test]
async fn an_edit_echoed_in_several_notifications_lands_once_neovim() {
    split_echo_lands_once(Behaviour::Neovim).await;
}

/// The cursor at the end of the message's last line, Send, and the user types at
/// once, just before the editor handles the server's `edit`-th edit (1: the new
/// sections, so that edit is stale; 2: the first words of the answer): the text stays
/// in the message, before the new section.
async fn typing_right_after_send_stays_in_the_message(behaviour: Behaviour, edit: usize) {
    let s = setup();
    let chat = "## @me\n@reviewer look\n";
    let (mut editor, uri) = s.open_chat(behaviour, "team/k.chat.md", chat).await;
    editor.place_cursor(&uri, chat.len() - 1);
    editor.type_before_edit(edit, &uri, At::Cursor, " closely");
    send(&mut editor, &uri).await;
    editor
        .run_until("the reply stub", |e| {
            let t = e.text(&uri);
            t.contains("status=done") && t.ends_with("## @me\n")
        })
        .await;
    assert_eq!(
        without_status(editor.text(&uri)),
        "## @me\n@reviewer look closely\n\n## @reviewer\n<status>\none two three four\n\n## @me\n"
    );
}

#[tokio::test]
async fn typing_right_after_send_stays_in_the_message_vscode() {
    typing_right_after_send_stays_in_the_message(Behaviour::VsCode, 1).await;
    typing_right_after_send_stays_in_the_message(Behaviour::VsCode, 2).await;
}

#[tokio::test]
async fn typing_right_after_send_stays_in_the_message_neovim() {
    // Edit 1 is for version 0, which Neovim applies even though the user typed first.
    typing_right_after_send_stays_in_the_message(Behaviour::Neovim, 1).await;
    typing_right_after_send_stays_in_the_message(Behaviour::Neovim, 2).await;
}
