use super::*;
use crate::team::{Member, Team};
use pretty_assertions::assert_eq;
use std::path::PathBuf;

fn member(handle: &str) -> Member {
    Member::new(handle, "claude", PathBuf::from("/t").join(handle))
}

fn team() -> Team {
    let mut t = Team::empty(PathBuf::from("/t"));
    t.members = ["a", "b", "c"].into_iter().map(member).collect();
    t
}

fn next_of(text: &str) -> Next {
    let team = team();
    let chat = Chat::parse(text);
    let roster = Roster::new(&team, chat.front_matter.as_ref());
    next(text, &chat, &roster)
}

fn run(handles: &[&str]) -> Next {
    Next::Run(handles.iter().map(|h| h.to_string()).collect())
}

#[test]
fn mentioned_members_answer_in_mention_order_once_each() {
    assert_eq!(
        next_of("## @me\n@c and @a, then @c again, not @zed or @me\n"),
        run(&["c", "a"])
    );
}

#[test]
fn without_mentions_the_next_member_after_the_last_speaker_answers() {
    assert_eq!(next_of("## @me\nhello\n"), run(&["a"]));
    assert_eq!(
        next_of("## @me\n@b hi\n## @b\nhey\n## @me\nand now?\n"),
        run(&["c"])
    );
    assert_eq!(
        next_of("## @me\n@c hi\n## @c\nhey\n## @me\nand now?\n"),
        run(&["a"])
    );
    let rr = "---\nrouting: round-robin\n---\n## @me\n@a x\n## @a\ny\n## @me\nz\n";
    assert_eq!(next_of(rr), run(&["b"]));
}

#[test]
fn routing_all_asks_everyone_taking_part() {
    assert_eq!(
        next_of("---\nrouting: all\nmembers: [c, a]\n---\n## @me\nanyone?\n"),
        run(&["c", "a"])
    );
}

#[test]
fn members_outside_the_members_list_are_not_asked() {
    assert_eq!(
        next_of("---\nmembers: [a]\n---\n## @me\n@b @a\n"),
        run(&["a"])
    );
}

#[test]
fn reply_stubs_do_not_count() {
    assert_eq!(
        next_of("## @me\n@b hi\n## @b\nok [NEXT: c]\n\n## @me\n\n"),
        run(&["c"])
    );
}

#[test]
fn agents_hand_over_with_next_markers_or_mentions() {
    assert_eq!(
        next_of("## @me\n@a go\n## @a\n@b please check. [NEXT: c]\n"),
        run(&["c"])
    );
    assert_eq!(
        next_of("## @me\n@a go\n## @a\n@b and @c please check, @a out\n"),
        run(&["b", "c"])
    );
    assert_eq!(
        next_of("## @me\n@a go\n## @a\nall done\n"),
        Next::Nobody("@a did not hand the word to anyone".to_string())
    );
    assert_eq!(
        next_of("## @me\n@a go\n## @a\n[NEXT: a]\n"),
        Next::Nobody("@a did not hand the word to anyone".to_string())
    );
}

#[test]
fn chains_stop_at_max_chain() {
    let chain = "---\nmax_chain: 2\n---\n## @me\n@a go\n## @a\n@b\n## @b\n@c\n";
    assert_eq!(next_of(chain), Next::ChainLimit(2));
    let shorter = "---\nmax_chain: 2\n---\n## @me\n@a go\n## @a\n@b\n";
    assert_eq!(next_of(shorter), run(&["b"]));
}

#[test]
fn done_and_end_close_the_conversation() {
    assert_eq!(next_of("## @me\nthanks [DONE]\n"), Next::Ended);
    assert_eq!(next_of("## @me\n /end \n"), Next::Ended);
    assert_eq!(
        next_of("---\nstatus: ended\n---\n## @me\n@a hi\n"),
        Next::Ended
    );
    // In an agent's message [DONE] only means "my answer is complete".
    assert_eq!(
        next_of("## @me\n@a go\n## @a\nfinished [DONE] @b\n"),
        run(&["b"])
    );
}

#[test]
fn an_empty_chat_says_what_to_do() {
    assert_eq!(
        next_of("# notes\n"),
        Next::Nobody("the chat has no message yet: write one under `## @me`".to_string())
    );
}

#[test]
fn every_answer_of_a_parallel_round_may_hand_on() {
    let team = team();
    let after = |text: &str, answers: &[usize]| {
        let chat = Chat::parse(text);
        let roster = Roster::new(&team, chat.front_matter.as_ref());
        after_answers(text, &chat, &roster, answers)
    };
    // @a hands to @c, @b to nobody: @c is next, asked by @a's message.
    let text = "## @me\n@a @b go\n## @a\n@c please document\n## @b\nfine\n";
    assert_eq!(after(text, &[1, 2]), (run(&["c"]), vec![1]));
    assert_eq!(
        after(text, &[2]),
        (
            Next::Nobody("@b did not hand the word to anyone".into()),
            vec![]
        )
    );
    // Both hand on: everyone asked, in message order, once ([NEXT] beats @b's mention).
    let text = "## @me\n@a @b go\n## @a\n@c and @b\n## @b\n@c [NEXT: a]\n";
    assert_eq!(after(text, &[1, 2]), (run(&["c", "b", "a"]), vec![1, 1, 2]));
    // Nobody handed on: the strongest reason wins.
    let text = "---\nmax_chain: 1\n---\n## @me\n@a @b go\n## @a\n@c\n## @b\nok\n";
    assert_eq!(after(text, &[1, 2]), (Next::ChainLimit(1), vec![]));
}

#[test]
fn a_draft_typed_during_a_round_is_never_sent_by_its_end() {
    let team = team();
    let after = |text: &str, answers: &[usize]| {
        let chat = Chat::parse(text);
        let roster = Roster::new(&team, chat.front_matter.as_ref());
        after_answers(text, &chat, &roster, answers).0
    };
    // The user started a new message while @a answered: with a mention, without one
    // (round-robin would ask @b), and with routing `all`.
    for draft in ["@c what about", "thinking about it", "[NEXT: b] hm"] {
        let text = format!("## @me\n@a go\n## @a\ndone here\n## @me\n{draft}\n");
        assert_eq!(
            after(&text, &[1]),
            Next::Nobody("@a did not hand the word to anyone".into()),
            "draft {draft:?}"
        );
        let all = format!("---\nrouting: all\n---\n{text}");
        assert_eq!(
            after(&all, &[1]),
            Next::Nobody("@a did not hand the word to anyone".into())
        );
    }
    // The round's own answer still hands on, whatever was typed after it.
    let text = "## @me\n@a go\n## @a\n@b your turn\n## @me\n@c draft\n";
    assert_eq!(after(text, &[1]), run(&["b"]));
}

#[test]
fn an_answer_with_no_text_ends_the_chain_but_a_failed_turn_leaves_the_question_open() {
    let answered = |status: &str| {
        format!(
            "## @me\n@a go\n\n## @a\n<!-- chatmd id=t1 agent=claude status={status} -->\n\n## @me\n\n"
        )
    };
    for status in ["done", "skipped"] {
        assert_eq!(
            next_of(&answered(status)),
            Next::Nobody("@a did not hand the word to anyone".to_string()),
            "{status}"
        );
    }
    // An error, a cancel, a turn still running: the question before it is still open.
    for status in ["error", "cancelled", "interrupted", "streaming", "queued"] {
        assert_eq!(next_of(&answered(status)), run(&["a"]), "{status}");
    }
}

#[test]
fn mentions_in_tool_summaries_quotes_and_code_hand_nothing_on() {
    let team = team();
    let after = |text: &str| {
        let chat = Chat::parse(text);
        let roster = Roster::new(&team, chat.front_matter.as_ref());
        after_answers(text, &chat, &roster, &[1]).0
    };
    let nobody = Next::Nobody("@a did not hand the word to anyone".to_string());
    let answer = "## @me\n@a go\n\n## @a\n<!-- chatmd id=t1 status=done -->\nFound 3 TODOs.\n\
                  \n<details><summary>Tools (1)</summary>\n\n- Bash: grep -rn TODO src @b\n\n</details>\n";
    assert_eq!(after(answer), nobody);
    let quoting =
        "## @me\n@a go\n\n## @a\n> @b asked [NEXT: c]\n\nAnswered, see `@c` and:\n```\n@b\n```\n";
    assert_eq!(after(quoting), nobody);
    // Prose after the quote still counts.
    let prose = format!("{quoting}\nNow @c, please.\n");
    assert_eq!(after(&prose), run(&["c"]));
    // The same holds for a human's quote: the message is still the human's, and
    // routing follows what they wrote themselves (no mention here: round-robin).
    assert_eq!(
        next_of("## @me\n> @c wrote: ask @b\n\nWhat do you think?\n"),
        run(&["a"])
    );
}
