//! Workspace trust in the editor: the untrusted keys are diagnostics, Send is refused
//! with the reason, the code action asks (`window/showMessageRequest`) and only Trust
//! records; a client without dialogs trusts by running `chatmd.trust` by name; a
//! `work` link out of the workspace is a warning on the chat.

use chatmd_tests::TestClient;
use chatmd_tests::sim_editor::Behaviour;
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use crate::setup::{Setup, code_actions_at, finished, turns_ended};
use chatmd_tests::views::summarize;

/// A cloned repository's chatmd.toml: it removes the tester's sandbox and sets a
/// variable.
const CONFIG: &str = "[members.tester]\n\
                      args = [\"--dangerously-bypass-approvals-and-sandbox\"]\n\
                      [members.tester.env]\nIS_SANDBOX = \"\"\n";

const CHAT: &str = "## @me\n@tester write tests\n";

fn setup() -> Setup {
    let s = Setup::new(&[]);
    s.write_untrusted("team/chatmd.toml", CONFIG);
    s
}

fn config_path(s: &Setup) -> String {
    s.path("team/chatmd.toml").display().to_string()
}

/// Waits for diagnostics of `uri` that satisfy `done`.
async fn diagnostics_until(
    client: &mut TestClient,
    uri: &str,
    done: impl Fn(&[Value]) -> bool,
) -> Vec<Value> {
    loop {
        let diagnostics = client.expect_diagnostics(uri).await;
        if done(&diagnostics) {
            return diagnostics;
        }
    }
}

/// What the editor shows on the untrusted chatmd.toml: a warning on each key.
fn config_problems(s: &Setup) -> Vec<String> {
    let tail = format!(
        "@tester is not run until then; review the file, then run `chatmd trust {}` or use \
         the quick fix \"Trust this chatmd.toml…\"",
        config_path(s)
    );
    vec![
        format!(
            "1:0-1:53 2 untrusted-config `args` is not applied until you trust this file: \
             arguments can turn off @tester's approvals and sandbox. {tail}"
        ),
        format!(
            "2:0-2:20 2 untrusted-config `env` is not applied until you trust this file: \
             variables such as LD_PRELOAD or NODE_OPTIONS can make @tester's CLI run other \
             code. {tail}"
        ),
    ]
}

fn refusal(s: &Setup) -> String {
    format!(
        "@tester: not run: `args` and `env` in {0} can run programs on your machine, and a \
         workspace file applies such settings only once you trust it. Review the file, then \
         run `chatmd trust {0}`",
        config_path(s)
    )
}

#[tokio::test]
async fn untrusted_keys_are_diagnostics_and_send_waits_for_the_dialogs_trust() {
    let s = setup();
    let (mut editor, uri) = s.open_chat(Behaviour::VsCode, "team/t.chat.md", CHAT).await;
    let chat = editor.client.expect_diagnostics(&uri).await;
    assert_eq!(
        summarize(&chat),
        vec![format!(
            "0:0-0:0 2 untrusted-config {0} sets @tester (`args` and `env`) that apply only \
             once you trust the file; these members are not run until then. Review it, then \
             use the quick fix \"Trust…\" or run `chatmd trust {0}`",
            config_path(&s)
        )]
    );
    let config = editor
        .client
        .expect_diagnostics(&s.uri("team/chatmd.toml"))
        .await;
    assert_eq!(summarize(&config), config_problems(&s));

    // Send is refused, once, with the reason; nothing is written.
    let answer = editor.command("chatmd.send", json!({"uri": uri})).await;
    assert_eq!(answer, Ok(json!({"members": [], "reason": refusal(&s)})));
    let shown = editor
        .client
        .drain_notifications("window/showMessage")
        .await;
    assert_eq!(shown, vec![json!({"type": 1, "message": refusal(&s)})]);
    assert_eq!(editor.text(&uri), CHAT);

    // The quick fix on the chat's warning asks first.
    let actions = code_actions_at(&mut editor, &uri, 0).await;
    let titles: Vec<&str> = actions.iter().filter_map(|a| a["title"].as_str()).collect();
    assert_eq!(
        titles[0], "Trust team/chatmd.toml…",
        "first, as the quick fix: {titles:?}"
    );
    assert_eq!(actions[0]["kind"], "quickfix");
    let command = actions[0]["command"].clone();
    assert_eq!(
        command,
        json!({
            "title": "Trust team/chatmd.toml…",
            "command": "chatmd.trust",
            "arguments": [{"uri": s.uri("team/chatmd.toml")}],
        })
    );
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
        params,
        json!({
            "type": 2,
            "message": format!(
                "Trust {}? chatmd would then run, on Send: @tester: args = \
                 [\"--dangerously-bypass-approvals-and-sandbox\"], env IS_SANDBOX = \"\". Trust \
                 it only if you know what these do; a change to the file needs your trust again.",
                config_path(&s)
            ),
            "actions": [{"title": "Trust"}, {"title": "Cancel"}],
        })
    );
    assert!(
        !s.user_config()
            .load_trust()
            .trusts_file(&s.path("team/chatmd.toml"), CONFIG.as_bytes()),
        "nothing is recorded before the answer"
    );
    editor
        .client
        .respond(question, json!({"title": "Trust"}))
        .await;
    assert_eq!(
        editor.client.expect_response(id).await,
        Ok(json!({"trusted": true, "file": config_path(&s)}))
    );
    assert!(
        s.user_config()
            .load_trust()
            .trusts_file(&s.path("team/chatmd.toml"), CONFIG.as_bytes())
    );
    // The warnings go away without an edit.
    diagnostics_until(
        &mut editor.client,
        &s.uri("team/chatmd.toml"),
        <[Value]>::is_empty,
    )
    .await;
    diagnostics_until(&mut editor.client, &uri, <[Value]>::is_empty).await;

    // Now Send runs the tester.
    let answer = editor.command("chatmd.send", json!({"uri": uri})).await;
    assert_eq!(answer, Ok(json!({"members": ["tester"]})));
    editor
        .run_until("the tester's answer", |e| finished(e.text(&uri)))
        .await;
    turns_ended(&mut editor).await;
    assert!(
        editor.text(&uri).contains("status=done"),
        "{}",
        editor.text(&uri)
    );
}

#[tokio::test]
async fn cancel_in_the_dialog_records_nothing() {
    let s = setup();
    let (mut editor, _) = s.open_chat(Behaviour::Neovim, "team/t.chat.md", CHAT).await;
    let id = editor
        .client
        .send_request(
            "workspace/executeCommand",
            json!({"command": "chatmd.trust", "arguments": [{"uri": s.uri("team/chatmd.toml")}]}),
        )
        .await;
    let (question, _) = editor
        .client
        .expect_request("window/showMessageRequest")
        .await;
    editor
        .client
        .respond(question, json!({"title": "Cancel"}))
        .await;
    assert_eq!(
        editor.client.expect_response(id).await,
        Ok(json!({"trusted": false, "file": config_path(&s)}))
    );
    // Closing the dialog (a null answer) is no either.
    let id = editor
        .client
        .send_request(
            "workspace/executeCommand",
            json!({"command": "chatmd.trust", "arguments": [{"uri": s.uri("team/chatmd.toml")}]}),
        )
        .await;
    let (question, _) = editor
        .client
        .expect_request("window/showMessageRequest")
        .await;
    editor.client.respond(question, Value::Null).await;
    assert_eq!(
        editor.client.expect_response(id).await,
        Ok(json!({"trusted": false, "file": config_path(&s)}))
    );
    assert!(
        !s.user_config()
            .load_trust()
            .trusts_file(&s.path("team/chatmd.toml"), CONFIG.as_bytes())
    );
}

#[tokio::test]
async fn the_chatmd_toml_itself_offers_the_quick_fix_on_each_key() {
    let s = setup();
    let editor = s.editor(Behaviour::Neovim).await;
    let mut client = editor.client;
    let uri = s.uri("team/chatmd.toml");
    client.open_as(&uri, "toml", CONFIG).await;
    let at = |line: u32| {
        json!({
            "textDocument": {"uri": uri},
            "range": {"start": {"line": line, "character": 2}, "end": {"line": line, "character": 2}},
            "context": {"diagnostics": []},
        })
    };
    let trust_actions = |actions: Value| -> Vec<Value> {
        let all = actions.as_array().cloned().unwrap_or_default();
        let trust = |a: &Value| a["title"].as_str().is_some_and(|t| t.starts_with("Trust"));
        all.into_iter().filter(trust).collect()
    };
    let actions = client
        .request("textDocument/codeAction", at(1))
        .await
        .expect("actions");
    let actions = trust_actions(actions);
    assert_eq!(actions.len(), 1);
    assert_eq!(actions[0]["title"], "Trust this chatmd.toml…");
    assert_eq!(actions[0]["command"]["command"], "chatmd.trust");
    assert_eq!(actions[0]["diagnostics"][0]["code"], "untrusted-config");
    assert_eq!(actions[0]["diagnostics"][0]["range"]["start"]["line"], 1);
    // Line 0 (`[members.tester]`) sets nothing that needs trust.
    let none = client
        .request("textDocument/codeAction", at(0))
        .await
        .expect("actions");
    assert_eq!(trust_actions(none), Vec::<Value>::new());
}

#[tokio::test]
async fn a_client_without_dialogs_trusts_by_running_the_command_by_name() {
    // Helix: no `window.showMessage` capability, so no quick fix that would trust
    // without showing what; `:lsp-workspace-command chatmd.trust {"uri": …}` trusts.
    let s = setup();
    let user = s.user_config();
    let mut client = TestClient::spawn(move |input, output| {
        chatmd::lsp::serve_with_user_config(input, output, user)
    });
    client.initialize(json!({}), Some(s.dir.path())).await;
    let uri = s.uri("team/t.chat.md");
    s.write("team/t.chat.md", CHAT);
    client.open(&uri, CHAT).await;
    let diagnostics = client.expect_diagnostics(&uri).await;
    let codes: Vec<&str> = diagnostics
        .iter()
        .filter_map(|d| d["code"].as_str())
        .collect();
    assert!(codes.contains(&"untrusted-config"), "{codes:?}");
    let actions = client
        .request(
            "textDocument/codeAction",
            json!({
                "textDocument": {"uri": uri},
                "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}},
                "context": {"diagnostics": diagnostics},
            }),
        )
        .await
        .expect("actions");
    let titles: Vec<&str> = actions
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|a| a["title"].as_str())
        .filter(|t| t.starts_with("Trust"))
        .collect();
    assert_eq!(
        titles,
        Vec::<&str>::new(),
        "no quick fix that would trust unseen"
    );
    let answer = client
        .request(
            "workspace/executeCommand",
            json!({"command": "chatmd.trust", "arguments": [{"uri": s.uri("team/chatmd.toml")}]}),
        )
        .await;
    assert_eq!(
        answer,
        Ok(json!({"trusted": true, "file": config_path(&s)}))
    );
    let shown = client.expect_notification("window/showMessage").await;
    assert_eq!(
        shown,
        json!({
            "type": 3,
            "message": format!(
                "Trusted {}: @tester: args = [\"--dangerously-bypass-approvals-and-sandbox\"], \
                 env IS_SANDBOX = \"\"",
                config_path(&s)
            ),
        })
    );
    diagnostics_until(&mut client, &uri, |d| {
        d.iter().all(|d| d["code"] != "untrusted-config")
    })
    .await;
    // Anything but a chatmd.toml, a chat or an agent's settings is refused.
    let error = client
        .request(
            "workspace/executeCommand",
            json!({"command": "chatmd.trust", "arguments": [{"uri": s.uri("team/notes.md")}]}),
        )
        .await
        .expect_err("not a chatmd.toml");
    assert_eq!(
        error["message"],
        format!(
            "chatmd.trust takes the URI of a chatmd.toml, a chat or an agent's settings file, \
             not {}",
            s.path("team/notes.md").display()
        )
    );
    client.shutdown().await;
}

#[tokio::test]
async fn a_work_link_out_of_the_workspace_is_a_warning_on_the_chat() {
    let s = Setup::new(&[]);
    let outside = tempfile::tempdir().expect("temp dir");
    let work = s.path("team/tester/work");
    std::os::unix::fs::symlink(outside.path(), &work).expect("symlink");
    let (mut editor, uri) = s.open_chat(Behaviour::VsCode, "team/t.chat.md", CHAT).await;
    let diagnostics = editor.client.expect_diagnostics(&uri).await;
    let shown = summarize(&diagnostics);
    assert_eq!(
        shown,
        vec![
            "1:1-1:7 2 unknown-mention @tester is not a member of this team; nobody will answer \
             this mention."
                .to_owned(),
            format!(
                "0:0-0:0 2 team {0}: @tester is left out: `work` is a link to {1}, outside the \
                 workspace, and a repository could ship such a link. If you made it, accept it \
                 with `chatmd trust {0}`",
                work.display(),
                outside.path().canonicalize().expect("canonical").display()
            ),
        ]
    );
}

/// An open chatmd.toml is not a chat: the editor gets its own problems (a warning on each
/// key waiting for trust) in one list, never first a chat's list and then this one.
#[tokio::test]
async fn an_open_chatmd_toml_gets_one_list_of_its_own_problems() {
    let s = setup();
    let editor = s.editor(Behaviour::Neovim).await;
    let mut client = editor.client;
    let uri = s.uri("team/chatmd.toml");
    client.open_as(&uri, "toml", CONFIG).await;
    let first = client.expect_diagnostics(&uri).await;
    assert_eq!(summarize(&first), config_problems(&s));
    let more = tokio::time::timeout(
        std::time::Duration::from_millis(1500),
        client.expect_diagnostics(&uri),
    )
    .await;
    assert!(more.is_err(), "a second list: {more:?}");
}
