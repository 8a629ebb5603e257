//! The instructions chatmd gives a member (team_instruction.md, the role when its CLI
//! does not load it, the member's instructions) and its roster line reach each
//! session once (`held=` in the status comment, docs/agents.md §Instructions): a new
//! session gets them the normal way (claude's `--append-system-prompt`, codex's
//! `developer_instructions`, gemini's inline `[SYSTEM]`) and not in the prompt too;
//! a resumed claude 2.1.332 session, which keeps its first run's system text, gets an
//! edited team_instruction.md in its prompt once. The fake agent records every run,
//! and for claude the system text its model gets.

use std::process::Output;

use pretty_assertions::assert_eq;
use serde_json::Value;

mod send_support;

send_support::setup_around_workspace! {
    /// A workspace with a claude reviewer, a codex tester, a gemini writer and a team
    /// instruction.
}

const FIRST: &str = "5e55a000-0000-4000-8000-000000000001";
const RULE: &str = "TEAM-RULE-1: cite files.";
const EDITED_RULE: &str = "TEAM-RULE-2: cite lines.";

/// (member, CLI) of the team.
const MEMBERS: [(&str, &str); 3] = [
    ("reviewer", "claude"),
    ("tester", "codex"),
    ("writer", "gemini"),
];

impl Setup {
    fn new() -> Setup {
        let s = Setup(send_support::Workspace::new());
        s.write("team/writer/GEMINI.md", "# Writes docs\n");
        s.write("team/team_instruction.md", &format!("{RULE}\n"));
        std::fs::create_dir_all(s.path("sessions")).unwrap();
        s
    }

    /// Sends `team/i.chat.md` as the user would, after writing `message` under the
    /// chat's last `## @me` (or as the first message).
    fn ask(&self, message: &str, knobs: &[(&str, &str)]) -> Output {
        let mut text = std::fs::read_to_string(self.path("team/i.chat.md"))
            .unwrap_or_else(|_| "## @me\n".to_owned());
        assert!(text.ends_with("## @me\n"), "{text}");
        text.push_str(message);
        text.push('\n');
        self.write("team/i.chat.md", &text);
        let mut c = self.command(&["team/i.chat.md"], knobs);
        c.env("FAKE_AGENT_TEXT", "Answer.")
            .env("FAKE_AGENT_SESSION", FIRST)
            .env("FAKE_AGENT_SESSIONS", self.path("sessions"))
            .env("FAKE_AGENT_RECORD", self.path("runs.jsonl"));
        c.output().expect("run chatmd send")
    }

    fn runs(&self) -> Vec<Value> {
        self.json_lines("runs.jsonl")
    }
}

/// The argv after the program.
fn argv(run: &Value) -> Vec<&str> {
    run["argv"].as_array().unwrap()[1..]
        .iter()
        .map(|a| a.as_str().unwrap())
        .collect()
}

/// How often `needle` occurs in what the run got: its prompt and its arguments (the
/// prompt is often one of them, so it is counted once).
fn delivered(run: &Value, needle: &str) -> usize {
    let prompt = run["prompt"].as_str().unwrap();
    let flags: usize = argv(run)
        .iter()
        .filter(|a| **a != prompt)
        .map(|a| a.matches(needle).count())
        .sum();
    prompt.matches(needle).count() + flags
}

fn roster_line(member: &str) -> String {
    let others: Vec<String> = MEMBERS
        .iter()
        .filter(|(m, _)| *m != member)
        .map(|(m, cli)| format!("@{m} ({cli})"))
        .collect();
    let next = MEMBERS.iter().find(|(m, _)| *m != member).unwrap().0;
    format!(
        "You are @{member} in a team chat with @me (human), {}. Mention a member (@{next}) or end with [NEXT: {next}] to hand over.",
        others.join(", ")
    )
}

#[test]
fn a_new_session_gets_the_instructions_the_normal_way_once_and_a_resumed_one_not_again() {
    for (member, cli) in MEMBERS {
        let s = Setup::new();
        let out = s.ask(&format!("@{member} first"), &[]);
        assert_eq!(
            String::from_utf8_lossy(&out.stderr),
            format!("@{member}: done\n")
        );
        let out = s.ask(&format!("@{member} second"), &[]);
        assert_eq!(
            String::from_utf8_lossy(&out.stderr),
            format!("@{member}: done\n")
        );
        let runs = s.runs();
        assert_eq!(runs.len(), 2, "{cli}");
        assert_eq!(delivered(&runs[0], RULE), 1, "{cli}: {}", runs[0]);
        let args = argv(&runs[0]);
        let prompt = runs[0]["prompt"].as_str().unwrap();
        match cli {
            "claude" => {
                assert!(
                    args.windows(2)
                        .any(|w| w == ["--append-system-prompt", RULE])
                );
                assert_eq!(runs[0]["system"], RULE);
            }
            "codex" => assert!(
                args.windows(2)
                    .any(|w| w == ["-c", &format!("developer_instructions=\"{RULE}\"")]),
                "{args:?}"
            ),
            _ => assert!(prompt.starts_with(&format!("[SYSTEM]\n{RULE}\n[CONTEXT]\n"))),
        }
        assert!(prompt.contains(&roster_line(member)), "{cli}: {prompt}");
        // Resumed, and the session holds them: only the new message.
        assert_eq!(runs[1]["resume"], FIRST, "{cli}");
        assert_eq!(
            runs[1]["prompt"],
            format!("[CONTEXT]\n[MESSAGE]\nme: @{member} second\n"),
            "{cli}"
        );
        // claude 2.1.197 keeps no system text with a session: its flag comes every run.
        let again = usize::from(cli == "claude");
        assert_eq!(delivered(&runs[1], RULE), again, "{cli}: {}", runs[1]);
    }
}

#[test]
fn an_edited_team_instruction_reaches_a_resumed_claude_2_1_332_session_once() {
    let s = Setup::new();
    let version = [("FAKE_AGENT_VERSION", "2.1.332")];
    let out = s.ask("@reviewer first", &version);
    assert_eq!(String::from_utf8_lossy(&out.stderr), "@reviewer: done\n");
    s.write("team/team_instruction.md", &format!("{EDITED_RULE}\n"));
    let out = s.ask("@reviewer second", &version);
    assert_eq!(String::from_utf8_lossy(&out.stderr), "@reviewer: done\n");
    let out = s.ask("@reviewer third", &version);
    assert_eq!(String::from_utf8_lossy(&out.stderr), "@reviewer: done\n");

    let runs = s.runs();
    assert_eq!(runs.len(), 3);
    // The first run: the flag, which this claude stores with the session.
    assert_eq!(runs[0]["system"], RULE);
    // The second resumes it: this claude would ignore a new flag and keep the first
    // run's text, so the edited text comes in the prompt, with the roster line.
    assert_eq!(runs[1]["resume"], FIRST);
    assert_eq!(
        runs[1]["prompt"],
        format!(
            "[SYSTEM]\n{EDITED_RULE}\n[CONTEXT]\n{}\n[MESSAGE]\nme: @reviewer second\n",
            roster_line("reviewer")
        )
    );
    assert_eq!(delivered(&runs[1], EDITED_RULE), 1, "{}", runs[1]);
    // The third finds it held: not in the prompt again (the flag is claude's normal
    // way; 2.1.332 ignores it and keeps the first run's text).
    assert_eq!(
        runs[2]["prompt"],
        "[CONTEXT]\n[MESSAGE]\nme: @reviewer third\n"
    );
    assert!(
        argv(&runs[2])
            .windows(2)
            .any(|w| w == ["--append-system-prompt", EDITED_RULE])
    );
    assert_eq!(runs[2]["system"], RULE);
    // Each answer records what its session holds.
    let text = s.read("team/i.chat.md");
    let held: Vec<&str> = text
        .match_indices(" held=")
        .map(|(at, _)| &text[at + 6..at + 12])
        .collect();
    assert_eq!(held.len(), 3, "{text}");
    assert_ne!(held[0], held[1], "{text}");
    assert_eq!(held[1], held[2], "{text}");
}

#[test]
fn a_member_added_since_reaches_a_resumed_session_once_with_the_roster_line() {
    let s = Setup::new();
    let out = s.ask("@tester first", &[]);
    assert_eq!(String::from_utf8_lossy(&out.stderr), "@tester: done\n");
    s.write("team/auditor/AGENTS.md", "# Audits\n");
    let out = s.ask("@tester second", &[]);
    assert_eq!(String::from_utf8_lossy(&out.stderr), "@tester: done\n");
    let out = s.ask("@tester third", &[]);
    assert_eq!(String::from_utf8_lossy(&out.stderr), "@tester: done\n");

    let runs = s.runs();
    assert_eq!(runs.len(), 3);
    let roster = "You are @tester in a team chat with @me (human), @auditor (codex), @reviewer (claude), @writer (gemini). Mention a member (@auditor) or end with [NEXT: auditor] to hand over.";
    // codex keeps its first run's developer_instructions on resume: the text comes
    // again in the prompt with the new roster line, once.
    assert_eq!(runs[1]["resume"], FIRST);
    assert_eq!(
        runs[1]["prompt"],
        format!("[SYSTEM]\n{RULE}\n[CONTEXT]\n{roster}\n[MESSAGE]\nme: @tester second\n")
    );
    assert_eq!(
        runs[2]["prompt"],
        "[CONTEXT]\n[MESSAGE]\nme: @tester third\n"
    );
}
