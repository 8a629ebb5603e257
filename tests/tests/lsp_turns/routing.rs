//! Who answers, through the editor: mentioned members in parallel, chains up to
//! `max_chain`, `[NEXT: x]`, round-robin, `all` with `SKIP`, `[DONE]`, Ask and Continue.

use chatmd_tests::sim_editor::Behaviour;
use pretty_assertions::assert_eq;
use serde_json::json;

use crate::setup::{Setup, finished, plain, send};

#[tokio::test]
async fn two_mentioned_members_answer_in_parallel_in_mention_order() {
    let s = Setup::new(&[
        ("reviewer", &[("FAKE_AGENT_TEXT", "Review: fine.")]),
        ("tester", &[("FAKE_AGENT_TEXT", "Tests: added.")]),
    ]);
    let chat = "## @me\n@tester write tests. @reviewer review.\n";
    let (mut editor, uri) = s
        .open_chat(Behaviour::VsCode, "team/two.chat.md", chat)
        .await;
    let answer = editor.command("chatmd.send", json!({"uri": uri})).await;
    assert_eq!(answer, Ok(json!({"members": ["tester", "reviewer"]})));
    editor
        .run_until("both answers", |e| finished(e.text(&uri)))
        .await;
    assert_eq!(
        plain(editor.text(&uri)),
        "## @me\n@tester write tests. @reviewer review.\n\
         \n## @tester\n<!-- t1 codex done -->\nTests: added.\n\
         \n## @reviewer\n<!-- t2 claude done -->\nReview: fine.\n\
         \n## @me\n"
    );
}

#[tokio::test]
async fn a_chain_follows_mentions_and_stops_at_max_chain() {
    let s = Setup::new(&[
        ("reviewer", &[("FAKE_AGENT_TEXT", "@tester over to you.")]),
        ("tester", &[("FAKE_AGENT_TEXT", "@reviewer back to you.")]),
    ]);
    let chat = "---\nmax_chain: 3\n---\n## @me\n@reviewer start\n";
    let (mut editor, uri) = s
        .open_chat(Behaviour::VsCode, "team/chain.chat.md", chat)
        .await;
    send(&mut editor, &uri).await;
    editor
        .run_until("the chain", |e| finished(e.text(&uri)))
        .await;
    assert_eq!(
        plain(editor.text(&uri)),
        "---\nmax_chain: 3\n---\n## @me\n@reviewer start\n\
         \n## @reviewer\n<!-- t1 claude done -->\n@tester over to you.\n\
         \n## @tester\n<!-- t2 codex done -->\n@reviewer back to you.\n\
         \n## @reviewer\n<!-- t3 claude done -->\n@tester over to you.\n\
         \n## @me\n"
    );
    let shown = editor
        .client
        .expect_notification("window/showMessage")
        .await;
    assert_eq!(
        shown,
        json!({"type": 3, "message": "stopped after 3 agent-to-agent turns (`max_chain`); your turn"})
    );
}

#[tokio::test]
async fn next_marker_round_robin_and_all_with_skip() {
    let s = Setup::new(&[
        (
            "reviewer",
            &[("FAKE_AGENT_TEXT", "Done here. [NEXT: writer]")],
        ),
        ("tester", &[("FAKE_AGENT_TEXT", "SKIP")]),
        ("writer", &[("FAKE_AGENT_TEXT", "Docs updated.")]),
    ]);
    // [NEXT: writer] hands the word on although nobody is mentioned.
    let chat = "---\nmembers: [reviewer, tester, writer]\nrouting: round-robin\n---\n## @me\nplease start\n";
    let (mut editor, uri) = s
        .open_chat(Behaviour::VsCode, "team/rr.chat.md", chat)
        .await;
    let answer = editor.command("chatmd.send", json!({"uri": uri})).await;
    assert_eq!(
        answer,
        Ok(json!({"members": ["reviewer"]})),
        "round-robin starts with the first member"
    );
    editor
        .run_until("the answers", |e| finished(e.text(&uri)))
        .await;
    assert_eq!(
        plain(editor.text(&uri)),
        "---\nmembers: [reviewer, tester, writer]\nrouting: round-robin\n---\n## @me\nplease start\n\
         \n## @reviewer\n<!-- t1 claude done -->\nDone here. [NEXT: writer]\n\
         \n## @writer\n<!-- t2 gemini done -->\nDocs updated.\n\
         \n## @me\n"
    );

    // Routing `all`: everyone is asked; the tester declines with SKIP.
    let chat = "---\nmembers: [tester, writer]\nrouting: all\n---\n## @me\nanyone?\n";
    s.write("team/all.chat.md", chat);
    let uri = s.uri("team/all.chat.md");
    editor.open(&uri, chat).await;
    let answer = editor.command("chatmd.send", json!({"uri": uri})).await;
    assert_eq!(answer, Ok(json!({"members": ["tester", "writer"]})));
    editor
        .run_until("the answers", |e| finished(e.text(&uri)))
        .await;
    assert_eq!(
        plain(editor.text(&uri)),
        "---\nmembers: [tester, writer]\nrouting: all\n---\n## @me\nanyone?\n\
         \n## @tester\n<!-- t1 codex skipped -->\n\
         \n## @writer\n<!-- t2 gemini done -->\nDocs updated.\n\
         \n## @me\n"
    );
}

#[tokio::test]
async fn done_ends_the_conversation_and_the_next_send_is_refused() {
    let s = Setup::new(&[("reviewer", &[("FAKE_AGENT_TEXT", "ok")])]);
    let chat = "## @me\n@reviewer thanks, that is all [DONE]\n";
    let (mut editor, uri) = s
        .open_chat(Behaviour::VsCode, "team/done.chat.md", chat)
        .await;
    let answer = editor
        .command("chatmd.send", json!({"uri": uri}))
        .await
        .unwrap();
    assert_eq!(answer["members"], json!([]));
    let reason = answer["reason"].as_str().unwrap();
    assert!(
        reason.starts_with("this conversation has ended"),
        "{reason}"
    );
    let shown = editor
        .client
        .expect_notification("window/showMessage")
        .await;
    assert_eq!(shown["message"], reason, "told once, in the editor");
    assert_eq!(editor.text(&uri), chat, "nothing written");
}

#[tokio::test]
async fn ask_runs_one_member_and_continue_follows_the_routing() {
    let s = Setup::new(&[
        (
            "writer",
            &[("FAKE_AGENT_TEXT", "Draft ready. @reviewer please check.")],
        ),
        ("reviewer", &[("FAKE_AGENT_TEXT", "Checked.")]),
    ]);
    let chat = "---\nmax_chain: 1\n---\n## @me\nwe need docs\n";
    let (mut editor, uri) = s
        .open_chat(Behaviour::VsCode, "team/ask.chat.md", chat)
        .await;
    let answer = editor
        .command("chatmd.ask", json!({"uri": uri, "member": "@writer"}))
        .await;
    assert_eq!(answer, Ok(json!({"members": ["writer"]})));
    editor
        .run_until("the writer", |e| finished(e.text(&uri)))
        .await;
    // The chain limit (1) stopped before the reviewer; Continue asks the reviewer.
    let answer = editor.command("chatmd.next", json!({"uri": uri})).await;
    assert_eq!(answer, Ok(json!({"members": ["reviewer"]})));
    editor
        .run_until("the reviewer", |e| e.text(&uri).contains("Checked."))
        .await;
    editor
        .run_until("the stub", |e| finished(e.text(&uri)))
        .await;
    assert_eq!(
        plain(editor.text(&uri)),
        "---\nmax_chain: 1\n---\n## @me\nwe need docs\n\
         \n## @writer\n<!-- t1 gemini done -->\nDraft ready. @reviewer please check.\n\
         \n## @me\n\
         \n## @reviewer\n<!-- t2 claude done -->\nChecked.\n\
         \n## @me\n"
    );
}

#[tokio::test]
async fn each_parallel_answer_may_hand_the_word_on() {
    let s = Setup::new(&[
        (
            "reviewer",
            &[("FAKE_AGENT_TEXT", "Found a bug. @writer please note it.")],
        ),
        ("tester", &[("FAKE_AGENT_TEXT", "Tests pass.")]),
        ("writer", &[("FAKE_AGENT_TEXT", "Noted.")]),
    ]);
    let chat = "## @me\n@reviewer @tester check it\n";
    let (mut editor, uri) = s
        .open_chat(Behaviour::VsCode, "team/hand.chat.md", chat)
        .await;
    send(&mut editor, &uri).await;
    editor
        .run_until("the writer", |e| {
            finished(e.text(&uri)) && e.text(&uri).contains("Noted.")
        })
        .await;
    assert_eq!(
        plain(editor.text(&uri)),
        "## @me\n@reviewer @tester check it\n\
         \n## @reviewer\n<!-- t1 claude done -->\nFound a bug. @writer please note it.\n\
         \n## @tester\n<!-- t2 codex done -->\nTests pass.\n\
         \n## @writer\n<!-- t3 gemini done -->\nNoted.\n\
         \n## @me\n"
    );
}
