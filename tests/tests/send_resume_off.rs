//! The members that do not resume, through `chatmd send`: one with `resume = false`
//! (a new session with the whole chat every turn, like before resume was the default)
//! and a plain `command` member, which is never resumed even when it reports a
//! session id. Neither gets a `seen=` record: no edit is ever reported about them.

use std::process::Output;

use pretty_assertions::assert_eq;
use serde_json::Value;

mod send_support;

send_support::setup_around_workspace! {
    /// The shared workspace, with the fake agent's record of its runs.
}

const SESSION: &str = "5e55a000-0000-4000-8000-000000000001";

impl Setup {
    fn send(&self, chat: &str, knobs: &[(&str, &str)]) -> Output {
        let mut c = self.command(&[chat], knobs);
        c.env("FAKE_AGENT_SESSIONS", self.path("sessions"))
            .env("FAKE_AGENT_RECORD", self.path("runs.jsonl"));
        c.output().expect("run chatmd send")
    }

    /// Sends `chat`, then the user's `next` message under the reply stub, and sends
    /// again; both sends succeed.
    fn two_turns(&self, chat: &str, next: &str, knobs: &[(&str, &str)]) {
        let path = "team/c.chat.md";
        self.write(path, chat);
        let first = self.send(path, knobs);
        assert!(first.status.success(), "{}", stderr(&first));
        let mut text = self.read(path);
        assert!(text.ends_with("\n## @me\n"), "{text}");
        text.push_str(next);
        self.write(path, &text);
        let second = self.send(path, knobs);
        assert!(second.status.success(), "{}", stderr(&second));
    }
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The chat with `started=` and `took=` values replaced (they differ every run).
fn redacted(text: &str) -> String {
    let times = regex::Regex::new(r"(started|took)=[^ ]+").unwrap();
    times.replace_all(text, "$1=…").into_owned()
}

#[test]
fn resume_false_gives_a_new_session_with_the_whole_chat_every_turn() {
    let s = Setup(send_support::Workspace::new());
    std::fs::create_dir_all(s.path("sessions")).unwrap();
    s.write("team/chatmd.toml", "[members.reviewer]\nresume = false\n");
    let members = s.chatmd(&["members", "team", "--json"]).output().unwrap();
    let report: Value = serde_json::from_slice(&members.stdout).expect("JSON");
    let reviewer = report["members"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["handle"] == "reviewer")
        .expect("the reviewer");
    assert_eq!(reviewer["resume"], false, "{report}");
    let chat = "## @me\n@reviewer first question\n";
    s.two_turns(
        chat,
        "@reviewer second question\n",
        &[
            ("FAKE_AGENT_TEXT", "Answer."),
            ("FAKE_AGENT_SESSION", SESSION),
        ],
    );

    let runs = s.json_lines("runs.jsonl");
    assert_eq!(runs.len(), 2, "{runs:?}");
    // The second run continues nothing: no `--resume`, the whole chat, the roster line.
    assert_eq!(runs[1]["resume"], Value::Null);
    let argv: Vec<&str> = runs[1]["argv"].as_array().unwrap()[1..]
        .iter()
        .map(|a| a.as_str().unwrap())
        .collect();
    assert!(!argv.contains(&"--resume"), "{argv:?}");
    let prompt = runs[1]["prompt"].as_str().unwrap();
    assert!(
        prompt.starts_with("[CONTEXT]\nYou are @reviewer"),
        "{prompt}"
    );
    assert!(
        prompt.ends_with(
            "me: @reviewer first question\nreviewer: Answer.\n\
             [MESSAGE]\nme: @reviewer second question\n"
        ),
        "{prompt}"
    );
    // No `seen=` record: the file is all the member ever knows.
    let tail =
        format!("model=claude-opus-4-8 session={SESSION} took=… stop=end_turn exit=0 tokens=10/1");
    assert_eq!(
        redacted(&s.read("team/c.chat.md")),
        format!(
            "{chat}\n## @reviewer\n<!-- chatmd id=t1 agent=claude status=done started=… {tail} -->\nAnswer.\n\
             \n## @me\n@reviewer second question\n\
             \n## @reviewer\n<!-- chatmd id=t2 agent=claude status=done started=… {tail} -->\nAnswer.\n\
             \n## @me\n"
        )
    );
}

#[test]
fn a_command_member_is_never_resumed_even_with_a_session_id() {
    let s = Setup(send_support::Workspace::new());
    std::fs::create_dir_all(s.path("sessions")).unwrap();
    // A plain program that records each prompt it is given and answers with a JSON
    // line that names a session, as some tools print.
    let log = s.path("notes.log");
    let script = format!(
        "#!/bin/sh\n{{ cat; printf '%s\\n' '=== end ==='; }} >> '{}'\n\
         printf '%s\\n' '{{\"session\":\"notes-1\",\"text\":\"Noted.\"}}'\n",
        log.display()
    );
    s.write("bin/notes", &script);
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(s.path("bin/notes"), std::fs::Permissions::from_mode(0o755)).unwrap();
    s.write(
        "config/chatmd/agents.toml",
        "[agents.notes]\ntype = \"command\"\ncommand = \"notes\"\noutput = \"jsonl\"\n\
         text = \"/text\"\nsession = \"/session\"\n",
    );
    // No `resume` key: the default, which a command cannot act on.
    s.write("team/chatmd.toml", "[members.notes]\nagent = \"notes\"\n");
    // `chatmd members` says so too.
    let members = s.chatmd(&["members", "team", "--json"]).output().unwrap();
    let report: Value = serde_json::from_slice(&members.stdout).expect("JSON");
    assert_eq!(report["members"][0]["handle"], "notes", "{report}");
    assert_eq!(report["members"][0]["resume"], false, "{report}");
    let chat = "## @me\n@notes first question\n";
    s.two_turns(chat, "@notes second question\n", &[]);

    let prompts: Vec<String> = std::fs::read_to_string(&log)
        .unwrap()
        .split("=== end ===\n")
        .filter(|p| !p.is_empty())
        .map(str::to_owned)
        .collect();
    assert_eq!(prompts.len(), 2, "{prompts:?}");
    // The second turn is given the whole chat again, first question and answer too.
    assert!(
        prompts[1].ends_with(
            "me: @notes first question\nnotes: Noted.\n\
             [MESSAGE]\nme: @notes second question\n"
        ),
        "{:?}",
        prompts[1]
    );
    // Its session id is recorded, and no `seen=`: nothing it saw is claimed.
    let status = |id| {
        format!(
            "<!-- chatmd id={id} agent=notes status=done started=… session=notes-1 took=… exit=0 -->"
        )
    };
    assert_eq!(
        redacted(&s.read("team/c.chat.md")),
        format!(
            "{chat}\n## @notes\n{}\nNoted.\n\n## @me\n@notes second question\n\
             \n## @notes\n{}\nNoted.\n\n## @me\n",
            status("t1"),
            status("t2")
        )
    );
}
