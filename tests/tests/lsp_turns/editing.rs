//! The user keeps typing while answers stream: before the section, inside it, after it;
//! the editor refuses (VS Code) or silently skips (Neovim) the edits that went stale.
//! Nothing typed is lost or moved, nothing the agent wrote is duplicated.

use chatmd_tests::sim_editor::Behaviour;
use pretty_assertions::assert_eq;
use serde_json::json;

use crate::setup::{At, Setup, finished, redact};

const ANSWER: &str = "one two three four five six seven eight";

fn setup() -> Setup {
    Setup::new(&[(
        "reviewer",
        &[
            ("FAKE_AGENT_TEXT", ANSWER),
            ("FAKE_AGENT_CHUNKS", "8"),
            ("FAKE_AGENT_DELAY_MS", "60"),
        ],
    )])
}

/// Types before, inside and after the section at edits 2, 3 and 4 (each then stale).
async fn typing_while_streaming(behaviour: Behaviour) {
    let s = setup();
    let chat = "# Notes\n\n## @me\n@reviewer count\n";
    s.write("team/t.chat.md", chat);
    let uri = s.uri("team/t.chat.md");
    let mut editor = s.editor(behaviour).await;
    editor.open(&uri, chat).await;
    editor.type_before_edit(2, &uri, At::After("# Notes".into()), " (draft)");
    editor.type_before_edit(3, &uri, At::Before("one".into()), "> ");
    editor.type_before_edit(4, &uri, At::End, "\n## @me\nAnd then?\n");
    editor
        .command("chatmd.send", json!({"uri": uri}))
        .await
        .unwrap();
    editor
        .run_until("the whole answer", |e| {
            let t = e.text(&uri);
            !t.contains("status=streaming") && t.contains("eight")
        })
        .await;
    assert!(editor.stale >= 2, "edits went stale: {}", editor.stale);
    let text = redact(editor.text(&uri));
    let status_end = text.find("-->\n").expect("status comment") + 4;
    assert_eq!(
        &text[..text.find("<!--").unwrap()],
        "# Notes (draft)\n\n## @me\n@reviewer count\n\n## @reviewer\n"
    );
    assert_eq!(
        &text[status_end..],
        format!("> {ANSWER}\n\n## @me\nAnd then?\n"),
        "the user's new message stays after the complete answer"
    );
    assert!(text.contains("status=done"), "{text}");
}

#[tokio::test]
async fn typing_anywhere_during_a_stream_keeps_every_word_vscode() {
    typing_while_streaming(Behaviour::VsCode).await;
}

#[tokio::test]
async fn typing_anywhere_during_a_stream_keeps_every_word_neovim() {
    typing_while_streaming(Behaviour::Neovim).await;
}

#[tokio::test]
async fn utf16_positions_and_multibyte_text_land_exactly() {
    let s = Setup::new(&[(
        "reviewer",
        &[
            ("FAKE_AGENT_TEXT", "Grüße 😀 — fine"),
            ("FAKE_AGENT_CHUNKS", "3"),
        ],
    )]);
    let chat = "## @me\n😀 @reviewer ça va?\n";
    s.write("team/u.chat.md", chat);
    let uri = s.uri("team/u.chat.md");
    let mut editor = s.editor_utf16(Behaviour::VsCode).await;
    editor.open(&uri, chat).await;
    editor.type_before_edit(2, &uri, At::After("ça va?".into()), " 👍");
    editor
        .command("chatmd.send", json!({"uri": uri}))
        .await
        .unwrap();
    editor
        .run_until("the answer", |e| finished(e.text(&uri)))
        .await;
    let text = redact(editor.text(&uri));
    assert!(
        text.starts_with("## @me\n😀 @reviewer ça va? 👍\n\n## @reviewer\n<!-- chatmd id=t1"),
        "{text}"
    );
    assert!(text.ends_with("-->\nGrüße 😀 — fine\n\n## @me\n"), "{text}");
}
