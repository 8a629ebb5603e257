//! Many chats at once through the built `chatmd lsp` over stdio, as an editor restoring a
//! session opens them: every answer and every diagnostics notification the editor gets
//! is the real one for its chat, however many are pending together.

mod common;

use std::collections::HashMap;
use std::time::Duration;

use chatmd_tests::{TestClient, file_uri};
use common::{Workspace, summarize, vscode_like};
use serde_json::{Value, json};

const CHATS: usize = 200;

/// A chat whose outline, folding and diagnostics all name `i`.
fn chat(i: usize) -> String {
    format!(
        "## @me\n@reviewer question {i} for @ghost{i}?\n\n## @reviewer\n\
         <!-- chatmd id=t1 agent=claude status=done -->\nanswer {i}\n\n## @me\nnext {i}\n"
    )
}

async fn start_process(ws: &Workspace) -> TestClient {
    let mut command = tokio::process::Command::new(assert_cmd::cargo::cargo_bin("chatmd"));
    command
        .arg("lsp")
        .env("XDG_CONFIG_HOME", ws.config.path())
        .stderr(std::process::Stdio::null());
    let (mut client, _pid) = TestClient::spawn_process(command).expect("start chatmd lsp");
    client.set_timeout(Duration::from_secs(60));
    let params = json!({
        "processId": null,
        "capabilities": vscode_like(),
        "rootUri": file_uri(ws.root()),
        "workspaceFolders": [{"uri": file_uri(ws.root()), "name": "ws"}],
        "initializationOptions": {"agentPath": ws.bin.path()},
    });
    client
        .request("initialize", params)
        .await
        .expect("initialize");
    client.notify("initialized", json!({})).await;
    client
}

/// Fails when `value` holds the server's internal stand-in for a serialized result.
fn assert_no_stand_in(what: &str, value: &Value) {
    let text = value.to_string();
    assert!(
        !text.contains("chatmdRaw"),
        "{what} reached the editor as a stand-in: {text}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_hundred_chats_opened_at_once_get_their_own_answers_and_diagnostics() {
    let ws = Workspace::new();
    let mut client = start_process(&ws).await;
    let uris: Vec<String> = (0..CHATS)
        .map(|i| ws.uri(&format!("team/c{i}.chat.md")))
        .collect();
    // As an editor restoring a session: every chat opened, then each one's usual
    // requests, before any answer is read.
    for (i, uri) in uris.iter().enumerate() {
        client.open(uri, &chat(i)).await;
    }
    let mut asked = Vec::new();
    for uri in &uris {
        let document = json!({"textDocument": {"uri": uri}});
        asked.push([
            client
                .send_request("textDocument/documentSymbol", document.clone())
                .await,
            client
                .send_request("textDocument/foldingRange", document.clone())
                .await,
            client.send_request("textDocument/codeLens", document).await,
        ]);
    }

    for (i, [symbols, folds, lenses]) in asked.into_iter().enumerate() {
        let symbols = client.expect_response(symbols).await.expect("symbols");
        assert_no_stand_in("an outline", &symbols);
        let names: Vec<&str> = symbols
            .as_array()
            .unwrap_or_else(|| panic!("outline of chat {i}: {symbols}"))
            .iter()
            .map(|s| s["name"].as_str().unwrap_or_default())
            .collect();
        assert_eq!(
            names,
            [
                format!("@me: @reviewer question {i} for @ghost{i}?"),
                format!("@reviewer: answer {i}"),
                format!("@me: next {i}"),
            ],
            "outline of chat {i}"
        );

        let folds = client.expect_response(folds).await.expect("folding");
        assert_no_stand_in("folding ranges", &folds);
        let folds: Vec<(u64, u64)> = folds
            .as_array()
            .unwrap_or_else(|| panic!("folding of chat {i}: {folds}"))
            .iter()
            .map(|f| {
                (
                    f["startLine"].as_u64().unwrap(),
                    f["endLine"].as_u64().unwrap(),
                )
            })
            .collect();
        assert_eq!(folds, [(0, 1), (3, 5), (7, 8)], "folding of chat {i}");

        let lenses = client.expect_response(lenses).await.expect("code lenses");
        assert_no_stand_in("code lenses", &lenses);
        assert!(
            lenses.is_null() || lenses.is_array(),
            "code lenses of chat {i}: {lenses}"
        );
    }

    // Each chat's diagnostics, and nothing that is not a real publishDiagnostics.
    let index: HashMap<&str, usize> = uris
        .iter()
        .enumerate()
        .map(|(i, uri)| (uri.as_str(), i))
        .collect();
    let mut published: HashMap<usize, Vec<Value>> = HashMap::new();
    while published.len() < CHATS {
        let params = client
            .expect_notification("textDocument/publishDiagnostics")
            .await;
        assert_no_stand_in("a publishDiagnostics", &params);
        let uri = params["uri"]
            .as_str()
            .unwrap_or_else(|| panic!("publishDiagnostics without a uri: {params}"));
        let diagnostics = params["diagnostics"]
            .as_array()
            .unwrap_or_else(|| panic!("publishDiagnostics without diagnostics: {params}"));
        if let Some(&i) = index.get(uri) {
            published.insert(i, diagnostics.clone());
        }
    }
    for (i, diagnostics) in published {
        // The range covers the name, after the `@`.
        let start = format!("@reviewer question {i} for @").len();
        let end = start + format!("ghost{i}").len();
        assert_eq!(
            summarize(&diagnostics),
            [format!(
                "1:{start}-1:{end} 2 unknown-mention @ghost{i} is not a member of this team; \
                 nobody will answer this mention."
            )],
            "diagnostics of chat {i}"
        );
    }
    client.shutdown().await;
}
