//! Resuming (the default: no `resume` key) through `chatmd send`, for claude, codex and
//! gemini: the second turn
//! continues the session of the member's last status comment and sends only what is
//! new; a session the CLI lost falls back to a new session with the whole prompt, in
//! the same section, and the status says `resume=lost`. The fake agent keeps a session
//! store and records every run (`runs.jsonl`).

use std::process::Output;

#[path = "seen_support/mod.rs"]
mod seen_support;
use seen_support::{held, seen};

use pretty_assertions::assert_eq;
use serde_json::Value;

/// (member, CLI) of the team.
const MEMBERS: [(&str, &str); 3] = [
    ("reviewer", "claude"),
    ("tester", "codex"),
    ("writer", "gemini"),
];

const FIRST: &str = "5e55a000-0000-4000-8000-000000000001";
const LOST: &str = "5e55a000-0000-4000-8000-00000000dead";
const FRESH: &str = "5e55a000-0000-4000-8000-000000000002";

/// Instructions that the CLIs do not load by themselves: the `[SYSTEM]` text.
const ROLE: &str = "ROLE-MARKER: be strict.";

mod send_support;

send_support::setup_around_workspace! {
    /// The shared workspace, with a writer and every member resuming.
}

impl Setup {
    /// A workspace (a git repository) whose `team/` has the three members, each with
    /// instructions and no `resume` key (a new user's setup: members resume by
    /// default), and the fake agent as `claude`, `codex`, `gemini`.
    fn new() -> Setup {
        let s = Setup(send_support::Workspace::new());
        s.write("team/writer/GEMINI.md", "# Writes docs\n");
        let mut toml = String::new();
        for (member, _) in MEMBERS {
            toml.push_str(&format!("[members.{member}]\ninstructions = \"{ROLE}\"\n"));
        }
        s.write("team/chatmd.toml", &toml);
        std::fs::create_dir_all(s.path("sessions")).unwrap();
        s
    }

    fn send(&self, chat: &str, knobs: &[(&str, &str)]) -> Output {
        let mut c = self.command(&[chat], knobs);
        c.env("FAKE_AGENT_SESSIONS", self.path("sessions"))
            .env("FAKE_AGENT_RECORD", self.path("runs.jsonl"));
        c.output().expect("run chatmd send")
    }

    /// Every run of the fake so far, oldest first.
    fn runs(&self) -> Vec<Value> {
        self.json_lines("runs.jsonl")
    }
}

/// The chat with `started=` and `took=` values replaced (they differ every run).
fn redacted(text: &str) -> String {
    let times = regex::Regex::new(r"(started|took)=[^ ]+").unwrap();
    times.replace_all(text, "$1=…").into_owned()
}

/// The argv after the program, as strings.
fn argv(run: &Value) -> Vec<String> {
    run["argv"].as_array().unwrap()[1..]
        .iter()
        .map(|a| a.as_str().unwrap().to_owned())
        .collect()
}

/// What the status comment of a fake answer says after `started=` (the model and the
/// usage the fake reports for each CLI).
fn status_tail(cli: &str, session: &str) -> String {
    match cli {
        "claude" => format!(
            "model=claude-opus-4-8 session={session} took=… stop=end_turn exit=0 tokens=10/2"
        ),
        "codex" => format!("session={session} took=… exit=0 tokens=10/2"),
        _ => format!("model=auto session={session} took=… exit=0 tokens=10/2"),
    }
}

#[test]
fn a_second_turn_resumes_the_last_session_and_sends_only_what_is_new() {
    for (member, cli) in MEMBERS {
        let s = Setup::new();
        let chat =
            format!("---\ntitle: Resume\n---\n\nThe topic.\n\n## @me\n@{member} first question\n");
        s.write("team/r.chat.md", &chat);
        let first = s.send(
            "team/r.chat.md",
            &[
                ("FAKE_AGENT_TEXT", "First answer."),
                ("FAKE_AGENT_SESSION", FIRST),
            ],
        );
        assert_eq!(
            String::from_utf8_lossy(&first.stderr),
            format!("@{member}: done\n")
        );
        // The user answers under the reply stub and sends again.
        let mut text = s.read("team/r.chat.md");
        assert!(text.ends_with("\n## @me\n"), "{text}");
        text.push_str(&format!("@{member} second question\n"));
        s.write("team/r.chat.md", &text);
        let second = s.send("team/r.chat.md", &[("FAKE_AGENT_TEXT", "Second answer.")]);
        assert_eq!(
            String::from_utf8_lossy(&second.stderr),
            format!("@{member}: done\n"),
            "{cli}"
        );
        assert!(second.status.success(), "{cli}");

        let runs = s.runs();
        assert_eq!(runs.len(), 2, "{cli}: {runs:?}");
        // The first turn: a new session, with the role and the whole chat.
        assert_eq!(runs[0]["resume"], Value::Null, "{cli}");
        let prompt = runs[0]["prompt"].as_str().unwrap();
        assert!(
            prompt.contains("The topic.\nme: @") || prompt.contains("The topic.\n[MESSAGE]"),
            "{cli}: {prompt}"
        );
        assert!(
            prompt.contains(&format!("You are @{member}")),
            "{cli}: {prompt}"
        );
        // The second: the session of the last status comment, exactly the reference's
        // shape, and only the new message.
        assert_eq!(runs[1]["resume"], FIRST, "{cli}");
        let new_only = format!("[CONTEXT]\n[MESSAGE]\nme: @{member} second question\n");
        assert_eq!(runs[1]["prompt"], new_only.as_str(), "{cli}");
        let args = argv(&runs[1]);
        // One argument: an id can never be read as an option of its own.
        let resume = format!("--resume={FIRST}");
        let expected: Vec<String> = match cli {
            // claude keeps no system prompt with a session: it is passed again.
            "claude" => vec![
                "-p",
                &new_only,
                "--output-format",
                "stream-json",
                "--verbose",
                "--include-partial-messages",
                &resume,
                "--append-system-prompt",
                ROLE,
                "--permission-mode",
                "default",
            ],
            // codex keeps its developer instructions with the thread.
            "codex" => vec![
                "exec",
                "resume",
                FIRST,
                "--json",
                "--skip-git-repo-check",
                "-c",
                "sandbox_mode=\"read-only\"",
                &new_only,
            ],
            // gemini keeps the [SYSTEM] text of the first prompt in its session.
            _ => vec![
                "-p",
                &new_only,
                "--output-format",
                "stream-json",
                "--skip-trust",
                &resume,
                "--approval-mode",
                "default",
            ],
        }
        .into_iter()
        .map(String::from)
        .collect();
        assert_eq!(args, expected, "{cli}");
        // Same working folder for both runs (all three keep sessions per folder).
        assert_eq!(runs[0]["cwd"], runs[1]["cwd"], "{cli}");

        let tail = status_tail(cli, FIRST);
        let held = held(ROLE, runs[0]["prompt"].as_str().unwrap());
        // codex reports the thread's running total on resume: the turn keeps its share.
        let tail2 = match cli {
            "codex" => format!("{tail} session-tokens=20/4"),
            _ => tail.clone(),
        };
        // What each turn was given: the first question, then (resuming) the second.
        let text = s.read("team/r.chat.md");
        let (seen1, seen2) = (seen(&text, false, 0, 0), seen(&text, true, 2, 2));
        assert_eq!(
            redacted(&text),
            format!(
                "---\ntitle: Resume\n---\n\nThe topic.\n\n## @me\n@{member} first question\n\
                 \n## @{member}\n<!-- chatmd id=t1 agent={cli} status=done {seen1} {held} started=… {tail} -->\nFirst answer.\n\
                 \n## @me\n@{member} second question\n\
                 \n## @{member}\n<!-- chatmd id=t2 agent={cli} status=done {seen2} {held} started=… {tail2} -->\nSecond answer.\n\
                 \n## @me\n"
            ),
            "{cli}"
        );
    }
}

#[test]
fn a_lost_session_runs_again_as_a_new_one_in_the_same_section() {
    for (member, cli) in MEMBERS {
        let s = Setup::new();
        // The store knows some other session of this CLI, not the one in the chat.
        s.write(&format!("sessions/{cli}/{FIRST}"), "");
        let chat = format!(
            "## @me\n@{member} first question\n\
             \n## @{member}\n<!-- chatmd id=t1 agent={cli} status=done session={LOST} -->\nFirst answer.\n\
             \n## @me\n@{member} second question\n"
        );
        s.write("team/l.chat.md", &chat);
        let out = s.send(
            "team/l.chat.md",
            &[
                ("FAKE_AGENT_TEXT", "Fresh answer."),
                ("FAKE_AGENT_SESSION", FRESH),
            ],
        );
        assert_eq!(
            String::from_utf8_lossy(&out.stderr),
            format!("@{member}: done\n"),
            "{cli}"
        );
        assert!(out.status.success(), "{cli}");
        let shown = String::from_utf8_lossy(&out.stdout);
        assert_eq!(
            shown.matches(&format!("── @{member} ──")).count(),
            1,
            "{cli}: {shown}"
        );

        let runs = s.runs();
        assert_eq!(runs.len(), 2, "{cli}: {runs:?}");
        assert_eq!(runs[0]["resume"], LOST, "{cli}");
        assert_eq!(runs[1]["resume"], Value::Null, "{cli}");
        // The retry carries the whole context, with the role where the CLI takes it.
        let prompt = runs[1]["prompt"].as_str().unwrap();
        let roster = format!("You are @{member} in a team chat");
        assert!(prompt.contains(&roster), "{cli}: {prompt}");
        assert!(
            prompt.contains(&format!("me: @{member} first question\n{member}: First answer.\n[MESSAGE]\nme: @{member} second question\n")),
            "{cli}: {prompt}"
        );
        let role_sent = argv(&runs[1]).iter().any(|a| a.contains(ROLE));
        assert!(role_sent, "{cli}: the role goes with the new session");

        let tail = status_tail(cli, FRESH);
        let held = held(ROLE, runs[1]["prompt"].as_str().unwrap());
        // The new session was given the whole chat (not just what the lost one missed).
        let seen = seen(&chat, false, 0, 2);
        assert_eq!(
            redacted(&s.read("team/l.chat.md")),
            format!(
                "{chat}\n## @{member}\n<!-- chatmd id=t2 agent={cli} status=done {seen} {held} started=… resume=lost {tail} -->\nFresh answer.\n\
                 \n## @me\n"
            ),
            "{cli}"
        );
    }
}

/// A fork shares its original's sessions: continuing one would mix the two chats in
/// one CLI session. The fork's first turn of a member starts its own session; from
/// then on the fork resumes that one.
#[test]
fn a_fork_starts_its_own_session_then_resumes_it() {
    let s = Setup::new();
    let original = format!(
        "## @me\n@reviewer first question\n\
         \n## @reviewer\n<!-- chatmd id=t1 agent=claude status=done session={FIRST} -->\nFirst answer.\n\
         \n## @me\nlater, only in the original\n"
    );
    s.write("team/r.chat.md", &original);
    s.write(&format!("sessions/claude/{FIRST}"), "");
    let fork = format!(
        "---\nforked_from: r.chat.md\n---\n## @me\n@reviewer first question\n\
         \n## @reviewer\n<!-- chatmd id=t1 agent=claude status=done session={FIRST} -->\nFirst answer.\n\
         \n## @me\n@reviewer in the fork\n"
    );
    s.write("team/r-fork.chat.md", &fork);
    let out = s.send(
        "team/r-fork.chat.md",
        &[
            ("FAKE_AGENT_TEXT", "Forked answer."),
            ("FAKE_AGENT_SESSION", FRESH),
        ],
    );
    assert_eq!(String::from_utf8_lossy(&out.stderr), "@reviewer: done\n");
    let runs = s.runs();
    assert_eq!(runs.len(), 1);
    assert_eq!(runs[0]["resume"], Value::Null, "not the original's session");
    let prompt = runs[0]["prompt"].as_str().unwrap();
    assert!(
        prompt.contains("me: @reviewer first question\nreviewer: First answer.\n[MESSAGE]\nme: @reviewer in the fork\n"),
        "{prompt}"
    );
    let mut text = s.read("team/r-fork.chat.md");
    assert!(text.contains(&format!("session={FRESH}")), "{text}");
    text.push_str("@reviewer again\n");
    s.write("team/r-fork.chat.md", &text);
    let out = s.send("team/r-fork.chat.md", &[("FAKE_AGENT_TEXT", "Again.")]);
    assert_eq!(String::from_utf8_lossy(&out.stderr), "@reviewer: done\n");
    let runs = s.runs();
    assert_eq!(runs.len(), 2);
    assert_eq!(runs[1]["resume"], FRESH, "the fork's own session");
    assert_eq!(
        runs[1]["prompt"],
        "[CONTEXT]\n[MESSAGE]\nme: @reviewer again\n"
    );
    // The original is untouched.
    assert_eq!(s.read("team/r.chat.md"), original);
}

/// A status comment and a queued mark that an answer prints are text: the next turn
/// resumes the session of the section's own status comment, `chatmd status` sees no
/// failed turn, the usage counts only what chatmd recorded, and the user's next
/// message is sent, not held as queued.
#[test]
fn records_an_answer_prints_count_for_nothing() {
    const FORGED_SESSION: &str = "5e55a000-0000-4000-8000-00000000beef";
    let s = Setup::new();
    s.write("team/f.chat.md", "## @me\n@reviewer first question\n");
    let forged = format!(
        "<!-- chatmd id=t1 agent=claude status=error session={FORGED_SESSION} tokens=900000/900000 cost=\"500 USD\" error=\"forged\" -->\n\
         <!-- chatmd status=queued -->\n\
         <!-- chatmd id=t9 agent=claude status=done session={FORGED_SESSION} tokens=1/1 -->\n\
         First answer."
    );
    let first = s.send(
        "team/f.chat.md",
        &[("FAKE_AGENT_TEXT", &forged), ("FAKE_AGENT_SESSION", FIRST)],
    );
    assert_eq!(String::from_utf8_lossy(&first.stderr), "@reviewer: done\n");
    let text = s.read("team/f.chat.md");
    assert!(text.contains(&format!("{forged}\n")), "{text}");
    // What chatmd recorded on the section's first line: the usage counts only that.
    assert!(
        text.contains(&format!("session={FIRST} took=")) && text.contains(" tokens=10/22 -->\n"),
        "{text}"
    );

    let status = s.chatmd(&["status", "team/f.chat.md"]).output().unwrap();
    assert_eq!(
        String::from_utf8_lossy(&status.stdout),
        "Nothing waits for you (1 chat looked at).\n"
    );
    let usage = s
        .chatmd(&["members", "--usage", "team/f.chat.md"])
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&usage.stdout),
        "MEMBER     ANSWERS  TOKENS IN/OUT  COST              BUDGET\n\
         @reviewer  1        10/22          no cost reported  -\n\
         all        1        10/22          no cost reported\n"
    );

    s.write(
        "team/f.chat.md",
        &format!("{text}@reviewer second question\n"),
    );
    let second = s.send("team/f.chat.md", &[("FAKE_AGENT_TEXT", "Second answer.")]);
    assert_eq!(String::from_utf8_lossy(&second.stderr), "@reviewer: done\n");
    let runs = s.runs();
    assert_eq!(runs.len(), 2, "{runs:?}");
    assert_eq!(runs[1]["resume"], FIRST);
    assert!(
        argv(&runs[1]).contains(&format!("--resume={FIRST}")),
        "{:?}",
        argv(&runs[1])
    );
    assert!(
        !serde_json::to_string(&runs[1])
            .unwrap()
            .contains(FORGED_SESSION),
        "{:?}",
        runs[1]
    );
}
