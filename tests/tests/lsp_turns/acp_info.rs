//! What ACP members' agents tell about themselves, shown in the editor: their commands
//! as completion after `/` in a message to them (from the fake's
//! `available_commands_update`, the recorded lists), a diagnostic on a member whose
//! agent needs a login (with the exact login command and its `authMethods`) until it
//! answers again, and the settings its session offered (`configOptions`) as
//! completion of `mode`/`model` in `chatmd.toml`.

use chatmd_tests::sim_editor::{At, Behaviour, SimEditor};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use crate::setup::{Setup, finished, send};

/// A workspace whose reviewer is `claude-agent-acp` and writer `gemini --acp` (the
/// fake), each keeping its state in the workspace; `more` goes into `[members.writer.env]`.
fn acp_team(more: &str) -> Setup {
    let s = Setup::new(&[]);
    let fake = std::path::PathBuf::from(env!("CARGO_BIN_EXE_fake-agent"));
    chatmd_tests::fake_agent::install_acp(&fake, &s.bin).expect("install the ACP fakes");
    let state = s.path("state");
    s.write(
        "team/chatmd.toml",
        &format!(
            "[members.reviewer]\nagent = \"acp\"\npreset = \"claude\"\n\n\
             [members.reviewer.env]\nIS_SANDBOX = \"1\"\nCLAUDE_CONFIG_DIR = \"{state}\"\n\n\
             [members.writer]\nagent = \"acp\"\npreset = \"gemini\"\n\n\
             [members.writer.env]\nGEMINI_CLI_HOME = \"{state}\"\n{more}",
            state = state.display()
        ),
    );
    s
}

/// Sends the chat and handles the edits until every turn has ended.
async fn answered(editor: &mut SimEditor, uri: &str) {
    send(editor, uri).await;
    editor
        .run_until("the turns", |e| finished(e.text(uri)))
        .await;
}

/// `(line, character)` of the end of the document (UTF-8 positions).
fn end_of(text: &str) -> Value {
    let line = text.matches('\n').count();
    let character = text.len() - text.rfind('\n').map_or(0, |i| i + 1);
    json!({"line": line, "character": character})
}

/// The completion items at `position` of `uri`, as `(label, detail)`.
async fn completion(editor: &mut SimEditor, uri: &str, position: Value) -> Vec<Value> {
    let answer = editor
        .client
        .request(
            "textDocument/completion",
            json!({"textDocument": {"uri": uri}, "position": position}),
        )
        .await
        .expect("a completion answer");
    answer.as_array().cloned().unwrap_or_default()
}

/// The completion items at the end of `uri`.
async fn completion_at_end(editor: &mut SimEditor, uri: &str) -> Vec<Value> {
    let end = end_of(editor.text(uri));
    completion(editor, uri, end).await
}

fn labels(items: &[Value]) -> Vec<(String, String)> {
    items
        .iter()
        .map(|i| {
            (
                i["label"].as_str().unwrap_or("").to_owned(),
                i["detail"].as_str().unwrap_or("").to_owned(),
            )
        })
        .collect()
}

fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter()
        .map(|(a, b)| ((*a).to_owned(), (*b).to_owned()))
        .collect()
}

const CLAUDE_COMMANDS: [(&str, &str); 3] = [
    ("/deep-research", "@reviewer"),
    ("/update-config", "@reviewer"),
    ("/verify", "@reviewer"),
];

const GEMINI_COMMANDS: [(&str, &str); 3] = [
    ("/memory", "@writer"),
    ("/memory show", "@writer"),
    ("/memory refresh", "@writer"),
];

#[tokio::test]
async fn a_slash_in_a_message_offers_the_commands_of_the_members_it_asks() {
    let s = acp_team("");
    let (editor, uri) = s
        .open_chat(
            Behaviour::VsCode,
            "team/cmd.chat.md",
            "## @me\n@reviewer say hello\n",
        )
        .await;
    // Another chat of the team, with a new message to the reviewer being typed.
    let next = "## @me\n@reviewer\n/";
    let (mut editor, other) = s.open_in(editor, "team/next.chat.md", next).await;
    // Before any turn nothing is known.
    let items = completion(&mut editor, &other, end_of(next)).await;
    assert_eq!(labels(&items), []);

    answered(&mut editor, &uri).await;
    let items = completion(&mut editor, &other, end_of(next)).await;
    assert_eq!(labels(&items), pairs(&CLAUDE_COMMANDS));
    let verify = &items[2];
    assert_eq!(verify["filterText"], "/verify");
    assert!(
        verify["documentation"]["value"]
            .as_str()
            .is_some_and(|d| d.starts_with("Verify that a code change actually does")),
        "{verify}"
    );
    // The edit replaces the `/` typed.
    assert_eq!(
        verify["textEdit"],
        json!({
            "range": {"start": {"line": 2, "character": 0}, "end": {"line": 2, "character": 1}},
            "newText": "/verify",
        })
    );

    // The writer has not answered yet: nothing is known of it.
    let to_writer = "## @me\n@writer\n/";
    let (mut editor, third) = s.open_in(editor, "team/third.chat.md", to_writer).await;
    let items = completion(&mut editor, &third, end_of(to_writer)).await;
    assert_eq!(labels(&items), []);
}

#[tokio::test]
async fn a_message_that_asks_nobody_offers_every_members_commands() {
    let s = acp_team("");
    let (mut editor, uri) = s
        .open_chat(
            Behaviour::Neovim,
            "team/all.chat.md",
            "## @me\n@reviewer @writer say hello\n",
        )
        .await;
    answered(&mut editor, &uri).await;
    // Not at the start of a line: no commands.
    editor.type_text(&uri, At::End, "see /").await;
    let items = completion_at_end(&mut editor, &uri).await;
    assert_eq!(labels(&items), []);
    editor.type_text(&uri, At::End, "\n/mem").await;
    let items = completion_at_end(&mut editor, &uri).await;
    let mut all = pairs(&CLAUDE_COMMANDS);
    all.extend(pairs(&GEMINI_COMMANDS));
    assert_eq!(labels(&items), all);
    // Asking the writer alone: its commands only.
    editor.type_text(&uri, At::End, "\n@writer\n/").await;
    let items = completion_at_end(&mut editor, &uri).await;
    assert_eq!(labels(&items), pairs(&GEMINI_COMMANDS));
    // In the agent's answer there is nothing to complete.
    let answer_line = editor
        .text(&uri)
        .lines()
        .position(|l| l.starts_with("ANSWER-anthropic"))
        .expect("the reviewer's answer");
    let items = completion(
        &mut editor,
        &uri,
        json!({"line": answer_line, "character": 0}),
    )
    .await;
    assert_eq!(labels(&items), []);
}

/// Waits for diagnostics of `uri` that satisfy `done` (earlier ones are skipped).
async fn diagnostics_until(
    editor: &mut SimEditor,
    uri: &str,
    done: impl Fn(&[Value]) -> bool,
) -> Vec<Value> {
    loop {
        let diagnostics = editor.client.expect_diagnostics(uri).await;
        if done(&diagnostics) {
            return diagnostics;
        }
    }
}

fn logins(diagnostics: &[Value]) -> Vec<Value> {
    diagnostics
        .iter()
        .filter(|d| d["code"] == "login-needed")
        .cloned()
        .collect()
}

/// The range of the `n`th `@handle` (0-based) in `text`, without its `@`.
fn handle_range(text: &str, handle: &str, n: usize) -> Value {
    let at = text
        .match_indices(&format!("@{handle}"))
        .nth(n)
        .expect("the handle")
        .0
        + 1;
    let line = text[..at].matches('\n').count();
    let character = at - text[..at].rfind('\n').map_or(0, |i| i + 1);
    json!({
        "start": {"line": line, "character": character},
        "end": {"line": line, "character": character + handle.len()},
    })
}

const CLAUDE_ADVICE: &str = "Authentication required. Log in with `claude /login` in a \
     terminal (with CLAUDE_CONFIG_DIR set to the member's `home` if it has one), or export \
     ANTHROPIC_API_KEY before chatmd starts.";

#[tokio::test]
async fn a_member_that_needs_a_login_gets_a_diagnostic_until_it_answers() {
    let s = acp_team("");
    let (mut editor, uri) = s
        .open_chat(
            Behaviour::VsCode,
            "team/login.chat.md",
            "## @me\n@reviewer MOCK-MODE=noauth say hello\n",
        )
        .await;
    answered(&mut editor, &uri).await;
    let text = editor.text(&uri).to_owned();
    assert!(text.contains("status=error"), "{text}");
    let message = format!("@reviewer needs a login before it can answer. {CLAUDE_ADVICE}");
    let on_heading = json!({
        "range": handle_range(&text, "reviewer", 1),
        "severity": 2,
        "code": "login-needed",
        "source": "chatmd",
        "message": message,
    });
    let found = diagnostics_until(&mut editor, &uri, |d| !logins(d).is_empty()).await;
    assert_eq!(logins(&found), std::slice::from_ref(&on_heading));

    // Asking it again: the mention in the new message shows it too.
    editor
        .type_text(&uri, At::End, "@reviewer say hello\n")
        .await;
    let text = editor.text(&uri).to_owned();
    let on_mention = json!({
        "range": handle_range(&text, "reviewer", 2),
        "severity": 2,
        "code": "login-needed",
        "source": "chatmd",
        "message": message,
    });
    let found = diagnostics_until(&mut editor, &uri, |d| logins(d).len() == 2).await;
    assert_eq!(logins(&found), [on_heading, on_mention]);

    // It answers: the diagnostic is gone.
    answered(&mut editor, &uri).await;
    assert!(editor.text(&uri).contains("status=done"));
    let found = diagnostics_until(&mut editor, &uri, |d| logins(d).is_empty()).await;
    assert_eq!(logins(&found), Vec::<Value>::new());
}

#[tokio::test]
async fn the_diagnostic_lists_the_agents_login_methods() {
    let s = acp_team("FAKE_ACP_NO_AUTH = \"1\"\n");
    let (mut editor, uri) = s
        .open_chat(
            Behaviour::VsCode,
            "team/gemini.chat.md",
            "## @me\n@writer say hello\n",
        )
        .await;
    answered(&mut editor, &uri).await;
    let found = diagnostics_until(&mut editor, &uri, |d| !logins(d).is_empty()).await;
    let text = editor.text(&uri).to_owned();
    assert_eq!(
        logins(&found),
        [json!({
            "range": handle_range(&text, "writer", 1),
            "severity": 2,
            "code": "login-needed",
            "source": "chatmd",
            "message": "@writer needs a login before it can answer. Gemini API key is missing or \
                        not configured. Run `gemini` once in a terminal to log in (with \
                        GEMINI_CLI_HOME set to the member's `home` if it has one), or export \
                        GEMINI_API_KEY before chatmd starts.\n\
                        Login methods it offers:\n\
                        - Log in with Google (`oauth-personal`): Log in with your Google account\n\
                        - Gemini API key (`gemini-api-key`): Use an API key with Gemini Developer API\n\
                        - Vertex AI (`vertex-ai`): Use an API key with Vertex AI GenAI API\n\
                        - AI API Gateway (`gateway`): Use a custom AI API Gateway",
        })]
    );
    // The hover on the member says so too.
    let hover = editor
        .client
        .request(
            "textDocument/hover",
            json!({"textDocument": {"uri": uri}, "position": handle_range(&text, "writer", 1)["start"]}),
        )
        .await
        .expect("a hover");
    let shown = hover["contents"]["value"].as_str().unwrap_or_default();
    assert!(
        shown.contains(
            "- **needs a login**: Gemini API key is missing or not configured. Run `gemini` once"
        ),
        "{shown}"
    );
}

/// `(label, detail)` of the completion at the `|` of `text`, open as the team's
/// `chatmd.toml` (the file on disk stays as it is).
async fn config_completion(editor: &mut SimEditor, s: &Setup, text: &str) -> Vec<(String, String)> {
    let uri = s.uri("team/chatmd.toml");
    let at = text.find('|').expect("a cursor");
    let text = text.replace('|', "");
    editor.open(&uri, &text).await;
    let position = end_of(&text[..at]);
    let items = completion(editor, &uri, position).await;
    editor.close(&uri).await;
    labels(&items)
}

#[tokio::test]
async fn chatmd_toml_completes_the_settings_the_agent_offered() {
    let s = acp_team("");
    let (mut editor, uri) = s
        .open_chat(
            Behaviour::VsCode,
            "team/settings.chat.md",
            "## @me\n@reviewer say hello\n",
        )
        .await;
    let config = s.read("team/chatmd.toml");
    let with = |after: &str, line: &str| config.replacen(after, &format!("{after}{line}"), 1);
    let mode = with("preset = \"claude\"\n", "mode = \"|\"\n");
    // Before the reviewer's first turn nothing is known.
    assert_eq!(config_completion(&mut editor, &s, &mode).await, []);

    answered(&mut editor, &uri).await;
    assert_eq!(
        config_completion(&mut editor, &s, &mode).await,
        pairs(&[
            ("auto", "Auto"),
            ("default", "Default (in force in its last session)"),
            ("acceptEdits", "Accept Edits"),
            ("plan", "Plan Mode"),
            ("dontAsk", "Don't Ask"),
            ("bypassPermissions", "Bypass Permissions"),
        ])
    );
    let model = with("preset = \"claude\"\n", "model = \"son|");
    assert_eq!(
        config_completion(&mut editor, &s, &model).await,
        pairs(&[
            (
                "default",
                "Default (recommended) (in force in its last session)"
            ),
            ("opus[1m]", "Opus"),
            ("sonnet", "Sonnet"),
            ("sonnet[1m]", "Sonnet (1M context)"),
        ])
    );
    let effort = format!("{config}\n[members.reviewer.options]\neffort = \"|");
    assert_eq!(
        config_completion(&mut editor, &s, &effort).await,
        pairs(&[
            ("default", "Default (in force in its last session)"),
            ("low", "Low"),
            ("medium", "Medium"),
            ("high", "High"),
        ])
    );
    // The writer has not answered: nothing known of it.
    let writer = with("preset = \"gemini\"\n", "mode = \"|\"\n");
    assert_eq!(config_completion(&mut editor, &s, &writer).await, []);
}
