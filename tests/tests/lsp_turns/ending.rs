//! Chains started from the editor end: `max_chain` bounds the automatic rounds of one
//! Send even when the user keeps starting drafts between the answers (each of which
//! would start the count of agent-to-agent hops afresh).

use chatmd_tests::sim_editor::Behaviour;
use pretty_assertions::assert_eq;
use serde_json::json;

use crate::setup::{At, Setup, nothing_more, plain, send};

#[tokio::test]
async fn max_chain_bounds_the_rounds_of_one_send_whatever_the_drafts() {
    let s = Setup::new(&[
        ("reviewer", &[("FAKE_AGENT_TEXT", "@writer over to you.")]),
        ("writer", &[("FAKE_AGENT_TEXT", "@reviewer back to you.")]),
    ]);
    let chat = "---\nmax_chain: 2\n---\n## @me\n@reviewer start\n";
    let (mut editor, uri) = s
        .open_chat(Behaviour::VsCode, "team/bound.chat.md", chat)
        .await;
    send(&mut editor, &uri).await;
    // Whenever a section appears, the user starts a draft after it: each answer after
    // a draft is then the first hop after a human message.
    let mut sections = 0;
    loop {
        let text = editor.text(&uri);
        let started = text.matches("<!-- chatmd id=").count();
        let ended = text.matches("status=done").count();
        if ended == 3 && started == 3 {
            break;
        }
        if started > sections {
            sections = started;
            let draft = format!("\n## @me\ndraft {sections}\n");
            editor.type_text(&uri, At::End, &draft).await;
        }
        let (id, params) = editor.client.expect_request("workspace/applyEdit").await;
        editor.handle_edit(id, params).await;
    }
    let shown = editor
        .client
        .expect_notification("window/showMessage")
        .await;
    assert_eq!(
        shown,
        json!({"type": 3, "message": "stopped after 2 agent-to-agent turns (`max_chain`); your turn"})
    );
    nothing_more(&mut editor).await;
    assert_eq!(
        plain(editor.text(&uri)),
        "---\nmax_chain: 2\n---\n## @me\n@reviewer start\n\
         \n## @reviewer\n<!-- t1 claude done -->\n@writer over to you.\n\
         \n## @me\ndraft 1\n\
         \n## @writer\n<!-- t2 gemini done -->\n@reviewer back to you.\n\
         \n## @me\ndraft 2\n\
         \n## @reviewer\n<!-- t3 claude done -->\n@writer over to you.\n\
         \n## @me\ndraft 3\n"
    );
}
