//! Resuming (the default: no `resume` key) from the editor, for claude, codex and
//! gemini: the second Send
//! continues the session of the member's last status comment with only the new
//! message; a session the CLI lost runs again as a new session in the same section.
//! The fake agent keeps a session store and records every run (`runs.jsonl`).

use crate::seen_support::{held, seen};
use chatmd_tests::sim_editor::{At, Behaviour};
use pretty_assertions::assert_eq;
use serde_json::Value;

use crate::setup::{Setup, finished, redact, send, turns_ended};

const MEMBERS: [(&str, &str); 3] = [
    ("reviewer", "claude"),
    ("tester", "codex"),
    ("writer", "gemini"),
];
pub(crate) const FIRST: &str = "5e55a000-0000-4000-8000-000000000001";
const LOST: &str = "5e55a000-0000-4000-8000-00000000dead";
const FRESH: &str = "5e55a000-0000-4000-8000-000000000002";
const ROLE: &str = "ROLE-MARKER: be strict.";

/// A workspace where `member` answers `text` and prints `session`, with no `resume`
/// key (it resumes: the default); the fake's session store and record are in the
/// workspace.
pub(crate) fn workspace(member: &str, text: &str, session: &str) -> Setup {
    workspace_where(member, text, session, "")
}

/// [`workspace`] with `settings` (lines such as `resume = false\n`) in the member's
/// table.
pub(crate) fn workspace_where(member: &str, text: &str, session: &str, settings: &str) -> Setup {
    let s = Setup::new(&[]);
    let store = s.path("sessions");
    std::fs::create_dir_all(&store).expect("store");
    // A `home` of its own: codex's model would otherwise come from the config.toml in
    // the HOME of whoever runs the tests (the server runs in this process).
    let toml = format!(
        "[members.{member}]\n{settings}home = \".state/{member}\"\n\
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

/// Every run of the fake so far, oldest first.
pub(crate) fn runs(s: &Setup) -> Vec<Value> {
    s.read("runs.jsonl")
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON line"))
        .collect()
}

fn status_tail(cli: &str, session: &str) -> String {
    match cli {
        "claude" => format!(
            "model=claude-opus-4-8 session={session} took=… stop=end_turn exit=0 tokens=10/1"
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
        let held = held(ROLE, runs[0]["prompt"].as_str().unwrap());
        // codex reports the thread's running total on resume: the turn keeps its share.
        let tail2 = match cli {
            "codex" => format!("{tail} session-tokens=20/2"),
            _ => tail.clone(),
        };
        // What each turn was given: the first question, then (resuming) the second.
        let text = editor.text(&uri);
        let (seen1, seen2) = (seen(text, false, 0, 0), seen(text, true, 2, 2));
        assert_eq!(
            redact(text),
            format!(
                "## @me\n@{member} first question\n\
                 \n## @{member}\n<!-- chatmd id=t1 agent={cli} status=done {seen1} {held} started=… {tail} -->\nAnswer.\n\
                 \n## @me\n@{member} second question\n\
                 \n## @{member}\n<!-- chatmd id=t2 agent={cli} status=done {seen2} {held} started=… {tail2} -->\nAnswer.\n\
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
        let held = held(ROLE, runs[1]["prompt"].as_str().unwrap());
        // The new session was given the whole chat (not just what the lost one missed).
        let seen = seen(&chat, false, 0, 2);
        assert_eq!(
            redact(editor.text(&uri)),
            format!(
                "{chat}\n## @{member}\n<!-- chatmd id=t2 agent={cli} status=done {seen} {held} started=… resume=lost {tail} -->\nFresh.\n\
                 \n## @me\n"
            ),
            "{cli}"
        );
    }
}
