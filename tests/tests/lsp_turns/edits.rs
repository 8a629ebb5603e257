//! Edit-aware sessions from the editor: an edit of a message that a resuming
//! member's session saw is a warning on that message, with quick fixes that fork the
//! chat there, start the member afresh from the file, or tell it what changed; each
//! does what it says (the fake agent records what it was given).

use chatmd_tests::sim_editor::{At, Behaviour, SimEditor};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use crate::resume::{FIRST, runs, workspace, workspace_where};
use crate::seen_support::seen;
use crate::setup::{Setup, code_actions_at, finished, send, send_until_done, turns_ended};

/// The reviewer answered "first question" (a new session) and "second question"
/// (resuming it); then the user edits the first question, which that session saw.
async fn edited_after_two_turns(s: &Setup) -> (SimEditor, String) {
    let chat = "## @me\n@reviewer first question\n";
    let (mut editor, uri) = s.open_chat(Behaviour::VsCode, "team/e.chat.md", chat).await;
    send_until_done(&mut editor, &uri, 1).await;
    editor
        .type_text(&uri, At::End, "@reviewer second question\n")
        .await;
    send_until_done(&mut editor, &uri, 2).await;
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

/// The third turn's run (after [`edited_after_two_turns`]) was a new session given the
/// whole chat as the file has it now: the roster line first, the revised question.
fn given_the_edited_chat(run: &Value) {
    let prompt = run["prompt"].as_str().expect("prompt");
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
    let actions = code_actions_at(editor, uri, line).await;
    let titles: Vec<&str> = actions
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
            .iter()
            .filter(|a| a["title"] == "Fork from here")
            .count(),
        1,
        "the quick fix, not the same command twice"
    );
    let action = actions
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
    send_until_done(&mut editor, &uri, 3).await;

    let runs = runs(&s);
    assert_eq!(runs.len(), 3);
    assert_eq!(runs[2]["resume"], FIRST, "the session goes on");
    assert_eq!(
        runs[2]["prompt"],
        "[CONTEXT]\nchatmd: the user changed messages you saw earlier in this chat. They \
         read now (forget the earlier versions):\nme: @reviewer first question, revised\n\
         [MESSAGE]\nme: @reviewer third question, please\n"
    );
    // The told turn's record holds the new text: nothing to warn about any more. It
    // starts at the corrected message; what it was not given now (its own answers, the
    // second question it saw before) is `-`.
    let text = editor.text(&uri).to_owned();
    let all = seen(&text, true, 0, 4);
    let hashes: Vec<&str> = all["seen=+0:".len()..].split('.').collect();
    let told = format!("seen=+0:{}.-.-.-.{}", hashes[0], hashes[4]);
    assert!(text.contains(&told), "{text}");
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
    send_until_done(&mut editor, &uri, 3).await;

    let runs = runs(&s);
    assert_eq!(runs.len(), 3);
    assert_eq!(runs[2]["resume"], Value::Null, "a new session");
    given_the_edited_chat(&runs[2]);
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

/// `resume = false`: every turn is a new session given the file, so an edit of a
/// message an earlier turn saw is nothing to warn about, and the next turn reads it.
#[tokio::test]
async fn a_member_with_resume_off_gets_no_warning_and_the_whole_chat() {
    let s = workspace_where("reviewer", "Answer.", FIRST, "resume = false\n");
    let (mut editor, uri) = edited_after_two_turns(&s).await;
    let found = editor.client.expect_diagnostics(&uri).await;
    assert_eq!(seen_warnings(&found), Vec::<Value>::new());
    assert!(
        !editor.text(&uri).contains("seen="),
        "{}",
        editor.text(&uri)
    );
    send_until_done(&mut editor, &uri, 3).await;

    let runs = runs(&s);
    assert_eq!(runs.len(), 3);
    for run in &runs {
        assert_eq!(run["resume"], Value::Null, "a new session every turn");
    }
    given_the_edited_chat(&runs[2]);
}
