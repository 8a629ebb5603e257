//! The reading side of the language server, through the real server over an in-memory
//! pipe with Content-Length framing: what an editor shows for a chat.

mod common;

use common::{Workspace, neovim_like, summarize, vscode_like};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

const CHAT: &str = "---
title: Payment review
members: [reviewer, tester]
colour: blue
---

Context: we harden `src/pay.rs`.

## @me
@reviewer please review. @tester, write tests. @revewer too?

## @writer
<!-- chatmd id=t1 agent=gemini status=done -->
Docs are done.

```rust
fn unclosed() {
";

#[tokio::test]
async fn initialize_announces_every_feature() {
    let ws = Workspace::new();
    let mut client = chatmd_tests::TestClient::spawn(chatmd::lsp::serve);
    let utf16 = client
        .request("initialize", json!({"processId": null, "capabilities": {}}))
        .await
        .expect("initialize");
    // JSON objects keep the server's order (serde_json's `preserve_order`, which the ACP
    // crate turns on); the snapshot lists keys sorted.
    let mut sorted = insta::Settings::clone_current();
    sorted.set_sort_maps(true);
    sorted.bind(|| {
        insta::assert_json_snapshot!("initialize_utf16", utf16, {".serverInfo.version" => "[version]"});
    });
    drop(ws);
    client.notify("initialized", json!({})).await;
    client.shutdown().await;

    let mut client = chatmd_tests::TestClient::spawn(chatmd::lsp::serve);
    let utf8 = client
        .request(
            "initialize",
            json!({"processId": null, "capabilities": neovim_like()}),
        )
        .await
        .expect("initialize");
    assert_eq!(utf8["capabilities"]["positionEncoding"], "utf-8");
    client.notify("initialized", json!({})).await;
    client.shutdown().await;
}

#[tokio::test]
async fn diagnostics_show_every_problem_of_a_chat() {
    let ws = Workspace::new();
    ws.write("team/review.chat.md", CHAT);
    let mut client = ws.start(vscode_like()).await;
    let uri = ws.uri("team/review.chat.md");
    client.open(&uri, CHAT).await;
    let diagnostics = client.expect_diagnostics(&uri).await;
    let bin = ws.bin.path().display().to_string();
    let _ = bin;
    assert_eq!(
        summarize(&diagnostics),
        [
            "3:0-3:6 4 unknown-front-matter-key `colour` is not a chatmd key; it is kept as it is.",
            "9:26-9:32 2 cli-missing @tester runs codex, whose CLI `codex` is not installed (not found on PATH). Install it with `npm install -g @openai/codex`, then log in once in a terminal.",
            "9:48-9:55 2 unknown-mention @revewer is not a member of this team; nobody will answer this mention. Did you mean @reviewer?",
            "11:4-11:10 2 not-in-members @writer is on the team but not in this chat's `members:` list, so it is not asked to speak.",
            "11:4-11:10 2 cli-missing @writer runs gemini, whose CLI `gemini` is not installed (not found on PATH). Install it with `npm install -g @google/gemini-cli`, then log in once in a terminal.",
            "15:0-15:7 2 unclosed-fence This code fence is never closed, so everything after it is code, later messages included. Close it with a line holding only ```",
        ]
    );
    client.shutdown().await;
}

#[tokio::test]
async fn quick_fixes_repair_unknown_members_and_members_lists() {
    let ws = Workspace::new();
    ws.write("team/review.chat.md", CHAT);
    let mut client = ws.start(vscode_like()).await;
    let uri = ws.uri("team/review.chat.md");
    client.open(&uri, CHAT).await;
    client.expect_diagnostics(&uri).await;

    let actions = client
        .request(
            "textDocument/codeAction",
            json!({"textDocument": {"uri": uri}, "range": {"start": {"line": 9, "character": 50}, "end": {"line": 9, "character": 50}}, "context": {"diagnostics": []}}),
        )
        .await
        .expect("code actions");
    assert_eq!(actions[0]["title"], "Change to @reviewer");
    assert_eq!(actions[0]["kind"], "quickfix");
    assert_eq!(actions[0]["isPreferred"], true);
    assert_eq!(
        actions[0]["edit"]["changes"][&uri],
        json!([{"range": {"start": {"line": 9, "character": 48}, "end": {"line": 9, "character": 55}}, "newText": "reviewer"}])
    );

    let actions = client
        .request(
            "textDocument/codeAction",
            json!({"textDocument": {"uri": uri}, "range": {"start": {"line": 11, "character": 5}, "end": {"line": 11, "character": 5}}, "context": {"diagnostics": []}}),
        )
        .await
        .expect("code actions");
    let titles: Vec<&str> = actions
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["title"].as_str().unwrap())
        .collect();
    // The quick fix first, then the chat commands for that place.
    assert_eq!(
        titles,
        [
            "Add @writer to members",
            "Ask @reviewer",
            "Ask @tester",
            "Retry @writer",
            "Fork from here"
        ]
    );
    assert_eq!(
        actions[0]["edit"]["changes"][&uri],
        json!([{"range": {"start": {"line": 2, "character": 26}, "end": {"line": 2, "character": 26}}, "newText": ", writer"}])
    );
    client.shutdown().await;
}

#[tokio::test]
async fn completion_offers_members_after_at() {
    let ws = Workspace::new();
    let text = "---\nmembers: [tester, reviewer]\n---\n## @me\nplease @\n";
    let mut client = ws.start(vscode_like()).await;
    let uri = ws.uri("team/c.chat.md");
    client.open(&uri, text).await;
    let items = client
        .request(
            "textDocument/completion",
            json!({"textDocument": {"uri": uri}, "position": {"line": 4, "character": 8}}),
        )
        .await
        .expect("completion");
    let shown: Vec<(String, String, String)> = items
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            (
                i["label"].as_str().unwrap().into(),
                i["detail"].as_str().unwrap().into(),
                i["sortText"].as_str().unwrap().into(),
            )
        })
        .collect();
    assert_eq!(
        shown,
        [
            (
                "reviewer".into(),
                "claude — Reviews Rust code for correctness".into(),
                "a0000".into()
            ),
            (
                "tester".into(),
                "codex — Writes property tests".into(),
                "a0001".into()
            ),
            (
                "writer".into(),
                "gemini (not in this chat's members) — Writes the docs".into(),
                "b0002".into()
            ),
        ]
    );
    assert_eq!(
        items[0]["documentation"]["value"],
        "**@reviewer** — claude\n\n# Reviews Rust code for correctness\n\nBe precise and brief.\n"
    );
    assert_eq!(
        items[0]["textEdit"]["range"],
        json!({"start": {"line": 4, "character": 8}, "end": {"line": 4, "character": 8}})
    );

    // Inside code, `@` is not a mention.
    let code = "## @me\n```\n@\n```\n";
    client.change(&uri, 2, json!({"text": code})).await;
    let items = client
        .request(
            "textDocument/completion",
            json!({"textDocument": {"uri": uri}, "position": {"line": 2, "character": 1}}),
        )
        .await
        .expect("completion");
    assert_eq!(items, Value::Null);
    client.shutdown().await;
}

#[tokio::test]
async fn hover_and_definition_describe_members() {
    let ws = Workspace::new();
    // A gemini whose `--version` prints nothing.
    ws.install("gemini", "");
    let text = "## @me\n@reviewer and @tester and @writer\n";
    let mut client = ws.start(vscode_like()).await;
    let uri = ws.uri("team/h.chat.md");
    client.open(&uri, text).await;

    let hover = client
        .request(
            "textDocument/hover",
            json!({"textDocument": {"uri": uri}, "position": {"line": 1, "character": 3}}),
        )
        .await
        .expect("hover");
    let reviewer = ws.path("team/reviewer");
    let claude = ws.bin.path().join("claude");
    assert_eq!(
        hover["contents"]["value"].as_str().unwrap(),
        format!(
            "**@reviewer** — claude\n\nReviews Rust code for correctness\n\n> Be precise and brief.\n\n- workdir: `{}`\n- role file: `{}`\n- the CLI also loads: `{}`\n- CLI: `{}` (2.1.197 (Claude Code))\n",
            reviewer.display(),
            reviewer.join("CLAUDE.md").display(),
            reviewer.join("CLAUDE.md").display(),
            claude.display()
        )
    );
    assert_eq!(
        hover["range"],
        json!({"start": {"line": 1, "character": 1}, "end": {"line": 1, "character": 9}})
    );

    let hover = client
        .request(
            "textDocument/hover",
            json!({"textDocument": {"uri": uri}, "position": {"line": 1, "character": 16}}),
        )
        .await
        .expect("hover");
    assert!(
        hover["contents"]["value"]
            .as_str()
            .unwrap()
            .ends_with("- CLI: **`codex` is not installed** — `npm install -g @openai/codex`\n"),
        "{hover}"
    );
    let hover = client
        .request(
            "textDocument/hover",
            json!({"textDocument": {"uri": uri}, "position": {"line": 1, "character": 29}}),
        )
        .await
        .expect("hover");
    let gemini = ws.bin.path().join("gemini");
    assert!(
        hover["contents"]["value"]
            .as_str()
            .unwrap()
            .ends_with(&format!(
                "- CLI: `{0}` (version unknown: `{0} --version` failed, or printed nothing \
                 within 10 s)\n",
                gemini.display()
            )),
        "{hover}"
    );

    let definition = client
        .request(
            "textDocument/definition",
            json!({"textDocument": {"uri": uri}, "position": {"line": 0, "character": 4}}),
        )
        .await
        .expect("definition");
    assert_eq!(
        definition,
        Value::Null,
        "@me is the human and has no role file"
    );
    let definition = client
        .request(
            "textDocument/definition",
            json!({"textDocument": {"uri": uri}, "position": {"line": 1, "character": 18}}),
        )
        .await
        .expect("definition");
    assert_eq!(
        definition,
        json!({"uri": ws.uri("team/tester/AGENTS.md"), "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}}})
    );
    client.shutdown().await;
}

#[tokio::test]
async fn hover_says_why_a_cli_inside_the_workspace_has_no_version() {
    use std::os::unix::fs::PermissionsExt;
    let ws = Workspace::new();
    // A `codex` shipped inside the workspace, first on the agent path; it would leave a
    // mark if anything ran it.
    let mark = ws.path("codex-ran");
    ws.write(
        "tools/codex",
        &format!("#!/bin/sh\ntouch '{}'\necho 0.169.0\n", mark.display()),
    );
    let codex = ws.path("tools/codex");
    std::fs::set_permissions(&codex, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let mut client = ws.spawn();
    let agent_path =
        std::env::join_paths([ws.path("tools"), ws.bin.path().to_path_buf()]).expect("join");
    let params = json!({
        "processId": null,
        "capabilities": vscode_like(),
        "rootUri": chatmd_tests::file_uri(ws.root()),
        "initializationOptions": {"agentPath": agent_path.to_string_lossy()},
    });
    client
        .request("initialize", params)
        .await
        .expect("initialize");
    client.notify("initialized", json!({})).await;
    let uri = ws.uri("team/h.chat.md");
    client.open(&uri, "## @me\n@tester and @reviewer\n").await;

    let hover = client
        .request(
            "textDocument/hover",
            json!({"textDocument": {"uri": uri}, "position": {"line": 1, "character": 3}}),
        )
        .await
        .expect("hover");
    let value = hover["contents"]["value"].as_str().unwrap();
    assert!(
        value.ends_with(&format!(
            "- CLI: `{}` (version not checked: chatmd never runs a program inside the workspace on its own)\n",
            codex.display()
        )),
        "{value}"
    );
    // A CLI outside the workspace still shows its version.
    let hover = client
        .request(
            "textDocument/hover",
            json!({"textDocument": {"uri": uri}, "position": {"line": 1, "character": 16}}),
        )
        .await
        .expect("hover");
    let value = hover["contents"]["value"].as_str().unwrap();
    assert!(value.ends_with(" (2.1.197 (Claude Code))\n"), "{value}");
    assert!(!mark.exists(), "the workspace's codex was run");
    client.shutdown().await;
}

#[tokio::test]
async fn outline_folding_and_workspace_symbols() {
    let ws = Workspace::new();
    ws.write(
        "team/other.chat.md",
        "## @me\nRelease checklist for Friday\n",
    );
    ws.write("node_modules/x/ignored.chat.md", "## @me\nRelease notes\n");
    let mut client = ws.start(vscode_like()).await;
    let uri = ws.uri("team/review.chat.md");
    client.open(&uri, CHAT).await;

    let symbols = client
        .request(
            "textDocument/documentSymbol",
            json!({"textDocument": {"uri": uri}}),
        )
        .await
        .expect("symbols");
    let names: Vec<(&str, Value)> = symbols
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["name"].as_str().unwrap(),
                s["selectionRange"]["start"]["line"].clone(),
            )
        })
        .collect();
    assert_eq!(
        names,
        [
            ("Payment review", json!(5)),
            (
                "@me: @reviewer please review. @tester, write tests. @revewer too?",
                json!(8)
            ),
            ("@writer: Docs are done.", json!(11)),
        ]
    );
    assert_eq!(symbols[2]["detail"], "done · gemini");

    let folds = client
        .request(
            "textDocument/foldingRange",
            json!({"textDocument": {"uri": uri}}),
        )
        .await
        .expect("folding");
    let folds: Vec<(u64, u64)> = folds
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["startLine"].as_u64().unwrap(),
                f["endLine"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(folds, [(8, 9), (11, 16), (15, 16)]);

    // The workspace scan runs in the background after `initialized`; the chat on disk
    // shows up once it is done, so ask until it does (bounded by the harness timeout).
    let mut found = Value::Null;
    for _ in 0..200 {
        found = client
            .request("workspace/symbol", json!({"query": "release"}))
            .await
            .expect("symbols");
        if !found.as_array().unwrap().is_empty() {
            break;
        }
        tokio::task::yield_now().await;
    }
    let hits: Vec<(&str, &str)> = found
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["name"].as_str().unwrap(),
                s["location"]["uri"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        hits,
        [(
            "@me: Release checklist for Friday",
            ws.uri("team/other.chat.md").as_str()
        )]
    );
    client.shutdown().await;
}

#[tokio::test]
async fn positions_follow_the_negotiated_encoding() {
    let ws = Workspace::new();
    let text = "## @me\n😀 日本 @nobody\n";
    for (caps, start, end) in [(vscode_like(), 7, 13), (neovim_like(), 13, 19)] {
        let mut client = ws.start(caps).await;
        let uri = ws.uri("team/e.chat.md");
        client.open(&uri, text).await;
        let diagnostics = client.expect_diagnostics(&uri).await;
        assert_eq!(
            diagnostics[0]["range"],
            json!({"start": {"line": 1, "character": start}, "end": {"line": 1, "character": end}})
        );
        client.shutdown().await;
    }
}

#[tokio::test]
async fn incremental_changes_update_diagnostics() {
    let ws = Workspace::new();
    let mut client = ws.start(vscode_like()).await;
    let uri = ws.uri("team/i.chat.md");
    client.open(&uri, "## @me\nhi @reviewr\n").await;
    assert_eq!(client.expect_diagnostics(&uri).await.len(), 1);
    // Fix the typo: insert the missing "e" (UTF-16 position).
    client
        .change(&uri, 2, json!({"range": {"start": {"line": 1, "character": 10}, "end": {"line": 1, "character": 10}}, "text": "e"}))
        .await;
    let diagnostics = client.expect_diagnostics(&uri).await;
    assert_eq!(summarize(&diagnostics), Vec::<String>::new());
    client.shutdown().await;
}

#[tokio::test]
async fn foreign_formats_are_recognised_and_converted() {
    let ws = Workspace::new();
    let text = "# %% user\nHello there\n# %% assistant\nHi! How can I help?\n";
    let mut client = ws.start(vscode_like()).await;
    let uri = ws.uri("team/old.chat.md");
    client.open(&uri, text).await;
    let diagnostics = client.expect_diagnostics(&uri).await;
    assert_eq!(diagnostics.len(), 1);
    assert_eq!(diagnostics[0]["severity"], 3);
    assert_eq!(diagnostics[0]["code"], "foreign-format");
    let actions = client
        .request(
            "textDocument/codeAction",
            json!({"textDocument": {"uri": uri}, "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}}, "context": {"diagnostics": []}}),
        )
        .await
        .expect("actions");
    assert_eq!(actions[0]["title"], "Convert to chatmd format");
    let converted = actions[0]["edit"]["changes"][&uri][0]["newText"]
        .as_str()
        .unwrap();
    let chat = chatmd::document::chat::Chat::parse(converted);
    let handles: Vec<&str> = chat.messages.iter().map(|m| m.handle(converted)).collect();
    assert_eq!(handles, ["me", "assistant"]);
    assert!(converted.contains("Hello there") && converted.contains("Hi! How can I help?"));
    client.shutdown().await;
}

#[tokio::test]
async fn bad_config_and_role_files_become_diagnostics_and_the_server_keeps_serving() {
    let ws = Workspace::new();
    ws.write(
        "team/chatmd.toml",
        "[members.reviewer]\ntimeout = \"soon\"\n",
    );
    ws.write("team/broken/CLAUDE.md", "");
    std::fs::write(ws.path("team/broken/CLAUDE.md"), b"\xff\xfe not utf-8").unwrap();
    let mut client = ws.start(vscode_like()).await;
    let uri = ws.uri("team/b.chat.md");
    client.open(&uri, "## @me\n@broken hi\n").await;
    let chat_diagnostics = client.expect_diagnostics(&uri).await;
    assert_eq!(
        summarize(&chat_diagnostics),
        Vec::<String>::new(),
        "@broken is still a member"
    );
    let config = client.expect_diagnostics(&ws.uri("team/chatmd.toml")).await;
    assert_eq!(config.len(), 1);
    assert_eq!(config[0]["range"]["start"]["line"], 1);
    assert_eq!(config[0]["severity"], 1);
    let role = client
        .expect_diagnostics(&ws.uri("team/broken/CLAUDE.md"))
        .await;
    assert_eq!(role.len(), 1);
    // Still serving.
    let hover = client
        .request(
            "textDocument/hover",
            json!({"textDocument": {"uri": uri}, "position": {"line": 1, "character": 2}}),
        )
        .await
        .expect("hover");
    assert!(
        hover["contents"]["value"]
            .as_str()
            .unwrap()
            .contains("role file problem"),
        "{hover}"
    );
    client.shutdown().await;
}

#[tokio::test]
async fn watched_file_changes_update_the_team() {
    let ws = Workspace::new();
    let mut client = ws.start(vscode_like()).await;
    let registration = client
        .expect_auto_answered("client/registerCapability")
        .await;
    assert_eq!(
        registration["registrations"][0]["method"],
        "workspace/didChangeWatchedFiles"
    );
    let uri = ws.uri("team/w.chat.md");
    client.open(&uri, "## @me\n@ops deploy it\n").await;
    assert_eq!(client.expect_diagnostics(&uri).await.len(), 1);

    ws.write("team/ops/AGENTS.md", "# Deploys\n");
    client
        .notify(
            "workspace/didChangeWatchedFiles",
            json!({"changes": [{"uri": ws.uri("team/ops/AGENTS.md"), "type": 1}]}),
        )
        .await;
    let diagnostics = client.expect_diagnostics(&uri).await;
    assert_eq!(
        summarize(&diagnostics),
        [
            "1:1-1:4 2 cli-missing @ops runs codex, whose CLI `codex` is not installed (not found on PATH). Install it with `npm install -g @openai/codex`, then log in once in a terminal."
        ]
    );
    client.shutdown().await;
}

#[tokio::test]
async fn hostile_input_gets_errors_not_a_crash() {
    let ws = Workspace::new();
    let mut client = ws.start(vscode_like()).await;
    client
        .send_raw(b"Content-Length: 12\r\n\r\n{not json!!}")
        .await;
    let parse_error = client.expect_response_null_id().await;
    assert_eq!(parse_error["error"]["code"], -32700);
    client.send_raw(b"X-Garbage: 1\r\n\r\n").await;
    let parse_error = client.expect_response_null_id().await;
    assert_eq!(parse_error["error"]["code"], -32700);
    let error = client
        .request("no/such/method", json!({}))
        .await
        .expect_err("unknown method");
    assert_eq!(error["code"], -32601);
    let error = client
        .request("textDocument/hover", json!({"bogus": true}))
        .await
        .expect_err("bad params");
    assert_eq!(error["code"], -32602);
    // Requests about documents that are not open are answered, not crashed on.
    let none = client
        .request(
            "textDocument/documentSymbol",
            json!({"textDocument": {"uri": "file:///nowhere.chat.md"}}),
        )
        .await
        .expect("answer");
    assert_eq!(none, Value::Null);
    client.shutdown().await;
}

#[tokio::test]
async fn a_member_folder_linked_out_of_the_workspace_is_refused_and_shown() {
    let ws = Workspace::new();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("CLAUDE.md"), "# Secret role\n").unwrap();
    std::os::unix::fs::symlink(outside.path(), ws.path("team/intruder")).unwrap();
    let mut client = ws.start(vscode_like()).await;
    let uri = ws.uri("team/s.chat.md");
    client.open(&uri, "## @me\n@intruder hi\n").await;
    let diagnostics = client.expect_diagnostics(&uri).await;
    let shown = summarize(&diagnostics);
    assert_eq!(shown.len(), 2, "{shown:#?}");
    assert_eq!(
        shown[0],
        "1:1-1:9 2 unknown-mention @intruder is not a member of this team; nobody will answer this mention."
    );
    let expected = format!(
        "0:0-0:0 2 team {}: member folder `intruder` is skipped: it is a symlink to {}, outside the workspace.",
        ws.path("team/intruder").display(),
        outside.path().display()
    );
    assert!(shown[1].starts_with(&expected), "{}", shown[1]);
    client.shutdown().await;
}

#[tokio::test]
async fn without_file_watchers_the_team_is_read_afresh() {
    let ws = Workspace::new();
    let mut client = ws.start(json!({})).await;
    let uri = ws.uri("team/f.chat.md");
    client.open(&uri, "## @me\n@ops deploy it\n").await;
    assert_eq!(
        client.expect_diagnostics(&uri).await.len(),
        1,
        "@ops is unknown"
    );
    ws.write("team/ops/CLAUDE.md", "# Deploys\n");
    client
        .change(&uri, 2, json!({"range": {"start": {"line": 1, "character": 15}, "end": {"line": 1, "character": 15}}, "text": "!"}))
        .await;
    assert_eq!(
        summarize(&client.expect_diagnostics(&uri).await),
        Vec::<String>::new()
    );
    client.shutdown().await;
}

/// A chat of `messages` messages, each about 200 bytes, with emoji and CRLF lines.
fn long_chat(messages: usize, last: &str) -> String {
    let mut chat = String::new();
    for i in 0..messages {
        let handle = if i % 2 == 0 { "me" } else { "reviewer" };
        chat.push_str(&format!(
            "## @{handle}\r\nmessage {i} 😀 漢字 {}\r\n\r\n",
            "words ".repeat(25)
        ));
    }
    chat.push_str(&format!("## @me\n{last}\n"));
    chat
}

/// Large opens and full-text changes are decoded by the framing layer, not the
/// protocol library; they must still land in order with the small changes around them.
#[tokio::test]
async fn large_document_syncs_land_in_order_with_small_ones() {
    let ws = Workspace::new();
    let mut client = ws.start(vscode_like()).await;
    let uri = ws.uri("team/long.chat.md");
    let opened = long_chat(2000, "first text");
    assert!(opened.len() > 300_000, "{}", opened.len());
    client.open(&uri, &opened).await;
    // A small edit, then a large full-text change, then a small edit again.
    client
        .change(
            &uri,
            2,
            json!({"range": {"start": {"line": 0, "character": 3}, "end": {"line": 0, "character": 3}}, "text": "x"}),
        )
        .await;
    let replaced = long_chat(1500, "second text");
    client.change(&uri, 3, json!({"text": replaced})).await;
    let last_line = replaced.lines().count() - 1;
    client
        .change(
            &uri,
            4,
            json!({"range": {"start": {"line": last_line, "character": 0}, "end": {"line": last_line, "character": 6}}, "text": "third"}),
        )
        .await;
    let symbols = client
        .request(
            "textDocument/documentSymbol",
            json!({"textDocument": {"uri": uri}}),
        )
        .await
        .expect("symbols");
    let symbols = symbols.as_array().unwrap();
    assert_eq!(symbols.len(), 1501);
    let first = symbols[0]["name"].as_str().unwrap();
    assert!(first.starts_with("@me: message 0 😀 漢字 words"), "{first}");
    assert_eq!(symbols[1500]["name"], "@me: third text");
    assert_eq!(
        symbols[1500]["range"]["start"],
        json!({"line": 4500, "character": 0})
    );
    client.shutdown().await;
}

/// The outline of `uri`, and each entry as its name's first two words and its first
/// line.
async fn listed_outline(
    client: &mut chatmd_tests::TestClient,
    uri: &str,
) -> (Value, Vec<(String, u64)>) {
    let symbols = client
        .request(
            "textDocument/documentSymbol",
            json!({"textDocument": {"uri": uri}}),
        )
        .await
        .expect("symbols");
    let listed = symbols
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            let name = s["name"].as_str().unwrap();
            let name = name.split(' ').take(2).collect::<Vec<_>>().join(" ");
            (name, s["range"]["start"]["line"].as_u64().unwrap())
        })
        .collect();
    (symbols, listed)
}

/// Inserts `text` at the start of `line` as `version` of `uri`, then its outline.
async fn insert_then_outline(
    client: &mut chatmd_tests::TestClient,
    uri: &str,
    (version, line): (i32, u32),
    text: &str,
) -> Vec<(String, u64)> {
    let at = json!({"line": line, "character": 0});
    let change = json!({"range": {"start": at, "end": at}, "text": text});
    client.change(uri, version, change).await;
    listed_outline(client, uri).await.1
}

/// A chat of 12,000 messages lists its latest messages one by one and the earlier
/// ones in groups of 1000: 5000 outline entries (VS Code's own limit for a JSON file's
/// symbols), and no more folds than the editor's `rangeLimit`, the latest messages'
/// among them. What the user types in the last message shows at once.
#[tokio::test]
async fn a_long_chat_lists_its_latest_messages_and_groups_the_earlier_ones() {
    let ws = Workspace::new();
    let mut capabilities = vscode_like();
    capabilities["textDocument"]["foldingRange"] = json!({"rangeLimit": 3000});
    let mut client = ws.start(capabilities).await;
    let uri = ws.uri("team/long.chat.md");
    let chat: String = (0..12_000)
        .map(|i| format!("## @me\nm{i}\nline two\n\n"))
        .collect();
    client.open(&uri, &chat).await;
    let (symbols, listed) = listed_outline(&mut client, &uri).await;
    assert_eq!(listed.len(), 5000);
    // 7008 messages in 8 groups, then the latest 4992 one by one.
    assert_eq!(listed[0], ("messages 1–1000".to_owned(), 0));
    assert_eq!(listed[1], ("messages 1001–2000".to_owned(), 4000));
    assert_eq!(listed[7], ("messages 7001–7008".to_owned(), 28_000));
    assert_eq!(listed[8], ("@me: m7008".to_owned(), 28_032));
    assert_eq!(listed[4999], ("@me: m11999".to_owned(), 47_996));
    assert_eq!(
        symbols[0]["range"]["end"],
        json!({"line": 4000, "character": 0})
    );
    let folds = client
        .request(
            "textDocument/foldingRange",
            json!({"textDocument": {"uri": uri}}),
        )
        .await
        .expect("folds");
    let folds = folds.as_array().unwrap();
    assert_eq!(folds.len(), 3000);
    // A group folds up to its last message's last line that is not blank.
    assert_eq!(
        folds[0],
        json!({"startLine": 0, "endLine": 3998, "kind": "region"})
    );
    assert_eq!(
        folds[2999],
        json!({"startLine": 47_996, "endLine": 47_998, "kind": "region"})
    );

    // The user types in the last message, then starts a new one.
    let listed = insert_then_outline(&mut client, &uri, (2, 47_997), "edited ").await;
    assert_eq!(listed.len(), 5000);
    assert_eq!(listed[4999], ("@me: edited".to_owned(), 47_996));
    let listed = insert_then_outline(&mut client, &uri, (3, 48_000), "## @me\nnew\n").await;
    assert_eq!(listed.len(), 5000);
    assert_eq!(listed[7], ("messages 7001–7009".to_owned(), 28_000));
    assert_eq!(listed[8], ("@me: m7009".to_owned(), 28_036));
    assert_eq!(listed[4998], ("@me: edited".to_owned(), 47_996));
    assert_eq!(listed[4999], ("@me: new".to_owned(), 48_000));
    client.shutdown().await;
}
