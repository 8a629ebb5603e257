//! An ACP agent's reads and writes through the editor (issue 31): a read sees the
//! unsaved buffer (the editor answers `chatmd/readBuffer`) or the disk when the file is
//! not open; a write is one `workspace/applyEdit` annotated with the member and the
//! turn, landing in the buffer (not on the disk), and the member's section lists the
//! file with the change folded under it.

use chatmd_tests::sim_editor::{Behaviour, SimEditor};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use crate::setup::{Setup, finished, redact, send};

const ASK: &str = "## @me\n@writer MOCK-MODE=writefile WRITE=pay.rs fix it\n";

fn writer() -> Setup {
    let s = Setup::acp_writer("", "FAKE_ACP_CLAUDE_START_MODE = \"bypassPermissions\"\n");
    s.write("team/writer/pay.rs", "fn pay() {}\n// total\n");
    s
}

/// Sends `ASK` and handles the server's requests until the turn is over.
async fn run(s: &Setup, editor: &mut SimEditor, uri: &str) -> String {
    send(editor, uri).await;
    editor
        .run_until("the turn", |e| finished(e.text(uri)))
        .await;
    let status = regex::Regex::new(r"<!-- chatmd id=t1 [^\n]*-->").unwrap();
    let _ = s;
    status
        .replace_all(&redact(editor.text(uri)), "<!-- t1 -->")
        .into_owned()
}

fn answers(s: &Setup) -> Vec<Value> {
    chatmd_tests::fake_agent::acp::other_answers_received(&s.path("acp.jsonl"))
}

/// The section of the turn that changed `pay.rs` from `before`'s first line to
/// `after`'s.
fn section(before: &str, after: &str, path: &str) -> String {
    format!(
        "{ASK}\n## @writer\n<!-- t1 -->\n> - changed `team/writer/pay.rs` (+1 \u{2212}1)\n\n\
         <details><summary>Diff of `team/writer/pay.rs`</summary>\n\n\
         ```diff\n--- a/team/writer/pay.rs\n+++ b/team/writer/pay.rs\n\
         @@ -1,2 +1,2 @@\n-{before}\n+{after}\n // total\n```\n\n</details>\n\n\
         ANSWER-anthropic role_seen=no marker_count=0 roles=none team=0 turn=1 \
         user_msgs=1 assistant_msgs=0 ask=- tool_result=\"wrote {path}\"\n\n## @me\n"
    )
}

#[tokio::test]
async fn a_read_sees_the_unsaved_buffer_and_the_write_is_one_annotated_edit_in_it() {
    for behaviour in [Behaviour::VsCode, Behaviour::Neovim] {
        let s = writer();
        let (mut editor, uri) = s.open_chat(behaviour, "team/files.chat.md", ASK).await;
        let pay = s.uri("team/writer/pay.rs");
        editor.open_unsynced(&pay, "fn pay() { todo!() }\n// total\n");
        let text = run(&s, &mut editor, &uri).await;
        let path = s.path("team/writer/pay.rs").display().to_string();
        assert_eq!(
            text,
            section("fn pay() { todo!() }", "FN PAY() { TODO!() }", &path),
            "{behaviour:?}"
        );
        assert_eq!(
            answers(&s),
            [
                json!({"content": "fn pay() { todo!() }\n// total\n"}),
                json!({})
            ],
            "the agent read the unsaved buffer ({behaviour:?})"
        );
        assert_eq!(editor.text(&pay), "FN PAY() { TODO!() }\n// total\n");
        assert_eq!(
            s.read("team/writer/pay.rs"),
            "fn pay() {}\n// total\n",
            "not saved"
        );
        // One edit, of the bytes that change only (the user's cursor elsewhere stays).
        assert_eq!(editor.file_edits.len(), 1, "one edit");
        let edit = &editor.file_edits[0]["edit"];
        assert_eq!(
            edit["changeAnnotations"],
            json!({"chatmd-agent-write": {"label": "@writer (t1)", "needsConfirmation": false,
                "description": "@writer (t1) wrote this file through chatmd"}})
        );
        assert_eq!(
            edit["documentChanges"],
            json!([{"textDocument": {"uri": pay, "version": null}, "edits": [
                {"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 15}},
                 "newText": "FN PAY() { TODO", "annotationId": "chatmd-agent-write"}]}])
        );
    }
}

#[tokio::test]
async fn a_file_not_open_is_read_from_disk_and_opened_with_the_agents_change() {
    let s = writer();
    let (mut editor, uri) = s
        .open_chat(Behaviour::VsCode, "team/files.chat.md", ASK)
        .await;
    let pay = s.uri("team/writer/pay.rs");
    let text = run(&s, &mut editor, &uri).await;
    let path = s.path("team/writer/pay.rs").display().to_string();
    assert_eq!(text, section("fn pay() {}", "FN PAY() {}", &path));
    assert_eq!(
        answers(&s)[0],
        json!({"content": "fn pay() {}\n// total\n"})
    );
    assert!(editor.has_buffer(&pay));
    assert_eq!(editor.text(&pay), "FN PAY() {}\n// total\n");
}

/// The 0-based line of the chat that lists the changed file.
fn changed_line(text: &str) -> usize {
    text.lines()
        .position(|l| l.starts_with("> - changed `team/writer/pay.rs`"))
        .expect("the file's line")
}

#[tokio::test]
async fn undo_restores_the_file_and_is_refused_after_the_user_changed_those_lines() {
    let s = writer();
    let (mut editor, uri) = s
        .open_chat(Behaviour::VsCode, "team/files.chat.md", ASK)
        .await;
    let pay = s.uri("team/writer/pay.rs");
    editor.open_unsynced(&pay, "fn pay() { todo!() }\n// total\n");
    let text = run(&s, &mut editor, &uri).await;
    let line = changed_line(&text);
    let actions = crate::setup::code_actions_at(&mut editor, &uri, line).await;
    let titles: Vec<&str> = actions.iter().filter_map(|a| a["title"].as_str()).collect();
    // The turn's own actions come first (Ask, Retry, Fork from here), then the file's.
    assert_eq!(
        titles[titles.len() - 2..],
        ["Open the diff", "Undo @writer's changes"]
    );
    assert_eq!(
        actions[actions.len() - 1]["command"],
        json!({"title": "Undo @writer's changes", "command": "chatmd.undoChange",
            "arguments": [{"uri": uri, "line": line}]})
    );

    // The user changes another line: the undo keeps it.
    editor.open_unsynced(&pay, "FN PAY() { TODO!() }\n// total: 3\n");
    let undone = editor
        .command("chatmd.undoChange", json!({"uri": uri, "line": line}))
        .await;
    assert_eq!(undone, Ok(json!({"undone": "team/writer/pay.rs"})));
    assert_eq!(editor.text(&pay), "fn pay() { todo!() }\n// total: 3\n");
    let undo = &editor.file_edits[1]["edit"]["changeAnnotations"]["chatmd-agent-write"];
    assert_eq!(undo["label"], "Undo @writer (t1)");

    // The user changed the very line the agent wrote: undo by hand.
    editor.open_unsynced(&pay, "FN PAY() { TODO!() } // mine\n// total\n");
    let refused = editor
        .command("chatmd.undoChange", json!({"uri": uri, "line": line}))
        .await;
    assert_eq!(
        refused.unwrap_err()["message"],
        "team/writer/pay.rs changed since @writer wrote it; undo by hand"
    );
    assert_eq!(
        editor.text(&pay),
        "FN PAY() { TODO!() } // mine\n// total\n"
    );
    assert_eq!(editor.file_edits.len(), 2, "no edit for the refused undo");
}
