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
        Setup::with(preset, "")
    }

    /// An ACP writer with the `preset`, more lines for its `[members.writer]`, and the
    /// fake installed under every ACP adapter's name.
    fn with(preset: &str, more: &str) -> Setup {
        let s = Setup(send_support::Workspace::new());
        let fake = std::path::PathBuf::from(env!("CARGO_BIN_EXE_fake-agent"));
        chatmd_tests::fake_agent::install_acp(&fake, &s.bin).expect("install the ACP fakes");
        s.write("team/writer/GEMINI.md", "# Writes docs\n");
        let log = s.path("acp.jsonl");
        s.write_trusted(
            "team/chatmd.toml",
            &format!(
                "[members.writer]\nagent = \"acp\"\npreset = \"{preset}\"\n{more}\n\
                 [members.writer.env]\nFAKE_ACP_LOG = \"{}\"\nIS_SANDBOX = \"1\"\n\
                 CLAUDE_CONFIG_DIR = \"{state}\"\nGEMINI_CLI_HOME = \"{state}\"\n",
                log.display(),
                state = s.path("state").display()
            ),
        );
        s
    }

    /// The methods the agent received, in order, across its runs.
    fn methods_received(&self) -> Vec<String> {
        chatmd_tests::fake_agent::acp::methods_received(&self.path("acp.jsonl"))
    }

    /// The client's answers to the agent's permission requests, as it received them.
    fn answers_received(&self) -> Vec<Value> {
        chatmd_tests::fake_agent::acp::answers_received(&self.path("acp.jsonl"))
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

/// Two turns of a writer with `resume = true` (`between` runs between them); returns
/// the chat's text.
fn two_turns(s: &Setup, between: impl Fn()) -> String {
    s.write("team/two.chat.md", "## @me\n@writer ASK-ONE first\n");
    let out = s
        .command(&["team/two.chat.md"], &[])
        .output()
        .expect("run chatmd send");
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let mut text = s.read("team/two.chat.md");
    text.push_str("@writer ASK-TWO and now?\n");
    s.write("team/two.chat.md", &text);
    between();
    let out = s
        .command(&["team/two.chat.md"], &[])
        .output()
        .expect("run chatmd send");
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    s.read("team/two.chat.md")
}

/// How the second of [`two_turns`] went: its session is the first's (`same`) or not,
/// and the agent received `methods` over both turns.
fn the_second_turn(s: &Setup, text: &str, same: bool, methods: &[&str]) {
    let ids = sessions(text);
    assert_eq!(ids.len(), 2, "{text}");
    assert_eq!(ids[0] == ids[1], same, "the same session or not: {text}");
    assert_eq!(s.methods_received(), methods);
}

/// The session ids of the chat's status comments, in order.
fn sessions(text: &str) -> Vec<String> {
    let session = regex::Regex::new(r"session=([^ ]+)").unwrap();
    session
        .captures_iter(text)
        .map(|c| c[1].to_string())
        .collect()
}

#[test]
fn the_next_turn_resumes_the_acp_session_and_sends_only_what_is_new() {
    let s = Setup::with("claude", "resume = true");
    let text = two_turns(&s, || {});
    the_second_turn(
        &s,
        &text,
        true,
        &[
            "initialize",
            "session/new",
            "session/prompt",
            "initialize",
            "session/resume",
            "session/prompt",
        ],
    );
    // The agent had the first exchange in its session: the second prompt carried only
    // the new message.
    assert!(
        text.contains("turn=2 user_msgs=2 assistant_msgs=1 ask=ASK-TWO"),
        "{text}"
    );
    assert!(!text.contains("resume=lost"), "{text}");
}

#[test]
fn an_agent_without_resume_starts_a_new_session_with_the_whole_chat() {
    // gemini --acp offers only session/load, whose replay cannot be told from the
    // new answer: each turn is a new session seeded from the file.
    let s = Setup::with("gemini", "resume = true");
    let text = two_turns(&s, || {});
    the_second_turn(
        &s,
        &text,
        false,
        &[
            "initialize",
            "session/new",
            "session/prompt",
            "initialize",
            "session/new",
            "session/prompt",
        ],
    );
    assert_eq!(text.matches("ask=ASK-ONE").count(), 1, "{text}");
    assert!(
        text.contains("user_msgs=1 assistant_msgs=0 ask=ASK-TWO"),
        "{text}"
    );
    assert!(!text.contains("resume=lost"), "{text}");
}

#[test]
fn a_session_the_agent_lost_goes_on_as_a_new_one_with_the_whole_chat() {
    let s = Setup::with("claude", "resume = true");
    // The agent's state is gone between the turns (a new machine, a cleared folder).
    let text = two_turns(&s, || {
        std::fs::remove_dir_all(s.path("state")).expect("rm state")
    });
    the_second_turn(
        &s,
        &text,
        false,
        &[
            "initialize",
            "session/new",
            "session/prompt",
            "initialize",
            "session/resume",
            "session/new",
            "session/prompt",
        ],
    );
    assert!(text.contains("resume=lost"), "{text}");
    assert!(
        text.contains("user_msgs=1 assistant_msgs=0 ask=ASK-TWO"),
        "{text}"
    );
}

#[test]
fn chatmd_acp_record_writes_the_traffic_in_the_recorded_format() {
    let s = Setup::new("gemini");
    s.write("team/hello.chat.md", "## @me\n@writer say hello\n");
    let record = s.path("traffic");
    let out = s
        .command(&["team/hello.chat.md"], &[])
        .env("CHATMD_ACP_RECORD", &record)
        .output()
        .expect("run chatmd send");
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let files: Vec<_> = std::fs::read_dir(&record)
        .expect("the folder")
        .flatten()
        .collect();
    assert_eq!(files.len(), 1, "one file for the one turn");
    let text = std::fs::read_to_string(files[0].path()).expect("read");
    let steps: Vec<String> = text
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).expect("JSON"))
        .map(|r| {
            let msg = &r["msg"];
            let what = msg["method"]
                .as_str()
                .map(str::to_owned)
                .or_else(|| msg.get("result").map(|_| format!("result {}", msg["id"])))
                .unwrap_or_default();
            format!("{} {what}", r["dir"].as_str().unwrap_or_default())
        })
        .filter(|step| !step.ends_with("session/update"))
        .collect();
    assert_eq!(
        steps,
        [
            "C->A initialize",
            "A->C result 1",
            "C->A session/new",
            "A->C result 2",
            "C->A session/prompt",
            "A->C result 3",
        ]
    );
}

/// The text of each `session/prompt` the agent received.
fn prompts_received(s: &Setup) -> Vec<String> {
    chatmd_tests::fake_agent::acp::requests_received(&s.path("acp.jsonl"))
        .into_iter()
        .filter(|(method, _)| method == "session/prompt")
        .map(|(_, params)| {
            params["prompt"][0]["text"]
                .as_str()
                .unwrap_or("")
                .to_owned()
        })
        .collect()
}

#[test]
fn a_slash_command_goes_to_the_agent_as_the_prompt_itself() {
    let s = Setup::new("claude");
    s.write(
        "team/command.chat.md",
        "## @me\n@writer /review src/pay.rs\n",
    );
    let out = s
        .command(&["team/command.chat.md"], &[])
        .output()
        .expect("run chatmd send");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // The agent runs a command only when the prompt starts with it: no context before.
    assert_eq!(prompts_received(&s), ["/review src/pay.rs"]);
    // A message that only mentions a command is an ordinary prompt.
    s.write(
        "team/words.chat.md",
        "## @me\n@writer what does /review do?\n",
    );
    let out = s
        .command(&["team/words.chat.md"], &[])
        .output()
        .expect("run chatmd send");
    assert_eq!(out.status.code(), Some(0));
    let prompts = prompts_received(&s);
    assert_eq!(prompts.len(), 2);
    assert!(
        prompts[1].ends_with("[MESSAGE]\nme: @writer what does /review do?\n"),
        "{}",
        prompts[1]
    );
}

/// The `cli` object `chatmd members --json` reports for the writer.
fn writer_cli(s: &Setup) -> Value {
    let out = s
        .chatmd(&["members", "--json", "team"])
        .output()
        .expect("run chatmd members");
    assert_eq!(out.status.code(), Some(0));
    let report: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let writer = &report["members"][0];
    assert_eq!(writer["handle"], "writer");
    writer["cli"].clone()
}

#[test]
fn chatmd_members_names_an_acp_members_program_and_how_to_install_it() {
    // Installed (the fake under claude-agent-acp's name): where it is.
    let s = Setup::new("claude");
    let cli = writer_cli(&s);
    assert_eq!(cli["binary"], "claude-agent-acp");
    assert_eq!(
        cli["path"],
        s.bin.join("claude-agent-acp").display().to_string()
    );
    // Not installed: the preset's own install command.
    let s = Setup::new("goose");
    let cli = writer_cli(&s);
    assert_eq!(cli["binary"], "goose");
    assert_eq!(cli["path"], Value::Null);
    assert_eq!(
        cli["install_command"],
        "curl -fsSL https://github.com/block/goose/releases/download/stable/download_cli.sh | bash"
    );
    let out = s
        .chatmd(&["members", "team"])
        .output()
        .expect("run chatmd members");
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(
        table.contains("writer    acp (goose)  team/writer/GEMINI.md    team/writer    not installed — curl -fsSL https://github.com/block/goose/releases/download/stable/download_cli.sh | bash"),
        "{table}"
    );
}

#[test]
fn an_agent_that_stays_after_its_answer_is_asked_to_stop_rather_than_waited_for() {
    // codex-acp stays 2 s after its stdin closes; the turn is over at the prompt's
    // result, so chatmd asks it to stop (SIGTERM) instead of waiting out its grace and
    // killing it: here when the run ends, the agent having stayed warm for a later
    // round (so the status has no `exit=`).
    let s = Setup::new("codex");
    s.write("team/linger.chat.md", "## @me\n@writer say hello\n");
    let out = s
        .command(&["team/linger.chat.md"], &[("FAKE_ACP_LINGER_MS", "60000")])
        .output()
        .expect("run chatmd send");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = s.read("team/linger.chat.md");
    assert!(text.contains("status=done"), "{text}");
    assert!(!text.contains(" exit="), "{text}");
    let log = std::fs::read_to_string(s.path("acp.jsonl")).expect("the fake's log");
    assert_eq!(log.lines().last(), Some(r#"{"signal":"SIGTERM"}"#));
}

#[test]
fn an_acp_agent_that_exits_failing_after_its_whole_answer_leaves_the_turn_done() {
    // gemini --acp 0.61 now and then exits 1 once its stdin closes, after an `end_turn`
    // answer (2-3 times per matrix run). The answer and the session are whole: the turn
    // is done, and its status comment keeps the exit code.
    let s = Setup::new("gemini");
    s.write("team/exit.chat.md", "## @me\n@writer say hello\n");
    let out = s
        .command(&["team/exit.chat.md"], &[("FAKE_ACP_EXIT_CODE", "1")])
        .output()
        .expect("run chatmd send");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert_eq!(stderr, "@writer: done\n");
    let answer = "ANSWER-gemini role_seen=no marker_count=0 roles=none team=0 turn=1 \
                  user_msgs=1 assistant_msgs=0 ask=-";
    assert_eq!(
        masked(&s.read("team/exit.chat.md")),
        format!(
            "## @me\n@writer say hello\n\n## @writer\n<!-- chatmd id=t1 agent=acp status=done \
             model=auto stop=end_turn exit=1 tokens=11865/10 -->\n{answer}\n\n## @me\n"
        )
    );
}
