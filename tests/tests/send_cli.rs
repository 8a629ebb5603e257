//! `chatmd send` end to end: the built binary, fake agents first on PATH, the chat file
//! checked byte for byte afterwards (times redacted: they change every run).

use std::path::Path;
use std::process::Output;
use std::time::{Duration, Instant};

use pretty_assertions::assert_eq;

mod send_support;

send_support::setup_around_workspace! {
    /// The shared workspace, with this file's way of running `chatmd send`.
}

impl Setup {
    fn new() -> Setup {
        Setup(send_support::Workspace::new())
    }

    fn send(&self, args: &[&str], knobs: &[(&str, &str)]) -> Output {
        self.command(args, knobs).output().expect("run chatmd send")
    }
}

/// The chat with `started=` and `took=` values replaced (they differ every run).
fn redacted(text: &str) -> String {
    text.split(' ')
        .map(|word| {
            if let Some(rest) = word.strip_prefix("started=") {
                let _ = rest;
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

const CHAT: &str =
    "---\ntitle: Review\n---\n\n## @me\n@reviewer please review. @tester write tests.\n";

#[test]
fn two_mentioned_members_answer_in_mention_order() {
    let s = Setup::new();
    s.write("team/review.chat.md", CHAT);
    let out = s.send(
        &["team/review.chat.md"],
        &[
            ("FAKE_AGENT_TEXT", "Looks good: one nit in `refund()`."),
            ("FAKE_AGENT_SESSION", "5e55a000-0000-4000-8000-000000000001"),
        ],
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "@reviewer: done\n@tester: done\n"
    );
    assert!(out.status.success());
    assert_eq!(
        redacted(&s.read("team/review.chat.md")),
        "---\ntitle: Review\n---\n\n## @me\n@reviewer please review. @tester write tests.\n\
         \n## @reviewer\n<!-- chatmd id=t1 agent=claude status=done seen=0:db4e8a started=<time> model=claude-opus-4-8 session=5e55a000-0000-4000-8000-000000000001 took=<took> stop=end_turn exit=0 tokens=10/6 -->\n\
         Looks good: one nit in `refund()`.\n\
         \n## @tester\n<!-- chatmd id=t2 agent=codex status=done seen=0:db4e8a started=<time> session=5e55a000-0000-4000-8000-000000000001 took=<took> exit=0 tokens=10/6 -->\n\
         Looks good: one nit in `refund()`.\n\
         \n## @me\n"
    );
    // The two answers stream in parallel: the terminal shows a heading whenever the
    // member whose words come next changes, so their pieces may alternate. Put back
    // together, each member's pieces are its whole answer.
    let shown = String::from_utf8_lossy(&out.stdout);
    let mut teed: Vec<(String, String)> = Vec::new();
    for part in shown.split("\n── @").skip(1) {
        let (member, words) = part.split_once(" ──\n").expect("a heading");
        match teed.iter_mut().find(|(m, _)| m == member) {
            Some((_, all)) => all.push_str(words),
            None => teed.push((member.to_string(), words.to_string())),
        }
    }
    teed.sort();
    for (_, words) in &mut teed {
        words.truncate(words.trim_end_matches('\n').len());
    }
    let answer = "Looks good: one nit in `refund()`.";
    assert_eq!(
        teed,
        [
            ("reviewer".to_string(), answer.to_string()),
            ("tester".to_string(), answer.to_string())
        ],
        "{shown}"
    );
}

#[test]
fn a_missing_cli_writes_no_section_and_says_how_to_install_it() {
    let s = Setup::new();
    std::fs::remove_file(s.bin.join("codex")).unwrap();
    s.write("team/t.chat.md", "## @me\n@tester write tests\n");
    let out = s.send(&["team/t.chat.md"], &[]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "chatmd send: error: @tester: `codex` is not installed (not found on PATH). Install it with `npm install -g @openai/codex`, then log in: `codex login`.\n\
         @tester: error\n"
    );
    assert_eq!(s.read("team/t.chat.md"), "## @me\n@tester write tests\n");
}

#[test]
fn an_agent_error_is_recorded_in_the_status_and_the_exit_code() {
    let s = Setup::new();
    s.write("team/e.chat.md", "## @me\n@reviewer hi\n");
    let out = s.send(
        &["team/e.chat.md"],
        &[("FAKE_AGENT_TRANSCRIPT", "not-logged-in")],
    );
    assert_eq!(out.status.code(), Some(1));
    let text = redacted(&s.read("team/e.chat.md"));
    assert!(
        text.starts_with("## @me\n@reviewer hi\n\n## @reviewer\n<!-- chatmd id=t1 agent=claude status=error seen=0:35d52f started=<time>"),
        "{text}"
    );
    // The CLI's words, then how to log in (short enough for the status to keep whole).
    let message = "Not logged in · Please run /login. Log in with `claude /login` in a terminal \
                   (with CLAUDE_CONFIG_DIR set to the member's `home` if it has one), or export ANTHROPIC_API_KEY before chatmd starts.";
    assert!(message.chars().count() <= 200);
    assert!(
        text.ends_with(&format!(
            "took=<took> exit=1 error=\"{message}\" -->\n\n## @me\n"
        )),
        "{text}"
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        format!("chatmd send: error: @reviewer: {message}\n@reviewer: error\n")
    );
}

#[test]
fn asked_members_answer_even_without_a_mention() {
    let s = Setup::new();
    s.write("team/a.chat.md", "## @me\nanyone?\n");
    let out = s.send(
        &["team/a.chat.md", "--to", "tester"],
        &[("FAKE_AGENT_TEXT", "Me.")],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = redacted(&s.read("team/a.chat.md"));
    assert!(
        text.starts_with(
            "## @me\nanyone?\n\n## @tester\n<!-- chatmd id=t1 agent=codex status=done"
        ),
        "{text}"
    );
    assert!(text.ends_with("-->\nMe.\n\n## @me\n"), "{text}");
    let out = s.send(&["team/a.chat.md", "--to", "nobody"], &[]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "chatmd send: warning: nobody to ask: @nobody is not a member of this team\n"
    );
}

#[test]
fn an_ended_conversation_refuses_new_turns() {
    let s = Setup::new();
    s.write(
        "team/d.chat.md",
        "## @me\n@reviewer thanks, that is all [DONE]\n",
    );
    let out = s.send(&["team/d.chat.md"], &[]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("this conversation has ended"), "{err}");
    assert_eq!(
        s.read("team/d.chat.md"),
        "## @me\n@reviewer thanks, that is all [DONE]\n"
    );
}

#[test]
fn ctrl_c_cancels_cleanly_and_leaves_no_process() {
    let s = Setup::new();
    s.write("team/c.chat.md", "## @me\n@reviewer take your time\n");
    let pid_file = s.path("grandchild.pid");
    let pid_path = pid_file.display().to_string();
    let child = s
        .command(
            &["team/c.chat.md"],
            &[
                ("FAKE_AGENT_HANG_AFTER", "4"),
                ("FAKE_AGENT_GRANDCHILD", "1"),
                ("FAKE_AGENT_GRANDCHILD_PID", &pid_path),
            ],
        )
        .spawn()
        .unwrap();
    // Wait (bounded) until the agent has started and said who it is (its session is in
    // the status comment): then its process, and its grandchild, exist.
    let deadline = Instant::now() + Duration::from_secs(30);
    while !s.read("team/c.chat.md").contains("session=") {
        assert!(
            Instant::now() < deadline,
            "the turn never started streaming"
        );
        std::thread::yield_now();
    }
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(child.id() as i32),
        nix::sys::signal::Signal::SIGINT,
    )
    .unwrap();
    let out = child.wait_with_output().unwrap();
    // 128 + SIGINT, as a shell reports an interrupted command.
    assert_eq!(out.status.code(), Some(130));
    let text = redacted(&s.read("team/c.chat.md"));
    assert!(text.contains("status=cancelled"), "{text}");
    let pid = std::fs::read_to_string(&pid_file)
        .unwrap()
        .trim()
        .to_string();
    assert!(
        !Path::new(&format!("/proc/{pid}")).exists()
            || std::fs::read_to_string(format!("/proc/{pid}/stat"))
                .unwrap()
                .contains(") Z"),
        "grandchild {pid} survived"
    );
}

#[test]
fn a_crlf_chat_stays_crlf() {
    let s = Setup::new();
    s.write("team/w.chat.md", "## @me\r\n@reviewer hi\r\n");
    let out = s.send(
        &["team/w.chat.md"],
        &[("FAKE_AGENT_TEXT", "Line one.\nLine two.")],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = redacted(&s.read("team/w.chat.md"));
    assert!(
        text.starts_with("## @me\r\n@reviewer hi\r\n\r\n## @reviewer\r\n<!-- chatmd id=t1 "),
        "{text:?}"
    );
    assert!(
        text.ends_with("-->\r\nLine one.\r\nLine two.\r\n\r\n## @me\r\n"),
        "{text:?}"
    );
    assert!(
        !text.replace("\r\n", "").contains('\n'),
        "only CRLF line breaks: {text:?}"
    );
}
