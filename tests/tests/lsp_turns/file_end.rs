//! The end of the file belongs to the user: the next message typed at the end while an
//! answer streams, under every shape an editor gives its reports (ranges, Neovim's
//! split echo, the whole text at every change, VS Code's many small changes), key by
//! key or at once, and a draft started before an answer's first words. The user's text
//! is never moved or split, every answer stays whole in its own section, every status
//! comment ends final in its place, and the queued message goes out as typed.

use chatmd_tests::sim_editor::{Behaviour, Reports, SimEditor};
use pretty_assertions::assert_eq;
use serde_json::json;

use crate::setup::{At, Setup, plain, send, tester_prompts};

/// A reviewer that answers slowly (four chunks, 0.3 s apart, no line break) and a
/// tester that records each run.
fn setup() -> Setup {
    crate::setup::reviewer_and_recorded_tester(&[
        ("FAKE_AGENT_TEXT", "rounding is off by one cent"),
        ("FAKE_AGENT_CHUNKS", "4"),
        ("FAKE_AGENT_DELAY_MS", "300"),
    ])
}

const QUESTION: &str = "## @me\n@reviewer is the rounding right? QX77\n";
const NEXT: &str = "\n\n## @me\n@tester QUEUED-MARK-5 and then this. ASK-QUEUED\n";
const ANSWERED: &str = "## @me\n@reviewer is the rounding right? QX77\n\n## @reviewer\n\
    <!-- t1 claude done -->\nrounding is off by one cent\n\n\n## @me\n\
    @tester QUEUED-MARK-5 and then this. ASK-QUEUED\n\n## @tester\n<!-- t2 codex done -->\n\
    tests written\n\n## @me\n";

/// How the user types the next message.
#[derive(Clone, Copy)]
enum Typing {
    AtOnce,
    KeyByKey,
}

/// Sends the question, types `NEXT` at the end once the reviewer streams, Sends it
/// (queued), and checks the file byte for byte once both answered.
async fn next_message_at_the_end(
    behaviour: Behaviour,
    reports: Reports,
    typing: Typing,
    split: bool,
) {
    let s = setup();
    let (mut editor, uri) = s.open_chat(behaviour, "team/end.chat.md", QUESTION).await;
    editor.reports = reports;
    editor.split_echo = split;
    send(&mut editor, &uri).await;
    editor
        .run_until("the reviewer streaming", |e| {
            e.text(&uri).contains("status=streaming")
        })
        .await;
    match typing {
        Typing::AtOnce => editor.type_text(&uri, At::End, NEXT).await,
        Typing::KeyByKey => {
            for key in NEXT.chars() {
                editor.type_text(&uri, At::End, &key.to_string()).await;
            }
        }
    }
    let answer = editor.command("chatmd.send", json!({"uri": uri})).await;
    assert_eq!(answer, Ok(json!({"members": [], "queued": true})));
    until_answered(&mut editor, &uri, 2).await;
    assert_eq!(plain(editor.text(&uri)), ANSWERED);
    let prompts = tester_prompts(&s);
    assert_eq!(prompts.len(), 1, "delivered exactly once: {prompts:?}");
    assert!(
        prompts[0].contains("me: @tester QUEUED-MARK-5 and then this. ASK-QUEUED\n"),
        "{}",
        prompts[0]
    );
    let asked = &prompts[0][prompts[0].rfind("[MESSAGE]").unwrap_or(0)..];
    assert!(
        !asked.contains("rounding is off") && !asked.contains("chatmd"),
        "no answer text or record as the human's words: {asked}"
    );
}

/// Waits until `done` turns ended and the reply stub is there.
async fn until_answered(editor: &mut SimEditor, uri: &str, done: usize) {
    editor
        .run_until("every answer and the reply stub", |e| {
            let t = e.text(uri);
            t.matches("status=done").count() == done && t.ends_with("\n## @me\n")
        })
        .await;
    crate::setup::nothing_more(editor).await;
}

#[tokio::test]
async fn the_next_message_typed_at_the_end_with_whole_text_reports_vscode() {
    next_message_at_the_end(Behaviour::VsCode, Reports::WholeText, Typing::AtOnce, false).await;
}

#[tokio::test]
async fn the_next_message_typed_key_by_key_with_whole_text_reports_vscode() {
    next_message_at_the_end(
        Behaviour::VsCode,
        Reports::WholeText,
        Typing::KeyByKey,
        false,
    )
    .await;
}

#[tokio::test]
async fn the_next_message_typed_at_the_end_with_whole_text_reports_neovim() {
    next_message_at_the_end(
        Behaviour::Neovim,
        Reports::WholeText,
        Typing::KeyByKey,
        false,
    )
    .await;
}

#[tokio::test]
async fn the_next_message_typed_at_the_end_with_many_small_reports_vscode() {
    next_message_at_the_end(
        Behaviour::VsCode,
        Reports::ManySmall,
        Typing::KeyByKey,
        false,
    )
    .await;
}

#[tokio::test]
async fn the_next_message_typed_at_the_end_with_a_split_echo_neovim() {
    next_message_at_the_end(Behaviour::Neovim, Reports::Ranges, Typing::KeyByKey, true).await;
}

#[tokio::test]
async fn the_next_message_typed_at_the_end_with_ranges_vscode() {
    next_message_at_the_end(Behaviour::VsCode, Reports::Ranges, Typing::AtOnce, false).await;
}

/// Neovim: `o` on the status line while the section has no words yet, then a draft:
/// the answer streams above the draft, whole, and the draft goes out as typed.
#[tokio::test]
async fn a_draft_started_before_the_first_words_stays_below_the_answer_neovim() {
    let s = setup();
    let (mut editor, uri) = s
        .open_chat(Behaviour::Neovim, "team/draft.chat.md", QUESTION)
        .await;
    send(&mut editor, &uri).await;
    editor
        .run_until("the reviewer's section, no words yet", |e| {
            e.text(&uri).contains("status=streaming")
        })
        .await;
    assert!(
        editor.text(&uri).ends_with("-->\n"),
        "no words yet: {}",
        editor.text(&uri)
    );
    editor.open_line_at_end(&uri).await;
    let line = editor.text(&uri).len() - 1;
    editor
        .replace(&uri, line..line, "## @me\n@tester DRAFT-7 check it")
        .await;
    let answer = editor.command("chatmd.send", json!({"uri": uri})).await;
    assert_eq!(answer, Ok(json!({"members": [], "queued": true})));
    until_answered(&mut editor, &uri, 2).await;
    assert_eq!(
        plain(editor.text(&uri)),
        "## @me\n@reviewer is the rounding right? QX77\n\n## @reviewer\n\
         <!-- t1 claude done -->\nrounding is off by one cent\n## @me\n@tester DRAFT-7 check it\n\n\
         ## @tester\n<!-- t2 codex done -->\ntests written\n\n## @me\n"
    );
    let prompts = tester_prompts(&s);
    assert_eq!(prompts.len(), 1, "{prompts:?}");
    let asked = &prompts[0][prompts[0].rfind("[MESSAGE]").unwrap_or(0)..];
    assert!(asked.contains("me: @tester DRAFT-7 check it"), "{asked}");
    assert!(!asked.contains("rounding is off"), "{asked}");
}

/// The user deletes a streaming section: nothing of the turn is written anywhere
/// after that, and the turn stops.
#[tokio::test]
async fn a_section_the_user_deleted_is_written_nowhere() {
    let s = setup();
    let (mut editor, uri) = s
        .open_chat(Behaviour::VsCode, "team/gone.chat.md", QUESTION)
        .await;
    send(&mut editor, &uri).await;
    editor
        .run_until("the reviewer's first words", |e| {
            e.text(&uri).contains("-->\nrounding")
        })
        .await;
    let start = editor
        .text(&uri)
        .find("\n## @reviewer")
        .expect("the section");
    let end = editor.text(&uri).len();
    editor.delete(&uri, start..end).await;
    editor.type_text(&uri, At::End, "\nmy notes\n").await;
    // Edits already on their way are answered as the editor would (refused: stale).
    while let Ok((id, params)) = tokio::time::timeout(
        std::time::Duration::from_millis(500),
        editor.client.expect_request("workspace/applyEdit"),
    )
    .await
    {
        editor.handle_edit(id, params).await;
    }
    loop {
        let shown = editor
            .client
            .expect_notification("window/showMessage")
            .await;
        if shown["message"]
            .as_str()
            .is_some_and(|m| m.contains("@reviewer's section (t1) is no longer in the chat"))
        {
            break;
        }
    }
    crate::setup::nothing_more(&mut editor).await;
    assert_eq!(editor.text(&uri), format!("{QUESTION}\nmy notes\n"));
}

/// Steering with an editor that reports the whole text: the queued message typed at
/// the end goes into the writer's turn once, `status=steered` lands on the writer's
/// own status line (not in the user's message), and the answer goes on after it.
#[tokio::test]
async fn a_steered_message_typed_at_the_end_with_whole_text_reports() {
    let env = "FAKE_AGENT_DELAY_MS = \"100\"\nFAKE_ACP_STEERING = \"1\"\n";
    let s = Setup::acp_writer("", env);
    let (mut editor, uri) = s
        .open_chat(
            Behaviour::VsCode,
            "team/s.chat.md",
            "## @me\n@writer MOCK-MODE=slow go\n",
        )
        .await;
    editor.reports = Reports::WholeText;
    send(&mut editor, &uri).await;
    editor
        .run_until("the writer's first slow chunk", |e| {
            e.text(&uri).contains("SLOW-CHUNK-01")
        })
        .await;
    crate::setup::send_queued(&mut editor, &uri, "\n## @me\n@writer also check the docs\n").await;
    editor
        .run_until("the writer's turn ended and the reply stub", |e| {
            let t = e.text(&uri);
            t.contains("status=done") && t.ends_with("\n## @me\n")
        })
        .await;
    crate::setup::nothing_more(&mut editor).await;
    assert_eq!(
        plain(editor.text(&uri)),
        "## @me\n@writer MOCK-MODE=slow go\n\n## @writer\n<!-- t1 acp steered -->\n\
         ANSWER-anthropic role_seen=no marker_count=0 roles=none team=0 turn=1 user_msgs=1 \
         assistant_msgs=0 ask=-\nSLOW-CHUNK-01 \n\n## @me\n@writer also check the docs\n\n\
         ## @writer\n<!-- t2 acp done -->\nsteered: me: @writer also check the docs\n\n## @me\n"
    );
    assert_eq!(s.acp_requests("_session/steering").len(), 1, "sent once");
    assert_eq!(
        s.acp_requests("session/prompt").len(),
        1,
        "never delivered again"
    );
}

/// A permission answered, then the answer streams on: with VS Code's habit of
/// reporting a multi-part edit as many small changes, and with whole-text reports, the
/// file reads exactly as with plain ranges (nothing written twice, nothing split).
#[tokio::test]
async fn a_permission_answered_then_the_answer_streams_on_under_every_report_shape() {
    let mut texts = Vec::new();
    for reports in [Reports::Ranges, Reports::ManySmall, Reports::WholeText] {
        let s = Setup::new(&[]);
        s.write(
            "team/chatmd.toml",
            "[members.writer]\nagent = \"acp\"\npreset = \"gemini\"\n",
        );
        let ask = "## @me\n@writer MOCK-MODE=toolwrite WRITE=notes.txt please create the file.\n";
        let (mut editor, uri) = s
            .open_chat(Behaviour::VsCode, "team/ask.chat.md", ask)
            .await;
        editor.reports = reports;
        send(&mut editor, &uri).await;
        editor
            .run_until("the request", |e| {
                e.text(&uri).contains("status=waiting") && e.text(&uri).contains("- [ ] Reject")
            })
            .await;
        let answered = editor
            .command(
                "chatmd.answer",
                json!({"uri": uri, "request": "t1-p1", "option": "allow"}),
            )
            .await
            .expect("an answer");
        assert_eq!(answered["answered"], true, "{reports:?}");
        editor
            .run_until("the answer", |e| crate::setup::finished(e.text(&uri)))
            .await;
        crate::setup::nothing_more(&mut editor).await;
        let text = plain(editor.text(&uri));
        assert_eq!(
            text.matches("I'll run a command.").count(),
            1,
            "{reports:?}: {text}"
        );
        assert_eq!(
            text.matches("> - Execute: touch notes.txt").count(),
            1,
            "{reports:?}: {text}"
        );
        texts.push((reports, text));
    }
    for (reports, text) in &texts[1..] {
        assert_eq!(text, &texts[0].1, "{reports:?} reads as plain ranges do");
    }
}
