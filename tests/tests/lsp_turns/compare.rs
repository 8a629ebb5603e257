//! `routing: compare` from the editor: the members asked answer the same message in
//! parallel, none sees another's answer (then or later), an `@member` in an answer
//! hands over to nobody, and "Continue with @x" addresses the next message to x alone,
//! which resumes x's own session.

use chatmd_tests::sim_editor::{At, Behaviour, SimEditor};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use crate::resume::runs;
use crate::setup::{Setup, code_actions_at, finished, plain, turns_ended};

const REVIEWER_SESSION: &str = "5e55a000-0000-4000-8000-0000000000a1";
const TESTER_SESSION: &str = "5e55a000-0000-4000-8000-0000000000b2";

/// A team whose claude reviewer and codex tester resume their sessions, answer their
/// own words (and print `session`, unless empty) and record every run in `runs.jsonl`.
pub(crate) fn compare_team(answers: &[(&str, &str, &str)]) -> Setup {
    let s = Setup::new(&[]);
    let mut toml = String::new();
    for (member, text, session) in answers {
        toml.push_str(&format!(
            "[members.{member}]\nresume = true\nhome = \".state/{member}\"\n\
             [members.{member}.env]\nIS_SANDBOX = \"\"\nFAKE_AGENT_TEXT = \"{text}\"\n\
             FAKE_AGENT_RECORD = \"{}\"\n",
            s.path("runs.jsonl").display()
        ));
        if !session.is_empty() {
            toml.push_str(&format!("FAKE_AGENT_SESSION = \"{session}\"\n"));
        }
    }
    s.write("team/chatmd.toml", &toml);
    s
}

/// The runs of the fake as `cli`, oldest first.
pub(crate) fn runs_as(s: &Setup, cli: &str) -> Vec<Value> {
    runs(s).into_iter().filter(|r| r["as"] == cli).collect()
}

/// Sends and waits until `members` started and the chat shows `done` answers.
async fn send_to(editor: &mut SimEditor, uri: &str, members: &[&str], done: usize) {
    let answer = editor.command("chatmd.send", json!({"uri": uri})).await;
    assert_eq!(answer, Ok(json!({ "members": members })));
    editor
        .run_until("the answers", |e| {
            let text = e.text(uri);
            finished(text) && text.matches("status=done").count() == done
        })
        .await;
    turns_ended(editor).await;
}

/// Applies "Continue with @member" offered on the first line that starts with `line`.
async fn continue_with(editor: &mut SimEditor, uri: &str, line: &str, member: &str) {
    let at = editor
        .text(uri)
        .lines()
        .position(|l| l.starts_with(line))
        .expect("the line");
    let actions = code_actions_at(editor, uri, at).await;
    let title = format!("Continue with @{member}");
    let action = actions
        .iter()
        .find(|a| a["title"] == title.as_str())
        .unwrap_or_else(|| panic!("{title} offered: {actions:?}"));
    let edits = action["edit"]["changes"][uri].as_array().expect("edits");
    assert_eq!(edits.len(), 1);
    let lines = editor.text(uri).lines().count();
    assert_eq!(
        edits[0]["range"]["start"],
        json!({"line": lines, "character": 0}),
        "at the end"
    );
    let new_text = edits[0]["newText"].as_str().unwrap().to_owned();
    editor.type_text(uri, At::End, &new_text).await;
}

#[tokio::test]
async fn compare_answers_apart_and_each_member_continues_its_own_session() {
    let s = compare_team(&[
        (
            "reviewer",
            "Reviewer: an LRU cache. @tester agree?",
            REVIEWER_SESSION,
        ),
        ("tester", "Tester: a TTL cache.", TESTER_SESSION),
    ]);
    let head = "---\nrouting: compare\n---\n## @me\n@reviewer @tester which cache?\n";
    let (mut editor, uri) = s.open_chat(Behaviour::VsCode, "team/c.chat.md", head).await;
    send_to(&mut editor, &uri, &["reviewer", "tester"], 2).await;
    // Both answered the same message; the reviewer's `@tester` handed over to nobody.
    let round = "\n## @reviewer\n<!-- t1 claude done -->\nReviewer: an LRU cache. @tester agree?\n\
                 \n## @tester\n<!-- t2 codex done -->\nTester: a TTL cache.\n";
    assert_eq!(plain(editor.text(&uri)), format!("{head}{round}\n## @me\n"));
    let first = runs(&s);
    assert_eq!(first.len(), 2, "two runs, no hand-off");
    for run in &first {
        let prompt = run["prompt"].as_str().unwrap();
        assert!(
            prompt.ends_with("[MESSAGE]\nme: @reviewer @tester which cache?\n"),
            "{prompt}"
        );
        assert!(!prompt.contains("Reviewer:") && !prompt.contains("Tester:"));
        assert!(!prompt.contains("@tester (") && !prompt.contains("@reviewer ("));
    }

    // Continue with @tester: the next message goes to the tester alone, which resumes
    // its own session.
    continue_with(&mut editor, &uri, "Tester: a TTL", "tester").await;
    assert!(editor.text(&uri).ends_with("\n## @me\n@tester "));
    editor.type_text(&uri, At::End, "why a TTL?\n").await;
    send_to(&mut editor, &uri, &["tester"], 3).await;
    let tester = runs_as(&s, "codex");
    assert_eq!(tester.len(), 2);
    assert_eq!(tester[1]["resume"], TESTER_SESSION);
    assert_eq!(
        tester[1]["prompt"],
        "[CONTEXT]\n[MESSAGE]\nme: @tester why a TTL?\n"
    );

    // Continue with @reviewer, later: it resumes its own session, and of what came
    // after its answer it sees the human's messages, never the tester's answers.
    continue_with(&mut editor, &uri, "Reviewer: an LRU", "reviewer").await;
    editor.type_text(&uri, At::End, "and you?\n").await;
    send_to(&mut editor, &uri, &["reviewer"], 4).await;
    let reviewer = runs_as(&s, "claude");
    assert_eq!(reviewer.len(), 2);
    assert_eq!(reviewer[1]["resume"], REVIEWER_SESSION);
    assert_eq!(
        reviewer[1]["prompt"],
        "[CONTEXT]\nme: @tester why a TTL?\n[MESSAGE]\nme: @reviewer and you?\n"
    );
    assert_eq!(
        plain(editor.text(&uri)),
        format!(
            "{head}{round}\n## @me\n@tester why a TTL?\n\
             \n## @tester\n<!-- t3 codex done -->\nTester: a TTL cache.\n\
             \n## @me\n@reviewer and you?\n\
             \n## @reviewer\n<!-- t4 claude done -->\nReviewer: an LRU cache. @tester agree?\n\
             \n## @me\n"
        )
    );
}
