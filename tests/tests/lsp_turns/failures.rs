//! Failures reach the user once, in the agent's own words, and the file records them:
//! a CLI that is not logged in; bad command arguments. (The failures of the
//! reliability matrix are in `reliability.rs`.)

use chatmd_tests::sim_editor::Behaviour;
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use crate::setup::{Setup, finished, redact, send, turns_ended};

/// Every `window/showMessage` that has arrived.
async fn shown(editor: &mut chatmd_tests::sim_editor::SimEditor) -> Vec<Value> {
    editor
        .client
        .drain_notifications("window/showMessage")
        .await
}

/// Runs a turn of the reviewer with `knobs` (and chatmd.toml `extra`) to its end;
/// returns the final text and the messages shown.
async fn failed_turn(knobs: &[(&str, &str)], extra: &str) -> (String, Vec<Value>) {
    let s = Setup::new(&[("reviewer", knobs)]);
    if !extra.is_empty() {
        let toml = s.read("team/chatmd.toml");
        s.write("team/chatmd.toml", &format!("{toml}{extra}"));
    }
    let chat = "## @me\n@reviewer hi\n";
    let (mut editor, uri) = s.open_chat(Behaviour::VsCode, "team/f.chat.md", chat).await;
    send(&mut editor, &uri).await;
    editor
        .run_until("the failed turn", |e| finished(e.text(&uri)))
        .await;
    // The turn's end is announced after its message was shown.
    turns_ended(&mut editor).await;
    let shown = shown(&mut editor).await;
    (redact(editor.text(&uri)), shown)
}

#[tokio::test]
async fn not_logged_in_is_an_error_in_the_agents_words() {
    let (text, shown) = failed_turn(&[("FAKE_AGENT_TRANSCRIPT", "not-logged-in")], "").await;
    // The CLI's words, then how to log in.
    let message = "Not logged in · Please run /login. Log in with `claude /login` in a terminal \
                   (with CLAUDE_CONFIG_DIR set to the member's `home` if it has one), or export ANTHROPIC_API_KEY before chatmd starts.";
    assert!(
        text.ends_with(&format!(
            "took=… exit=1 error=\"{message}\" -->\n\n## @me\n"
        )),
        "{text}"
    );
    assert!(text.contains("status=error"), "{text}");
    assert_eq!(
        shown,
        vec![json!({"type": 1, "message": format!("@reviewer: {message}")})]
    );
}

#[tokio::test]
async fn bad_arguments_get_a_clear_error() {
    let s = Setup::new(&[]);
    let mut editor = s.editor(Behaviour::VsCode).await;
    let error = editor.command("chatmd.send", json!({})).await.unwrap_err();
    assert_eq!(error["code"], -32602);
    assert_eq!(error["message"], "this command needs `uri`: the chat's URI");
    let error = editor
        .client
        .execute_command("chatmd.frobnicate", json!([{}]))
        .await
        .unwrap_err();
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .starts_with("unknown command `chatmd.frobnicate`"),
        "{error}"
    );
    let error = editor
        .client
        .execute_command("chatmd.send", json!(["file:///a", 2]))
        .await
        .unwrap_err();
    assert_eq!(
        error["message"],
        "chatmd.send takes one JSON object argument"
    );
}
