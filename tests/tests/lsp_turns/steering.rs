//! Steering: a message queued for an ACP member whose turn runs goes into that turn
//! (`_session/steering`) where the agent advertises it (the fake `claude-agent-acp` with
//! `FAKE_ACP_STEERING=1`). The file then reads in order: the member's section ends
//! `status=steered`, the message is delivered (no longer queued, never sent again), and
//! the member's answer goes on in a new section after it. Without the capability the
//! message waits for the round's end, as every queued message does.

use chatmd_tests::sim_editor::{At, Behaviour, SimEditor};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use crate::setup::{Setup, plain, send, send_queued};

/// A workspace whose writer is `claude-agent-acp`, steerable or not.
fn acp_writer(steering: bool) -> Setup {
    let env = format!(
        "FAKE_AGENT_DELAY_MS = \"100\"\nFAKE_ACP_STEERING = \"{}\"\n",
        u8::from(steering)
    );
    Setup::acp_writer("", &env)
}

const QUESTION: &str = "## @me\n@writer MOCK-MODE=slow go\n";
const NEXT: &str = "\n## @me\n@writer also check the docs\n";

/// Starts the writer's slow answer, then types the next message and sends it while the
/// writer answers.
async fn send_while_answering(s: &Setup, behaviour: Behaviour) -> (SimEditor, String) {
    let (mut editor, uri) = s.open_chat(behaviour, "team/s.chat.md", QUESTION).await;
    send(&mut editor, &uri).await;
    editor
        .run_until("the writer's first slow chunk", |e| {
            e.text(&uri).contains("SLOW-CHUNK-01")
        })
        .await;
    send_queued(&mut editor, &uri, NEXT).await;
    (editor, uri)
}

/// The document once the writer's turn has ended.
async fn until_done(editor: &mut SimEditor, uri: &str) -> String {
    editor
        .run_until("the writer's turn ended and the reply stub", |e| {
            let t = e.text(uri);
            t.contains("status=done") && t.ends_with("\n## @me\n")
        })
        .await;
    crate::setup::nothing_more(editor).await;
    plain(editor.text(uri))
}

async fn a_message_queued_for_a_steerable_member_goes_into_its_turn(behaviour: Behaviour) {
    let s = acp_writer(true);
    let (mut editor, uri) = send_while_answering(&s, behaviour).await;
    editor
        .run_until("the writer's new section", |e| {
            e.text(&uri).contains("steered: ")
        })
        .await;
    // Edited once it was delivered: it is not sent again.
    editor
        .type_text(&uri, At::Before("the docs".into()), "all ")
        .await;
    let text = until_done(&mut editor, &uri).await;
    assert_eq!(
        text,
        "## @me\n@writer MOCK-MODE=slow go\n\n## @writer\n<!-- t1 acp steered -->\n\
         ANSWER-anthropic role_seen=no marker_count=0 roles=none team=0 turn=1 user_msgs=1 \
         assistant_msgs=0 ask=-\nSLOW-CHUNK-01 \n\n## @me\n@writer also check all the docs\n\n\
         ## @writer\n<!-- t2 acp done -->\nsteered: me: @writer also check the docs\n\n## @me\n"
    );
    // The new section continues the same session, which has seen the message (as it
    // read when it went: the edit after it is one the member has not seen).
    let statuses: Vec<&str> = editor
        .text(&uri)
        .lines()
        .filter(|l| l.starts_with("<!-- chatmd id="))
        .collect();
    let session = |line: &str| {
        line.split(' ')
            .find_map(|kv| kv.strip_prefix("session="))
            .map(str::to_owned)
    };
    assert!(session(statuses[0]).is_some(), "{statuses:?}");
    assert_eq!(session(statuses[0]), session(statuses[1]));
    assert!(statuses[1].contains(" seen=+2:"), "{statuses:?}");
    let steered = s.acp_requests("_session/steering");
    assert_eq!(steered.len(), 1, "sent once: {steered:?}");
    assert_eq!(
        steered[0]["prompt"],
        json!([{"type": "text", "text": "me: @writer also check the docs"}])
    );
    assert_eq!(
        steered[0]["_meta"],
        json!({"steering": {"idleBehavior": "promptRequired"}})
    );
    assert_eq!(
        s.acp_requests("session/prompt").len(),
        1,
        "never delivered again"
    );
}

#[tokio::test]
async fn a_message_queued_for_a_steerable_member_goes_into_its_turn_vscode() {
    a_message_queued_for_a_steerable_member_goes_into_its_turn(Behaviour::VsCode).await;
}

#[tokio::test]
async fn a_message_queued_for_a_steerable_member_goes_into_its_turn_neovim() {
    a_message_queued_for_a_steerable_member_goes_into_its_turn(Behaviour::Neovim).await;
}

#[tokio::test]
async fn without_steering_the_message_waits_for_the_round_to_end() {
    let s = acp_writer(false);
    let (mut editor, uri) = send_while_answering(&s, Behaviour::VsCode).await;
    editor
        .run_until("the queued mark", |e| {
            e.text(&uri).contains("status=queued -->")
        })
        .await;
    editor
        .run_until("the queued message answered and the reply stub", |e| {
            let t = e.text(&uri);
            t.matches("status=done").count() == 2 && t.ends_with("\n## @me\n")
        })
        .await;
    crate::setup::nothing_more(&mut editor).await;
    let text = plain(editor.text(&uri));
    let chunks: String = (1..=40).map(|n| format!("SLOW-CHUNK-{n:02} ")).collect();
    assert_eq!(
        text,
        format!(
            "## @me\n@writer MOCK-MODE=slow go\n\n## @writer\n<!-- t1 acp done -->\n\
             ANSWER-anthropic role_seen=no marker_count=0 roles=none team=0 turn=1 \
             user_msgs=1 assistant_msgs=0 ask=-\n{chunks}\n\n## @me\n@writer also check the \
             docs\n\n## @writer\n<!-- t2 acp done -->\nANSWER-anthropic role_seen=no \
             marker_count=0 roles=none team=0 turn=2 user_msgs=2 assistant_msgs=1 ask=-\n\n\
             ## @me\n"
        )
    );
    assert_eq!(s.acp_requests("_session/steering"), Vec::<Value>::new());
    let prompts = s.acp_requests("session/prompt");
    assert_eq!(
        prompts.len(),
        2,
        "the queued message went as the next prompt"
    );
    // In the writer's session (members resume by default): on its live connection,
    // since the agent stayed warm after the first turn (no `session/resume`).
    assert_eq!(
        s.acp_requests("session/resume").len(),
        0,
        "on the writer's warm session"
    );
    assert_eq!(
        prompts[0]["sessionId"], prompts[1]["sessionId"],
        "in the writer's session"
    );
}

#[tokio::test]
async fn a_turn_waiting_for_a_permission_answer_leaves_the_message_queued() {
    let s = acp_writer(true);
    let (mut editor, uri) = s
        .open_chat(
            Behaviour::VsCode,
            "team/s.chat.md",
            "## @me\n@writer MOCK-MODE=toolwrite WRITE=notes.txt please create the file.\n",
        )
        .await;
    send(&mut editor, &uri).await;
    editor
        .run_until("the permission request", |e| {
            e.text(&uri).contains("status=waiting")
        })
        .await;
    send_queued(&mut editor, &uri, NEXT).await;
    let answered = editor
        .command(
            "chatmd.answer",
            json!({"uri": uri, "request": "t1-p1", "option": "allow_once"}),
        )
        .await;
    assert!(answered.is_ok(), "{answered:?}");
    editor
        .run_until("the queued message answered and the reply stub", |e| {
            let t = e.text(&uri);
            t.matches("status=done").count() == 2 && t.ends_with("\n## @me\n")
        })
        .await;
    crate::setup::nothing_more(&mut editor).await;
    assert_eq!(s.acp_requests("_session/steering"), Vec::<Value>::new());
    let prompts = s.acp_requests("session/prompt");
    assert_eq!(prompts.len(), 2, "delivered once, when the round ended");
    let text = plain(editor.text(&uri));
    assert!(
        text.contains("<!-- t1 acp done -->") && !text.contains("steered"),
        "{text}"
    );
    assert!(
        text.contains("\n## @me\n@writer also check the docs\n\n## @writer\n<!-- t2 acp done -->"),
        "{text}"
    );
}
