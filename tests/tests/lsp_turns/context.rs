//! Context references sent from the editor: `#diagnostics:path` asks the editor for
//! the file's problems (`chatmd/diagnostics`) and they land in the agent's prompt;
//! `#file:` lands there too.

use chatmd_tests::sim_editor::Behaviour;
use pretty_assertions::assert_eq;
use serde_json::json;

use crate::setup::{Setup, finished, send};

#[tokio::test]
async fn the_editors_diagnostics_and_files_land_in_the_prompt() {
    let s = Setup::new(&[("reviewer", &[("FAKE_AGENT_TEXT", "seen")])]);
    let record = s.path("run.json");
    s.write(
        "team/chatmd.toml",
        &format!(
            "[members.reviewer.env]\nIS_SANDBOX = \"\"\nFAKE_AGENT_TEXT = \"seen\"\nFAKE_AGENT_RECORD = \"{}\"\n",
            record.display()
        ),
    );
    s.write("src/pay.rs", "fn pay() -> u32 {\n    \"x\"\n}\n");
    let text = "## @me\n@reviewer why #diagnostics:src/pay.rs in #file:src/pay.rs:2?\n";
    let (mut editor, uri) = s.open_chat(Behaviour::VsCode, "team/c.chat.md", text).await;
    editor.client.set_auto_response(
        "chatmd/diagnostics",
        Some(json!({"diagnostics": [{
            "range": {"start": {"line": 1, "character": 4}, "end": {"line": 1, "character": 7}},
            "severity": 1, "source": "rustc", "message": "mismatched types\nexpected `u32`"
        }]})),
    );
    send(&mut editor, &uri).await;
    editor
        .run_until("the answer", |e| finished(e.text(&uri)))
        .await;
    let asked = editor.client.auto_answered("chatmd/diagnostics");
    assert_eq!(
        asked,
        [json!({"uri": chatmd_tests::file_uri(&s.path("src/pay.rs"))})]
    );
    let run: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&record).unwrap()).unwrap();
    let prompt = run["prompt"].as_str().unwrap();
    assert!(
        prompt.contains(
            "attached #diagnostics:src/pay.rs (src/pay.rs, 1 problem the editor reports):\n```\n\
             2:5 error: mismatched types expected `u32` (rustc)\n```\n\
             attached #file:src/pay.rs:2 (src/pay.rs, lines 2-2 of 3):\n```\n    \"x\"\n```\n[MESSAGE]\n"
        ),
        "{prompt}"
    );
    assert!(
        editor.text(&uri).contains("\nseen\n"),
        "{}",
        editor.text(&uri)
    );
}
