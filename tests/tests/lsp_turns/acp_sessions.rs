//! An ACP member's session from the editor (the fake `claude-agent-acp`): its `mode`
//! set before each prompt, a crashed agent started again on the next Send and resuming
//! its session, a mode the agent does not offer failing the turn before the prompt, and
//! cancel while the answer streams (`session/cancel`, the agent's own `cancelled`, no
//! process left). What the agent received is in its log, its runs in `runs.jsonl`.

use chatmd_tests::fake_agent::acp::{methods_received, requests_received};
use chatmd_tests::sim_editor::{At, Behaviour};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use crate::setup::{Setup, finished, redact, send, turns_ended};

/// A workspace whose writer is `claude-agent-acp` with `more` lines in its table.
fn acp_writer(more: &str) -> Setup {
    let s = Setup::acp_writer(more, "FAKE_AGENT_DELAY_MS = \"50\"\n");
    let runs = s.path("runs.jsonl").display().to_string();
    let config = s.read("team/chatmd.toml");
    s.write(
        "team/chatmd.toml",
        &format!("{config}FAKE_AGENT_RECORD = \"{runs}\"\n"),
    );
    s
}

fn methods(s: &Setup) -> Vec<String> {
    methods_received(&s.path("acp.jsonl"))
}

/// The `n`th (from 1) status comment of `text`.
fn status(text: &str, n: usize) -> String {
    text.lines()
        .filter(|l| l.starts_with("<!-- chatmd id="))
        .nth(n - 1)
        .unwrap_or_default()
        .to_owned()
}

/// Every run of the agent has ended (a zombie not yet reaped counts as ended).
fn no_agent_left(s: &Setup) {
    let runs = std::fs::read_to_string(s.path("runs.jsonl")).unwrap_or_default();
    for run in runs.lines() {
        let pid = serde_json::from_str::<Value>(run).expect("JSON")["pid"].clone();
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        assert!(
            stat.is_empty() || stat.contains(") Z"),
            "agent {pid} is still running"
        );
    }
}

#[tokio::test]
async fn a_crashed_agent_is_started_again_on_the_next_send_and_resumes_its_session() {
    let s = acp_writer("resume = true\nmode = \"plan\"");
    let (mut editor, uri) = s
        .open_chat(
            Behaviour::VsCode,
            "team/c.chat.md",
            "## @me\n@writer MOCK-MODE=crash go\n",
        )
        .await;
    send(&mut editor, &uri).await;
    editor
        .run_until("the crash", |e| finished(e.text(&uri)))
        .await;
    turns_ended(&mut editor).await;
    let text = redact(editor.text(&uri));
    let first = status(&text, 1);
    assert!(first.contains(" status=error "), "{text}");
    assert!(first.contains(" mode=plan "), "{first}");
    assert!(
        text.contains("the agent crashed in the middle of the prompt (MOCK-MODE=crash)"),
        "in the agent's words: {text}"
    );
    let session = first
        .split(' ')
        .find_map(|f| f.strip_prefix("session="))
        .expect("the session is in the status")
        .to_owned();

    editor.type_text(&uri, At::End, "@writer and now?\n").await;
    send(&mut editor, &uri).await;
    editor
        .run_until("the second answer", |e| {
            finished(e.text(&uri)) && e.text(&uri).contains("status=done")
        })
        .await;
    turns_ended(&mut editor).await;
    assert_eq!(
        methods(&s),
        [
            "initialize",
            "session/new",
            "session/set_config_option",
            "session/prompt",
            "initialize",
            "session/resume",
            "session/set_config_option",
            "session/prompt",
        ]
    );
    let resumed: Vec<Value> = requests_received(&s.path("acp.jsonl"))
        .into_iter()
        .filter(|(m, _)| m == "session/resume")
        .map(|(_, p)| p["sessionId"].clone())
        .collect();
    assert_eq!(resumed, [json!(session)]);
    let second = status(&redact(editor.text(&uri)), 2);
    assert!(second.contains(&format!(" session={session} ")), "{second}");
    assert!(second.contains(" mode=plan "), "{second}");
    // The answered second turn's agent stays warm until the server ends.
    editor.client.shutdown().await;
    no_agent_left(&s);
}

#[tokio::test]
async fn a_mode_the_agent_does_not_offer_fails_the_turn_before_the_prompt() {
    let s = acp_writer("mode = \"yolo\"");
    let (mut editor, uri) = s
        .open_chat(Behaviour::Neovim, "team/m.chat.md", "## @me\n@writer go\n")
        .await;
    send(&mut editor, &uri).await;
    editor
        .run_until("the failure", |e| finished(e.text(&uri)))
        .await;
    turns_ended(&mut editor).await;
    let text = redact(editor.text(&uri));
    let status = status(&text, 1);
    assert!(status.contains(" status=error "), "{text}");
    assert!(
        status.ends_with(
            " error=\"mode = \\\"yolo\\\" is not offered by claude-agent-acp; its modes: auto, \
             default, acceptEdits, plan, dontAsk, bypassPermissions\" -->"
        ),
        "{status}"
    );
    assert_eq!(methods(&s), ["initialize", "session/new"]);
    no_agent_left(&s);
}

#[tokio::test]
async fn cancel_while_the_answer_streams_sends_session_cancel_and_leaves_no_process() {
    let s = acp_writer("");
    let (mut editor, uri) = streaming_slowly(&s, "team/s.chat.md").await;
    let cancelled = editor
        .command("chatmd.cancel", json!({"uri": uri}))
        .await
        .expect("an answer");
    assert_eq!(cancelled["cancelled"], json!(["writer"]));
    editor
        .run_until("the end", |e| finished(e.text(&uri)))
        .await;
    turns_ended(&mut editor).await;
    assert_eq!(
        methods(&s),
        [
            "initialize",
            "session/new",
            "session/prompt",
            "session/cancel"
        ]
    );
    let text = redact(editor.text(&uri));
    let status = status(&text, 1);
    assert!(status.contains(" status=cancelled "), "{text}");
    // The agent ended the prompt itself within the grace: the stop reason is its own.
    assert!(status.contains(" stop=cancelled "), "{status}");
    assert!(!text.contains("SLOW-CHUNK-40"), "{text}");
    no_agent_left(&s);
}

#[tokio::test]
async fn server_shutdown_cancels_a_running_acp_turn_and_leaves_no_process() {
    let s = acp_writer("");
    let (mut editor, _chat) = streaming_slowly(&s, "team/q.chat.md").await;
    editor.client.shutdown().await;
    // The turn ends the agent's way: `session/cancel`, then its process ends.
    crate::setup::file_until(&s.path("acp.jsonl"), "session/cancel", |log| {
        log.contains("\"session/cancel\"")
    })
    .await;
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    let runs = std::fs::read_to_string(s.path("runs.jsonl")).expect("runs");
    for run in runs.lines() {
        let pid = serde_json::from_str::<Value>(run).expect("JSON")["pid"].clone();
        loop {
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
            if stat.is_empty() || stat.contains(") Z") {
                break;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "agent {pid} outlived the server"
            );
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
    }
    assert_eq!(
        methods(&s),
        [
            "initialize",
            "session/new",
            "session/prompt",
            "session/cancel"
        ]
    );
}

/// An editor with the chat `path` open, whose writer streams a slow answer (its first
/// chunks already in).
async fn streaming_slowly(s: &Setup, path: &str) -> (chatmd_tests::sim_editor::SimEditor, String) {
    let (mut editor, uri) = s
        .open_chat(
            Behaviour::VsCode,
            path,
            "## @me\n@writer MOCK-MODE=slow go\n",
        )
        .await;
    send(&mut editor, &uri).await;
    editor
        .run_until("the answer streaming", |e| {
            e.text(&uri).contains("SLOW-CHUNK-01")
        })
        .await;
    (editor, uri)
}
