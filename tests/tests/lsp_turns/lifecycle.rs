//! One turn from start to end: the command, the streamed answer, the status comment,
//! the progress, the running-turns list; cancel from a command and from the progress;
//! a document closed unsaved mid-turn (a turn left by a killed server and a document
//! closed, renamed or deleted mid-turn are rows of `reliability.rs`).

use chatmd_tests::sim_editor::{Behaviour, SimEditor};
use pretty_assertions::assert_eq;
use serde_json::json;

use crate::setup::{
    At, Setup, file_until, finished, nothing_more, progress_of, redact, send, turns_ended,
};

const SESSION: &str = "5e55a000-0000-4000-8000-000000000001";

/// A reviewer that answers "first second third fourth" a word at a time, `delay_ms`
/// apart, in session [`SESSION`].
fn reviewer_answering_slowly(delay_ms: &str) -> Setup {
    Setup::new(&[(
        "reviewer",
        &[
            ("FAKE_AGENT_TEXT", "first second third fourth"),
            ("FAKE_AGENT_DELAY_MS", delay_ms),
            ("FAKE_AGENT_SESSION", SESSION),
        ],
    )])
}

/// `## @me\n@reviewer go\n` once that reviewer answered (times redacted).
const ANSWERED: &str = "## @me\n@reviewer go\n\
    \n## @reviewer\n<!-- chatmd id=t1 agent=claude status=done seen=0:35df51 started=… model=claude-opus-4-8 \
    session=5e55a000-0000-4000-8000-000000000001 took=… stop=end_turn exit=0 tokens=10/4 -->\n\
    first second third fourth\n\
    \n## @me\n";

#[tokio::test]
async fn send_streams_the_answer_into_the_document_with_progress() {
    let s = Setup::new(&[(
        "reviewer",
        &[
            ("FAKE_AGENT_TEXT", "Looks good: one nit in `refund()`."),
            ("FAKE_AGENT_SESSION", SESSION),
        ],
    )]);
    let chat = "## @me\n@reviewer please review.\n";
    let (mut editor, uri) = s
        .open_chat(Behaviour::VsCode, "team/review.chat.md", chat)
        .await;
    let answer = editor.command("chatmd.send", json!({"uri": uri})).await;
    assert_eq!(answer, Ok(json!({"members": ["reviewer"]})));
    editor
        .run_until("the answer", |e| finished(e.text(&uri)))
        .await;
    assert_eq!(
        redact(editor.text(&uri)),
        format!(
            "## @me\n@reviewer please review.\n\
             \n## @reviewer\n<!-- chatmd id=t1 agent=claude status=done seen=0:d0f31a started=… model=claude-opus-4-8 session={SESSION} took=… stop=end_turn exit=0 tokens=10/6 -->\n\
             Looks good: one nit in `refund()`.\n\
             \n## @me\n"
        )
    );
    // The progress: created, begun with the member's handle, ended with the outcome.
    let created = editor
        .client
        .expect_auto_answered("window/workDoneProgress/create")
        .await;
    let token = created["token"].clone();
    let mut values = Vec::new();
    while values
        .last()
        .is_none_or(|v: &serde_json::Value| v["kind"] != "end")
    {
        let note = editor.client.expect_notification("$/progress").await;
        values.extend(progress_of(&[note], &token));
    }
    assert_eq!(
        values[0],
        json!({"kind": "begin", "title": "@reviewer", "cancellable": true, "message": "starting"})
    );
    let end = values.last().unwrap()["message"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(end.starts_with("done "), "{end}");
    // The running-turns list is empty again, and said so when it changed.
    let turns = editor.client.request("chatmd/turns", json!({})).await;
    assert_eq!(turns, Ok(json!({"turns": []})));
    let started = editor
        .client
        .expect_notification("chatmd/turnsChanged")
        .await;
    assert_eq!(started["turns"][0]["member"], "reviewer");
    assert_eq!(started["turns"][0]["uri"], uri.as_str());
    let ended = editor
        .client
        .expect_notification("chatmd/turnsChanged")
        .await;
    assert_eq!(ended, json!({"turns": []}));
}

#[tokio::test]
async fn cancel_keeps_the_partial_answer_closes_its_fence_and_ends_the_process() {
    let pid_file = tempfile::NamedTempFile::new().unwrap();
    let pid_path = pid_file.path().display().to_string();
    // Three text deltas come after three lines of preamble; then the agent hangs, with
    // a child of its own in its process group.
    let s = Setup::new(&[(
        "reviewer",
        &[
            ("FAKE_AGENT_TEXT", "Here:\n```rust\nfn refund() {"),
            ("FAKE_AGENT_CHUNKS", "3"),
            ("FAKE_AGENT_HANG_AFTER", "6"),
            ("FAKE_AGENT_GRANDCHILD", "1"),
            ("FAKE_AGENT_GRANDCHILD_PID", &pid_path),
        ],
    )]);
    let chat = "## @me\n@reviewer show me\n";
    let (mut editor, uri) = s.open_chat(Behaviour::VsCode, "team/c.chat.md", chat).await;
    send(&mut editor, &uri).await;
    editor
        .run_until("the partial answer", |e| {
            e.text(&uri).contains("```rust\nfn")
        })
        .await;
    let turns = editor
        .client
        .request("chatmd/turns", json!({}))
        .await
        .unwrap();
    assert_eq!(turns["turns"][0]["member"], "reviewer");
    let answer = editor
        .command("chatmd.cancel", json!({"uri": uri, "member": "reviewer"}))
        .await;
    assert_eq!(answer, Ok(json!({"cancelled": ["reviewer"]})));
    editor
        .run_until("the cancelled turn", |e| finished(e.text(&uri)))
        .await;
    let text = redact(editor.text(&uri));
    assert!(
        text.starts_with(
            "## @me\n@reviewer show me\n\n## @reviewer\n<!-- chatmd id=t1 agent=claude status=cancelled seen=0:fca556 started=… "
        ),
        "{text}"
    );
    assert!(
        text.ends_with("-->\nHere:\n```rust\nfn refund() {\n```\n\n## @me\n"),
        "{text}"
    );
    let turns = editor.client.request("chatmd/turns", json!({})).await;
    assert_eq!(turns, Ok(json!({"turns": []})));
    let pid: u32 = std::fs::read_to_string(pid_file.path())
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert!(!alive(pid), "the agent's child {pid} survived the cancel");
}

/// Whether a process exists and is not a zombie.
fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        stat.rsplit(')')
            .next()
            .and_then(|s| s.split_whitespace().next())
            != Some("Z")
    })
}

#[tokio::test]
async fn the_progress_cancel_button_cancels_the_turn() {
    let s = Setup::new(&[(
        "reviewer",
        &[
            ("FAKE_AGENT_TEXT", "Partial answer"),
            ("FAKE_AGENT_CHUNKS", "2"),
            ("FAKE_AGENT_HANG_AFTER", "5"),
        ],
    )]);
    let chat = "## @me\n@reviewer go\n";
    let (mut editor, uri) = s.open_chat(Behaviour::Neovim, "team/p.chat.md", chat).await;
    send(&mut editor, &uri).await;
    editor
        .run_until("the partial answer", |e| {
            e.text(&uri).contains("Partial answer")
        })
        .await;
    let created = editor
        .client
        .expect_auto_answered("window/workDoneProgress/create")
        .await;
    editor
        .client
        .notify(
            "window/workDoneProgress/cancel",
            json!({"token": created["token"]}),
        )
        .await;
    editor
        .run_until("the cancelled turn", |e| finished(e.text(&uri)))
        .await;
    let text = redact(editor.text(&uri));
    assert!(text.contains("status=cancelled"), "{text}");
    assert!(text.ends_with("-->\nPartial answer\n\n## @me\n"), "{text}");
}

#[tokio::test]
async fn a_document_closed_unsaved_mid_turn_gets_its_section_appended_on_disk() {
    let s = reviewer_answering_slowly("150");
    let chat = "## @me\n@reviewer go\n";
    let (mut editor, uri) = s.open_chat(Behaviour::VsCode, "team/u.chat.md", chat).await;
    // Typed in the editor, never saved: the file on disk does not have it.
    editor
        .type_text(&uri, At::Before("## @me".into()), "# Draft notes\n\n")
        .await;
    send(&mut editor, &uri).await;
    editor
        .run_until("the first words", |e| e.text(&uri).contains("first"))
        .await;
    assert!(editor.text(&uri).starts_with("# Draft notes\n\n## @me\n"));
    // The user closes the chat and discards the changes.
    editor.close(&uri).await;
    turns_ended(&mut editor).await;
    let path = s.path("team/u.chat.md");
    let text = file_until(&path, "the reply stub", |t| t.ends_with("\n## @me\n")).await;
    // The file on disk, then the turn's section (heading, status, the whole answer):
    // never the buffer's offsets applied to another text.
    assert_eq!(redact(&text), ANSWERED);
}

#[tokio::test]
async fn a_document_saved_mid_turn_then_closed_unsaved_keeps_one_copy_of_the_section() {
    let s = reviewer_answering_slowly("150");
    let chat = "## @me\n@reviewer go\n";
    let (mut editor, uri) = s.open_chat(Behaviour::Neovim, "team/v.chat.md", chat).await;
    send(&mut editor, &uri).await;
    editor
        .run_until("the first words", |e| e.text(&uri).contains("first"))
        .await;
    // Saved with part of the answer, then edited and closed without saving.
    s.write("team/v.chat.md", editor.text(&uri));
    editor
        .type_text(&uri, At::Before("## @me".into()), "# Unsaved\n\n")
        .await;
    editor
        .run_until("more words", |e| e.text(&uri).contains("second"))
        .await;
    editor.close(&uri).await;
    turns_ended(&mut editor).await;
    let path = s.path("team/v.chat.md");
    let text = file_until(&path, "the reply stub", |t| t.ends_with("\n## @me\n")).await;
    assert_eq!(redact(&text), ANSWERED);
}

/// A chat the editor has not opened, sent to a reviewer answering a word every
/// `delay_ms`: its answer goes into the file, which is read once it holds the first
/// words (the copy an editor opening it then reads). The setup (kept alive), the editor,
/// the chat's URI and path, and that copy.
async fn read_while_answered(
    behaviour: Behaviour,
    delay_ms: &str,
) -> (Setup, SimEditor, (String, std::path::PathBuf), String) {
    let s = reviewer_answering_slowly(delay_ms);
    s.write("team/o.chat.md", "## @me\n@reviewer go\n");
    let uri = s.uri("team/o.chat.md");
    let path = s.path("team/o.chat.md");
    let mut editor = s.editor(behaviour).await;
    send(&mut editor, &uri).await;
    let older = file_until(&path, "the first words", |t| t.contains("first")).await;
    (s, editor, (uri, path), older)
}

/// The editor opens a chat whose turn writes into the file, and reads the file just
/// before chatmd writes the next words: its `didOpen` carries the older text. That text
/// is not the user undoing the answer: the buffer gets the missing words, and the
/// answer goes on after them, whole and once.
#[tokio::test]
async fn a_chat_opened_with_an_older_text_of_its_file_mid_turn_is_brought_up_to_date() {
    for behaviour in [Behaviour::VsCode, Behaviour::Neovim] {
        let (_s, mut editor, (uri, path), older) = read_while_answered(behaviour, "300").await;
        file_until(&path, "the next words", |t| t.contains("second")).await;
        editor.open(&uri, &older).await;
        editor
            .run_until("the answer in the buffer", |e| finished(e.text(&uri)))
            .await;
        assert_eq!(redact(editor.text(&uri)), ANSWERED, "{behaviour:?}");
    }
}

/// The same when the editor reads the file just before the turn's last words and its
/// `didOpen` is handled after the run ended: nobody is left to write into the file, and
/// the server itself brings the buffer up to date (Neovim reading the file again raced
/// that edit and wrote the answer twice over). The older copy's `streaming` turn is
/// finished, not interrupted, and nothing more is edited.
#[tokio::test]
async fn a_chat_opened_with_an_older_text_of_its_file_after_its_run_ended_is_brought_up_to_date() {
    for behaviour in [Behaviour::VsCode, Behaviour::Neovim] {
        let (_s, mut editor, (uri, path), older) = read_while_answered(behaviour, "50").await;
        turns_ended(&mut editor).await;
        let latest = file_until(&path, "the answer", finished).await;
        editor.open(&uri, &older).await;
        editor
            .run_until("the answer in the buffer", |e| e.text(&uri) == latest)
            .await;
        assert_eq!(redact(editor.text(&uri)), ANSWERED, "{behaviour:?}");
        nothing_more(&mut editor).await;
        assert_eq!(editor.text(&uri), latest, "{behaviour:?}");
    }
}
