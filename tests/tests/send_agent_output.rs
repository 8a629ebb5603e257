//! What the agent CLIs say besides their answer, end to end through `chatmd send`:
//! retries on the terminal and in the status comment, an authentication failure that
//! ends the turn at once, refused tool calls listed once and marked failed, the
//! "not allowed" block with the member `args` that allow them, and the model that
//! actually answered. The fake agent replays the recorded runs; the chat file is
//! checked byte for byte (times redacted).

mod fake_support;
mod send_support;

use std::path::Path;
use std::process::Output;

use pretty_assertions::assert_eq;

send_support::setup_around_workspace! {
    /// The chat-send workspace with a gemini writer too and the given `chatmd.toml`.
}

impl Setup {
    /// A workspace (a git repository) with a claude reviewer, a codex tester and a
    /// gemini writer, `chatmd.toml` as given (the user wrote it: its `args` and `env`
    /// apply), and the fake agent as the three CLIs.
    fn new(config: &str) -> Setup {
        let s = Setup(send_support::Workspace::new());
        s.write("team/writer/GEMINI.md", "# Writes docs\n");
        s.write_trusted("team/chatmd.toml", config);
        s
    }

    /// `chatmd send <chat>` with the knobs, to its end (within the harness deadline).
    fn send(&self, chat: &str, knobs: &[(&str, &str)]) -> Output {
        let mut c = self.command(&[chat], knobs);
        c.env_remove("CODEX_HOME");
        fake_support::wait(c.spawn().expect("run chatmd send"))
    }
}

/// The chat with `started=` and `took=` values replaced (they differ every run).
fn redacted(text: &str) -> String {
    text.split(' ')
        .map(|word| {
            if word.starts_with("started=") {
                "started=<time>".to_string()
            } else if word.starts_with("took=") {
                "took=<took>".to_string()
            } else {
                word.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Whether the process `pid` is gone (or a zombie waiting for its parent).
fn gone(pid: &str) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => stat.contains(") Z"),
        Err(_) => !Path::new(&format!("/proc/{pid}")).exists(),
    }
}

const CLAUDE_LOGIN: &str = "Log in with `claude /login` in a terminal (with \
    CLAUDE_CONFIG_DIR set to the member's `home` if it has one), or export ANTHROPIC_API_KEY before chatmd starts.";

#[test]
fn retries_reach_the_terminal_and_the_status_then_the_answer_lands() {
    let s = Setup::new("");
    s.write("team/r.chat.md", "## @me\n@reviewer are you there?\n");
    let out = s.send("team/r.chat.md", &[("FAKE_AGENT_TRANSCRIPT", "retry")]);
    assert_eq!(
        stderr(&out),
        "@reviewer: retrying (1/10): 529 Overloaded\n\
         @reviewer: retrying (2/10): 529 Overloaded\n\
         @reviewer: done\n"
    );
    assert!(out.status.success());
    assert_eq!(
        redacted(&s.read("team/r.chat.md")),
        "## @me\n@reviewer are you there?\n\
         \n## @reviewer\n<!-- chatmd id=t1 agent=claude status=done seen=0:b0cf70 started=<time> model=claude-opus-4-8 session=3b9d2f60-7a1e-4c8b-b5d4-2e6f0a9c8d17 retry=2/10 cost=\"0.0004 USD\" took=<took> stop=end_turn exit=0 tokens=90/6 -->\n\
         Third time lucky.\n\
         \n## @me\n"
    );
}

#[test]
fn codex_reconnects_are_retries_too() {
    let s = Setup::new("");
    s.write("team/c.chat.md", "## @me\n@tester run the tests\n");
    let out = s.send("team/c.chat.md", &[("FAKE_AGENT_TRANSCRIPT", "reconnect")]);
    assert_eq!(
        stderr(&out),
        "@tester: retrying (1/5): stream disconnected before completion: error sending request\n\
         @tester: retrying (2/5): stream disconnected before completion: error sending request\n\
         @tester: done\n"
    );
    assert_eq!(
        redacted(&s.read("team/c.chat.md")),
        "## @me\n@tester run the tests\n\
         \n## @tester\n<!-- chatmd id=t1 agent=codex status=done seen=0:364cd9 started=<time> session=01a2007c-41d2-7a10-9c3e-5f0b1d2e3a4b retry=2/5 took=<took> exit=0 tokens=350/25 -->\n\
         Back online: all tests pass.\n\
         \n## @me\n"
    );
}

#[test]
fn a_refused_key_ends_the_turn_at_the_first_notice_with_how_to_log_in() {
    let s = Setup::new("");
    s.write("team/k.chat.md", "## @me\n@reviewer hi\n");
    let pid_file = s.path("grandchild.pid");
    let pid_path = pid_file.display().to_string();
    // The real CLI prints its first 401 retry notice, then waits and retries for about
    // three minutes; the fake prints the same two lines and then waits forever.
    let out = s.send(
        "team/k.chat.md",
        &[
            ("FAKE_AGENT_TRANSCRIPT", "auth-401"),
            ("FAKE_AGENT_HANG_AFTER", "2"),
            ("FAKE_AGENT_GRANDCHILD", "1"),
            ("FAKE_AGENT_GRANDCHILD_PID", &pid_path),
        ],
    );
    let message = format!("API error 401 authentication_failed. {CLAUDE_LOGIN}");
    assert_eq!(
        stderr(&out),
        format!("chatmd send: error: @reviewer: {message}\n@reviewer: error\n")
    );
    assert_eq!(out.status.code(), Some(1));
    // Short enough for the status comment to keep it whole (it keeps 200 characters).
    assert!(message.chars().count() <= 200, "{message}");
    assert_eq!(
        redacted(&s.read("team/k.chat.md")),
        format!(
            "## @me\n@reviewer hi\n\
             \n## @reviewer\n<!-- chatmd id=t1 agent=claude status=error seen=0:35d52f started=<time> model=claude-opus-4-8 session=f43a1f36-1692-4528-8703-a0ccbacb9940 took=<took> error=\"{message}\" -->\n\
             \n## @me\n"
        )
    );
    // The agent's whole process group is gone, its grandchild too.
    let pid = std::fs::read_to_string(&pid_file).unwrap();
    assert!(gone(pid.trim()), "grandchild {pid} survived");
}

#[test]
fn refused_calls_are_listed_once_as_failed_and_said_how_to_allow() {
    let s = Setup::new("[members.reviewer]\nargs = [\"--model\", \"opus\"]\n");
    s.write("team/d.chat.md", "## @me\n@reviewer create the files\n");
    let out = s.send("team/d.chat.md", &[("FAKE_AGENT_TRANSCRIPT", "denied")]);
    assert_eq!(stderr(&out), "@reviewer: done\n");
    assert_eq!(
        redacted(&s.read("team/d.chat.md")),
        "## @me\n@reviewer create the files\n\
         \n## @reviewer\n<!-- chatmd id=t1 agent=claude status=done seen=0:c9c528 started=<time> model=claude-opus-4-8 session=f818ee01-f9be-41cb-9c88-10e8bd42db65 cost=\"0.1922 USD\" took=<took> stop=end_turn exit=0 tokens=57599/48 denied=2 -->\n\
         I'll run a command.\n\
         \n\
         I could not create the files: both the `touch` and the write need approval.\n\
         \n<details><summary>Tools (2)</summary>\n\
         \n\
         - Bash: touch tool-wrote.txt — failed: touch in '/home/dev/work/tool-wrote.txt' was blocked. For security, Claude Code may only create or modify files in the allowed working directories for this sess…\n\
         - Write: /home/dev/work/src/x.rs — failed: Claude requested permissions to write to /home/dev/work/src/x.rs, but you haven't granted it yet.\n\
         \n</details>\n\
         \n> **Not allowed** — @reviewer's `claude` refused 2 actions that need approval:\n\
         > - `Bash`: `touch tool-wrote.txt`\n\
         > - `Write`: `/home/dev/work/src/x.rs`\n\
         >\n\
         > To allow them for @reviewer, set its `args` in chatmd.toml (`[members.reviewer]`): `args = [\"--model\", \"opus\", \"--allowedTools\", \"Bash(touch:*)\", \"Write\"]`\n\
         \n## @me\n"
    );
}

#[test]
fn gemini_shows_its_failed_tool_once_and_the_model_it_routed_to() {
    let s = Setup::new("");
    s.write("team/g.chat.md", "## @me\n@writer run it\n");
    let out = s.send(
        "team/g.chat.md",
        &[("FAKE_AGENT_TRANSCRIPT", "tool-not-found")],
    );
    assert_eq!(stderr(&out), "@writer: done\n");
    assert_eq!(
        redacted(&s.read("team/g.chat.md")),
        "## @me\n@writer run it\n\
         \n## @writer\n<!-- chatmd id=t1 agent=gemini status=done seen=0:fbb949 started=<time> model=gemini-3.8-flash session=b9058b61-8f4a-48bd-8516-c1c93919a210 took=<took> exit=0 tokens=21138/71 -->\n\
         I'll run a command.\n\
         \n\
         ANSWER-gemini role_seen=yes marker_count=1 roles=writer:1 team=0 turn=1 user_msgs=1 assistant_msgs=1 ask=ASK-T3 tool_result=\"{'error': 'Tool \\'run_shell_command\\' not found. Did you mean one of: \\'update_topic\\', \\'grep_search\\', \\'invoke_agent\\'?'}\"\n\
         \n<details><summary>Tools (1)</summary>\n\
         \n\
         - run_shell_command: echo hi — failed: Tool \"run_shell_command\" not found. Did you mean one of: \"update_topic\", \"grep_search\", \"invoke_agent\"?\n\
         \n</details>\n\
         \n## @me\n"
    );
    s.write("team/p.chat.md", "## @me\n@writer hello\n");
    let out = s.send("team/p.chat.md", &[("FAKE_AGENT_TRANSCRIPT", "routed")]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = redacted(&s.read("team/p.chat.md"));
    assert!(
        text.contains(" status=done seen=0:7d6649 started=<time> model=gemini-3.1-pro-preview session=c232f6af-2b82-4f83-8826-5d58515e53bd "),
        "{text}"
    );
}

#[test]
fn codex_shows_the_model_its_configuration_names() {
    let s = Setup::new("[members.tester]\nhome = \".state/tester\"\n");
    // The recordings' config.toml, in the member's CODEX_HOME.
    s.write(
        "team/.state/tester/config.toml",
        "model = \"gpt-5.5\"\nmodel_provider = \"mock\"\n[model_providers.mock]\nname = \"Mock\"\n",
    );
    s.write("team/m.chat.md", "## @me\n@tester hi\n");
    let out = s.send(
        "team/m.chat.md",
        &[("FAKE_AGENT_TRANSCRIPT", "sandbox-readonly")],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let text = redacted(&s.read("team/m.chat.md"));
    // The read-only sandbox's refusal shows in no event: no tools, nothing denied.
    assert!(
        text.starts_with(
            "## @me\n@tester hi\n\n## @tester\n<!-- chatmd id=t1 agent=codex status=done seen=0:3fe71e started=<time> model=gpt-5.5 session=01a20c1a-a88e-73a3-9cbe-97d7ceac6a18 took=<took> exit=0 tokens=19434/76 -->\nANSWER-openai "
        ),
        "{text}"
    );
    assert!(
        !text.contains("<details>") && !text.contains("Not allowed"),
        "{text}"
    );
}
