//! `resume = true` from the editor, for claude, codex and gemini: the second Send
//! continues the session of the member's last status comment with only the new
//! message; a session the CLI lost runs again as a new session in the same section.
//! The fake agent keeps a session store and records every run (`runs.jsonl`).

use crate::seen_support::seen;
use chatmd_tests::sim_editor::{At, Behaviour, SimEditor};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use crate::setup::{Setup, finished, redact, send, turns_ended};

const MEMBERS: [(&str, &str); 3] = [
    ("reviewer", "claude"),
    ("tester", "codex"),
    ("writer", "gemini"),
];
const FIRST: &str = "5e55a000-0000-4000-8000-000000000001";
const LOST: &str = "5e55a000-0000-4000-8000-00000000dead";
const FRESH: &str = "5e55a000-0000-4000-8000-000000000002";
const ROLE: &str = "ROLE-MARKER: be strict.";

/// A workspace where `member` resumes, answers `text` and prints `session`; the fake's
/// session store and record are in the workspace.
fn workspace(member: &str, text: &str, session: &str) -> Setup {
    let s = Setup::new(&[]);
    let store = s.path("sessions");
    std::fs::create_dir_all(&store).expect("store");
    // A `home` of its own: codex's model would otherwise come from the config.toml in
    // the HOME of whoever runs the tests (the server runs in this process).
    let toml = format!(
        "[members.{member}]\nresume = true\nhome = \".state/{member}\"\n\
         instructions = \"{ROLE}\"\n\
         [members.{member}.env]\nIS_SANDBOX = \"\"\nFAKE_AGENT_TEXT = \"{text}\"\n\
         FAKE_AGENT_SESSION = \"{session}\"\nFAKE_AGENT_SESSIONS = \"{}\"\n\
         FAKE_AGENT_RECORD = \"{}\"\n",
        store.display(),
        s.path("runs.jsonl").display()
    );
    s.write("team/chatmd.toml", &toml);
    s
}

fn runs(s: &Setup) -> Vec<Value> {
    s.read("runs.jsonl")
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON line"))
        .collect()
}

fn status_tail(cli: &str, session: &str) -> String {
    match cli {
        "claude" => format!(
            "model=claude-opus-4-8[1m] session={session} took=… stop=end_turn exit=0 tokens=10/1"
        ),
        "codex" => format!("session={session} took=… exit=0 tokens=10/1"),
        _ => format!("model=auto session={session} took=… exit=0 tokens=10/1"),
    }
}

#[tokio::test]
async fn the_second_send_resumes_with_only_the_new_message() {
    for (member, cli) in MEMBERS {
        let s = workspace(member, "Answer.", FIRST);
        let chat = format!("## @me\n@{member} first question\n");
        let (mut editor, uri) = s
            .open_chat(Behaviour::VsCode, "team/r.chat.md", &chat)
            .await;
        send(&mut editor, &uri).await;
        editor
            .run_until("the first answer", |e| finished(e.text(&uri)))
            .await;
        turns_ended(&mut editor).await;
        editor
            .type_text(&uri, At::End, &format!("@{member} second question\n"))
            .await;
        send(&mut editor, &uri).await;
        editor
            .run_until("the second answer", |e| {
                let text = e.text(&uri);
                finished(text) && text.matches("status=done").count() == 2
            })
            .await;
        turns_ended(&mut editor).await;

        let runs = runs(&s);
        assert_eq!(runs.len(), 2, "{cli}");
        assert_eq!(runs[0]["resume"], Value::Null, "{cli}");
        assert_eq!(runs[1]["resume"], FIRST, "{cli}");
        assert_eq!(
            runs[1]["prompt"],
            format!("[CONTEXT]\n[MESSAGE]\nme: @{member} second question\n").as_str(),
            "{cli}: only the new message, no role, no roster"
        );
        // The role goes again only to claude, which does not keep it with the session.
        let role_args = |run: &Value| {
            run["argv"]
                .as_array()
                .expect("argv")
                .iter()
                .filter(|a| a.as_str().is_some_and(|a| a.contains(ROLE)))
                .count()
        };
        assert_eq!(role_args(&runs[0]), 1, "{cli}: the first run has the role");
        let again = usize::from(cli == "claude");
        assert_eq!(role_args(&runs[1]), again, "{cli}");

        let tail = status_tail(cli, FIRST);
        // What each turn was given: the first question, then (resuming) the second.
        let text = editor.text(&uri);
        let (seen1, seen2) = (seen(text, false, 0, 0), seen(text, true, 2, 2));
        assert_eq!(
            redact(text),
            format!(
                "## @me\n@{member} first question\n\
                 \n## @{member}\n<!-- chatmd id=t1 agent={cli} status=done {seen1} started=… {tail} -->\nAnswer.\n\
                 \n## @me\n@{member} second question\n\
                 \n## @{member}\n<!-- chatmd id=t2 agent={cli} status=done {seen2} started=… {tail} -->\nAnswer.\n\
                 \n## @me\n"
            ),
            "{cli}"
        );
    }
}

#[tokio::test]
async fn a_lost_session_falls_back_to_a_new_one_in_the_same_section() {
    for (member, cli) in MEMBERS {
        let s = workspace(member, "Fresh.", FRESH);
        let chat = format!(
            "## @me\n@{member} first question\n\
             \n## @{member}\n<!-- chatmd id=t1 agent={cli} status=done session={LOST} -->\nOld.\n\
             \n## @me\n@{member} second question\n"
        );
        let (mut editor, uri) = s
            .open_chat(Behaviour::Neovim, "team/l.chat.md", &chat)
            .await;
        send(&mut editor, &uri).await;
        editor
            .run_until("the answer", |e| finished(e.text(&uri)))
            .await;
        turns_ended(&mut editor).await;

        let runs = runs(&s);
        assert_eq!(runs.len(), 2, "{cli}");
        assert_eq!(runs[0]["resume"], LOST, "{cli}");
        assert_eq!(runs[1]["resume"], Value::Null, "{cli}");
        let prompt = runs[1]["prompt"].as_str().expect("prompt");
        assert!(
            prompt.contains(&format!(
                "me: @{member} first question\n{member}: Old.\n[MESSAGE]\nme: @{member} second question\n"
            )),
            "{cli}: the whole context: {prompt}"
        );
        let tail = status_tail(cli, FRESH);
        // The new session was given the whole chat (not just what the lost one missed).
        let seen = seen(&chat, false, 0, 2);
        assert_eq!(
            redact(editor.text(&uri)),
            format!(
                "{chat}\n## @{member}\n<!-- chatmd id=t2 agent={cli} status=done {seen} started=… resume=lost {tail} -->\nFresh.\n\
                 \n## @me\n"
            ),
            "{cli}"
        );
    }
}

/// The reviewer answered "first question" (a new session) and "second question"
/// (resuming it); then the user edits the first question, which that session saw.
async fn edited_after_two_turns(s: &Setup) -> (SimEditor, String) {
    let chat = "## @me\n@reviewer first question\n";
    let (mut editor, uri) = s.open_chat(Behaviour::VsCode, "team/e.chat.md", chat).await;
    for (question, answers) in [("", 1), ("@reviewer second question\n", 2)] {
        if !question.is_empty() {
            editor.type_text(&uri, At::End, question).await;
        }
        send(&mut editor, &uri).await;
        editor
            .run_until("the answer", |e| {
                let text = e.text(&uri);
                finished(text) && text.matches("status=done").count() == answers
            })
            .await;
        turns_ended(&mut editor).await;
    }
    // A draft nobody has seen: editing it warns about nothing.
    editor
        .type_text(&uri, At::End, "@reviewer third question\n")
        .await;
    editor
        .type_text(&uri, At::After("third question".into()), ", please")
        .await;
    let found = editor.client.expect_diagnostics(&uri).await;
    assert_eq!(seen_warnings(&found), Vec::<Value>::new());
    editor
        .type_text(&uri, At::After("first question".into()), ", revised")
        .await;
    (editor, uri)
}

fn seen_warnings(diagnostics: &[Value]) -> Vec<Value> {
    diagnostics
        .iter()
        .filter(|d| d["code"] == "seen-earlier-version")
        .cloned()
        .collect()
}

/// Waits for the published diagnostics until the seen warnings number `n`.
async fn seen_warnings_until(editor: &mut SimEditor, uri: &str, n: usize) -> Vec<Value> {
    loop {
        let found = seen_warnings(&editor.client.expect_diagnostics(uri).await);
        if found.len() == n {
            return found;
        }
    }
}

/// Applies the code action titled `title` offered on line `line`: its one edit
/// rewrites the status comment of the reviewer's last answer.
async fn apply_action(editor: &mut SimEditor, uri: &str, line: usize, title: &str) {
    let actions = editor
        .client
        .request(
            "textDocument/codeAction",
            json!({
                "textDocument": {"uri": uri},
                "range": {"start": {"line": line, "character": 0}, "end": {"line": line, "character": 0}},
                "context": {"diagnostics": []},
            }),
        )
        .await
        .expect("code actions");
    let titles: Vec<&str> = actions
        .as_array()
        .expect("a list")
        .iter()
        .filter(|a| a["kind"] == "quickfix")
        .filter_map(|a| a["title"].as_str())
        .collect();
    assert_eq!(
        titles,
        [
            "Fork from here",
            "Start @reviewer afresh from the file",
            "Tell @reviewer what changed"
        ]
    );
    assert_eq!(
        actions
            .as_array()
            .unwrap()
            .iter()
            .filter(|a| a["title"] == "Fork from here")
            .count(),
        1,
        "the quick fix, not the same command twice"
    );
    let action = actions
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["title"] == title)
        .expect("the action");
    let edits = action["edit"]["changes"][uri].as_array().expect("edits");
    assert_eq!(edits.len(), 1);
    let text = editor.text(uri).to_owned();
    let status_line = text
        .lines()
        .position(|l| l.starts_with("<!-- chatmd id=t2"))
        .expect("the second answer");
    assert_eq!(edits[0]["range"]["start"]["line"], status_line);
    let start = text.find("<!-- chatmd id=t2").unwrap();
    let end = start + text[start..].find('\n').unwrap();
    let new_text = edits[0]["newText"].as_str().unwrap().to_owned();
    editor.replace(uri, start..end, &new_text).await;
}

#[tokio::test]
async fn an_edited_message_the_session_saw_is_flagged_and_told_to_the_agent() {
    let s = workspace("reviewer", "Answer.", FIRST);
    let (mut editor, uri) = edited_after_two_turns(&s).await;
    let found = seen_warnings_until(&mut editor, &uri, 1).await;
    assert_eq!(
        found[0]["range"]["start"]["line"], 0,
        "on the edited message"
    );
    assert_eq!(found[0]["range"]["end"]["line"], 0);
    assert_eq!(
        found[0]["message"],
        "@reviewer saw an earlier version of this message: its session still holds that \
         one. Fork from here, start @reviewer afresh from the file, or tell it what changed."
    );
    apply_action(&mut editor, &uri, 0, "Tell @reviewer what changed").await;
    seen_warnings_until(&mut editor, &uri, 0).await;
    send(&mut editor, &uri).await;
    editor
        .run_until("the third answer", |e| {
            let text = e.text(&uri);
            finished(text) && text.matches("status=done").count() == 3
        })
        .await;
    turns_ended(&mut editor).await;

    let runs = runs(&s);
    assert_eq!(runs.len(), 3);
    assert_eq!(runs[2]["resume"], FIRST, "the session goes on");
    assert_eq!(
        runs[2]["prompt"],
        "[CONTEXT]\nchatmd: the user changed messages you saw earlier in this chat. They \
         read now (forget the earlier versions):\nme: @reviewer first question, revised\n\
         [MESSAGE]\nme: @reviewer third question, please\n"
    );
    // The told turn's record holds the new text: nothing to warn about any more.
    let text = editor.text(&uri).to_owned();
    assert!(text.contains(&seen(&text, true, 0, 4)), "{text}");
    editor.type_text(&uri, At::End, "x").await;
    let found = editor.client.expect_diagnostics(&uri).await;
    assert_eq!(seen_warnings(&found), Vec::<Value>::new());
}

#[tokio::test]
async fn start_afresh_runs_a_new_session_with_the_file_as_it_is() {
    let s = workspace("reviewer", "Answer.", FIRST);
    let (mut editor, uri) = edited_after_two_turns(&s).await;
    seen_warnings_until(&mut editor, &uri, 1).await;
    apply_action(&mut editor, &uri, 0, "Start @reviewer afresh from the file").await;
    seen_warnings_until(&mut editor, &uri, 0).await;
    send(&mut editor, &uri).await;
    editor
        .run_until("the third answer", |e| {
            let text = e.text(&uri);
            finished(text) && text.matches("status=done").count() == 3
        })
        .await;
    turns_ended(&mut editor).await;

    let runs = runs(&s);
    assert_eq!(runs.len(), 3);
    assert_eq!(runs[2]["resume"], Value::Null, "a new session");
    let prompt = runs[2]["prompt"].as_str().expect("prompt");
    assert!(
        prompt.starts_with("[CONTEXT]\nYou are @reviewer"),
        "{prompt}"
    );
    assert!(
        prompt.ends_with(
            "me: @reviewer first question, revised\nreviewer: Answer.\n\
             me: @reviewer second question\nreviewer: Answer.\n\
             [MESSAGE]\nme: @reviewer third question, please\n"
        ),
        "{prompt}"
    );
    let text = editor.text(&uri).to_owned();
    assert!(text.contains(&seen(&text, false, 0, 4)), "{text}");
}

#[tokio::test]
async fn fork_from_here_starts_new_sessions_from_the_edited_message() {
    let s = workspace("reviewer", "Answer.", FIRST);
    let (mut editor, uri) = edited_after_two_turns(&s).await;
    let found = seen_warnings_until(&mut editor, &uri, 1).await;
    let actions = editor
        .client
        .request(
            "textDocument/codeAction",
            json!({
                "textDocument": {"uri": uri},
                "range": found[0]["range"],
                "context": {"diagnostics": found},
            }),
        )
        .await
        .expect("code actions");
    let fork = actions
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["title"] == "Fork from here" && a["kind"] == "quickfix")
        .expect("the fork")
        .clone();
    let command = &fork["command"];
    let answer = editor
        .command(
            command["command"].as_str().unwrap(),
            command["arguments"][0].clone(),
        )
        .await
        .expect("a fork");
    let fork_uri = s.uri("team/e-fork.chat.md");
    assert_eq!(answer, json!({"uri": fork_uri}));
    // Up to the edited message, as the file has it now.
    let forked = "---\nforked_from: e.chat.md\n---\n## @me\n@reviewer first question, revised\n\n";
    assert_eq!(s.read("team/e-fork.chat.md"), forked);
    editor.open(&fork_uri, forked).await;
    send(&mut editor, &fork_uri).await;
    editor
        .run_until("the fork's answer", |e| finished(e.text(&fork_uri)))
        .await;
    turns_ended(&mut editor).await;
    let runs = runs(&s);
    assert_eq!(runs.len(), 3);
    assert_eq!(runs[2]["resume"], Value::Null, "a session of its own");
    let prompt = runs[2]["prompt"].as_str().expect("prompt");
    assert!(
        prompt.ends_with("[MESSAGE]\nme: @reviewer first question, revised\n"),
        "{prompt}"
    );
}
