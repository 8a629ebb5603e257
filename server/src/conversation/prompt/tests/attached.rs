//! Attachments in the prompt: they end `[CONTEXT]` and outlast the history under the cap.

use super::*;
use pretty_assertions::assert_eq;

#[test]
fn attachments_end_the_context_and_stay_when_history_is_dropped() {
    let text = "## @me\nfirst\n\n## @reviewer\nan old answer\n\n## @me\nlook at #file:a.rs\n";
    let case = Case {
        attached: "attached #file:a.rs (a.rs, 1 line):\n```\nfn a() {}\n```\n",
        role_loaded_by_cli: true,
        ..Case::new(text, "reviewer", 2)
    };
    let whole = case.build_with_cap(PROMPT_CAP).expect("prompt");
    assert_eq!(
        whole.body,
        "[CONTEXT]\nYou are @reviewer in a team chat with @me (human), @tester (codex), @writer (gemini). \
         Mention a member (@tester) or end with [NEXT: tester] to hand over.\nme: first\n\
         reviewer: an old answer\nattached #file:a.rs (a.rs, 1 line):\n```\nfn a() {}\n```\n\
         [MESSAGE]\nme: look at #file:a.rs\n"
    );
    // Without room for the history, the history goes and the attachment stays.
    let tight = case
        .build_with_cap(whole.len() - "me: first\n".len())
        .expect("prompt");
    assert!(!tight.body.contains("me: first"), "{}", tight.body);
    assert!(tight.body.contains("fn a() {}"), "{}", tight.body);
}
