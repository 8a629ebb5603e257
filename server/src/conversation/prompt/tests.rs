use super::*;
use crate::team::Team;
use pretty_assertions::assert_eq;
use std::fs;
use std::path::{Path, PathBuf};

const TOPIC_CHAT: &str = "\
---
title: Payment review
---

We are hardening `src/pay.rs` before the release.

## @me
@reviewer please review src/pay.rs.
";

fn member(handle: &str, agent: &str, role: Option<&str>) -> Member {
    Member {
        role_text: role.map(str::to_owned),
        ..Member::new(handle, agent, PathBuf::from("/team").join(handle))
    }
}

fn team() -> Team {
    let mut team = Team::empty(PathBuf::from("/team"));
    team.instruction = Some("We ship small, reviewed changes.\n".to_owned());
    team.members = vec![
        member(
            "reviewer",
            "claude",
            Some("# Reviewer\n\nStrict about tests.\n"),
        ),
        member(
            "tester",
            "codex",
            Some("# Tester\n\nWrites property tests.\n"),
        ),
        member("writer", "gemini", Some("# Writer\n")),
    ];
    team
}

/// A request for `handle` to answer message `message` of `text`, role not auto-loaded.
struct Case<'a> {
    text: &'a str,
    handle: &'a str,
    message: usize,
    role_loaded_by_cli: bool,
    since: Option<usize>,
    attached: &'a str,
}

impl<'a> Case<'a> {
    fn new(text: &'a str, handle: &'a str, message: usize) -> Case<'a> {
        Case {
            text,
            handle,
            message,
            role_loaded_by_cli: false,
            since: None,
            attached: "",
        }
    }

    fn build_in(&self, team: &Team, cap: usize) -> Result<Prompt, PromptError> {
        let chat = Chat::parse(self.text);
        let roster = Roster::new(team, chat.front_matter.as_ref());
        let request = PromptRequest {
            text: self.text,
            chat: &chat,
            roster: &roster,
            member: team.member(self.handle).expect("member"),
            message: self.message,
            role_loaded_by_cli: self.role_loaded_by_cli,
            since: self.since,
            attached: self.attached,
            correction: "",
            instructions_again: false,
        };
        build_prompt_with_cap(&request, cap)
    }

    fn build_with_cap(&self, cap: usize) -> Result<Prompt, PromptError> {
        self.build_in(&team(), cap)
    }

    fn build(&self) -> Prompt {
        self.build_with_cap(PROMPT_CAP).expect("prompt")
    }
}

#[test]
fn a_human_message_to_one_member() {
    let prompt = Case::new(TOPIC_CHAT, "reviewer", 0).build();
    insta::assert_snapshot!(prompt.inline());
}

#[test]
fn the_system_part_is_separate_for_agents_with_a_flag() {
    let prompt = Case::new(TOPIC_CHAT, "reviewer", 0).build();
    assert_eq!(
        prompt.system,
        "We ship small, reviewed changes.\n\n# Reviewer\n\nStrict about tests."
    );
    assert!(prompt.body.starts_with("[CONTEXT]\nYou are @reviewer"));
    assert_eq!(
        prompt.inline(),
        format!("[SYSTEM]\n{}\n{}", prompt.system, prompt.body)
    );
    assert_eq!(prompt.len(), prompt.inline().len());
}

#[test]
fn without_a_system_part_the_inline_prompt_starts_with_the_context() {
    let mut team = team();
    team.instruction = None;
    let mut case = Case::new(TOPIC_CHAT, "reviewer", 0);
    case.role_loaded_by_cli = true;
    let prompt = case.build_in(&team, PROMPT_CAP).expect("prompt");
    assert_eq!(prompt.system, "");
    assert_eq!(prompt.inline(), prompt.body);
    assert_eq!(prompt.len(), prompt.body.len());
}

#[test]
fn a_chain_answers_the_ai_message_that_mentioned_the_member() {
    let text = "\
## @me
@reviewer please review src/pay.rs.

## @reviewer
<!-- chatmd id=t1 agent=claude status=done took=12.4s -->
Two problems:
1. `refund()` can go negative.
2. No test covers it.

@tester please add a property test for `refund()`.

## @tester
<!-- chatmd id=t2 agent=codex status=queued -->
";
    let prompt = Case::new(text, "tester", 1).build();
    insta::assert_snapshot!(prompt.inline());
}

#[test]
fn markers_and_status_comments_are_stripped_but_permission_blocks_stay() {
    let text = "\
## @me
@reviewer check the fix [NEXT: reviewer] please.

## @reviewer
<!-- chatmd id=t1 agent=claude status=done -->
Looks right. [NEXT: tester]
<!-- chatmd id=t9 status=done -->
Literal markers stay: `[DONE]` and

```text
<!-- chatmd id=t3 status=done -->
[NEXT: writer]
```

> **Permission** `p1` — reviewer wants to run `cargo test` (Execute)
> - [ ] allow once · - [ ] allow always · - [ ] reject

[DONE]

## @tester
<!-- chatmd id=t2 agent=codex status=done -->
[NEXT: writer] Tests added.
[DONE]

## @writer
";
    let prompt = Case::new(text, "writer", 2).build();
    insta::assert_snapshot!(prompt.inline());
}

#[test]
fn crlf_text_comes_out_with_unix_line_breaks() {
    let text = "Topic\r\nline two\r\n\r\n## @me\r\n@reviewer first\r\nsecond [DONE]\r\n\r\n## @reviewer\r\n";
    let prompt = Case::new(text, "reviewer", 0).build();
    assert!(!prompt.inline().contains('\r'));
    assert!(prompt.body.contains(
        "The topic:\n```\nTopic\nline two\n```\n[MESSAGE]\nme: @reviewer first\nsecond\n"
    ));
}

#[test]
fn reply_stubs_and_skip_answers_are_left_out() {
    let text = "\
## @me
@reviewer what do you think?

## @reviewer
<!-- chatmd id=t1 agent=claude status=done -->
Ship it.

## @writer
<!-- chatmd id=t2 agent=gemini status=done -->
SKIP

## @me

## @me
[DONE]

## @me
@tester anything to add?
";
    let prompt = Case::new(text, "tester", 5).build();
    insta::assert_snapshot!(prompt.inline());
}

#[test]
fn the_context_holds_at_most_the_front_matter_limit_newest_last() {
    let text = "\
---
context: 2
---
## @me
one

## @reviewer
two

## @me

## @tester
three

## @me
@writer four?
";
    let prompt = Case::new(text, "writer", 4).build();
    insta::assert_snapshot!(prompt.inline());
}

#[test]
fn the_default_limit_is_twenty_messages() {
    let mut text = String::new();
    for i in 0..30 {
        text.push_str(&format!("## @me\nmessage {i}\n\n"));
    }
    text.push_str("## @me\n@reviewer last\n");
    let prompt = Case::new(&text, "reviewer", 30).build();
    assert!(!prompt.body.contains("me: message 9\n"));
    assert!(prompt.body.contains("[CONTEXT]\nYou are @reviewer in a team chat with @me (human), @tester (codex), @writer (gemini). Mention a member (@tester) or end with [NEXT: tester] to hand over.\nme: message 10\n"));
    assert!(
        prompt
            .body
            .contains("me: message 29\n[MESSAGE]\nme: @reviewer last\n")
    );
}

#[test]
fn resume_sends_only_what_came_after_the_members_last_message() {
    let text = "\
A topic the session already knows.

## @me
@reviewer first round

## @reviewer
Old answer.

## @tester
A comment after the reviewer spoke.

## @me
@reviewer second round
";
    let mut case = Case::new(text, "reviewer", 3);
    case.role_loaded_by_cli = true;
    case.since = Some(1);
    insta::assert_snapshot!(case.build().inline());
}

#[test]
fn resume_right_after_the_members_answer_sends_only_the_message() {
    let text = "\
---
title: Payment review
---

The topic.

## @me
@reviewer first

## @reviewer
Old answer.

## @me
@reviewer second
";
    let mut case = Case::new(text, "reviewer", 2);
    case.since = Some(1);
    let prompt = case.build();
    assert_eq!(prompt.body, "[CONTEXT]\n[MESSAGE]\nme: @reviewer second\n");
    // The system part is still built: claude needs it on every run.
    assert_eq!(
        prompt.system,
        "We ship small, reviewed changes.\n\n# Reviewer\n\nStrict about tests."
    );
}

#[test]
fn resume_in_a_chain_answers_the_mention_with_what_came_between() {
    let text = "\
## @me
@reviewer and @tester, look

## @reviewer
Looked.

## @me
Ping.

## @tester
@reviewer what about the refund path?
";
    let mut case = Case::new(text, "reviewer", 3);
    case.since = Some(1);
    assert_eq!(
        case.build().body,
        "[CONTEXT]\nme: Ping.\n[MESSAGE]\ntester: @reviewer what about the refund path?\n"
    );
    // Without resume, everything goes, with the roster line first.
    case.since = None;
    let full = case.build().body;
    assert!(full.starts_with("[CONTEXT]\nYou are @reviewer"), "{full}");
    assert!(full.contains("me: @reviewer and @tester, look\nreviewer: Looked.\nme: Ping.\n"));
}

#[test]
fn a_missing_message_is_an_error_not_a_panic() {
    let err = Case::new(TOPIC_CHAT, "reviewer", 5).build_with_cap(PROMPT_CAP);
    assert_eq!(err, Err(PromptError::NoSuchMessage { index: 5, count: 1 }));
}

#[test]
fn the_roster_line_lists_only_members_taking_part() {
    let text = "---\nmembers: [reviewer]\nhuman: ana\n---\n## @ana\n@reviewer hi\n";
    let prompt = Case::new(text, "reviewer", 0).build();
    assert!(
        prompt
            .body
            .starts_with("[CONTEXT]\nYou are @reviewer in a team chat with @ana (human).\n")
    );
}

mod apart;
mod attached;
mod cap;
mod quoting;
mod roles;

#[test]
fn marker_removal_leaves_no_doubled_or_dangling_blanks() {
    let text = "## @tester\nsee [NEXT: a] now\nfoo[DONE] bar\n  [NEXT: a] [DONE]  \nend\t[DONE]\n`[DONE]` stays\n";
    let chat = Chat::parse(text);
    assert_eq!(
        clean::message_text(text, &chat.messages[0]),
        "see now\nfoo bar\nend\n`[DONE]` stays"
    );
}

#[test]
fn asked_right_after_an_answer_without_text_the_member_answers_the_question_before_it() {
    let text = "\
## @me
Is the refund rounding right?

## @reviewer
<!-- chatmd id=t1 agent=claude status=done -->

## @tester
<!-- chatmd id=t2 agent=codex status=skipped -->
";
    let asked_after_the_empty_answers = Case::new(text, "reviewer", 2).build();
    let asked_the_question = Case::new(text, "reviewer", 0).build();
    assert_eq!(asked_after_the_empty_answers, asked_the_question);
    assert!(
        asked_the_question
            .body
            .ends_with("me: Is the refund rounding right?\n"),
        "{}",
        asked_the_question.body
    );
}
