//! A keystroke in one message of a long chat: the server checks again only the
//! messages the edit touched, and what it publishes must be exactly what a server that
//! opens the edited text afresh publishes.

mod common;

use common::{Workspace, summarize, vscode_like};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

/// A long chat with a problem of every kind a message can have, more than the 1000
/// diagnostics shown (so the last one says how many more there are), CJK and emoji
/// before the edits (UTF-16 columns) and the team's members named all along.
fn long_chat() -> String {
    let mut chat = String::from("---\ntitle: Long review\n---\n\n");
    for i in 0..700 {
        chat.push_str(&format!(
            "## @me\n漢字😀 @reviewer and @tester, look at step {i}; @nobody{i} and @ghost{i} too.\n\n"
        ));
        chat.push_str(&format!(
            "## @reviewer\n<!-- chatmd id=t{i} agent=claude status=done -->\nStep {i} looks right.\n\n"
        ));
        if i % 100 == 50 {
            chat.push_str("## @stranger\n<!-- chatmd id=\"broken\n\n");
        }
    }
    chat.push_str("## @me\nthe end\n");
    chat
}

/// The published diagnostics for `version` of `uri` (earlier versions' are skipped).
async fn diagnostics_of(client: &mut chatmd_tests::TestClient, uri: &str, version: i32) -> String {
    loop {
        let params = client
            .expect_notification("textDocument/publishDiagnostics")
            .await;
        if params["uri"] == uri && params["version"] == version {
            return serde_json::to_string_pretty(&params["diagnostics"]).unwrap();
        }
    }
}

/// The UTF-16 position of byte `at` of `text`.
fn position(text: &str, at: usize) -> Value {
    let line = text[..at].matches('\n').count();
    let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    json!({"line": line, "character": text[line_start..at].encode_utf16().count()})
}

/// A workspace with [`long_chat`] written and opened: its URI, its text, the client
/// and what it published for the opened version.
async fn opened_long_chat() -> (Workspace, String, String, chatmd_tests::TestClient, String) {
    let ws = Workspace::new();
    let text = long_chat();
    ws.write("team/long.chat.md", &text);
    let uri = ws.uri("team/long.chat.md");
    let mut client = ws.start(vscode_like()).await;
    client.open(&uri, &text).await;
    let opened = diagnostics_of(&mut client, &uri, 1).await;
    (ws, uri, text, client, opened)
}

#[tokio::test]
async fn an_edited_long_chat_publishes_what_a_fresh_open_of_its_text_does() {
    let (ws, uri, text, mut client, opened) = opened_long_chat().await;
    assert!(opened.contains("too-many-problems"), "{opened}");

    // One message in the middle gets a new unknown mention, a line break and a fence
    // that stays open (its warning lands after every other); one early message loses
    // its unknown mention.
    let mut edited = text.clone();
    let middle = edited.find("look at step 350;").unwrap();
    let insert = "@carol 😀\n```\n";
    let change = json!({"range": {"start": position(&edited, middle), "end": position(&edited, middle)}, "text": insert});
    edited.insert_str(middle, insert);
    client.change(&uri, 2, change).await;
    let early = edited.find("@nobody3 ").unwrap();
    let end = early + "@nobody3 ".len();
    let change = json!({"range": {"start": position(&edited, early), "end": position(&edited, end)}, "text": ""});
    edited.replace_range(early..end, "");
    client.change(&uri, 3, change).await;
    let after_edits = diagnostics_of(&mut client, &uri, 3).await;
    client.shutdown().await;

    let mut fresh = ws.start(vscode_like()).await;
    fresh.open(&uri, &edited).await;
    let from_scratch = diagnostics_of(&mut fresh, &uri, 1).await;
    fresh.shutdown().await;
    assert_eq!(after_edits, from_scratch);
    assert_ne!(after_edits, opened);
    let published: Vec<Value> = serde_json::from_str(&after_edits).unwrap();
    let carol = summarize(&published)
        .into_iter()
        .find(|d| d.contains("@carol"))
        .expect("the new mention's warning");
    let line = edited[..edited.find("@carol").unwrap()]
        .matches('\n')
        .count();
    assert!(
        carol.starts_with(&format!("{line}:")) && carol.contains("unknown-mention"),
        "{carol}"
    );
}

/// What a server opening `text` afresh publishes for it.
async fn fresh_diagnostics(ws: &Workspace, uri: &str, text: &str) -> String {
    let mut fresh = ws.start(vscode_like()).await;
    fresh.open(uri, text).await;
    let published = diagnostics_of(&mut fresh, uri, 1).await;
    fresh.shutdown().await;
    published
}

/// Keys typed after the shown problems leave them as they were (the server publishes
/// its last ones again), and a line added before them moves every one: after each,
/// what is published is what a fresh open of the text publishes.
#[tokio::test]
async fn problems_published_again_after_keys_past_them_and_moved_by_a_line_before_them() {
    let (ws, uri, text, mut client, opened) = opened_long_chat().await;

    let mut edited = text.clone();
    let mut steps = Vec::new();
    // (version, the bytes replaced (the end of the chat when none), the text put there).
    // The third turns a space before every problem into a line break: the problems
    // stay at the same bytes, on other lines.
    let space = edited.find(" step 0;").unwrap();
    for (version, at, insert) in [
        (2, None, "x"),
        (3, None, "y"),
        (4, Some(space..space + 1), "\n"),
        (5, None, "z"),
        (
            6,
            Some(edited.find("look at step 1;").unwrap()..edited.find("look at step 1;").unwrap()),
            "@carol ",
        ),
    ] {
        let at = at.unwrap_or(edited.len()..edited.len());
        let change = json!({"range": {"start": position(&edited, at.start), "end": position(&edited, at.end)}, "text": insert});
        edited.replace_range(at, insert);
        client.change(&uri, version, change).await;
        steps.push((
            diagnostics_of(&mut client, &uri, version).await,
            edited.clone(),
        ));
    }
    client.shutdown().await;
    for (published, text) in &steps {
        assert_eq!(*published, fresh_diagnostics(&ws, &uri, text).await);
    }
    // Keys at the end change nothing shown; a line break before them moves them; the
    // new mention is one more problem.
    assert_eq!(steps[0].0, opened);
    assert_eq!(steps[1].0, opened);
    assert_ne!(steps[2].0, steps[1].0);
    assert_eq!(steps[3].0, steps[2].0);
    assert_ne!(steps[4].0, steps[3].0);
}
