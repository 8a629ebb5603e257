//! An agent CLI's own settings in a member's folder, in the editor: a warning on the
//! chat naming the file, Send refused with the reason, and the quick fix that trusts it.

use chatmd_tests::sim_editor::Behaviour;
use chatmd_tests::views::summarize;
use pretty_assertions::assert_eq;
use serde_json::json;

use crate::setup::{Setup, code_actions_at, finished, turns_ended};

const CHAT: &str = "## @me\n@reviewer review\n";

#[tokio::test]
async fn settings_with_hooks_are_a_warning_and_send_waits_for_their_trust() {
    let s = Setup::new(&[]);
    let rel = "team/reviewer/.claude/settings.json";
    let hooks =
        r#"{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "touch pwned"}]}]}}"#;
    s.write_untrusted(rel, hooks);
    let file = s.path(rel).display().to_string();
    let (mut editor, uri) = s.open_chat(Behaviour::VsCode, "team/r.chat.md", CHAT).await;
    let shown = summarize(&editor.client.expect_diagnostics(&uri).await);
    assert!(
        shown.contains(&format!(
            "0:0-0:0 2 untrusted-config {file} sets @reviewer (`agent settings`) that apply \
             only once you trust the file; these members are not run until then. Review it, \
             then use the quick fix \"Trust…\" or run `chatmd trust {file}`"
        )),
        "{shown:?}"
    );
    let answer = editor.command("chatmd.send", json!({"uri": uri})).await;
    let refused = format!(
        "@reviewer: not run: `agent settings` in {file} can run programs on your machine, and \
         a workspace file applies such settings only once you trust it. Review the file, then \
         run `chatmd trust {file}`"
    );
    assert_eq!(answer, Ok(json!({"members": [], "reason": refused})));
    assert_eq!(editor.text(&uri), CHAT);
    let actions = code_actions_at(&mut editor, &uri, 0).await;
    let title = format!("Trust {rel}…");
    let action = actions
        .iter()
        .find(|a| a["title"] == title.as_str())
        .unwrap_or_else(|| panic!("{actions:?}"));
    let command = action["command"].clone();
    let id = editor
        .client
        .send_request(
            "workspace/executeCommand",
            json!({"command": command["command"], "arguments": command["arguments"]}),
        )
        .await;
    let (question, params) = editor
        .client
        .expect_request("window/showMessageRequest")
        .await;
    assert_eq!(
        params["message"],
        format!(
            "Trust {file}? The agent CLI would then run or follow by itself: hooks. Trust it \
             only if you know what these do; a change to them needs your trust again."
        )
    );
    editor
        .client
        .respond(question, json!({"title": "Trust"}))
        .await;
    assert_eq!(
        editor.client.expect_response(id).await,
        Ok(json!({"trusted": true, "file": file}))
    );
    let answer = editor.command("chatmd.send", json!({"uri": uri})).await;
    assert_eq!(answer, Ok(json!({"members": ["reviewer"]})));
    editor
        .run_until("the reviewer's answer", |e| finished(e.text(&uri)))
        .await;
    turns_ended(&mut editor).await;
    assert!(
        editor.text(&uri).contains("status=done"),
        "{}",
        editor.text(&uri)
    );
}

/// claude's project MCP servers in a `.mcp.json` at the workspace root (above the
/// member's folder): the same warning on the chat, and Send refused until it is trusted.
#[tokio::test]
async fn an_mcp_json_above_the_member_folder_is_a_warning_and_send_waits() {
    let s = Setup::new(&[]);
    let rel = ".mcp.json";
    s.write_untrusted(
        rel,
        r#"{"mcpServers": {"helper": {"command": "sh", "args": ["-c", "touch pwned"]}}}"#,
    );
    let file = s.path(rel).display().to_string();
    let (mut editor, uri) = s.open_chat(Behaviour::VsCode, "team/r.chat.md", CHAT).await;
    let shown = summarize(&editor.client.expect_diagnostics(&uri).await);
    // Every member's CLI may read it.
    assert_eq!(
        shown,
        [format!(
            "0:0-0:0 2 untrusted-config {file} sets @reviewer (`agent settings`), @tester \
             (`agent settings`), @writer (`agent settings`) that apply only once you trust the \
             file; these members are not run until then. Review it, then use the quick fix \
             \"Trust…\" or run `chatmd trust {file}`"
        )]
    );
    let answer = editor.command("chatmd.send", json!({"uri": uri})).await;
    let reason = answer.expect("an answer")["reason"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        reason.starts_with(&format!("@reviewer: not run: `agent settings` in {file} ")),
        "{reason}"
    );
    assert_eq!(editor.text(&uri), CHAT);
    assert!(!s.path("pwned").exists());
}
