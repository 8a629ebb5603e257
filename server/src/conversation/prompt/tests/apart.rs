//! Members that answer apart (`routing: compare` or `council`) are never given another
//! member's answer.

use super::*;
use pretty_assertions::assert_eq;

#[test]
fn members_that_answer_apart_never_get_another_members_answer() {
    let text = "---\nrouting: compare\n---\n## @me\n@reviewer @tester which cache?\n\n\
                ## @reviewer\n<!-- chatmd id=t1 agent=claude status=done -->\nAn LRU cache.\n\n\
                ## @tester\n<!-- chatmd id=t2 agent=codex status=done -->\nA TTL cache.\n";
    // Asked after the tester's answer (Ask @reviewer): the reviewer answers the human's
    // message again, as if it came first.
    let mut case = Case::new(text, "reviewer", 2);
    case.role_loaded_by_cli = true;
    let prompt = case.build();
    assert_eq!(
        prompt.body,
        "[CONTEXT]\n\
         You are @reviewer in a team chat with @me (human). Other members answer the same message on their own; you do not see their answers.\n\
         [MESSAGE]\nme: @reviewer @tester which cache?\n"
    );
}
