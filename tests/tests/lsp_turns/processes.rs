//! An editor and `chatmd send` on the same chat: the one that runs turns holds the
//! chat's lock, the other says who is answering and runs nothing; an editor opening
//! a chat neither marks nor takes over a turn that a live `chatmd send` runs, and
//! marks one left by a process that is gone.

use std::process::{Command, Output, Stdio};
use std::time::Duration;

use chatmd_tests::sim_editor::Behaviour;
use pretty_assertions::assert_eq;
use serde_json::json;

use crate::setup::{Setup, file_until, finished, redact, send};

const SESSION: &str = "5e55a000-0000-4000-8000-000000000001";

fn chatmd_send(s: &Setup, rel: &str) -> Command {
    let mut c = Command::new(assert_cmd::cargo::cargo_bin("chatmd"));
    c.args(["send", rel])
        .current_dir(s.dir.path())
        .env("PATH", format!("{}:/usr/bin:/bin", s.bin.display()))
        .env("HOME", s.dir.path())
        .env("XDG_CONFIG_HOME", s.config.path())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    c
}

/// Waits for a process off the test's runtime (the server runs on it), within a deadline.
async fn finish(child: std::process::Child) -> Output {
    let waited = tokio::task::spawn_blocking(move || child.wait_with_output());
    tokio::time::timeout(Duration::from_secs(30), waited)
        .await
        .expect("chatmd send ended within 30 s")
        .unwrap()
        .unwrap()
}

fn runs(s: &Setup) -> usize {
    std::fs::read_to_string(s.path("runs.jsonl"))
        .unwrap_or_default()
        .lines()
        .count()
}

/// A reviewer that answers six words slowly, each run recorded in `runs.jsonl`.
fn setup() -> Setup {
    let s = Setup::new(&[(
        "reviewer",
        &[
            ("FAKE_AGENT_TEXT", "one two three four five six"),
            ("FAKE_AGENT_DELAY_MS", "100"),
            ("FAKE_AGENT_SESSION", SESSION),
            ("FAKE_AGENT_RECORD", "@RECORDS@/runs.jsonl"),
        ],
    )]);
    let config = s.read("team/chatmd.toml");
    let records = s.dir.path().display().to_string();
    s.write("team/chatmd.toml", &config.replace("@RECORDS@", &records));
    s
}

#[tokio::test]
async fn send_while_an_editor_answers_in_the_same_chat_says_who_and_runs_nothing() {
    let s = setup();
    let chat = "## @me\n@reviewer go\n";
    let (mut editor, uri) = s.open_chat(Behaviour::VsCode, "team/e.chat.md", chat).await;
    send(&mut editor, &uri).await;
    editor
        .run_until("the first words", |e| e.text(&uri).contains("one"))
        .await;
    let out = finish(chatmd_send(&s, "team/e.chat.md").spawn().unwrap()).await;
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        format!(
            "chatmd send: nothing was sent: @reviewer is answering in this chat, run by the chatmd server of an editor (pid {}). \
             Wait until it ends (or cancel it there) and send again.\n",
            std::process::id()
        )
    );
    assert_eq!(out.status.code(), Some(75));
    assert_eq!(s.read("team/e.chat.md"), chat, "the file was not touched");
    editor
        .run_until("the answer", |e| finished(e.text(&uri)))
        .await;
    assert_eq!(
        redact(editor.text(&uri)),
        format!(
            "## @me\n@reviewer go\n\
             \n## @reviewer\n<!-- chatmd id=t1 agent=claude status=done seen=0:35df51 started=… model=claude-opus-4-8 session={SESSION} took=… stop=end_turn exit=0 tokens=10/6 -->\n\
             one two three four five six\n\
             \n## @me\n"
        )
    );
    assert_eq!(runs(&s), 1, "the member ran once");
}

#[tokio::test]
async fn an_editor_neither_marks_nor_runs_a_turn_that_chatmd_send_is_running() {
    let s = setup();
    let chat = "## @me\n@reviewer go\n";
    s.write("team/c.chat.md", chat);
    let child = chatmd_send(&s, "team/c.chat.md").spawn().unwrap();
    let pid = child.id();
    let text = file_until(&s.path("team/c.chat.md"), "the first words", |t| {
        t.contains("one")
    })
    .await;
    let host = nix::unistd::gethostname().unwrap().into_string().unwrap();
    assert!(
        text.contains(&format!("status=streaming host={host} pid={pid} ")),
        "{text}"
    );
    // The user opens the chat, and asks the reviewer too.
    let mut editor = s.editor(Behaviour::VsCode).await;
    let uri = s.uri("team/c.chat.md");
    editor.open(&uri, &text).await;
    let answer = editor
        .command("chatmd.ask", json!({"uri": uri, "member": "reviewer"}))
        .await;
    assert_eq!(
        answer,
        Ok(json!({
            "members": [],
            "reason": format!("@reviewer was not asked: @reviewer is answering in this chat, run by `chatmd send` (pid {pid}); wait until it ends")
        }))
    );
    assert_eq!(editor.text(&uri), text, "no edit from the server");
    let out = finish(child).await;
    assert_eq!(String::from_utf8_lossy(&out.stderr), "@reviewer: done\n");
    assert_eq!(
        redact(&s.read("team/c.chat.md")),
        format!(
            "## @me\n@reviewer go\n\
             \n## @reviewer\n<!-- chatmd id=t1 agent=claude status=done seen=0:35df51 started=… model=claude-opus-4-8 session={SESSION} took=… stop=end_turn exit=0 tokens=10/6 -->\n\
             one two three four five six\n\
             \n## @me\n"
        )
    );
    assert_eq!(runs(&s), 1, "the member ran once");
}

#[tokio::test]
async fn a_turn_of_a_process_that_is_gone_is_interrupted_on_open_but_not_one_on_another_host() {
    let s = Setup::new(&[]);
    let mut gone = Command::new("true").spawn().unwrap();
    let dead = gone.id();
    gone.wait().unwrap();
    let host = nix::unistd::gethostname().unwrap().into_string().unwrap();
    let chat = format!(
        "## @me\n@reviewer @writer hi\n\
         \n## @writer\n<!-- chatmd id=t1 agent=gemini status=streaming host=elsewhere pid=1 started=2026-11-20T10:00:00Z -->\nStill wri\n\
         \n## @reviewer\n<!-- chatmd id=t2 agent=claude status=streaming host={host} pid={dead} started=2026-11-20T10:00:00Z -->\nHalf an ans\n"
    );
    let (mut editor, uri) = s
        .open_chat(Behaviour::VsCode, "team/g.chat.md", &chat)
        .await;
    editor
        .run_until("the status rewritten", |e| {
            e.text(&uri).contains("status=interrupted")
        })
        .await;
    assert_eq!(
        editor.text(&uri),
        "## @me\n@reviewer @writer hi\n\
         \n## @writer\n<!-- chatmd id=t1 agent=gemini status=streaming host=elsewhere pid=1 started=2026-11-20T10:00:00Z -->\nStill wri\n\
         \n## @reviewer\n<!-- chatmd id=t2 agent=claude status=interrupted started=2026-11-20T10:00:00Z -->\nHalf an ans\n"
    );
}
