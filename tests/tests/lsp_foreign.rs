//! Chats of other tools in the editor (issue 15): a gp.nvim answer with a `## @media`
//! heading is still recognised and converted, and an unclosed `<!--` is a warning at
//! its line.

mod common;

use common::{Workspace, summarize, vscode_like};
use pretty_assertions::assert_eq;
use serde_json::json;

#[tokio::test]
async fn a_chatmd_like_heading_in_an_answer_keeps_the_conversion() {
    let ws = Workspace::new();
    let text = "💬: explain CSS\n🤖: Sure.\n## @media basics\nRules.\n<!-- draft\n💬: thanks\n";
    let mut client = ws.start(vscode_like()).await;
    let uri = ws.uri("team/css.md.chat.md");
    client.open(&uri, text).await;
    let diagnostics = client.expect_diagnostics(&uri).await;
    let mut found: Vec<String> = summarize(&diagnostics)
        .into_iter()
        .map(|d| d.split(" ").take(3).collect::<Vec<_>>().join(" "))
        .collect();
    found.sort();
    assert_eq!(
        found,
        [
            "0:0-0:15 3 foreign-format",
            // The heading is a message to the chat: @media is no member.
            "2:4-2:9 2 unknown-member",
            "4:0-4:10 2 foreign-unclosed-block",
        ]
    );
    let actions = client
        .request(
            "textDocument/codeAction",
            json!({"textDocument": {"uri": uri}, "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}}, "context": {"diagnostics": []}}),
        )
        .await
        .expect("actions");
    let convert = actions
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["title"] == "Convert to chatmd format")
        .expect("the conversion is offered");
    assert_eq!(
        convert["edit"]["changes"][&uri][0]["newText"],
        "---\nimported_from: gp.nvim\n---\n\n## @me\nexplain CSS\n\n## @assistant\nSure.\n## \\@media basics\nRules.\n<!-- draft\n-->\n\n## @me\nthanks\n"
    );
    client.shutdown().await;
}
