//! `chatmd send --on-edit` (edit-aware sessions): when the user has edited a message
//! that a resuming member's session saw, `chatmd send` names it and sends nothing
//! unless told what to do; `--on-edit tell` resumes the session with a correction,
//! `--on-edit fresh` starts a new session with the file as it is, `--on-edit fork`
//! writes a new chat up to the changed message.

use std::process::Output;

use pretty_assertions::assert_eq;
use serde_json::Value;

mod send_support;

send_support::setup_around_workspace! {
    /// A workspace whose reviewer (claude) resumes its session.
}

const FIRST: &str = "5e55a000-0000-4000-8000-000000000001";

impl Setup {
    fn new() -> Setup {
        let s = Setup(send_support::Workspace::new());
        s.write("team/chatmd.toml", "[members.reviewer]\nresume = true\n");
        std::fs::create_dir_all(s.path("sessions")).unwrap();
        s
    }

    fn send(&self, args: &[&str]) -> Output {
        let mut c = self.command(args, &[("FAKE_AGENT_TEXT", "Answer.")]);
        c.env("FAKE_AGENT_SESSIONS", self.path("sessions"))
            .env("FAKE_AGENT_SESSION", FIRST)
            .env("FAKE_AGENT_RECORD", self.path("runs.jsonl"));
        c.output().expect("run chatmd send")
    }

    fn runs(&self) -> Vec<Value> {
        self.json_lines("runs.jsonl")
    }

    /// Two answers of the reviewer (the second resuming the first's session), then the
    /// user edits the first question and writes a third.
    fn edited(&self) {
        self.write("team/e.chat.md", "## @me\n@reviewer first question\n");
        assert!(self.send(&["team/e.chat.md"]).status.success());
        let text = self.read("team/e.chat.md") + "@reviewer second question\n";
        self.write("team/e.chat.md", &text);
        assert!(self.send(&["team/e.chat.md"]).status.success());
        let text = self.read("team/e.chat.md") + "@reviewer third question\n";
        let text = text.replace("first question", "first question, revised");
        self.write("team/e.chat.md", &text);
    }
}

const WARNING: &str = "chatmd send: warning: line 1 (## @me): @reviewer saw an earlier version of this message: its session still holds that one. Fork from here, start @reviewer afresh from the file, or tell it what changed.\n";

#[test]
fn without_a_choice_nothing_is_sent_and_the_message_is_named() {
    let s = Setup::new();
    s.edited();
    let before = s.read("team/e.chat.md");
    let out = s.send(&["team/e.chat.md"]);
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        format!(
            "{WARNING}chatmd send: nothing was sent: send again with --on-edit fresh (a new \
             session from the file), --on-edit tell (the session is told what changed) or \
             --on-edit fork (a new chat up to the changed message)\n"
        )
    );
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(s.runs().len(), 2, "no third run");
    assert_eq!(s.read("team/e.chat.md"), before, "the file is as it was");
}

#[test]
fn on_edit_tell_resumes_with_the_correction() {
    let s = Setup::new();
    s.edited();
    let out = s.send(&["team/e.chat.md", "--on-edit", "tell"]);
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        format!("{WARNING}@reviewer: done\n")
    );
    assert!(out.status.success());
    let runs = s.runs();
    assert_eq!(runs.len(), 3);
    assert_eq!(runs[2]["resume"], FIRST);
    assert_eq!(
        runs[2]["prompt"],
        "[CONTEXT]\nchatmd: the user changed messages you saw earlier in this chat. They \
         read now (forget the earlier versions):\nme: @reviewer first question, revised\n\
         [MESSAGE]\nme: @reviewer third question\n"
    );
    // Settled: the next send warns about nothing.
    let text = s.read("team/e.chat.md") + "@reviewer fourth question\n";
    s.write("team/e.chat.md", &text);
    let out = s.send(&["team/e.chat.md"]);
    assert_eq!(String::from_utf8_lossy(&out.stderr), "@reviewer: done\n");
}

#[test]
fn on_edit_fresh_starts_a_new_session_from_the_file() {
    let s = Setup::new();
    s.edited();
    let out = s.send(&["team/e.chat.md", "--on-edit", "fresh"]);
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        format!("{WARNING}@reviewer: done\n")
    );
    let runs = s.runs();
    assert_eq!(runs.len(), 3);
    assert_eq!(runs[2]["resume"], Value::Null);
    let prompt = runs[2]["prompt"].as_str().unwrap();
    assert!(
        prompt.ends_with(
            "me: @reviewer first question, revised\nreviewer: Answer.\n\
             me: @reviewer second question\nreviewer: Answer.\n\
             [MESSAGE]\nme: @reviewer third question\n"
        ),
        "{prompt}"
    );
}

#[test]
fn a_member_that_does_not_resume_is_no_reason_to_stop() {
    let s = Setup::new();
    s.edited();
    // The same edit, with resume off: nothing to warn about.
    s.write("team/chatmd.toml", "[members.reviewer]\nresume = false\n");
    let out = s.send(&["team/e.chat.md"]);
    assert_eq!(String::from_utf8_lossy(&out.stderr), "@reviewer: done\n");
}

#[test]
fn on_edit_fork_writes_a_new_chat_up_to_the_changed_message_and_sends_nothing() {
    let s = Setup::new();
    s.edited();
    let before = s.read("team/e.chat.md");
    let out = s.send(&["team/e.chat.md", "--on-edit", "fork"]);
    let fork = s.path("team/e-fork.chat.md");
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        format!(
            "{WARNING}chatmd send: nothing was sent here: the chat up to the changed message \
             is now {}; send there to go on, each member in a new session\n",
            fork.display()
        )
    );
    assert!(out.status.success());
    assert_eq!(s.read("team/e.chat.md"), before, "the chat is as it was");
    assert_eq!(
        s.read("team/e-fork.chat.md"),
        "---\nforked_from: e.chat.md\n---\n## @me\n@reviewer first question, revised\n\n"
    );
    assert_eq!(s.runs().len(), 2, "nothing ran");
    // The fork's first turn is a new session given the edited message.
    let out = s.send(&["team/e-fork.chat.md"]);
    assert_eq!(String::from_utf8_lossy(&out.stderr), "@reviewer: done\n");
    let runs = s.runs();
    assert_eq!(runs[2]["resume"], Value::Null);
    let prompt = runs[2]["prompt"].as_str().unwrap();
    assert!(
        prompt.ends_with("[MESSAGE]\nme: @reviewer first question, revised\n"),
        "{prompt}"
    );
}

#[test]
fn on_edit_tell_lists_only_the_edited_message_not_the_answers_the_session_never_saw() {
    // A round to three members; the user edits the question and asks @reviewer again.
    let s = Setup::new();
    s.write("team/writer/GEMINI.md", "# Writes docs\n");
    s.write(
        "team/e.chat.md",
        "## @me\n@reviewer @tester @writer which cache?\n",
    );
    let out = s.send(&["team/e.chat.md"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = s
        .read("team/e.chat.md")
        .replace("which cache?", "which cache, for reads?")
        + "@reviewer and now?\n";
    s.write("team/e.chat.md", &text);
    let out = s.send(&["team/e.chat.md", "--on-edit", "tell"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let runs = s.runs();
    assert_eq!(runs.len(), 4);
    assert_eq!(runs[3]["as"], "claude");
    assert_eq!(runs[3]["resume"], FIRST);
    // @reviewer's session saw the question, not the others' answers: those come as
    // what is new, under their own heading.
    assert_eq!(
        runs[3]["prompt"],
        "[CONTEXT]\nchatmd: the user changed messages you saw earlier in this chat. They \
         read now (forget the earlier versions):\nme: @reviewer @tester @writer which cache, \
         for reads?\nchatmd: the messages since your last answer:\ntester: Answer.\n\
         writer: Answer.\n[MESSAGE]\nme: @reviewer and now?\n"
    );
}
