//! ACP members through `chatmd send` (the fake `gemini --acp` and `codex-acp`): a plain
//! answer streamed into the file and the terminal, and a permission request, which
//! with no terminal to ask is rejected by policy (the agent hears the reject and the
//! block records why).

use pretty_assertions::assert_eq;
use serde_json::Value;

mod send_support;

send_support::setup_around_workspace! {
    /// The shared workspace, with an ACP writer logging what it receives.
}

impl Setup {
    fn new(preset: &str) -> Setup {
        let s = Setup(send_support::Workspace::new());
        s.write("team/writer/GEMINI.md", "# Writes docs\n");
        let log = s.path("acp.jsonl");
        s.write_trusted(
            "team/chatmd.toml",
            &format!(
                "[members.writer]\nagent = \"acp\"\npreset = \"{preset}\"\n\n\
                 [members.writer.env]\nFAKE_ACP_LOG = \"{}\"\n",
                log.display()
            ),
        );
        s
    }

    /// The client's answers to the agent's permission requests, as it received them.
    fn answers_received(&self) -> Vec<Value> {
        std::fs::read_to_string(self.path("acp.jsonl"))
            .unwrap_or_default()
            .lines()
            .filter_map(|line| serde_json::from_str::<Value>(line).ok())
            .filter(|m| m.get("result").is_some_and(|r| r.get("outcome").is_some()))
            .map(|m| m["result"]["outcome"].clone())
            .collect()
    }
}

/// `text` with the status comments' times and session id cut.
fn masked(text: &str) -> String {
    let times = regex::Regex::new(r" (started|took|session)=[^ ]+").unwrap();
    times.replace_all(text, "").into_owned()
}

#[test]
fn an_acp_member_answers_into_the_file() {
    let s = Setup::new("gemini");
    s.write("team/hello.chat.md", "## @me\n@writer say hello\n");
    let out = s
        .command(&["team/hello.chat.md"], &[])
        .output()
        .expect("run chatmd send");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let text = masked(&s.read("team/hello.chat.md"));
    let answer = "ANSWER-gemini role_seen=no marker_count=0 roles=none team=0 turn=1 \
                  user_msgs=1 assistant_msgs=0 ask=-";
    assert_eq!(
        text,
        format!(
            "## @me\n@writer say hello\n\n## @writer\n<!-- chatmd id=t1 agent=acp status=done \
             model=auto stop=end_turn exit=0 tokens=11865/10 -->\n{answer}\n\n## @me\n"
        )
    );
    // The terminal saw the same words as they streamed.
    assert!(
        String::from_utf8_lossy(&out.stdout).contains(answer),
        "{out:?}"
    );
}

#[test]
fn without_a_terminal_a_permission_request_is_rejected_by_policy() {
    let s = Setup::new("gemini");
    let ask = "## @me\n@writer MOCK-MODE=toolwrite WRITE=notes.txt please create the file.\n";
    s.write("team/ask.chat.md", ask);
    let out = s
        .command(&["team/ask.chat.md"], &[])
        .output()
        .expect("run chatmd send");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert_eq!(
        s.answers_received(),
        [serde_json::json!({"outcome": "selected", "optionId": "cancel"})]
    );
    assert!(!s.path("team/writer/notes.txt").exists(), "nothing ran");
    let text = masked(&s.read("team/ask.chat.md"));
    assert!(
        text.contains(
            "\n> **Permission** t1-p1 — rejected (\"Reject\"), by policy: no terminal to ask\n\n"
        ),
        "{text}"
    );
    assert!(text.contains("status=done"), "{text}");
    assert!(!text.contains("- [ ]"), "{text}");
}
