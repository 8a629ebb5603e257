//! The 768 KiB cap, shown on small inputs with a small cap: the role is shortened
//! first, then the oldest earlier messages go whole, then the turn fails.

use super::*;
use pretty_assertions::assert_eq;

/// Two earlier messages (the oldest one long), then the message to answer.
fn chat() -> String {
    format!(
        "## @me\nfirst message {}\n\n## @reviewer\nsecond message\n\n## @me\n@reviewer third\n",
        "x".repeat(200)
    )
}

fn team_with_role(role: &str) -> Team {
    let mut team = team();
    team.members[0].role_text = Some(role.to_owned());
    team
}

fn build(text: &str, team: &Team, cap: usize) -> Result<Prompt, PromptError> {
    Case::new(text, "reviewer", 2).build_in(team, cap)
}

/// The prompt without the role (as if the CLI loaded it).
fn without_role(text: &str, team: &Team) -> Prompt {
    let mut case = Case::new(text, "reviewer", 2);
    case.role_loaded_by_cli = true;
    case.build_in(team, PROMPT_CAP).expect("prompt")
}

const INSTRUCTION: &str = "We ship small, reviewed changes.";

#[test]
fn a_prompt_exactly_at_the_cap_is_left_whole() {
    let team = team_with_role(&"r".repeat(400));
    let full = build(&chat(), &team, PROMPT_CAP).expect("prompt");
    assert_eq!(build(&chat(), &team, full.len()), Ok(full));
}

#[test]
fn the_role_is_shortened_first() {
    let role = "abcdefghij".repeat(40);
    let team = team_with_role(&role);
    let full = build(&chat(), &team, PROMPT_CAP).expect("prompt");
    let cap = full.len() - 30;
    let prompt = build(&chat(), &team, cap).expect("prompt");
    assert_eq!(prompt.len(), cap);
    assert_eq!(prompt.body, full.body, "the context is untouched");
    let kept = &role[..400 - 30 - 1 - ROLE_SHORTENED_NOTE.len()];
    assert_eq!(
        prompt.system,
        format!("{INSTRUCTION}\n\n{kept}\n{ROLE_SHORTENED_NOTE}")
    );
}

#[test]
fn then_the_oldest_context_messages_are_dropped_whole() {
    let role = "abcdefghij".repeat(40);
    let team = team_with_role(&role);
    // One byte less than the prompt without any role: the role goes, then the oldest
    // message, and the role gets back what the dropped message left.
    let cap = without_role(&chat(), &team).len() - 1;
    let prompt = build(&chat(), &team, cap).expect("prompt");
    assert_eq!(prompt.len(), cap);
    assert!(!prompt.body.contains("first message"), "{}", prompt.body);
    assert!(
        prompt
            .body
            .contains("\nreviewer: second message\n[MESSAGE]\nme: @reviewer third\n")
    );
    assert!(
        prompt
            .system
            .starts_with(&format!("{INSTRUCTION}\n\nabcdefghij"))
    );
    assert!(prompt.system.ends_with(&format!("\n{ROLE_SHORTENED_NOTE}")));
    insta::assert_snapshot!(prompt.inline());
}

#[test]
fn without_a_role_the_context_is_dropped_at_once() {
    let team = team();
    let text = chat();
    let mut case = Case::new(&text, "reviewer", 2);
    case.role_loaded_by_cli = true;
    let full = case.build_in(&team, PROMPT_CAP).expect("prompt");
    let prompt = case.build_in(&team, full.len() - 1).expect("prompt");
    assert_eq!(prompt.system, INSTRUCTION);
    assert!(!prompt.body.contains("first message"));
    assert!(prompt.body.contains("reviewer: second message\n"));
    // Resuming after the first message leaves it out too (and the roster line, which
    // the session already has).
    case.since = Some(0);
    let resumed = case.build_in(&team, PROMPT_CAP).expect("prompt");
    let roster = prompt.body.lines().nth(1).expect("roster line");
    assert!(roster.starts_with("You are @reviewer"), "{roster}");
    assert_eq!(resumed.system, prompt.system);
    assert_eq!(
        resumed.body,
        prompt.body.replacen(&format!("{roster}\n"), "", 1)
    );
}

#[test]
fn a_prompt_too_large_without_role_and_context_fails_with_size_and_limit() {
    let team = team_with_role(&"r".repeat(400));
    let mut alone = Case::new("## @me\n@reviewer third\n", "reviewer", 0);
    alone.role_loaded_by_cli = true;
    let minimal = alone.build_in(&team, PROMPT_CAP).expect("prompt").len();
    assert_eq!(
        build(&chat(), &team, minimal - 1),
        Err(PromptError::TooLarge {
            size: minimal,
            limit: minimal - 1
        })
    );
    let smallest = build(&chat(), &team, minimal).expect("fits exactly");
    assert_eq!(smallest.system, INSTRUCTION, "no role, not even the note");
    assert!(
        smallest
            .body
            .ends_with("hand over.\n[MESSAGE]\nme: @reviewer third\n")
    );
}

#[test]
fn the_error_says_what_to_do() {
    let text = format!("## @me\n@reviewer {}\n", "x".repeat(PROMPT_CAP));
    let err = Case::new(&text, "reviewer", 0)
        .build_with_cap(PROMPT_CAP)
        .expect_err("too large");
    let PromptError::TooLarge { size, limit } = err else {
        panic!("{err:?}");
    };
    assert_eq!(limit, 786_432);
    assert!(size > limit);
    assert_eq!(
        err.to_string(),
        format!(
            "the prompt is {size} bytes even without the role and the earlier messages, over the limit of 786432 bytes; shorten the message or what it attaches (or the topic, team_instruction.md or the member's instructions) and send it again"
        )
    );
}

#[test]
fn the_role_cut_never_splits_a_character() {
    // 2-, 3- and 4-byte characters, so every cap below lands inside one now and then.
    let role = "é日🎉".repeat(40);
    let team = team_with_role(&role);
    let full = build(&chat(), &team, PROMPT_CAP).expect("prompt");
    for less in 1..=12 {
        let cap = full.len() - less;
        let prompt = build(&chat(), &team, cap).expect("prompt");
        assert!(prompt.len() <= cap && prompt.len() + 3 >= cap, "{less}");
        let kept = prompt
            .system
            .strip_prefix(&format!("{INSTRUCTION}\n\n"))
            .and_then(|s| s.strip_suffix(&format!("\n{ROLE_SHORTENED_NOTE}")))
            .expect("a shortened role");
        assert!(role.starts_with(kept) && kept.len() < role.len(), "{less}");
    }
}

#[test]
fn multi_byte_context_is_dropped_whole_never_cut() {
    let text = "## @me\nüber 日本語 🎉\n\n## @reviewer\nnext 🎉\n\n## @me\n@reviewer third\n";
    let team = team_with_role(&"r".repeat(400));
    let cap = without_role(text, &team).len() - 1;
    let prompt = build(text, &team, cap).expect("prompt");
    assert!(!prompt.body.contains("über"));
    assert!(prompt.body.contains("reviewer: next 🎉\n"));
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]

    /// Whatever the cap: the prompt fits and still ends with the whole message, or
    /// the error names a size over the cap.
    #[test]
    fn every_cap_is_kept_or_refused(
        cap in 0usize..1200,
        role in "[a-zé日🎉 \n]{0,300}",
        first in "[a-zü🎉 \n]{0,200}",
    ) {
        let text = format!("## @me\n{first}\n\n## @reviewer\nsecond\n\n## @me\n@reviewer third\n");
        let team = team_with_role(&role);
        match build(&text, &team, cap) {
            Ok(prompt) => {
                proptest::prop_assert!(prompt.len() <= cap);
                proptest::prop_assert!(prompt.body.ends_with("[MESSAGE]\nme: @reviewer third\n"));
            }
            Err(PromptError::TooLarge { size, limit }) => {
                proptest::prop_assert_eq!(limit, cap);
                proptest::prop_assert!(size > cap);
            }
            Err(other) => proptest::prop_assert!(false, "{other}"),
        }
    }
}
