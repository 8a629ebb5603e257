//! Context references in the editor, through the real server over an in-memory pipe:
//! diagnostics on the message about to be sent (missing file, range past the end, path
//! outside the workspace), hover saying what a reference attaches and how big it is,
//! and completion after `#` of the kinds and the workspace's files.

mod common;

use common::{Workspace, summarize, vscode_like};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

const PAY: &str = "fn pay() {}\nfn refund() {}\nfn fee() {}\n";

fn workspace() -> Workspace {
    let ws = Workspace::new();
    ws.write("src/pay.rs", PAY);
    ws.write("team/reviewer/CLAUDE.md", "# Reviews\n");
    ws
}

async fn hover_text(
    client: &mut chatmd_tests::TestClient,
    uri: &str,
    line: u32,
    character: u32,
) -> Value {
    client
        .request(
            "textDocument/hover",
            json!({"textDocument": {"uri": uri}, "position": {"line": line, "character": character}}),
        )
        .await
        .expect("hover")
}

#[tokio::test]
async fn the_message_to_send_shows_what_cannot_be_attached() {
    let ws = workspace();
    let text = "## @me\nold: #file:gone.rs\n\n## @reviewer\nok\n\n## @me\n@reviewer see #file:src/pay.rs:2-3, \
                #file:src/pay.rs:3-7 and #file:src/nope.rs, #file:../x.rs; `#file:code.rs` #diff\n";
    ws.write("team/c.chat.md", text);
    let mut client = ws.start(vscode_like()).await;
    let uri = ws.uri("team/c.chat.md");
    client.open(&uri, text).await;
    let diagnostics = client.expect_diagnostics(&uri).await;
    let root = ws.root().display().to_string();
    let shown: Vec<String> = summarize(&diagnostics)
        .into_iter()
        .filter(|d| d.contains(" reference "))
        .map(|d| d.replace(&root, "WS"))
        .collect();
    assert_eq!(
        shown,
        [
            "7:36-7:56 1 reference `src/pay.rs` has 3 lines; the range 3-7 goes past its end",
            "7:61-7:78 1 reference `src/nope.rs` does not exist in the workspace WS; fix the path or remove the reference",
            "7:80-7:93 1 reference `../x.rs` is outside the workspace WS; a reference may only name files inside it",
        ]
    );
    client.shutdown().await;
}

#[tokio::test]
async fn hover_says_what_a_reference_attaches() {
    let ws = workspace();
    let text = "## @me\n#file:src/pay.rs:2-3 #file:src/pay.rs #diff #file:nope.rs\n";
    ws.write("team/h.chat.md", text);
    let mut client = ws.start(vscode_like()).await;
    let uri = ws.uri("team/h.chat.md");
    client.open(&uri, text).await;
    let root = ws.root().display().to_string();
    let value = |h: &Value| {
        h["contents"]["value"]
            .as_str()
            .unwrap()
            .replace(&root, "WS")
    };
    let range = hover_text(&mut client, &uri, 1, 3).await;
    assert_eq!(
        value(&range),
        "**`#file:src/pay.rs:2-3`** — attaches lines 2-3 of `src/pay.rs` (2 lines of 3, 27 B) \
         when the message is sent.\n\nPaths are relative to the workspace root."
    );
    assert_eq!(
        range["range"],
        json!({"start": {"line": 1, "character": 0}, "end": {"line": 1, "character": 20}})
    );
    let whole = hover_text(&mut client, &uri, 1, 25).await;
    assert_eq!(
        value(&whole),
        "**`#file:src/pay.rs`** — attaches `src/pay.rs` (3 lines, 39 B) when the message is sent.\
         \n\nPaths are relative to the workspace root."
    );
    let diff = hover_text(&mut client, &uri, 1, 41).await;
    assert_eq!(
        value(&diff),
        "**`#diff`** — attaches the working tree's diff (`git diff HEAD` in `WS`), computed on send."
    );
    let missing = hover_text(&mut client, &uri, 1, 50).await;
    assert!(
        value(&missing).contains("**cannot be attached**: `nope.rs` does not exist"),
        "{missing}"
    );
    client.shutdown().await;
}

#[tokio::test]
async fn completion_after_hash_offers_kinds_then_files() {
    let ws = workspace();
    let text = "## @me\nlook at # and #file:sr\n";
    let mut client = ws.start(vscode_like()).await;
    let uri = ws.uri("team/k.chat.md");
    client.open(&uri, text).await;
    let labels = |items: &Value| -> Vec<String> {
        items
            .as_array()
            .unwrap()
            .iter()
            .map(|i| i["label"].as_str().unwrap().to_owned())
            .collect()
    };
    let kinds = client
        .request(
            "textDocument/completion",
            json!({"textDocument": {"uri": uri}, "position": {"line": 1, "character": 9}}),
        )
        .await
        .expect("completion");
    assert_eq!(labels(&kinds), ["file:", "diff", "diagnostics:"]);
    let files = client
        .request(
            "textDocument/completion",
            json!({"textDocument": {"uri": uri}, "position": {"line": 1, "character": 22}}),
        )
        .await
        .expect("completion");
    // The workspace's files (the harness's own hidden folders left out), relative to the root.
    let labels = labels(&files);
    assert!(labels.contains(&"src/pay.rs".to_owned()), "{labels:?}");
    assert!(
        labels.contains(&"team/reviewer/CLAUDE.md".to_owned()),
        "{labels:?}"
    );
    assert!(labels.iter().all(|l| !l.starts_with('.')), "{labels:?}");
    let pay = files
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["label"] == "src/pay.rs")
        .unwrap();
    assert_eq!(
        pay["textEdit"]["range"],
        json!({"start": {"line": 1, "character": 20}, "end": {"line": 1, "character": 22}})
    );
    client.shutdown().await;
}
