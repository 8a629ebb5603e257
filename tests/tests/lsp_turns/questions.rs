//! Questions of an ACP member in the editor (the fake `gemini --acp` asking with
//! `elicitation/create`): the question block in the member's section with its choices,
//! answered by `chatmd.answer` or the block's code actions, the agent receiving exactly
//! that answer (its log, and its answer quoting it in the document), and a cancel while
//! the question waits answering it `cancel`.

use chatmd_tests::fake_agent::acp::questions_answered;
use chatmd_tests::sim_editor::{Behaviour, SimEditor};
use pretty_assertions::assert_eq;
use serde_json::json;

use crate::setup::{Setup, code_actions_at, finished, redact, send};

/// A workspace whose writer is `gemini --acp`, logging what it receives.
fn acp_writer() -> (Setup, std::path::PathBuf) {
    let s = Setup::new(&[]);
    let log = s.path("acp.jsonl");
    s.write(
        "team/chatmd.toml",
        &format!(
            "[members.writer]\nagent = \"acp\"\npreset = \"gemini\"\n\n\
             [members.writer.env]\nFAKE_ACP_LOG = \"{}\"\n",
            log.display()
        ),
    );
    (s, log)
}

const ASK: &str = "## @me\n@writer MOCK-MODE=ask which color?\n";

/// The question as the section shows it while it waits.
const BLOCK: &str = "> **Permission** `t1-p1` — writer asks (Color): Which color should the button be?\n\
                     > - [ ] Blue · - [ ] Red · - [ ] Decline\n";

/// Sends `ASK` and waits until the writer's question is in the document.
async fn asked(s: &Setup) -> (SimEditor, String) {
    let (mut editor, uri) = s
        .open_chat(Behaviour::VsCode, "team/ask.chat.md", ASK)
        .await;
    send(&mut editor, &uri).await;
    editor
        .run_until("the question", |e| {
            e.text(&uri).contains("status=waiting") && e.text(&uri).contains("- [ ] Decline")
        })
        .await;
    (editor, uri)
}

#[tokio::test]
async fn a_question_answered_by_chatmd_answer_reaches_the_agent() {
    let (s, log) = acp_writer();
    let (mut editor, uri) = asked(&s).await;
    let text = redact(editor.text(&uri));
    assert!(text.contains(&format!(" -->\n{BLOCK}\n")), "{text}");

    let answered = editor
        .command(
            "chatmd.answer",
            json!({"uri": uri, "request": "t1-p1", "option": "red"}),
        )
        .await
        .expect("an answer");
    assert_eq!(
        answered,
        json!({"answered": true, "option": "red", "record": "answered (\"Red\")"})
    );
    editor
        .run_until("the answer", |e| finished(e.text(&uri)))
        .await;
    assert_eq!(
        questions_answered(&log),
        [json!({"action": "accept", "content": {"color": "red"}})]
    );
    let session = regex::Regex::new(r"session=[0-9a-f-]+").expect("regex");
    assert_eq!(
        session.replace(&redact(editor.text(&uri)), "session=…"),
        format!(
            "{ASK}\n## @writer\n<!-- chatmd id=t1 agent=acp status=done started=… model=auto \
             session=… took=… stop=end_turn exit=0 tokens=11865/11 -->\n\
             > **Permission** t1-p1 — answered (\"Red\")\n\n\
             ANSWER-gemini role_seen=no marker_count=0 roles=none team=0 turn=1 user_msgs=1 \
             assistant_msgs=0 ask=- \
             tool_result=\"{{\"action\":\"accept\",\"content\":{{\"color\":\"red\"}}}}\"\n\n## @me\n"
        )
    );
}

#[tokio::test]
async fn the_question_blocks_code_actions_answer_it() {
    let (s, log) = acp_writer();
    let (mut editor, uri) = asked(&s).await;
    let line = editor
        .text(&uri)
        .lines()
        .position(|l| l.starts_with("> **Permission**"))
        .expect("the block");
    let actions = code_actions_at(&mut editor, &uri, line).await;
    let titles: Vec<&str> = actions
        .iter()
        .filter_map(|a| a["title"].as_str())
        .filter(|t| t.contains("t1-p1"))
        .collect();
    // No "Reject always": a question makes no rule.
    assert_eq!(titles, ["Blue (t1-p1)", "Red (t1-p1)", "Decline (t1-p1)"]);
    let blue = actions
        .iter()
        .find(|a| a["title"] == "Blue (t1-p1)")
        .expect("the Blue action");
    let command = &blue["command"];
    let answered = editor
        .command(
            command["command"].as_str().expect("a command"),
            command["arguments"][0].clone(),
        )
        .await
        .expect("an answer");
    assert_eq!(answered["record"], "answered (\"Blue\")");
    editor
        .run_until("the answer", |e| finished(e.text(&uri)))
        .await;
    assert_eq!(
        questions_answered(&log),
        [json!({"action": "accept", "content": {"color": "blue"}})]
    );
    let text = redact(editor.text(&uri));
    assert!(
        text.contains(
            "> **Permission** t1-p1 — answered (\"Blue\")\n\n\
             ANSWER-gemini "
        ),
        "{text}"
    );
    assert!(
        text.contains(
            " tool_result=\"{\"action\":\"accept\",\"content\":{\"color\":\"blue\"}}\"\n"
        ),
        "the agent quotes what it received: {text}"
    );
}

#[tokio::test]
async fn cancel_while_a_question_waits_answers_it_cancel() {
    let (s, log) = acp_writer();
    let (mut editor, uri) = asked(&s).await;
    let cancelled = editor
        .command("chatmd.cancel", json!({"uri": uri}))
        .await
        .expect("an answer");
    assert_eq!(cancelled["cancelled"], json!(["writer"]));
    editor
        .run_until("the end", |e| e.text(&uri).contains("status=cancelled"))
        .await;
    assert_eq!(questions_answered(&log), [json!({"action": "cancel"})]);
    let text = redact(editor.text(&uri));
    assert!(
        text.contains("> **Permission** t1-p1 — not answered: the turn ended first\n"),
        "{text}"
    );
}
