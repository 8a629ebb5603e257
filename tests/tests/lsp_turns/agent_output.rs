//! What the CLIs say besides their answer, in the editor: a retry in the turn's
//! `$/progress` message and in its status comment, an authentication failure that
//! ends the progress with the login hint, and the "not allowed" block written into
//! the document like the answer.

use chatmd_tests::sim_editor::Behaviour;
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use crate::setup::{Setup, finished, progress_of, redact, send};

/// Every `$/progress` value of the first turn's token, up to its end.
async fn progress_until_end(editor: &mut chatmd_tests::sim_editor::SimEditor) -> Vec<Value> {
    let created = editor
        .client
        .expect_auto_answered("window/workDoneProgress/create")
        .await;
    let token = created["token"].clone();
    let mut values = Vec::new();
    while values.last().is_none_or(|v: &Value| v["kind"] != "end") {
        let note = editor.client.expect_notification("$/progress").await;
        values.extend(progress_of(&[note], &token));
    }
    values
}

#[tokio::test]
async fn a_retry_shows_in_the_progress_and_the_status() {
    let s = Setup::new(&[("reviewer", &[("FAKE_AGENT_TRANSCRIPT", "retry")])]);
    let chat = "## @me\n@reviewer are you there?\n";
    let (mut editor, uri) = s.open_chat(Behaviour::VsCode, "team/r.chat.md", chat).await;
    send(&mut editor, &uri).await;
    editor
        .run_until("the answer", |e| finished(e.text(&uri)))
        .await;
    let values = progress_until_end(&mut editor).await;
    let messages: Vec<&str> = values
        .iter()
        .filter(|v| v["kind"] == "report")
        .filter_map(|v| v["message"].as_str())
        .filter(|m| m.starts_with("retrying"))
        .collect();
    assert_eq!(
        messages,
        [
            "retrying (1/10): 529 Overloaded",
            "retrying (2/10): 529 Overloaded"
        ]
    );
    assert_eq!(
        values
            .iter()
            .find(|v| v["message"] == "retrying (1/10): 529 Overloaded"),
        Some(
            &json!({"kind": "report", "cancellable": true, "message": "retrying (1/10): 529 Overloaded"})
        )
    );
    assert_eq!(
        redact(editor.text(&uri)),
        "## @me\n@reviewer are you there?\n\
         \n## @reviewer\n<!-- chatmd id=t1 agent=claude status=done seen=0:b0cf70 started=… model=claude-opus-4-8 session=3b9d2f60-7a1e-4c8b-b5d4-2e6f0a9c8d17 retry=2/10 cost=\"0.0004 USD\" took=… stop=end_turn exit=0 tokens=90/6 -->\n\
         Third time lucky.\n\
         \n## @me\n"
    );
}

#[tokio::test]
async fn a_refused_key_ends_the_progress_with_how_to_log_in() {
    let s = Setup::new(&[(
        "reviewer",
        &[
            ("FAKE_AGENT_TRANSCRIPT", "auth-401"),
            ("FAKE_AGENT_HANG_AFTER", "2"),
        ],
    )]);
    let chat = "## @me\n@reviewer hi\n";
    let (mut editor, uri) = s.open_chat(Behaviour::Neovim, "team/k.chat.md", chat).await;
    send(&mut editor, &uri).await;
    editor
        .run_until("the failed turn", |e| finished(e.text(&uri)))
        .await;
    let values = progress_until_end(&mut editor).await;
    let end = values.last().unwrap()["message"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(
        end,
        "error: API error 401 authentication_failed. Log in with `claude /login` in a \
         terminal (with CLAUDE_CONFIG_DIR set to the member's `home` if it has one), or export ANTHROPIC_API_KEY before chatmd starts."
    );
    assert!(
        !values.iter().any(|v| v["message"]
            .as_str()
            .is_some_and(|m| m.starts_with("retrying"))),
        "an auth failure is not a retry: {values:?}"
    );
    let text = redact(editor.text(&uri));
    assert!(text.contains(" status=error "), "{text}");
}

#[tokio::test]
async fn refusals_are_written_at_the_end_of_the_answer() {
    let s = Setup::new(&[("reviewer", &[("FAKE_AGENT_TRANSCRIPT", "denied")])]);
    let chat = "## @me\n@reviewer create the files\n";
    let (mut editor, uri) = s.open_chat(Behaviour::VsCode, "team/d.chat.md", chat).await;
    send(&mut editor, &uri).await;
    editor
        .run_until("the answer", |e| finished(e.text(&uri)))
        .await;
    let text = redact(editor.text(&uri));
    assert!(
        text.ends_with(
            "I could not create the files: both the `touch` and the write need approval.\n\
             \n<details><summary>Tools (2)</summary>\n\
             \n\
             - Bash: touch tool-wrote.txt — failed: touch in '/home/dev/work/tool-wrote.txt' was blocked. For security, Claude Code may only create or modify files in the allowed working directories for this sess…\n\
             - Write: /home/dev/work/src/x.rs — failed: Claude requested permissions to write to /home/dev/work/src/x.rs, but you haven't granted it yet.\n\
             \n</details>\n\
             \n> **Not allowed** — @reviewer's `claude` refused 2 actions that need approval:\n\
             > - `Bash`: `touch tool-wrote.txt`\n\
             > - `Write`: `/home/dev/work/src/x.rs`\n\
             >\n\
             > To allow them for @reviewer, set its `args` in chatmd.toml (`[members.reviewer]`): `args = [\"--allowedTools\", \"Bash(touch:*)\", \"Write\"]`\n\
             \n## @me\n"
        ),
        "{text}"
    );
    assert!(text.contains(" tokens=57599/48 denied=2 -->"), "{text}");
}
