//! Permission policy through `chatmd send` (the fake `gemini --acp`, and
//! `claude-agent-acp` for a plan approval): an "always" answer typed on the terminal (a
//! pseudo-terminal here) writes its rule into the chat file, and later requests it
//! matches are answered by it, in the same turn and in a run with no terminal at all;
//! rules written by hand in the front matter, and the team's in `chatmd.toml`.

use std::io::Write;
use std::process::{Output, Stdio};
use std::time::Duration;

use pretty_assertions::assert_eq;
use serde_json::{Value, json};

mod send_support;

send_support::setup_around_workspace! {
    /// The shared workspace, with an ACP writer logging what it receives.
}

impl Setup {
    /// An ACP writer with the `preset`, the fake installed under every ACP adapter's
    /// name.
    fn new(preset: &str) -> Setup {
        let s = Setup(send_support::Workspace::new());
        let fake = std::path::PathBuf::from(env!("CARGO_BIN_EXE_fake-agent"));
        chatmd_tests::fake_agent::install_acp(&fake, &s.bin).expect("install the ACP fakes");
        s.write("team/writer/GEMINI.md", "# Writes docs\n");
        s.write_trusted(
            "team/chatmd.toml",
            &format!(
                "[members.writer]\nagent = \"acp\"\npreset = \"{preset}\"\n\n\
                 [members.writer.env]\nFAKE_ACP_LOG = \"{}\"\nIS_SANDBOX = \"1\"\n\
                 CLAUDE_CONFIG_DIR = \"{state}\"\nGEMINI_CLI_HOME = \"{state}\"\n",
                s.path("acp.jsonl").display(),
                state = s.path("state").display()
            ),
        );
        s
    }

    fn answers_received(&self) -> Vec<Value> {
        chatmd_tests::fake_agent::acp::answers_received(&self.path("acp.jsonl"))
    }

    /// `chatmd send` on `chat` with no terminal; it must succeed.
    fn send(&self, chat: &str) -> Output {
        let out = self
            .command(&[chat], &[])
            .output()
            .expect("run chatmd send");
        assert_eq!(out.status.code(), Some(0), "{out:?}");
        out
    }

    /// `chatmd send` on `chat` with a terminal as stdin, on which the user has typed
    /// `typed` (the terminal keeps the lines until chatmd reads them); returns what it
    /// wrote on stderr. It must succeed within a minute.
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

const ASK: &str = "## @me\n@writer MOCK-MODE=toolwrite WRITE=notes.txt please create the file.\n";

/// The writer's section after a `toolwrite` request of turn `turn` allowed with
/// `record`.
fn allowed(turn: u32, record: &str) -> String {
    format!(
        "\n## @writer\n<!-- chatmd id=t{turn} agent=acp status=done model=auto stop=end_turn \
         exit=0 tokens=11865/16 -->\nI'll run a command.\n\n\
         > - Execute: touch notes.txt — completed\n\n> **Permission** t{turn}-p1 — \
         {record}\n\nANSWER-gemini role_seen=no marker_count=0 roles=none team=0 turn=1 \
         user_msgs=1 assistant_msgs=1 ask=- tool_result=\"{{'output': \
         '<untrusted_context>\\nOutput: (empty)\\nProcess Group PGID: 32302\\n\
         </untrusted_context>'}}\"\n\n## @me\n"
    )
}

#[test]
fn allow_always_on_the_terminal_writes_the_rule_that_answers_the_next_run() {
    let s = Setup::new("gemini");
    let head = "---\ntitle: Docs # ours\n---\n";
    s.write("team/a.chat.md", &format!("{head}{ASK}"));
    // 1) Allow for this session: gemini's allow_always.
    let asked = s.send_on_terminal("team/a.chat.md", "1\n");
    assert!(
        asked.contains("@writer asks permission to run `touch notes.txt` (execute)\n  1) Allow for this session\n  2) Allow\n  3) Reject\n  4) Reject always (a rule in the chat)\n"),
        "{asked}"
    );
    let rule = "permissions:\n  writer:\n    \"execute: touch notes.txt\": allow\n";
    let head = format!("---\ntitle: Docs # ours\n{rule}---\n");
    let first = allowed(
        1,
        "allowed always (\"Allow for this session\"), by the terminal",
    );
    assert_eq!(
        masked(&s.read("team/a.chat.md")),
        format!("{head}{ASK}{first}")
    );

    // Without a terminal, the rule answers (else the request would be rejected).
    std::fs::remove_file(s.path("team/writer/notes.txt")).expect("the file was made");
    let again = "@writer MOCK-MODE=toolwrite WRITE=notes.txt once more\n";
    let text = s.read("team/a.chat.md");
    s.write("team/a.chat.md", &format!("{text}{again}"));
    s.send("team/a.chat.md");
    assert_eq!(
        s.answers_received(),
        [
            json!({"outcome": "selected", "optionId": "proceed_always"}),
            json!({"outcome": "selected", "optionId": "proceed_once"}),
        ]
    );
    assert!(
        s.path("team/writer/notes.txt").exists(),
        "allowed by the rule"
    );
    let second = allowed(2, "allowed once (\"Allow\"), by policy");
    assert_eq!(
        masked(&s.read("team/a.chat.md")),
        format!("{head}{ASK}{first}{again}{second}")
    );
}

#[test]
fn reject_always_on_the_terminal_answers_the_same_request_later_in_the_turn() {
    let s = Setup::new("gemini");
    let ask = "## @me\n@writer MOCK-MODE=toolwrite2 WRITE=a.txt WRITE=a.txt twice\n";
    s.write("team/r.chat.md", ask);
    // 4) Reject always: gemini has no such option; chatmd keeps the rule.
    let asked = s.send_on_terminal("team/r.chat.md", "4\n");
    assert_eq!(
        asked.matches("asks permission").count(),
        1,
        "asked once: {asked}"
    );
    assert_eq!(
        s.answers_received(),
        [
            json!({"outcome": "selected", "optionId": "cancel"}),
            json!({"outcome": "selected", "optionId": "cancel"}),
        ]
    );
    assert!(!s.path("team/writer/a.txt").exists(), "nothing ran");
    let expected = format!(
        "---\npermissions:\n  writer:\n    \"execute: touch a.txt\": reject\n---\n{ask}\n\
         ## @writer\n<!-- chatmd id=t1 agent=acp status=done model=auto stop=end_turn exit=0 \
         tokens=11865/18 -->\nI'll run a command.\n\n\
         > - Execute: touch a.txt — not run\n\n\
         > **Permission** t1-p1 — rejected always (\"Reject\"), by the terminal\n\n\
         > - Execute: touch a.txt — not run\n\n\
         > **Permission** t1-p2 — rejected (\"Reject\"), by policy\n\n\
         ANSWER-gemini role_seen=no marker_count=0 roles=none team=0 turn=1 user_msgs=1 \
         assistant_msgs=2 ask=- tool_result=\"{{'error': 'Tool \\'run_shell_command\\' was \
         canceled by the user.'}}\"\n\n## @me\n"
    );
    assert_eq!(masked(&s.read("team/r.chat.md")), expected);
}

#[test]
fn a_chats_allow_rule_is_held_back_until_the_user_trusts_it_there() {
    let s = Setup::new("gemini");
    // Any handle case: the rule is the writer's.
    let head = "---\npermissions:\n  WRITER:\n    # the docs tools\n    \"execute: touch *.txt\": allow\n---\n";
    s.write("team/h.chat.md", &format!("{head}{ASK}"));
    let out = s.send("team/h.chat.md");
    assert_eq!(
        s.answers_received(),
        [json!({"outcome": "selected", "optionId": "cancel"})],
        "not allowed by an untrusted rule"
    );
    assert!(!s.path("team/writer/notes.txt").exists(), "nothing ran");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.starts_with(
            "chatmd send: warning: the chat's allow rules @WRITER \"execute: touch *.txt\": \
             allow are held back: a rule in a chat file applies only once you trust it in \
             that chat, so these requests are asked instead (with no terminal to ask, \
             rejected). Review the front matter, then run `chatmd trust team/h.chat.md`\n"
        ),
        "{stderr}"
    );
    let text = masked(&s.read("team/h.chat.md"));
    assert!(
        text.contains(
            "> **Permission** t1-p1 — rejected (\"Reject\"), by policy: no terminal to ask\n"
        ),
        "{text}"
    );

    // `chatmd trust` on the chat shows the rules and records them.
    let trusted = s
        .chatmd(&["trust", "team/h.chat.md"])
        .output()
        .expect("trust");
    assert_eq!(trusted.status.code(), Some(0), "{trusted:?}");
    let said = String::from_utf8_lossy(&trusted.stdout);
    assert!(
        said.starts_with(&format!(
            "{} lets these members act without asking you:\n  @WRITER \"execute: touch \
             *.txt\": allow\nTrusted these rules in this chat",
            s.path("team/h.chat.md").display()
        )),
        "{said}"
    );
    s.write("team/h.chat.md", &format!("{head}{ASK}"));
    let out = s.send("team/h.chat.md");
    assert_eq!(String::from_utf8_lossy(&out.stderr), "@writer: done\n");
    assert_eq!(
        s.answers_received()[1..],
        [json!({"outcome": "selected", "optionId": "proceed_once"})]
    );
    let first = allowed(1, "allowed once (\"Allow\"), by policy");
    assert_eq!(
        masked(&s.read("team/h.chat.md")),
        format!("{head}{ASK}{first}")
    );
}

#[test]
fn a_trusted_reject_in_chatmd_toml_beats_a_trusted_chat_allow() {
    let s = Setup::new("gemini");
    s.write_trusted(
        "chatmd.toml",
        "[members.writer.permissions]\n\"execute: touch *\" = \"reject\"\n",
    );
    let head = "---\npermissions:\n  writer:\n    \"execute: touch notes.txt\": allow\n---\n";
    s.write("team/r.chat.md", &format!("{head}{ASK}"));
    let trusted = s
        .chatmd(&["trust", "team/r.chat.md"])
        .output()
        .expect("trust");
    assert_eq!(trusted.status.code(), Some(0), "{trusted:?}");
    s.send("team/r.chat.md");
    assert_eq!(
        s.answers_received(),
        [json!({"outcome": "selected", "optionId": "cancel"})]
    );
    let text = masked(&s.read("team/r.chat.md"));
    assert!(
        text.contains("> **Permission** t1-p1 — rejected (\"Reject\"), by policy (chatmd.toml)\n"),
        "{text}"
    );
}

#[test]
fn a_team_rule_answers_only_from_a_trusted_file() {
    let rule = "[members.writer.permissions]\n\"execute: touch *\" = \"allow\"\n";
    for trusted in [false, true] {
        let s = Setup::new("gemini");
        if trusted {
            s.write_trusted("chatmd.toml", rule);
        } else {
            s.write("chatmd.toml", rule);
        }
        s.write("team/t.chat.md", ASK);
        s.send("team/t.chat.md");
        let (option, record) = if trusted {
            (
                "proceed_once",
                "allowed once (\"Allow\"), by policy (chatmd.toml)",
            )
        } else {
            (
                "cancel",
                "rejected (\"Reject\"), by policy: no terminal to ask",
            )
        };
        assert_eq!(
            s.answers_received(),
            [json!({"outcome": "selected", "optionId": option})],
            "trusted: {trusted}"
        );
        let text = masked(&s.read("team/t.chat.md"));
        assert!(
            text.contains(&format!("> **Permission** t1-p1 — {record}\n")),
            "{text}"
        );
    }
}

#[test]
fn a_plan_approval_is_answered_by_a_rule_too() {
    let s = Setup::new("claude");
    let head = "---\npermissions:\n  writer:\n    \"switch_mode: *\": allow\n---\n";
    let ask = "## @me\n@writer MOCK-MODE=exitplan plan the fix first\n";
    s.write("team/p.chat.md", &format!("{head}{ask}"));
    let trusted = s
        .chatmd(&["trust", "team/p.chat.md"])
        .output()
        .expect("trust");
    assert_eq!(trusted.status.code(), Some(0), "{trusted:?}");
    s.send("team/p.chat.md");
    // A rule allows once: "Yes, and manually approve edits", never bypass.
    assert_eq!(
        s.answers_received(),
        [json!({"outcome": "selected", "optionId": "default"})]
    );
    let text = masked(&s.read("team/p.chat.md"));
    assert!(
        text.contains(
            "I have a plan.\n\n> - Switch mode: Exited Plan Mode — completed\n\n\
             > **Permission** t1-p1 — allowed once (\"Yes, and manually \
             approve edits\"), by policy\n>\n> The plan:\n>\n> # Plan\n>\n> 1. Read \
             `src/lib.rs`\n> 2. Fix the off-by-one in `count`\n> 3. Run `cargo test`\n\n"
        ),
        "{text}"
    );
}

#[test]
fn a_plan_approval_of_claude_agent_acp_0_101_shows_the_plan() {
    // 0.101 titles the request "Approve Plan" and sends the plan only in the call's
    // update before it (with a `planFilePath`): the block shows it all the same. chatmd
    // declares the `plan` capability, so 0.101 then sends the approved plan as a
    // markdown `plan_update`: the turn's checklist, after the approval's tool line.
    let s = Setup::new("claude");
    let head = "---\npermissions:\n  writer:\n    \"switch_mode: *\": allow\n---\n";
    let ask = "## @me\n@writer MOCK-MODE=exitplan plan the fix first\n";
    s.write("team/p.chat.md", &format!("{head}{ask}"));
    let trusted = s
        .chatmd(&["trust", "team/p.chat.md"])
        .output()
        .expect("trust");
    assert_eq!(trusted.status.code(), Some(0), "{trusted:?}");
    let out = s
        .command(
            &["team/p.chat.md"],
            &[("FAKE_ACP_CLAUDE_VERSION", "0.101.0")],
        )
        .output()
        .expect("run chatmd send");
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_eq!(
        s.answers_received(),
        [json!({"outcome": "selected", "optionId": "default"})]
    );
    let initialize = chatmd_tests::fake_agent::acp::requests_received(&s.path("acp.jsonl"))
        .into_iter()
        .find(|(method, _)| method == "initialize")
        .expect("initialize");
    assert_eq!(initialize.1["clientCapabilities"]["plan"], json!({}));
    // No `exit=`: the agent stayed warm for a later round of the run.
    assert_eq!(
        masked(&s.read("team/p.chat.md")),
        format!(
            "{head}{ask}\n## @writer\n<!-- chatmd id=t1 agent=acp status=done seen=0:84932e \
             held=4473dc model=default context=19968/1000000 cost=\"0.1002 USD\" stop=end_turn \
             tokens=19944/20 -->\nI have a plan.\n\n> - Switch mode: Exited Plan Mode — \
             completed\n\n> **Permission** t1-p1 — allowed once (\"Yes, and manually approve \
             edits\"), by policy\n>\n> The plan:\n>\n> # Plan\n>\n> 1. Read `src/lib.rs`\n\
             > 2. Fix the off-by-one in `count`\n> 3. Run `cargo test`\n\n\
             > **Plan**\n> - [ ] Read `src/lib.rs`\n> - [ ] Fix the off-by-one in `count`\n\
             > - [ ] Run `cargo test`\n\nANSWER-anthropic \
             role_seen=no marker_count=0 roles=none team=0 turn=1 user_msgs=1 assistant_msgs=1 \
             ask=- tool_result=\"User has approved your plan. You can now start coding.\"\n\n\
             ## @me\n"
        )
    );
}

#[test]
fn the_claude_preset_asks_though_the_adapter_starts_in_a_mode_that_does_not() {
    // claude-agent-acp 0.101 starts its sessions in `auto`, where tools run unasked.
    let s = Setup::new("claude");
    s.write("team/c.chat.md", ASK);
    let out = s
        .command(
            &["team/c.chat.md"],
            &[("FAKE_ACP_CLAUDE_START_MODE", "auto")],
        )
        .output()
        .expect("run chatmd send");
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(
        !s.path("team/writer/notes.txt").exists(),
        "nothing ran unasked"
    );
    assert_eq!(s.answers_received().len(), 1, "the request came");
    let text = masked(&s.read("team/c.chat.md"));
    assert!(
        text.contains(
            "> **Permission** t1-p1 — rejected (\"Reject\"), by policy: no terminal to ask\n"
        ),
        "{text}"
    );
    // `chatmd members` says so.
    let members = s.chatmd(&["members", "team"]).output().expect("members");
    let shown = String::from_utf8_lossy(&members.stdout);
    assert!(
        shown.contains(
            "\nPermission modes:\n  writer    default, which asks (set by chatmd when the agent \
             offers it)\n"
        ),
        "{shown}"
    );
}
