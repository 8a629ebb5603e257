//! Permission policy in the editor (the fake `gemini --acp`, and `claude-agent-acp` for
//! plan approvals): an "always" answer writes its rule into the chat's front matter
//! (everything else kept byte for byte), and the next matching request, in the same
//! turn or the next, is answered by it without asking (the agent's log shows the
//! answer, the block says "by policy"); hand-written globs and the team's
//! `chatmd.toml` rules (applied only once the file is trusted); a plan shown under its
//! approval request.

use chatmd_tests::fake_agent::acp::answers_received;
use chatmd_tests::sim_editor::{At, Behaviour, SimEditor};
use chatmd_tests::views::summarize;
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use crate::setup::{Setup, finished, redact, send};

/// A workspace whose writer runs `preset` over ACP, logging what it receives.
fn writer(preset: &str) -> (Setup, std::path::PathBuf) {
    let s = Setup::new(&[]);
    let fake = std::path::PathBuf::from(env!("CARGO_BIN_EXE_fake-agent"));
    chatmd_tests::fake_agent::install_acp(&fake, &s.bin).expect("install the ACP fakes");
    let log = s.path("acp.jsonl");
    s.write(
        "team/chatmd.toml",
        &format!(
            "[members.writer]\nagent = \"acp\"\npreset = \"{preset}\"\n\n\
             [members.writer.env]\nFAKE_ACP_LOG = \"{}\"\nIS_SANDBOX = \"1\"\n\
             CLAUDE_CONFIG_DIR = \"{state}\"\nGEMINI_CLI_HOME = \"{state}\"\n",
            log.display(),
            state = s.path("state").display()
        ),
    );
    (s, log)
}

/// The document with the status comments' session ids cut too (they are new each run).
fn masked(text: &str) -> String {
    let session = regex::Regex::new(r" session=[^ ]+").unwrap();
    session.replace_all(&redact(text), "").into_owned()
}

/// Opens `text` as `team/p.chat.md` and sends it.
async fn sent(s: &Setup, text: &str) -> (SimEditor, String) {
    let (mut editor, uri) = s.open_chat(Behaviour::VsCode, "team/p.chat.md", text).await;
    send(&mut editor, &uri).await;
    (editor, uri)
}

/// Waits until `block` waits for an answer, then answers it with `option`.
async fn answer(editor: &mut SimEditor, uri: &str, block: &str, option: &str) -> Value {
    let waiting = format!("`{block}`");
    editor
        .run_until("the request", |e| {
            e.text(uri).contains(&waiting) && e.text(uri).contains("status=waiting")
        })
        .await;
    editor
        .command(
            "chatmd.answer",
            json!({"uri": uri, "request": block, "option": option}),
        )
        .await
        .expect("an answer")
}

const HEAD: &str = "---\ntitle: Docs  # the docs chat\n# more keys later\n---\n";
const ASK: &str = "## @me\n@writer MOCK-MODE=toolwrite WRITE=notes.txt please create the file.\n";

/// The writer's section after turn `turn`'s `toolwrite` request was allowed with
/// `record`; `seen` is what the answer line says the agent saw.
fn section(turn: u32, record: &str, seen: &str) -> String {
    format!(
        "\n## @writer\n<!-- chatmd id=t{turn} agent=acp status=done started=… model=auto \
         took=… stop=end_turn exit=0 tokens=11865/16 -->\nI'll run a command.\n\n\
         > - Execute: touch notes.txt — completed\n\n\
         > **Permission** t{turn}-p1 — {record}\n\n\
         ANSWER-gemini role_seen=no marker_count=0 roles=none team=0 {seen} ask=- \
         tool_result=\"{{'output': '<untrusted_context>\\nOutput: (empty)\\nProcess Group \
         PGID: 32302\\n</untrusted_context>'}}\"\n\n## @me\n"
    )
}

/// What the agent saw in a first turn.
const FIRST: &str = "turn=1 user_msgs=1 assistant_msgs=1";

#[tokio::test]
async fn allow_always_writes_a_rule_and_the_next_turn_is_answered_by_it() {
    let (s, log) = writer("gemini");
    let (mut editor, uri) = sent(&s, &format!("{HEAD}{ASK}")).await;
    let answered = answer(&mut editor, &uri, "t1-p1", "allow_always").await;
    assert_eq!(
        answered["record"],
        "allowed always (\"Allow for this session\")"
    );
    editor
        .run_until("the end", |e| finished(e.text(&uri)))
        .await;
    let rule = "permissions:\n  writer:\n    \"execute: touch notes.txt\": allow\n";
    let head = format!("---\ntitle: Docs  # the docs chat\n# more keys later\n{rule}---\n");
    let first = section(1, "allowed always (\"Allow for this session\")", FIRST);
    assert_eq!(masked(editor.text(&uri)), format!("{head}{ASK}{first}"));

    // The next turn: gemini remembers "for this session" only, and asks again.
    std::fs::remove_file(s.path("team/writer/notes.txt")).expect("the file was made");
    let again = "@writer MOCK-MODE=toolwrite WRITE=notes.txt once more\n";
    editor.type_text(&uri, At::End, again).await;
    send(&mut editor, &uri).await;
    editor
        .run_until("the second turn", |e| {
            finished(e.text(&uri)) && e.text(&uri).contains("id=t2")
        })
        .await;
    assert_eq!(
        answers_received(&log),
        [
            json!({"outcome": "selected", "optionId": "proceed_always"}),
            json!({"outcome": "selected", "optionId": "proceed_once"}),
        ]
    );
    assert!(
        s.path("team/writer/notes.txt").exists(),
        "allowed by the rule"
    );
    let text = masked(editor.text(&uri));
    // gemini has no resume: the new session is seeded with the whole chat, one message.
    let second = section(2, "allowed once (\"Allow\"), by policy", FIRST);
    assert_eq!(text, format!("{head}{ASK}{first}{again}{second}"));
}

#[tokio::test]
async fn reject_always_answers_the_same_request_later_in_the_turn() {
    let (s, log) = writer("gemini");
    let ask = "## @me\n@writer MOCK-MODE=toolwrite2 WRITE=a.txt WRITE=a.txt twice\n";
    let (mut editor, uri) = sent(&s, ask).await;
    // gemini offers no "reject always": chatmd remembers it and the agent hears Reject.
    let answered = answer(&mut editor, &uri, "t1-p1", "reject_always").await;
    assert_eq!(answered["record"], "rejected always (\"Reject\")");
    editor
        .run_until("the end", |e| finished(e.text(&uri)))
        .await;
    assert_eq!(
        answers_received(&log),
        [
            json!({"outcome": "selected", "optionId": "cancel"}),
            json!({"outcome": "selected", "optionId": "cancel"}),
        ]
    );
    assert!(!s.path("team/writer/a.txt").exists(), "nothing ran");
    let text = masked(editor.text(&uri));
    let expected = format!(
        "---\npermissions:\n  writer:\n    \"execute: touch a.txt\": reject\n---\n{ask}\n\
         ## @writer\n<!-- chatmd id=t1 agent=acp status=done started=… model=auto took=… \
         stop=end_turn exit=0 tokens=11865/18 -->\nI'll run a command.\n\n\
         > - Execute: touch a.txt — not run\n\n\
         > **Permission** t1-p1 — rejected always (\"Reject\")\n\n\
         > - Execute: touch a.txt — not run\n\n\
         > **Permission** t1-p2 — rejected (\"Reject\"), by policy\n\n\
         ANSWER-gemini role_seen=no marker_count=0 roles=none team=0 turn=1 user_msgs=1 \
         assistant_msgs=2 ask=- tool_result=\"{{'error': 'Tool \\'run_shell_command\\' was \
         canceled by the user.'}}\"\n\n## @me\n"
    );
    assert_eq!(text, expected);
}

#[tokio::test]
async fn a_chats_allow_rule_is_a_warning_until_trusted_there_then_it_answers() {
    let (s, log) = writer("gemini");
    let head = "---\npermissions:\n  writer:\n    \"execute: touch *\": allow\n    \"edit: *\": reject\n---\n";
    let (mut editor, uri) = s
        .open_chat(Behaviour::VsCode, "team/p.chat.md", &format!("{head}{ASK}"))
        .await;
    let chat = s.path("team/p.chat.md").display().to_string();
    let warning = format!(
        "3:4-3:29 2 untrusted-rule This rule would let @writer act without asking you, and \
         a rule in a chat file applies only once you trust it in this chat: until then \
         @writer asks you. Review the rules, then use the quick fix \"Trust the permission \
         rules of this chat…\" or run `chatmd trust {chat}`"
    );
    loop {
        let shown = summarize(&editor.client.expect_diagnostics(&uri).await);
        if shown == [warning.clone()] {
            break;
        }
    }
    let actions = editor
        .client
        .request(
            "textDocument/codeAction",
            json!({
                "textDocument": {"uri": uri},
                "range": {"start": {"line": 3, "character": 8}, "end": {"line": 3, "character": 8}},
                "context": {"diagnostics": []},
            }),
        )
        .await
        .expect("code actions");
    let title = "Trust the permission rules of this chat…";
    let command = json!({"title": title, "command": "chatmd.trust", "arguments": [{"uri": uri}]});
    assert_eq!(actions[0]["title"], title, "{actions:?}");
    assert_eq!(actions[0]["command"], command);
    let id = editor
        .client
        .send_request(
            "workspace/executeCommand",
            json!({"command": "chatmd.trust", "arguments": [{"uri": uri}]}),
        )
        .await;
    let (question, params) = editor
        .client
        .expect_request("window/showMessageRequest")
        .await;
    assert_eq!(
        params["message"],
        format!(
            "Trust the permission rules of {chat}? They let agents act without asking you: \
             @writer \"execute: touch *\": allow. Trust them only if you would give these \
             answers yourself; a rule added later needs your trust again."
        )
    );
    editor
        .client
        .respond(question, json!({"title": "Trust"}))
        .await;
    assert_eq!(
        editor.client.expect_response(id).await,
        Ok(json!({"trusted": true, "file": chat}))
    );
    // The warning goes away without an edit, and the rule answers.
    while !editor.client.expect_diagnostics(&uri).await.is_empty() {}
    send(&mut editor, &uri).await;
    editor
        .run_until("the end", |e| finished(e.text(&uri)))
        .await;
    assert_eq!(
        answers_received(&log),
        [json!({"outcome": "selected", "optionId": "proceed_once"})]
    );
    assert!(s.path("team/writer/notes.txt").exists());
    let first = section(1, "allowed once (\"Allow\"), by policy", FIRST);
    assert_eq!(masked(editor.text(&uri)), format!("{head}{ASK}{first}"));
}

/// The workspace's own `chatmd.toml` (above the team's) allowing the writer's touches.
const TEAM_RULE: &str = "[members.writer.permissions]\n\"execute: touch *\" = \"allow\"\n";

#[tokio::test]
async fn a_team_rule_applies_once_its_file_is_trusted() {
    let (s, log) = writer("gemini");
    s.write("chatmd.toml", TEAM_RULE);
    let (mut editor, uri) = sent(&s, ASK).await;
    editor
        .run_until("the end", |e| finished(e.text(&uri)))
        .await;
    assert_eq!(
        answers_received(&log),
        [json!({"outcome": "selected", "optionId": "proceed_once"})]
    );
    let first = section(
        1,
        "allowed once (\"Allow\"), by policy (chatmd.toml)",
        FIRST,
    );
    assert_eq!(masked(editor.text(&uri)), format!("{ASK}{first}"));
}

#[tokio::test]
async fn an_untrusted_team_rule_is_not_applied_and_the_user_is_asked() {
    let (s, log) = writer("gemini");
    s.write_untrusted("chatmd.toml", TEAM_RULE);
    let (mut editor, uri) = sent(&s, ASK).await;
    // The member runs (a rule left out only means it asks), and asks.
    answer(&mut editor, &uri, "t1-p1", "Reject").await;
    editor
        .run_until("the end", |e| finished(e.text(&uri)))
        .await;
    assert_eq!(
        answers_received(&log),
        [json!({"outcome": "selected", "optionId": "cancel"})]
    );
    assert!(
        editor
            .text(&uri)
            .contains("> **Permission** t1-p1 — rejected (\"Reject\")\n"),
        "{}",
        editor.text(&uri)
    );
    // The rule waits for trust, said where it is written, like the other such keys.
    let config = s.uri("chatmd.toml");
    let text = std::fs::read_to_string(s.path("chatmd.toml")).unwrap();
    editor.open(&config, &text).await;
    let path = s.path("chatmd.toml").display().to_string();
    let expected = [(
        json!(0),
        json!(format!(
            "`permissions` allow rules are not applied until you trust this file: its allow \
             rules would let @writer's agent act without asking you. @writer asks you \
             instead until then; review the file, then run `chatmd trust {path}` or use \
             the quick fix \"Trust this chatmd.toml…\""
        )),
    )];
    // The file's diagnostics are published when the chat is sent and again when the file
    // opens: what the editor ends up showing is the one that counts, and it must come
    // (the wait fails the test when it does not).
    loop {
        let shown: Vec<_> = editor
            .client
            .expect_diagnostics(&config)
            .await
            .iter()
            .map(|d| (d["range"]["start"]["line"].clone(), d["message"].clone()))
            .collect();
        if shown == expected {
            break;
        }
    }
}

#[tokio::test]
async fn a_plan_approval_shows_the_plan_and_takes_the_answer() {
    let (s, log) = writer("claude");
    let ask = "## @me\n@writer MOCK-MODE=exitplan plan the fix first\n";
    let (mut editor, uri) = sent(&s, ask).await;
    editor
        .run_until("the request", |e| e.text(&uri).contains("status=waiting"))
        .await;
    let options = "> - [ ] Yes, and bypass permissions · - [ ] Yes, and auto-accept edits · \
                   - [ ] Yes, and manually approve edits · - [ ] No, keep planning\n";
    let plan = ">\n> The plan:\n>\n> # Plan\n>\n> 1. Read `src/lib.rs`\n\
                > 2. Fix the off-by-one in `count`\n> 3. Run `cargo test`\n";
    let waiting = format!(
        "> **Permission** `t1-p1` — writer wants to use `Ready to code?` (switch_mode)\n\
         {options}{plan}"
    );
    assert!(
        editor.text(&uri).contains(&waiting),
        "{}",
        editor.text(&uri)
    );
    let answered = answer(
        &mut editor,
        &uri,
        "t1-p1",
        "Yes, and manually approve edits",
    )
    .await;
    assert_eq!(
        answered["record"],
        "allowed once (\"Yes, and manually approve edits\")"
    );
    editor
        .run_until("the end", |e| finished(e.text(&uri)))
        .await;
    assert_eq!(
        answers_received(&log),
        [json!({"outcome": "selected", "optionId": "default"})]
    );
    let text = masked(editor.text(&uri));
    assert!(
        text.contains(&format!(
            "I have a plan.\n\n> - Switch mode: Exited Plan Mode — completed\n\n\
             > **Permission** t1-p1 — allowed once (\"Yes, and manually \
             approve edits\")\n{plan}\n"
        )),
        "the plan stays under the record: {text}"
    );
    assert!(
        !text.contains("permissions:"),
        "a once answer writes no rule: {text}"
    );
}

#[tokio::test]
async fn a_malformed_rule_is_a_diagnostic_and_the_key_is_known() {
    let (s, _log) = writer("gemini");
    let head = "---\npermissions:\n  writer:\n    \"bash: ls\": allow\n    \"edit: *\": yes\n---\n";
    let mut editor = s.editor(Behaviour::VsCode).await;
    let uri = s.uri("team/d.chat.md");
    editor.open(&uri, &format!("{head}{ASK}")).await;
    let diagnostics = loop {
        let diagnostics = editor.client.expect_diagnostics(&uri).await;
        if !diagnostics.is_empty() {
            break diagnostics;
        }
    };
    let messages: Vec<(u64, &str)> = diagnostics
        .iter()
        .map(|d| {
            (
                d["range"]["start"]["line"].as_u64().unwrap(),
                d["message"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        messages,
        [
            (
                3,
                "`bash` is not a tool kind; use one of read, edit, delete, move, search, \
                 execute, think, fetch, switch_mode, other, or `*`"
            ),
            (4, "the rule `edit: *` must be `allow` or `reject`"),
        ]
    );
}
