//! Edit-aware sessions for ACP members, who resume by default: claude-agent-acp
//! continues its session (`session/resume`), so editing a message it saw is warned
//! about; `gemini --acp` offers no `session/resume` and starts a new session with the
//! file every turn, so its answers carry no `seen=` record and no edit is warned about.

use chatmd_tests::sim_editor::{At, Behaviour, SimEditor};
use pretty_assertions::assert_eq;
use serde_json::Value;

use crate::setup::{Setup, send_until_done};

/// A workspace whose writer is the fake ACP agent of `preset`, with no `resume` key.
fn writer(preset: &str) -> Setup {
    let s = Setup::new(&[]);
    let fake = std::path::PathBuf::from(env!("CARGO_BIN_EXE_fake-agent"));
    chatmd_tests::fake_agent::install_acp(&fake, &s.bin).expect("install the ACP fakes");
    s.write(
        "team/chatmd.toml",
        &format!(
            "[members.writer]\nagent = \"acp\"\npreset = \"{preset}\"\n\n\
             [members.writer.env]\nIS_SANDBOX = \"1\"\n\
             CLAUDE_CONFIG_DIR = \"{state}\"\nGEMINI_CLI_HOME = \"{state}\"\n",
            state = s.path("state").display()
        ),
    );
    s
}

/// Two turns of the writer, then the user edits the first message (which both turns'
/// sessions saw); returns the seen warnings published after the edit once they number
/// `warnings`, and the document's text.
async fn edited_after_two_turns(s: &Setup, warnings: usize) -> (Vec<Value>, String) {
    let (mut editor, uri) = s
        .open_chat(
            Behaviour::VsCode,
            "team/a.chat.md",
            "## @me\n@writer say hello\n",
        )
        .await;
    send_until_done(&mut editor, &uri, 1).await;
    editor.type_text(&uri, At::End, "@writer and again\n").await;
    send_until_done(&mut editor, &uri, 2).await;
    editor
        .type_text(&uri, At::After("say hello".into()), ", revised")
        .await;
    let found = seen_warnings_until(&mut editor, &uri, warnings).await;
    (found, editor.text(&uri).to_owned())
}

async fn seen_warnings_until(editor: &mut SimEditor, uri: &str, n: usize) -> Vec<Value> {
    loop {
        let found: Vec<Value> = editor
            .client
            .expect_diagnostics(uri)
            .await
            .into_iter()
            .filter(|d| d["code"] == "seen-earlier-version")
            .collect();
        if found.len() == n {
            return found;
        }
    }
}

#[tokio::test]
async fn an_acp_agent_that_resumes_is_warned_about_an_edit_it_saw() {
    let s = writer("claude");
    let (found, text) = edited_after_two_turns(&s, 1).await;
    assert_eq!(
        found[0]["range"]["start"]["line"], 0,
        "on the edited message"
    );
    assert!(text.contains("seen=+"), "the second turn resumed: {text}");
}

#[tokio::test]
async fn an_acp_agent_that_cannot_resume_keeps_no_record_and_is_not_warned() {
    let s = writer("gemini");
    let (found, text) = edited_after_two_turns(&s, 0).await;
    assert_eq!(found, Vec::<Value>::new());
    assert!(!text.contains(" seen="), "{text}");
}
