//! Failures reach the user once, in the agent's own words, and the file records them:
//! a CLI that is not installed, one that is not logged in, a crash, a timeout; a
//! second request for a member that is answering; bad command arguments.

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

#[tokio::test]
async fn a_missing_cli_is_reported_once_and_nothing_is_written() {
    let s = Setup::new(&[]);
    std::fs::remove_file(s.bin.join("codex")).unwrap();
    let chat = "## @me\n@tester write tests\n";
    let (mut editor, uri) = s.open_chat(Behaviour::VsCode, "team/m.chat.md", chat).await;
    let answer = editor
        .command("chatmd.send", json!({"uri": uri}))
        .await
        .unwrap();
    let message = "@tester: `codex` is not installed (not found on PATH). Install it with `npm install -g @openai/codex`.";
    assert_eq!(answer, json!({"members": [], "reason": message}));
    assert_eq!(
        shown(&mut editor).await,
        vec![json!({"type": 1, "message": message})]
    );
    assert_eq!(editor.text(&uri), chat);
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
async fn a_crash_keeps_the_partial_answer_and_says_so() {
    let (text, shown) = failed_turn(
        &[
            ("FAKE_AGENT_TEXT", "I was saying something"),
            ("FAKE_AGENT_CRASH_AT", "4"),
        ],
        "",
    )
    .await;
    assert!(text.contains("status=error"), "{text}");
    assert_eq!(shown.len(), 1, "told once: {shown:?}");
    let message = shown[0]["message"].as_str().unwrap();
    let error = message
        .strip_prefix("@reviewer: ")
        .expect("the member's name first");
    assert!(
        text.contains(&format!("error=\"{error}\"")),
        "the status records what the user was told: {text}"
    );
    assert!(
        text.contains("-->\nI \n"),
        "the partial answer stays: {text}"
    );
}

#[tokio::test]
async fn a_timeout_ends_the_turn_with_an_error() {
    let (text, shown) = failed_turn(
        &[("FAKE_AGENT_HANG_AFTER", "1")],
        "[members.reviewer]\nidle_timeout = 1\n",
    )
    .await;
    assert!(text.contains("status=error"), "{text}");
    assert_eq!(shown.len(), 1, "told once: {shown:?}");
    let message = shown[0]["message"].as_str().unwrap();
    assert_eq!(
        message,
        "@reviewer: the agent printed nothing for 1 s (idle timeout); it was stopped"
    );
    assert!(
        text.contains("error=\"the agent printed nothing for 1 s (idle timeout); it was stopped\""),
        "{text}"
    );
}

#[tokio::test]
async fn a_member_already_answering_is_not_started_twice() {
    let s = Setup::new(&[(
        "reviewer",
        &[("FAKE_AGENT_TEXT", "slow"), ("FAKE_AGENT_HANG_AFTER", "2")],
    )]);
    let chat = "## @me\n@reviewer go\n";
    let (mut editor, uri) = s
        .open_chat(Behaviour::VsCode, "team/twice.chat.md", chat)
        .await;
    send(&mut editor, &uri).await;
    editor
        .run_until("the section", |e| e.text(&uri).contains("status=streaming"))
        .await;
    let again = editor
        .command("chatmd.ask", json!({"uri": uri, "member": "reviewer"}))
        .await
        .unwrap();
    assert_eq!(again["members"], json!([]));
    let warning = "@reviewer is already answering in this chat; wait for it or cancel it first";
    let shown = editor
        .client
        .expect_notification("window/showMessage")
        .await;
    assert_eq!(shown, json!({"type": 2, "message": warning}));
    editor
        .command("chatmd.cancel", json!({"uri": uri}))
        .await
        .unwrap();
    editor
        .run_until("the cancel", |e| finished(e.text(&uri)))
        .await;
    assert_eq!(
        editor.text(&uri).matches("## @reviewer").count(),
        1,
        "one section"
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
