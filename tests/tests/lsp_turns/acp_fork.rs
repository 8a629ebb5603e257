//! Fork from here with an ACP member that resumes: the fork's first turn branches the
//! original's session off with `session/fork` (the fake `claude-agent-acp` advertises
//! it) when that session's history is exactly the fork's prefix; a session the original
//! went on with after the fork point is not forked, and the member starts afresh.

use chatmd_tests::sim_editor::{Behaviour, SimEditor};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use crate::setup::{Setup, send_until_done};

fn acp_writer() -> Setup {
    Setup::acp_writer("resume = true", "")
}

/// The `session` of each status comment of `text`, in order.
fn sessions(text: &str) -> Vec<String> {
    text.lines()
        .filter(|l| l.starts_with("<!-- chatmd id="))
        .filter_map(|l| l.split(' ').find_map(|kv| kv.strip_prefix("session=")))
        .map(str::to_owned)
        .collect()
}

/// The context window used (`context=USED/SIZE`) of each status comment of `text`: the
/// fake counts the session's history in it.
fn context_used(text: &str) -> Vec<u64> {
    text.lines()
        .filter(|l| l.starts_with("<!-- chatmd id="))
        .filter_map(|l| l.split(' ').find_map(|kv| kv.strip_prefix("context=")))
        .filter_map(|v| v.split('/').next()?.parse().ok())
        .collect()
}

/// The writer answers in `team/o.chat.md`.
async fn answered(s: &Setup) -> (SimEditor, String) {
    let (mut editor, uri) = s
        .open_chat(
            Behaviour::VsCode,
            "team/o.chat.md",
            "## @me\n@writer first\n",
        )
        .await;
    send_until_done(&mut editor, &uri, 1).await;
    (editor, uri)
}

/// The writer answers in `team/o.chat.md`; then the chat is forked at its answer.
/// Returns the editor, the original's URI and the fork's.
async fn answered_and_forked(s: &Setup) -> (SimEditor, String, String) {
    let (mut editor, uri) = answered(s).await;
    // Saved: the fork's turns read the original from disk.
    s.write("team/o.chat.md", editor.text(&uri));
    let fork = fork_at_the_answer(s, &mut editor, &uri).await;
    (editor, uri, fork)
}

/// Fork from here at the writer's first answer (line 5); the fork's URI.
async fn fork_at_the_answer(s: &Setup, editor: &mut SimEditor, uri: &str) -> String {
    editor.client.set_auto_response("window/showDocument", None);
    let answer = editor
        .command("chatmd.fork", json!({"uri": uri, "line": 5}))
        .await;
    let fork = s.uri("team/o-fork.chat.md");
    assert_eq!(answer, Ok(json!({"uri": fork})));
    let (id, _) = editor.client.expect_request("window/showDocument").await;
    editor.client.respond(id, json!({"success": true})).await;
    fork
}

/// Opens the fork with a new message to the writer and sends it.
async fn send_in_fork(s: &Setup, editor: &mut SimEditor, fork: &str) -> String {
    let text = s.read("team/o-fork.chat.md") + "## @me\n@writer second\n";
    s.write("team/o-fork.chat.md", &text);
    editor.open(fork, &text).await;
    send_until_done(editor, fork, 2).await;
    editor.text(fork).to_owned()
}

#[tokio::test]
async fn the_forks_first_turn_branches_the_original_session_off() {
    let s = acp_writer();
    let (mut editor, uri, fork) = answered_and_forked(&s).await;
    let original = sessions(editor.text(&uri));
    let text = send_in_fork(&s, &mut editor, &fork).await;
    let forked = s.acp_requests("session/fork");
    assert_eq!(forked.len(), 1, "{forked:?}");
    assert_eq!(forked[0]["sessionId"], original[0].as_str());
    assert_eq!(forked[0]["mcpServers"], json!([]));
    // The new session is recorded, and it holds the first exchange.
    let ours = sessions(&text);
    assert_eq!(ours[0], original[0], "the forked answer keeps its record");
    assert_ne!(ours[1], original[0], "a session of the fork's own: {text}");
    let used = context_used(&text);
    assert!(used[1] > used[0], "the history came along: {text}");
    // Only what is new since that answer went with it.
    let prompts = s.acp_requests("session/prompt");
    let last = prompts.last().expect("a prompt")["prompt"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    assert!(last.contains("me: @writer second"), "{last}");
    assert!(!last.contains("@writer first"), "{last}");
    // The original did not move.
    assert_eq!(sessions(editor.text(&uri)), original);
}

#[tokio::test]
async fn a_session_the_original_went_on_with_is_not_forked() {
    let s = acp_writer();
    let (mut editor, uri, fork) = answered_and_forked(&s).await;
    // The original goes on in the same session after the fork point.
    editor
        .type_text(&uri, chatmd_tests::sim_editor::At::End, "@writer more\n")
        .await;
    send_until_done(&mut editor, &uri, 2).await;
    s.write("team/o.chat.md", editor.text(&uri));
    let original = sessions(editor.text(&uri));
    assert_eq!(original[0], original[1], "resumed in the original");
    let text = send_in_fork(&s, &mut editor, &fork).await;
    assert_eq!(s.acp_requests("session/fork"), Vec::<Value>::new());
    let ours = sessions(&text);
    assert_ne!(ours[1], original[0], "{text}");
    let used = context_used(&text);
    assert_eq!(
        used[1], used[0],
        "a new session, seeded from the file: {text}"
    );
    let last_status = text
        .lines()
        .rfind(|l| l.starts_with("<!-- chatmd id="))
        .unwrap_or_default();
    assert!(
        last_status.contains(" seen=0:"),
        "a new session's record (no `+`): {text}"
    );
}

#[tokio::test]
async fn a_session_that_saw_an_edited_message_is_not_forked() {
    let s = acp_writer();
    let (mut editor, uri) = answered(&s).await;
    // The message the writer's session saw is edited, then the chat forked after it.
    editor
        .type_text(
            &uri,
            chatmd_tests::sim_editor::At::After("@writer first".into()),
            ", revised",
        )
        .await;
    s.write("team/o.chat.md", editor.text(&uri));
    let fork = fork_at_the_answer(&s, &mut editor, &uri).await;
    let original = sessions(editor.text(&uri));
    let text = send_in_fork(&s, &mut editor, &fork).await;
    assert_eq!(s.acp_requests("session/fork"), Vec::<Value>::new());
    assert_ne!(sessions(&text)[1], original[0], "{text}");
}
