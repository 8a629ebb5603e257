//! Queued messages: Send while a member answers marks the new message queued in the
//! file; it is delivered, as it reads then, once the round ends, and exactly once; a
//! queued message the user deletes is never delivered; Cancel takes the mark off.

use chatmd_tests::sim_editor::Behaviour;
use pretty_assertions::assert_eq;
use serde_json::json;

use crate::setup::{At, Setup, lenses, plain, send, send_queued, tester_prompts};

/// A reviewer that answers slowly (four chunks, 0.4 s apart) and a tester that records
/// each run.
fn setup() -> Setup {
    crate::setup::reviewer_and_recorded_tester(&[
        ("FAKE_AGENT_TEXT", "one two three four"),
        ("FAKE_AGENT_CHUNKS", "4"),
        ("FAKE_AGENT_DELAY_MS", "400"),
    ])
}

/// Waits until the reviewer and the tester answered and the reply stub is there, and
/// checks that nothing more is written.
async fn both_answered(editor: &mut chatmd_tests::sim_editor::SimEditor, uri: &str) {
    editor
        .run_until("the tester's answer and the reply stub", |e| {
            let t = e.text(uri);
            t.matches("status=done").count() == 2 && t.ends_with("\n## @me\n")
        })
        .await;
    crate::setup::nothing_more(editor).await;
}

const QUESTION: &str = "## @me\n@reviewer look\n";
const NEXT: &str = "\n## @me\n@tester what about the tests\n";

/// Starts the reviewer, types the next message and sends it while the reviewer answers.
async fn queue_next(
    s: &Setup,
    behaviour: Behaviour,
) -> (chatmd_tests::sim_editor::SimEditor, String) {
    let (mut editor, uri) = s.open_chat(behaviour, "team/q.chat.md", QUESTION).await;
    send(&mut editor, &uri).await;
    editor
        .run_until("the reviewer's section", |e| {
            e.text(&uri).contains("## @reviewer\n")
        })
        .await;
    send_queued(&mut editor, &uri, NEXT).await;
    editor
        .run_until("the queued mark", |e| {
            e.text(&uri).contains("status=queued -->")
        })
        .await;
    assert!(
        editor
            .text(&uri)
            .ends_with("\n## @me\n<!-- chatmd status=queued -->\n@tester what about the tests\n"),
        "{}",
        editor.text(&uri)
    );
    assert!(
        !editor.text(&uri).contains("status=done"),
        "queued while the reviewer still answers: {}",
        editor.text(&uri)
    );
    (editor, uri)
}

async fn edited_queued_message_is_delivered_once(behaviour: Behaviour) {
    let s = setup();
    let (mut editor, uri) = queue_next(&s, behaviour).await;
    // The user edits the queued message before it goes.
    editor
        .type_text(&uri, At::Before("what about".into()), "now, ")
        .await;
    // The code lens says what it waits for.
    let titles: Vec<String> = lenses(&mut editor, &uri)
        .await
        .into_iter()
        .map(|(_, title, _)| title)
        .collect();
    assert_eq!(
        titles
            .iter()
            .take(3)
            .map(String::as_str)
            .collect::<Vec<_>>(),
        [
            "queued — will be sent when @reviewer finishes",
            "Send now",
            "Cancel"
        ],
        "{titles:?}"
    );
    both_answered(&mut editor, &uri).await;
    assert_eq!(
        plain(editor.text(&uri)),
        "## @me\n@reviewer look\n\n## @reviewer\n<!-- t1 claude done -->\none two three four\n\n## @me\n@tester now, what about the tests\n\n## @tester\n<!-- t2 codex done -->\ntests written\n\n## @me\n"
    );
    let prompts = tester_prompts(&s);
    assert_eq!(prompts.len(), 1, "delivered exactly once: {prompts:?}");
    assert!(
        prompts[0].contains("me: @tester now, what about the tests"),
        "the text at delivery time: {}",
        prompts[0]
    );
}

#[tokio::test]
async fn an_edited_queued_message_is_delivered_once_as_edited_vscode() {
    edited_queued_message_is_delivered_once(Behaviour::VsCode).await;
}

#[tokio::test]
async fn an_edited_queued_message_is_delivered_once_as_edited_neovim() {
    edited_queued_message_is_delivered_once(Behaviour::Neovim).await;
}

#[tokio::test]
async fn a_deleted_queued_message_is_never_delivered() {
    let s = setup();
    let (mut editor, uri) = queue_next(&s, Behaviour::VsCode).await;
    let text = editor.text(&uri).to_owned();
    let start = text.rfind("\n## @me\n").expect("the queued message");
    editor.delete(&uri, start..text.len()).await;
    editor
        .run_until("the reviewer's answer and the reply stub", |e| {
            let t = e.text(&uri);
            t.contains("status=done") && t.ends_with("\n## @me\n")
        })
        .await;
    crate::setup::nothing_more(&mut editor).await;
    assert_eq!(
        plain(editor.text(&uri)),
        "## @me\n@reviewer look\n\n## @reviewer\n<!-- t1 claude done -->\none two three four\n\n## @me\n"
    );
    assert_eq!(tester_prompts(&s), Vec::<String>::new());
}

#[tokio::test]
async fn cancel_takes_the_mark_off_and_the_message_stays_a_draft() {
    let s = setup();
    let (mut editor, uri) = queue_next(&s, Behaviour::VsCode).await;
    let answer = editor
        .command("chatmd.cancel", json!({"uri": uri, "queued": true}))
        .await;
    assert_eq!(answer, Ok(json!({"unqueued": true})));
    editor
        .run_until("the reviewer's answer", |e| {
            e.text(&uri).contains("status=done")
        })
        .await;
    crate::setup::nothing_more(&mut editor).await;
    assert_eq!(
        plain(editor.text(&uri)),
        format!(
            "## @me\n@reviewer look\n\n## @reviewer\n<!-- t1 claude done -->\none two three four\n{NEXT}"
        )
    );
    assert_eq!(tester_prompts(&s), Vec::<String>::new());
}

#[tokio::test]
async fn asking_about_a_selection_while_a_member_answers_queues_the_question() {
    let s = setup();
    s.write("src/pay.rs", "fn pay() {}\n");
    let (mut editor, uri) = s
        .open_chat(Behaviour::VsCode, "team/q.chat.md", QUESTION)
        .await;
    send(&mut editor, &uri).await;
    editor
        .run_until("the reviewer's section", |e| {
            e.text(&uri).contains("## @reviewer\n")
        })
        .await;
    let answer = editor
        .command(
            "chatmd.askAbout",
            json!({"uri": chatmd_tests::file_uri(&s.path("src/pay.rs")), "member": "tester",
                   "chat": uri,
                   "range": {"start": {"line": 0, "character": 0}, "end": {"line": 1, "character": 0}}}),
        )
        .await;
    assert_eq!(
        answer,
        Ok(json!({"members": [], "queued": true, "chat": uri})),
        "asked while @reviewer answers: queued, not started beside it"
    );
    both_answered(&mut editor, &uri).await;
    assert_eq!(
        plain(editor.text(&uri)),
        "## @me\n@reviewer look\n\n## @reviewer\n<!-- t1 claude done -->\none two three four\n\n\
         ## @me\n@tester about #file:src/pay.rs:1:\n\n```rust\nfn pay() {}\n```\n\n\
         ## @tester\n<!-- t2 codex done -->\ntests written\n\n## @me\n"
    );
    let prompts = tester_prompts(&s);
    assert_eq!(prompts.len(), 1, "delivered exactly once: {prompts:?}");
    assert!(
        prompts[0].contains("one two three four"),
        "delivered after the reviewer's answer: {}",
        prompts[0]
    );
}
