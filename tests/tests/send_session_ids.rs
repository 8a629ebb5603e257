//! A `session=` is data, never an option: a status comment that names a session its
//! CLI never issued (written by hand, by a repository, by an agent's answer) is not
//! passed to claude, codex or gemini. The turn starts a new session, `chatmd send`
//! says why, and the fake agent's record of its argv holds none of the value.

use std::process::Output;

use pretty_assertions::assert_eq;
use serde_json::Value;

mod send_support;

send_support::setup_around_workspace! {
    /// The shared workspace, with a gemini writer and the fake's record of its runs.
}

/// (member, CLI) of the team.
const MEMBERS: [(&str, &str); 3] = [
    ("reviewer", "claude"),
    ("tester", "codex"),
    ("writer", "gemini"),
];

/// What an attacker writes into `session=`: options of the three CLIs (some that
/// remove every approval), a flag that takes the next argument, one with a space, an
/// empty-ish one.
const HOSTILE: [&str; 9] = [
    "--last",
    "--dangerously-skip-permissions",
    "--permission-mode=bypassPermissions",
    "--yolo",
    "--approval-mode=yolo",
    "-p",
    "--resume",
    "5e55a000-0000-4000-8000-000000000001 --yolo",
    " ",
];

const FRESH: &str = "5e55a000-0000-4000-8000-000000000002";

impl Setup {
    fn new() -> Setup {
        let s = Setup(send_support::Workspace::new());
        s.write("team/writer/GEMINI.md", "# Writes docs\n");
        s
    }

    fn send(&self, chat: &str) -> Output {
        let mut c = self.command(
            &[chat],
            &[
                ("FAKE_AGENT_TEXT", "Fresh answer."),
                ("FAKE_AGENT_SESSION", FRESH),
            ],
        );
        c.env("FAKE_AGENT_RECORD", self.path("runs.jsonl"));
        c.output().expect("run chatmd send")
    }
}

/// The argv of `member`'s turn in the hostile chat without its `session=`.
fn baseline(member: &str, cli: &str) -> Vec<String> {
    let s = Setup::new();
    let chat = format!(
        "## @me\n@{member} first question\n\
         \n## @{member}\n<!-- chatmd id=t1 agent={cli} status=done -->\nFirst answer.\n\
         \n## @me\n@{member} second question\n"
    );
    s.write("team/h.chat.md", &chat);
    let out = s.send("team/h.chat.md");
    assert!(out.status.success(), "{cli}");
    let runs = s.json_lines("runs.jsonl");
    runs[0]["argv"].as_array().unwrap()[1..]
        .iter()
        .map(|a| a.as_str().unwrap().to_owned())
        .collect()
}

/// `value` as a status comment writes it: quoted when it holds a space.
fn field(value: &str) -> String {
    match value.contains(' ') {
        true => format!("\"{value}\""),
        false => value.to_owned(),
    }
}

#[test]
fn a_hostile_session_id_never_reaches_the_command_line() {
    for (member, cli) in MEMBERS {
        let baseline = baseline(member, cli);
        for hostile in HOSTILE {
            let s = Setup::new();
            let chat = format!(
                "## @me\n@{member} first question\n\
                 \n## @{member}\n<!-- chatmd id=t1 agent={cli} status=done session={} -->\nFirst answer.\n\
                 \n## @me\n@{member} second question\n",
                field(hostile)
            );
            s.write("team/h.chat.md", &chat);
            let out = s.send("team/h.chat.md");
            let shown: String = hostile.chars().take(60).collect();
            assert_eq!(
                String::from_utf8_lossy(&out.stderr),
                format!(
                    "chatmd send: warning: @{member}: `session={shown}` is not a session id {cli} issues \
                     (a UUID such as 3f7eefe2-57ee-4a6c-9cd8-00cbb786ee3f), so it is never \
                     passed to {cli}: the member's next turn starts a new session\n\
                     @{member}: done\n"
                ),
                "{cli} {hostile:?}"
            );
            assert!(out.status.success(), "{cli} {hostile:?}");
            let runs = s.json_lines("runs.jsonl");
            assert_eq!(runs.len(), 1, "{cli} {hostile:?}: {runs:?}");
            assert_eq!(runs[0]["resume"], Value::Null, "{cli} {hostile:?}");
            let argv: Vec<String> = runs[0]["argv"].as_array().unwrap()[1..]
                .iter()
                .map(|a| a.as_str().unwrap().to_owned())
                .collect();
            // Exactly what the same chat without any `session=` gives: a new session.
            assert_eq!(argv, baseline, "{cli} {hostile:?}");
            // The new session was given the whole chat, and the answer names it.
            let prompt = runs[0]["prompt"].as_str().unwrap();
            assert!(
                prompt.contains(&format!("{member}: First answer.\n")),
                "{cli}: {prompt}"
            );
            let text = s.read("team/h.chat.md");
            assert!(text.starts_with(&chat), "{cli}: {text}");
            assert!(
                text[chat.len()..].contains(&format!("session={FRESH}")),
                "{cli}: {text}"
            );
        }
    }
}

#[test]
fn an_imported_session_with_a_hostile_id_is_refused() {
    let s = Setup::new();
    let hostile = "--permission-mode=bypassPermissions";
    s.write(
        "hostile.jsonl",
        &format!(
            "{{\"type\":\"user\",\"message\":{{\"role\":\"user\",\"content\":\"hi\"}},\"cwd\":\"/w\",\"sessionId\":\"{hostile}\"}}\n\
             {{\"type\":\"assistant\",\"message\":{{\"content\":[{{\"type\":\"text\",\"text\":\"Hello.\"}}]}},\"sessionId\":\"{hostile}\"}}\n"
        ),
    );
    let out = s
        .chatmd(&["import", "hostile.jsonl", "--to", "team"])
        .output()
        .expect("run chatmd import");
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        format!(
            "chatmd import: hostile.jsonl: a claude session whose id \"{hostile}\" is not one claude issues (a UUID): not imported\n"
        )
    );
    assert_eq!(out.status.code(), Some(2));
    let written: Vec<_> = std::fs::read_dir(s.path("team"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|name| name.ends_with(".chat.md"))
        .collect();
    assert_eq!(written, Vec::<String>::new());
}
