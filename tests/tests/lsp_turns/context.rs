//! Context references sent from the editor: `#diagnostics:path` asks the editor for
//! the file's problems (`chatmd/diagnostics`) and they land in the agent's prompt;
//! `#file:` lands there too.

use chatmd_tests::sim_editor::Behaviour;
use pretty_assertions::assert_eq;
use serde_json::json;

use crate::setup::{Setup, finished, send};

/// A workspace whose reviewer answers `answer` and records its run in the returned file,
/// with `src/pay.rs` to refer to.
fn recording_reviewer(answer: &str) -> (Setup, std::path::PathBuf) {
    let s = Setup::new(&[("reviewer", &[("FAKE_AGENT_TEXT", answer)])]);
    let record = s.path("run.json");
    s.write(
        "team/chatmd.toml",
        &format!(
            "[members.reviewer.env]\nIS_SANDBOX = \"\"\nFAKE_AGENT_TEXT = \"{answer}\"\nFAKE_AGENT_RECORD = \"{}\"\n",
            record.display()
        ),
    );
    s.write("src/pay.rs", "fn pay() -> u32 {\n    \"x\"\n}\n");
    (s, record)
}

#[tokio::test]
async fn the_editors_diagnostics_and_files_land_in_the_prompt() {
    let (s, record) = recording_reviewer("seen");
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

#[tokio::test]
async fn asking_about_a_selection_appends_the_message_and_runs_the_turn() {
    let (s, record) = recording_reviewer("It returns a str.");
    let text = "## @me\nhello\n\n## @reviewer\nhi\n\n## @me\n";
    let (mut editor, uri) = s.open_chat(Behaviour::VsCode, "team/c.chat.md", text).await;
    let source = chatmd_tests::file_uri(&s.path("src/pay.rs"));
    let answer = editor
        .command(
            "chatmd.askAbout",
            json!({"uri": source, "member": "reviewer", "chat": uri,
                   "range": {"start": {"line": 0, "character": 0}, "end": {"line": 2, "character": 0}}}),
        )
        .await
        .expect("askAbout");
    assert_eq!(answer["members"], json!(["reviewer"]), "{answer}");
    assert_eq!(answer["chat"], json!(uri));
    editor
        .run_until("the answer", |e| finished(e.text(&uri)))
        .await;
    let asked = "## @me\nhello\n\n## @reviewer\nhi\n\n## @me\n@reviewer about #file:src/pay.rs:1-2:\n\n\
                 ```rust\nfn pay() -> u32 {\n    \"x\"\n```\n";
    let done = crate::setup::redact(editor.text(&uri));
    assert!(done.starts_with(asked), "{done}");
    assert!(done.ends_with("It returns a str.\n\n## @me\n"), "{done}");
    let run: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&record).unwrap()).unwrap();
    let prompt = run["prompt"].as_str().unwrap();
    assert!(
        prompt.contains("attached #file:src/pay.rs:1-2 (src/pay.rs, lines 1-2 of 3):\n```\nfn pay() -> u32 {\n    \"x\"\n```\n"),
        "{prompt}"
    );
}

#[tokio::test]
async fn without_a_chat_the_most_recent_one_is_asked() {
    let s = Setup::new(&[("reviewer", &[("FAKE_AGENT_TEXT", "ok")])]);
    s.write("src/a.rs", "let a = 1;\n");
    s.write("team/new.chat.md", "## @me\nnew\n");
    s.write("team/old.chat.md", "## @me\nold\n");
    // Written last, but changed an hour ago as far as the file system says.
    let hour_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
    std::fs::File::options()
        .write(true)
        .open(s.path("team/old.chat.md"))
        .unwrap()
        .set_modified(hour_ago)
        .unwrap();
    let mut editor = s.editor(Behaviour::VsCode).await;
    let answer = editor
        .command(
            "chatmd.askAbout",
            json!({"uri": chatmd_tests::file_uri(&s.path("src/a.rs")), "member": "reviewer",
                   "range": {"start": {"line": 0, "character": 4}, "end": {"line": 0, "character": 5}}}),
        )
        .await
        .expect("askAbout");
    assert_eq!(answer["chat"], json!(s.uri("team/new.chat.md")), "{answer}");
    let path = s.path("team/new.chat.md");
    let text = crate::setup::file_until(&path, "the answer", finished).await;
    assert_eq!(
        crate::setup::plain(&text),
        "## @me\nnew\n\n## @me\n@reviewer about #file:src/a.rs:1:\n\n```rust\na\n```\n\n\
         ## @reviewer\n<!-- t1 claude done -->\nok\n\n## @me\n"
    );
    assert_eq!(s.read("team/old.chat.md"), "## @me\nold\n");
}

#[tokio::test]
async fn asking_in_a_new_chat_creates_it_beside_the_most_recent_one() {
    let s = Setup::new(&[("reviewer", &[("FAKE_AGENT_TEXT", "ok")])]);
    s.write("src/a.rs", "let a = 1;\nlet b = 2;\n");
    s.write("team/old.chat.md", "## @me\nold\n");
    let mut editor = s.editor(Behaviour::VsCode).await;
    let answer = editor
        .command(
            "chatmd.askAbout",
            json!({"uri": chatmd_tests::file_uri(&s.path("src/a.rs")), "member": "reviewer",
                   "newChat": true,
                   "range": {"start": {"line": 0, "character": 0}, "end": {"line": 2, "character": 0}}}),
        )
        .await
        .expect("askAbout");
    let created = "team/about-src-a-rs-lines-1-2.chat.md";
    assert_eq!(answer["chat"], json!(s.uri(created)), "{answer}");
    assert_eq!(answer["members"], json!(["reviewer"]), "{answer}");
    let text = crate::setup::file_until(&s.path(created), "the answer", finished).await;
    assert_eq!(
        crate::setup::plain(&text),
        "---\ntitle: About src/a.rs lines 1-2\n---\n\n## @me\n@reviewer about #file:src/a.rs:1-2:\n\n\
         ```rust\nlet a = 1;\nlet b = 2;\n```\n\n## @reviewer\n<!-- t1 claude done -->\nok\n\n## @me\n"
    );
    assert_eq!(s.read("team/old.chat.md"), "## @me\nold\n");
}

#[tokio::test]
async fn an_editor_rooted_at_the_team_folder_asks_about_a_file_the_send_then_reads() {
    // The repository's team is in team/ with its chatmd.toml; the editor took team/ as its
    // workspace folder. The `#file:` path written and the one read are the same file.
    let (s, record) = recording_reviewer("It returns a str.");
    let editor = s.editor_rooted_at("team", Behaviour::VsCode).await;
    let text = "## @me\nhello\n\n## @reviewer\nhi\n\n## @me\n";
    let (mut editor, uri) = s.open_in(editor, "team/c.chat.md", text).await;
    let answer = editor
        .command(
            "chatmd.askAbout",
            json!({"uri": chatmd_tests::file_uri(&s.path("src/pay.rs")), "member": "reviewer",
                   "range": {"start": {"line": 0, "character": 0}, "end": {"line": 2, "character": 0}}}),
        )
        .await
        .expect("askAbout");
    assert_eq!(answer["chat"], json!(uri), "{answer}");
    assert_eq!(answer["members"], json!(["reviewer"]), "{answer}");
    editor
        .run_until("the answer", |e| finished(e.text(&uri)))
        .await;
    let done = crate::setup::redact(editor.text(&uri));
    assert!(
        done.contains("@reviewer about #file:src/pay.rs:1-2:\n"),
        "{done}"
    );
    assert!(done.ends_with("It returns a str.\n\n## @me\n"), "{done}");
    let run: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&record).unwrap()).unwrap();
    let prompt = run["prompt"].as_str().unwrap();
    assert!(
        prompt.contains("attached #file:src/pay.rs:1-2 (src/pay.rs, lines 1-2 of 3):\n"),
        "{prompt}"
    );
}

#[tokio::test]
async fn where_no_team_can_answer_ask_about_says_so_and_writes_no_chat() {
    // No chat anywhere, and no member in the workspace root, where a new chat would go.
    let s = Setup::new(&[]);
    s.write("src/a.rs", "let a = 1;\n");
    let mut editor = s.editor(Behaviour::VsCode).await;
    let refused = editor
        .command(
            "chatmd.askAbout",
            json!({"uri": chatmd_tests::file_uri(&s.path("src/a.rs")), "member": "reviewer",
                   "newChat": true,
                   "range": {"start": {"line": 0, "character": 0}, "end": {"line": 1, "character": 0}}}),
        )
        .await
        .expect_err("nobody to ask");
    let message = refused["message"].as_str().unwrap();
    assert_eq!(
        message,
        format!(
            "nobody to ask: {root} has no team (no member folders). Make one with \
             `chatmd init team` in the workspace {root}, then ask again",
            root = s.dir.path().display()
        )
    );
    let chats: Vec<_> = walk_chats(s.dir.path());
    assert_eq!(
        chats,
        Vec::<std::path::PathBuf>::new(),
        "no chat was written"
    );
}

/// Every `.chat.md` under `dir`.
fn walk_chats(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            found.extend(walk_chats(&path));
        } else if path.to_string_lossy().ends_with(".chat.md") {
            found.push(path);
        }
    }
    found
}
