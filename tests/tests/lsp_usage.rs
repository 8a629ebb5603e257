//! Usage and budgets in the editor, through the real server over an in-memory pipe:
//! hover on the title shows what each member has spent; a spent budget is a warning on
//! its amount with a quick fix that raises it.

mod common;

use common::{Workspace, summarize, vscode_like};
use pretty_assertions::assert_eq;
use serde_json::json;

const CHAT: &str = "---\ntitle: Pay review\nbudget: { reviewer: 0.5 }\n---\n## @me\n@reviewer go\n\n\
    ## @reviewer\n<!-- chatmd id=t1 agent=claude status=done cost=\"0.3 USD\" tokens=100/10 -->\na\n\n\
    ## @writer\n<!-- chatmd id=t2 agent=acp status=done session=s1 cost=\"0.1 USD\" tokens=5/1 -->\nb\n\n\
    ## @reviewer\n<!-- chatmd id=t3 agent=claude status=done cost=\"0.25 USD\" tokens=100/10 -->\nc\n\n## @me\n";

#[tokio::test]
async fn the_title_shows_spending_and_a_spent_budget_can_be_raised() {
    let ws = Workspace::new();
    ws.write("team/reviewer/CLAUDE.md", "# Reviews\n");
    ws.write("team/u.chat.md", CHAT);
    let mut client = ws.start(vscode_like()).await;
    let uri = ws.uri("team/u.chat.md");
    client.open(&uri, CHAT).await;
    let hover = client
        .request(
            "textDocument/hover",
            json!({"textDocument": {"uri": uri}, "position": {"line": 1, "character": 9}}),
        )
        .await
        .expect("hover");
    assert_eq!(
        hover["contents"]["value"].as_str().unwrap(),
        "**Usage in this chat**\n\n| member | answers | tokens in/out | cost | budget |\n\
         | --- | --- | --- | --- | --- |\n\
         | @reviewer | 2 | 200/20 | 0.55 USD | 0.5 |\n\
         | @writer | 1 | 5/1 | 0.1 USD | — |\n\
         | **all** | 3 | 205/21 | 0.65 USD |  |\n"
    );
    let diagnostics = client.expect_diagnostics(&uri).await;
    let budget: Vec<String> = summarize(&diagnostics)
        .into_iter()
        .filter(|d| d.contains("over-budget"))
        .collect();
    assert_eq!(
        budget,
        [
            "2:20-2:23 2 over-budget @reviewer has spent 0.55 USD in this chat, its whole budget of 0.5 \
          (front matter `budget:`); it is not started until the budget is raised (the quick fix on \
          the budget raises it to 1.05)"
        ]
    );
    let actions = client
        .request(
            "textDocument/codeAction",
            json!({"textDocument": {"uri": uri},
                   "range": {"start": {"line": 2, "character": 21}, "end": {"line": 2, "character": 21}},
                   "context": {"diagnostics": diagnostics}}),
        )
        .await
        .expect("code actions");
    let raise = actions
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["title"] == "Raise @reviewer's budget to 1.05")
        .expect("the quick fix");
    let edits = &raise["edit"]["changes"][&uri];
    assert_eq!(
        edits,
        &json!([{"range": {"start": {"line": 2, "character": 20}, "end": {"line": 2, "character": 23}}, "newText": "1.05"}])
    );
    client.shutdown().await;
}
