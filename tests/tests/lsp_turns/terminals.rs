//! Commands an ACP member runs through chatmd's terminal (the fake `gemini --acp`'s
//! `MOCK-MODE=terminal`): chatmd runs them in the member's workdir, their output shows
//! folded under the tool line while they run and after, the agent gets the schema's
//! answers (exit code, output), and a cancel of the turn kills the command.

use chatmd_tests::sim_editor::{Behaviour, SimEditor};
use pretty_assertions::assert_eq;
use serde_json::json;

use crate::setup::{Setup, finished, redact, send};

fn acp_writer() -> Setup {
    let s = Setup::new(&[]);
    s.write(
        "team/chatmd.toml",
        "[members.writer]\nagent = \"acp\"\npreset = \"gemini\"\n",
    );
    s
}

async fn sent(s: &Setup, ask: &str) -> (SimEditor, String) {
    let (mut editor, uri) = s
        .open_chat(Behaviour::VsCode, "team/run.chat.md", ask)
        .await;
    send(&mut editor, &uri).await;
    (editor, uri)
}

#[tokio::test]
async fn a_terminals_output_shows_folded_under_its_tool_line() {
    let s = acp_writer();
    let ask = "## @me\n@writer MOCK-MODE=terminal count\n";
    let (mut editor, uri) = sent(&s, ask).await;
    editor
        .run_until("the answer", |e| finished(e.text(&uri)))
        .await;
    let session = regex::Regex::new(r"session=[0-9a-f-]+").expect("regex");
    assert_eq!(
        session.replace(&redact(editor.text(&uri)), "session=…"),
        format!(
            "{ask}\n## @writer\n<!-- chatmd id=t1 agent=acp status=done started=… model=auto \
             session=… took=… stop=end_turn exit=0 tokens=11865/17 -->\n\
             > - Execute: sh -c printf 'line 1\\nline 2\\nline 3\\n'; exit 3 — completed\n\n\
             <details><summary>Output</summary>\n\n```text\nline 1\nline 2\nline 3\n```\n\n\
             </details>\n\nANSWER-gemini role_seen=no marker_count=0 roles=none team=0 turn=1 \
             user_msgs=1 assistant_msgs=1 ask=- tool_result=\"exit=3 signal=null \
             truncated=false output=line 1|line 2|line 3\"\n\n## @me\n"
        )
    );
}

#[tokio::test]
async fn cancel_kills_a_command_that_still_runs() {
    let s = acp_writer();
    let ask = "## @me\n@writer MOCK-MODE=terminal RUN=sleep\n";
    let (mut editor, uri) = sent(&s, ask).await;
    // The output streams while the command runs.
    editor
        .run_until("the command's first line", |e| {
            e.text(&uri).contains("```text\nwaiting\n```")
        })
        .await;
    let pid = std::fs::read_to_string(s.path("team/writer/terminal.pid")).expect("the pid");
    let proc = std::path::PathBuf::from(format!("/proc/{}", pid.trim()));
    assert!(proc.exists(), "the command runs");
    let cancelled = editor
        .command("chatmd.cancel", json!({"uri": uri}))
        .await
        .expect("an answer");
    assert_eq!(cancelled["cancelled"], json!(["writer"]));
    editor
        .run_until("the end", |e| e.text(&uri).contains("status=cancelled"))
        .await;
    // Killed with its turn, and reaped before the turn's end was written: on a busy
    // machine a `SIGKILL`ed process can still be running when its signal was sent.
    let state = std::fs::read_to_string(proc.join("stat")).unwrap_or_default();
    assert_eq!(state, "", "the command is still there");
}
