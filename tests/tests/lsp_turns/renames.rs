//! A chat renamed while a member answers in it, the ways editors tell the server:
//! the file moves on disk, the old document closes and the new one opens with the
//! saved text, and `workspace/didRenameFiles` (or `willRenameFiles`) names both, in
//! either order. The answer goes on in the renamed chat; nothing is marked
//! interrupted and the old file is not written again.

use chatmd_tests::sim_editor::{Behaviour, SimEditor};
use pretty_assertions::assert_eq;
use serde_json::json;

use crate::setup::{Setup, file_until, finished, redact, send, turns_ended};

const CHAT: &str = "## @me\n@reviewer go\n";

const DONE: &str = "## @me\n@reviewer go\n\n## @reviewer\n<!-- chatmd id=t1 agent=claude \
                    status=done seen=0:35df51 started=… model=claude-opus-4-8 \
                    session=ba6318a6-8ff6-4537-9fb3-78cdd30bb441 took=… stop=end_turn \
                    exit=0 tokens=10/4 -->\nfirst second third fourth\n\n## @me\n";

/// How the editor tells the server about the rename.
#[derive(Clone, Copy, Debug)]
enum Told {
    /// Close and open only: the renamed document is the one holding the turn's section.
    Nothing,
    /// Close and open, then `didRenameFiles` (VS Code's order).
    AfterReopening,
    /// `didRenameFiles` first, then close and open.
    BeforeReopening,
    /// `willRenameFiles` before the file moves, then close, open and `didRenameFiles`.
    AskedFirst,
}

fn slow_reviewer() -> Setup {
    Setup::new(&[(
        "reviewer",
        &[
            ("FAKE_AGENT_TEXT", "first second third fourth"),
            ("FAKE_AGENT_CHUNKS", "4"),
            ("FAKE_AGENT_DELAY_MS", "200"),
        ],
    )])
}

/// Starts the reviewer and renames its chat while it answers, telling the server as
/// `told` says: the workspace, the editor and the new document's URI.
async fn renamed_mid_turn(told: Told) -> (Setup, SimEditor, String) {
    let s = slow_reviewer();
    let (mut editor, old) = s
        .open_chat(Behaviour::VsCode, "team/draft.chat.md", CHAT)
        .await;
    send(&mut editor, &old).await;
    editor
        .run_until("the first words", |e| e.text(&old).contains("first"))
        .await;
    // Saved: the file holds the streaming section, stamped with the server's process.
    let saved = editor.text(&old).to_string();
    assert!(saved.contains("status=streaming host="), "{saved}");
    s.write("team/draft.chat.md", &saved);
    let new = s.uri("team/final.chat.md");
    let files = json!({"files": [{"oldUri": old, "newUri": new}]});
    if let Told::AskedFirst = told {
        let answer = editor
            .client
            .request("workspace/willRenameFiles", files.clone())
            .await;
        assert_eq!(answer, Ok(json!(null)), "no edit is asked of the rename");
    }
    std::fs::rename(s.path("team/draft.chat.md"), s.path("team/final.chat.md")).unwrap();
    if let Told::BeforeReopening = told {
        renamed(&mut editor, &files).await;
    }
    editor.close(&old).await;
    // The server has taken the close in before the renamed chat opens (editors may
    // take a moment in between; VS Code sends the two back to back).
    let closed = editor
        .client
        .request(
            "textDocument/documentSymbol",
            json!({"textDocument": {"uri": old}}),
        )
        .await;
    assert_eq!(closed, Ok(json!(null)), "the old document is closed");
    editor.open(&new, &saved).await;
    if matches!(told, Told::AfterReopening | Told::AskedFirst) {
        renamed(&mut editor, &files).await;
    }
    (s, editor, new)
}

async fn rename_mid_turn(told: Told) {
    let (s, mut editor, new) = renamed_mid_turn(told).await;
    editor
        .run_until("the answer in the renamed chat", |e| {
            let text = e.text(&new);
            finished(text) || text.contains("status=interrupted")
        })
        .await;
    turns_ended(&mut editor).await;
    assert_eq!(redact(editor.text(&new)), DONE, "{told:?}");
    assert!(
        !s.path("team/draft.chat.md").exists(),
        "the old file is not written again ({told:?})"
    );
}

async fn renamed(editor: &mut SimEditor, files: &serde_json::Value) {
    editor
        .client
        .notify("workspace/didRenameFiles", files.clone())
        .await;
}

#[tokio::test]
async fn a_turn_follows_its_chat_closed_and_opened_under_a_new_name() {
    rename_mid_turn(Told::Nothing).await;
}

#[tokio::test]
async fn a_turn_follows_its_chat_renamed_then_reopened() {
    rename_mid_turn(Told::AfterReopening).await;
}

#[tokio::test]
async fn a_turn_follows_its_chat_when_the_rename_is_told_before_the_reopening() {
    rename_mid_turn(Told::BeforeReopening).await;
}

#[tokio::test]
async fn a_turn_follows_its_chat_when_the_editor_asks_before_renaming() {
    rename_mid_turn(Told::AskedFirst).await;
}

/// The editor says where the chat went and closes it, but opens nothing there (a
/// rename from a file explorer while the chat was open in a tab the user closed):
/// the answer goes on in the renamed file.
#[tokio::test]
async fn a_turn_follows_its_chat_into_the_renamed_file_when_no_document_opens() {
    let s = slow_reviewer();
    let (mut editor, old) = s
        .open_chat(Behaviour::VsCode, "team/draft.chat.md", CHAT)
        .await;
    send(&mut editor, &old).await;
    editor
        .run_until("the first words", |e| e.text(&old).contains("first"))
        .await;
    s.write("team/draft.chat.md", editor.text(&old));
    std::fs::rename(s.path("team/draft.chat.md"), s.path("team/final.chat.md")).unwrap();
    let new = s.uri("team/final.chat.md");
    renamed(
        &mut editor,
        &json!({"files": [{"oldUri": old, "newUri": new}]}),
    )
    .await;
    editor.close(&old).await;
    let text = file_until(&s.path("team/final.chat.md"), "the whole answer", |t| {
        t.ends_with("\n## @me\n")
    })
    .await;
    turns_ended(&mut editor).await;
    assert_eq!(redact(&text), DONE);
    assert!(
        !s.path("team/draft.chat.md").exists(),
        "the old file is not written again"
    );
}

/// A next message Sent in the renamed chat while the answer goes on waits for it, and
/// is delivered when it ends (the run is counted under the chat's new name).
#[tokio::test]
async fn a_message_queued_in_the_renamed_chat_is_delivered_when_the_turn_ends() {
    let (_s, mut editor, new) = renamed_mid_turn(Told::AfterReopening).await;
    editor
        .run_until("the answer going on in the renamed chat", |e| {
            e.text(&new).contains("second")
        })
        .await;
    crate::setup::send_queued(&mut editor, &new, "\n## @me\n@reviewer again\n").await;
    editor
        .run_until("the queued message answered", |e| {
            let text = e.text(&new);
            text.matches("status=done").count() == 2 && text.ends_with("\n## @me\n")
        })
        .await;
    turns_ended(&mut editor).await;
    let text = crate::setup::plain(editor.text(&new));
    assert_eq!(
        text,
        "## @me\n@reviewer go\n\n## @reviewer\n<!-- t1 claude done -->\nfirst second third fourth\n\n\
         ## @me\n@reviewer again\n\n## @reviewer\n<!-- t2 claude done -->\nfirst second third fourth\n\n## @me\n"
    );
}
