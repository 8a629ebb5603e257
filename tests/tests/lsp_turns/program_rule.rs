//! One rule finds an agent's CLI (the editor's `agentPath`, then `PATH`), whoever asks:
//! a CLI found only on `PATH`, while the editor's `agentPath` names a folder without
//! it, gets no "not installed" diagnostic, shows as installed on hover and in
//! `chatmd members`, and its turn runs.

use std::path::{Path, PathBuf};
use std::process::Stdio;

use chatmd_tests::sim_editor::{Behaviour, SimEditor};
use chatmd_tests::{TestClient, file_uri};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use crate::setup::{Setup, finished, redact, send};

/// The built `chatmd lsp` run with `path` as its `PATH`, over the test client's pipes.
fn server_with_path(s: &Setup, path: &str) -> TestClient {
    let mut command = tokio::process::Command::new(assert_cmd::cargo::cargo_bin("chatmd"));
    command
        .arg("lsp")
        .env("PATH", path)
        .env("XDG_CONFIG_HOME", s.config.path())
        .stderr(Stdio::null());
    TestClient::spawn_process(command)
        .expect("start chatmd lsp")
        .0
}

async fn initialize(client: &mut TestClient, root: &Path, agent_path: &Path) {
    let params = json!({
        "processId": null,
        "capabilities": {"general": {"positionEncodings": ["utf-8"]}},
        "rootUri": file_uri(root),
        "workspaceFolders": [{"uri": file_uri(root), "name": "ws"}],
        "initializationOptions": {"agentPath": agent_path},
    });
    client
        .request("initialize", params)
        .await
        .expect("initialize");
    client.notify("initialized", json!({})).await;
}

/// `chatmd members --json` on `chat` with `path` as `PATH`: the tester's `cli`.
fn members_cli(s: &Setup, chat: &Path, path: &str) -> Value {
    let output = std::process::Command::new(assert_cmd::cargo::cargo_bin("chatmd"))
        .args(["members", "--json"])
        .arg(chat)
        .env("PATH", path)
        .env("XDG_CONFIG_HOME", s.config.path())
        .stdin(Stdio::null())
        .output()
        .expect("run chatmd members");
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    let report: Value = serde_json::from_slice(&output.stdout).expect("JSON");
    let members = report["members"].as_array().expect("members");
    let tester = members.iter().find(|m| m["handle"] == "tester");
    tester.expect("the tester")["cli"].clone()
}

/// The hover on the member mentioned at the start of line 2 of the chat at `uri`.
async fn hover_on_the_member(editor: &mut SimEditor, uri: &str) -> Value {
    editor
        .client
        .request(
            "textDocument/hover",
            json!({"textDocument": {"uri": uri}, "position": {"line": 1, "character": 3}}),
        )
        .await
        .expect("hover")
}

#[tokio::test]
async fn a_cli_only_on_path_is_installed_for_every_feature_and_its_turn_runs() {
    let s = Setup::new(&[("tester", &[("FAKE_AGENT_TEXT", "Tests: added.")])]);
    // The CLIs on PATH, outside the workspace, where a user installs them; the editor's
    // agentPath names an empty folder.
    let on_path = tempfile::tempdir().expect("temp dir");
    let fake = PathBuf::from(env!("CARGO_BIN_EXE_fake-agent"));
    let bin = chatmd_tests::fake_agent::install(&fake, on_path.path()).expect("install");
    let agent_path = tempfile::tempdir().expect("temp dir");
    let path = format!("{}:/usr/bin:/bin", bin.display());
    let codex = bin.join("codex");
    let chat = "## @me\n@tester write tests.\n";
    s.write("team/path.chat.md", chat);

    let cli = members_cli(&s, &s.path("team/path.chat.md"), &path);
    assert_eq!(
        cli,
        json!({
            "binary": "codex",
            "path": codex.display().to_string(),
            "version": "codex-cli 0.169.0",
            "version_note": null,
            "version_warning": null,
            "install_command": "npm install -g @openai/codex",
        })
    );

    let mut client = server_with_path(&s, &path);
    initialize(&mut client, s.dir.path(), agent_path.path()).await;
    let mut editor = SimEditor::new(client, Behaviour::VsCode, true);
    let uri = s.uri("team/path.chat.md");
    editor.open(&uri, chat).await;
    let diagnostics = editor.client.expect_diagnostics(&uri).await;
    assert_eq!(diagnostics, Vec::<Value>::new(), "no `cli-missing`");

    let hover = hover_on_the_member(&mut editor, &uri).await;
    let tester = s.path("team/tester");
    let role = tester.join("AGENTS.md");
    assert_eq!(
        hover["contents"]["value"].as_str().expect("markdown"),
        format!(
            "**@tester** — codex\n\nWrites tests\n\n- workdir: `{}`\n- role file: `{}`\n\
             - the CLI also loads: `{}`\n- CLI: `{}` (codex-cli 0.169.0)\n",
            tester.display(),
            role.display(),
            role.display(),
            codex.display()
        )
    );

    send(&mut editor, &uri).await;
    editor
        .run_until("the answer", |e| finished(e.text(&uri)))
        .await;
    let status = regex::Regex::new(r"<!-- chatmd id=(t\d+) agent=(\w+) status=(\w+)[^>]*-->")
        .expect("regex");
    assert_eq!(
        status.replace_all(&redact(editor.text(&uri)), "<!-- $1 $2 $3 -->"),
        "## @me\n@tester write tests.\n\n## @tester\n<!-- t1 codex done -->\nTests: added.\n\n## @me\n"
    );
}

#[tokio::test]
async fn a_member_program_that_is_missing_is_flagged_whatever_its_kind() {
    let s = Setup::new(&[]);
    s.write(
        "team/chatmd.toml",
        "[members.linter]\nagent = \"codex\"\ncommand = \"lint-bot-not-installed\"\n",
    );
    s.write("team/linter/AGENTS.md", "# Lints\n");
    let chat = "## @me\n@linter check it.\n";
    s.write("team/lint.chat.md", chat);
    let mut editor = s.editor(Behaviour::VsCode).await;
    let uri = s.uri("team/lint.chat.md");
    editor.open(&uri, chat).await;
    let diagnostics = editor.client.expect_diagnostics(&uri).await;
    assert_eq!(
        chatmd_tests::views::summarize(&diagnostics),
        [
            "1:1-1:7 2 cli-missing @linter runs codex, but `lint-bot-not-installed` is not installed (not found on PATH)."
        ]
    );
    let hover = hover_on_the_member(&mut editor, &uri).await;
    let markdown = hover["contents"]["value"].as_str().expect("markdown");
    assert!(
        markdown.ends_with(
            "- program: **`lint-bot-not-installed` is not installed (not found on PATH)**\n"
        ),
        "{markdown}"
    );
}
