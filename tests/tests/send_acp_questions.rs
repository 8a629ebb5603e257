//! Questions of an ACP member (`elicitation/create`, the fake `gemini --acp`'s
//! `MOCK-MODE=ask`) under `chatmd send`: asked on the terminal (a pseudo-terminal here)
//! with the choices numbered, the answer recorded over the block and received by the
//! agent; with no terminal to ask, declined by policy.

use std::io::Write;
use std::process::Stdio;
use std::time::Duration;

use pretty_assertions::assert_eq;
use serde_json::{Value, json};

mod send_support;

send_support::setup_around_workspace! {
    /// The shared workspace, with an ACP writer logging what it receives.
}

impl Setup {
    /// An ACP writer (gemini's preset), the fake installed under every ACP adapter's name.
    fn new() -> Setup {
        let s = Setup(send_support::Workspace::new());
        let fake = std::path::PathBuf::from(env!("CARGO_BIN_EXE_fake-agent"));
        chatmd_tests::fake_agent::install_acp(&fake, &s.bin).expect("install the ACP fakes");
        s.write("team/writer/GEMINI.md", "# Writes docs\n");
        s.write_trusted(
            "team/chatmd.toml",
            &format!(
                "[members.writer]\nagent = \"acp\"\npreset = \"gemini\"\n\n\
                 [members.writer.env]\nFAKE_ACP_LOG = \"{}\"\nGEMINI_CLI_HOME = \"{}\"\n",
                s.path("acp.jsonl").display(),
                s.path("state").display()
            ),
        );
        s
    }

    fn questions_answered(&self) -> Vec<Value> {
        chatmd_tests::fake_agent::acp::questions_answered(&self.path("acp.jsonl"))
    }

    /// `chatmd send` on `chat` with a terminal as stdin on which the user has typed
    /// `typed`; returns what it wrote on stderr. It must succeed within a minute.
    fn send_on_terminal(&self, chat: &str, typed: &str) -> String {
        let pty = nix::pty::openpty(None, None).expect("a pseudo-terminal");
        let stderr = self.path("send.stderr");
        let mut child = self
            .command(&[chat], &[])
            .stdin(Stdio::from(pty.slave))
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&stderr).expect("stderr file"))
            .spawn()
            .expect("run chatmd send");
        let mut keyboard = std::fs::File::from(pty.master);
        keyboard.write_all(typed.as_bytes()).expect("type");
        let Some(status) = chatmd_tests::wait_or_kill(&mut child, Duration::from_secs(60)) else {
            panic!(
                "chatmd send still runs after a minute: {}",
                std::fs::read_to_string(&stderr).unwrap_or_default()
            );
        };
        let said = std::fs::read_to_string(&stderr).expect("stderr");
        assert_eq!(status.code(), Some(0), "{said}");
        said
    }
}

/// `text` with the status comments' times and session id cut.
fn masked(text: &str) -> String {
    let times = regex::Regex::new(r" (started|took|session)=[^ ]+").unwrap();
    times.replace_all(text, "").into_owned()
}

const ASK: &str = "## @me\n@writer MOCK-MODE=ask which color?\n";

/// The writer's section once its question was answered with `record`, and the agent
/// quotes the result it received.
fn answered(record: &str, result: &str) -> String {
    format!(
        "\n## @writer\n<!-- chatmd id=t1 agent=acp status=done model=auto stop=end_turn \
         exit=0 tokens=11865/11 -->\n> **Permission** t1-p1 — {record}\n\n\
         ANSWER-gemini role_seen=no marker_count=0 roles=none team=0 turn=1 user_msgs=1 \
         assistant_msgs=0 ask=- tool_result=\"{result}\"\n\n## @me\n"
    )
}

#[test]
fn a_question_is_answered_on_the_terminal_and_the_agent_receives_the_answer() {
    let s = Setup::new();
    s.write("team/a.chat.md", ASK);
    let said = s.send_on_terminal("team/a.chat.md", "2\n");
    assert!(
        said.contains(
            "\n@writer asks (Color): Which color should the button be?\n  1) Blue\n  2) Red\n  \
             3) Decline\nanswer with a number: "
        ),
        "{said}"
    );
    assert_eq!(
        s.questions_answered(),
        [json!({"action": "accept", "content": {"color": "red"}})]
    );
    assert_eq!(
        masked(&s.read("team/a.chat.md")),
        format!(
            "{ASK}{}",
            answered(
                "answered (\"Red\"), by the terminal",
                "{\"action\":\"accept\",\"content\":{\"color\":\"red\"}}"
            )
        )
    );
}

#[test]
fn without_a_terminal_a_question_is_declined_by_policy() {
    let s = Setup::new();
    s.write("team/a.chat.md", ASK);
    let out = s.command(&["team/a.chat.md"], &[]).output().expect("run");
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_eq!(s.questions_answered(), [json!({"action": "decline"})]);
    assert_eq!(
        masked(&s.read("team/a.chat.md")),
        format!(
            "{ASK}{}",
            answered(
                "rejected (\"Decline\"), by policy: no terminal to ask",
                "{\"action\":\"decline\"}"
            )
        )
    );
}

#[test]
fn claude_agent_acps_ask_user_question_is_answered_by_its_choice() {
    // The form as claude-agent-acp 0.101.0 sends it (the fake's ASK=claude, from the
    // recording): the choice and an optional free-text "Other" beside it. chatmd
    // declined it as "a form of 2 fields" before; now the choice answers it.
    let s = Setup::new();
    let ask = "## @me\n@writer MOCK-MODE=ask ASK=claude which color?\n";
    s.write("team/a.chat.md", ask);
    let said = s.send_on_terminal("team/a.chat.md", "2\n");
    assert!(
        said.contains(
            "\n@writer asks (Color): Which color should the button be?\n  1) Blue\n  2) Red\n  \
             3) Decline\nanswer with a number: "
        ),
        "{said}"
    );
    assert_eq!(
        s.questions_answered(),
        [json!({"action": "accept", "content": {"question_0": "Red"}})]
    );
    assert_eq!(
        masked(&s.read("team/a.chat.md")),
        format!(
            "{ask}\n## @writer\n<!-- chatmd id=t1 agent=acp status=done model=auto stop=end_turn \
             exit=0 tokens=11865/11 -->\n> - Which color should the button be? — completed\n\n\
             > **Permission** t1-p1 — answered (\"Red\"), by the terminal\n\n\
             ANSWER-gemini role_seen=no marker_count=0 roles=none team=0 turn=1 user_msgs=1 \
             assistant_msgs=0 ask=- tool_result=\"{{\"action\":\"accept\",\"content\":\
             {{\"question_0\":\"Red\"}}}}\"\n\n## @me\n"
        )
    );
}
