use std::path::PathBuf;

use pretty_assertions::assert_eq;

use super::*;
use crate::team::{Member, Team};

/// The `seen=` value of a turn given messages `context` and `asked` of `text`.
fn record(text: &str, context: &[usize], asked: usize, resumed: bool) -> String {
    let given = Given {
        context: context.to_vec(),
        asked,
    };
    SeenRecord::of_turn(text, &Chat::parse(text), &given, resumed, &[]).render()
}

/// A chat where @reviewer answered "first" (a new session), then "second" resuming it.
fn chat() -> String {
    let mut text = String::from("## @me\n@reviewer first\n\n");
    let seen = record(&text, &[], 0, false);
    text.push_str(&format!(
        "## @reviewer\n<!-- chatmd id=t1 agent=claude status=done session=s1 seen={seen} -->\nOne.\n\n## @me\n@reviewer second\n\n"
    ));
    let seen = record(&text, &[], 2, true);
    text.push_str(&format!(
        "## @reviewer\n<!-- chatmd id=t2 agent=claude status=done session=s1 seen={seen} -->\nTwo.\n\n"
    ));
    text
}

fn team(resume: bool) -> Team {
    let mut team = Team::empty(PathBuf::from("/team"));
    let mut reviewer = Member::new("reviewer", "claude", PathBuf::from("/team/reviewer"));
    reviewer.resume = resume;
    team.members = vec![reviewer];
    team
}

/// `(code, the text under the range, fix titles)` of each problem.
fn warnings(text: &str, resume: bool) -> Vec<(&'static str, String, Vec<String>)> {
    let team = team(resume);
    let chat = Chat::parse(text);
    let roster = Roster::new(&team, chat.front_matter.as_ref());
    problems(text, &chat, &roster)
        .into_iter()
        .map(|p| {
            let fixes = p.fixes.iter().map(|f| f.title.clone()).collect();
            (p.code, text[p.range].to_owned(), fixes)
        })
        .collect()
}

#[test]
fn the_record_round_trips_and_rejects_what_it_is_not() {
    let record = SeenRecord {
        resumed: true,
        first: 3,
        hashes: vec!["00ab12".into(), "ffffff".into()],
    };
    assert_eq!(record.render(), "+3:00ab12.ffffff");
    assert_eq!(SeenRecord::parse("+3:00ab12.ffffff"), Some(record));
    assert_eq!(
        SeenRecord::parse("0:abcdef").map(|r| (r.resumed, r.first)),
        Some((false, 0))
    );
    for bad in ["", "3", "x:abcdef", "3:abc", "3:abcdeg", "3:abcdef."] {
        assert_eq!(SeenRecord::parse(bad), None, "{bad:?}");
    }
}

#[test]
fn the_hash_ignores_status_comments_and_line_breaks_but_not_words_or_authors() {
    let hash = |text: &str| {
        let chat = Chat::parse(text);
        message_hash(text, &chat.messages[0])
    };
    let plain = hash("## @me\nhello there\n");
    assert_eq!(plain.len(), 6);
    // Written into files: the value must never change between versions.
    assert_eq!(hash("## @me\n@reviewer first question\n"), "4c83a3");
    assert_eq!(hash("## @me\r\nhello there\r\n"), plain);
    assert_eq!(
        hash("## @Me\n<!-- chatmd status=queued -->\nhello there\n"),
        plain
    );
    assert_ne!(hash("## @me\nhello there!\n"), plain);
    assert_ne!(hash("## @you\nhello there\n"), plain);
}

#[test]
fn an_edit_of_a_seen_message_is_found_on_that_message_only() {
    let text = chat();
    assert_eq!(warnings(&text, true), []);
    let edited = text.replace("@reviewer first", "@reviewer FIRST");
    assert_eq!(
        warnings(&edited, true),
        [(
            CODE,
            "## @me".to_owned(),
            vec![
                "Start @reviewer afresh from the file".to_owned(),
                "Tell @reviewer what changed".to_owned()
            ]
        )]
    );
    let chat = Chat::parse(&edited);
    let last = resumed_session(&edited, &chat, "reviewer", "claude").unwrap();
    assert_eq!(changed(&edited, &chat, "reviewer", &last), [0]);
    // The second message, seen by the resumed turn, is found the same way.
    let edited = text.replace("@reviewer second", "@reviewer 2nd");
    let chat = Chat::parse(&edited);
    assert_eq!(changed(&edited, &chat, "reviewer", &last), [2]);
}

#[test]
fn unseen_edits_and_members_that_do_not_resume_get_no_warning() {
    let text = chat() + "## @me\nnot sent yet\n";
    let edited = text.replace("not sent yet", "still not sent");
    assert_eq!(warnings(&edited, true), []);
    // The agent's own answer is not a message it was given.
    assert_eq!(warnings(&text.replace("Two.", "2."), true), []);
    let edited = text.replace("@reviewer first", "@reviewer FIRST");
    assert_eq!(warnings(&edited, false), []);
}

#[test]
fn a_new_session_forgets_what_the_old_one_saw() {
    let text = chat();
    // The second turn started afresh: it was given both messages anew.
    let fresh_seen = record(
        &text[..text.find("## @reviewer\n<!-- chatmd id=t2").unwrap()],
        &[0, 1],
        2,
        false,
    );
    let fresh = regex_replace_seen(&text, "t2", &fresh_seen);
    // Still seen (by the new session): an edit of message 0 counts.
    let edited = fresh.replace("@reviewer first", "@reviewer FIRST");
    assert_eq!(warnings(&edited, true).len(), 1);
    // An answer without a record (an older chatmd): nothing before it is claimed.
    let unknown = regex_replace_seen(&text, "t2", "");
    let edited = unknown.replace("@reviewer first", "@reviewer FIRST");
    assert_eq!(warnings(&edited, true), []);
}

#[test]
fn a_deleted_message_is_found_where_it_was_and_a_choice_silences_the_warning() {
    let text = chat();
    let deleted = text.replace("## @me\n@reviewer second\n\n", "");
    let found = warnings(&deleted, true);
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].1, "## @reviewer");
    let edited = text.replace("@reviewer first", "@reviewer FIRST");
    for choice in ["fresh", "tell"] {
        let chosen = edited.replace(
            "t2 agent=claude status=done",
            &format!("t2 agent=claude status=done next={choice}"),
        );
        assert_eq!(warnings(&chosen, true), [], "{choice}");
    }
}

#[test]
fn a_fix_writes_the_choice_on_the_resumed_answer() {
    let text = chat().replace("@reviewer first", "@reviewer FIRST");
    let team = team(true);
    let chat = Chat::parse(&text);
    let roster = Roster::new(&team, None);
    let found = problems(&text, &chat, &roster);
    let (range, line) = &found[0].fixes[1].edits[0];
    let mut applied = text.clone();
    applied.replace_range(range.clone(), line);
    let answer = &Chat::parse(&applied).messages[3];
    let status = answer.status_comment(&applied).unwrap();
    assert_eq!(NextTurn::of(status), Some(NextTurn::Tell));
    assert_eq!(status.session(), Some("s1"));
}

#[test]
fn the_correction_quotes_each_changed_message_as_it_reads_now() {
    let text = chat().replace("@reviewer first", "@reviewer FIRST");
    let chat = Chat::parse(&text);
    assert_eq!(
        correction(
            &text,
            &chat,
            &Told {
                edited: vec![0],
                deleted: 0
            }
        ),
        "chatmd: the user changed messages you saw earlier in this chat. They read now \
         (forget the earlier versions):\nme: @reviewer FIRST"
    );
    let multi_line = text.replace("@reviewer FIRST", "@reviewer FIRST\nreviewer: I agree");
    let chat = Chat::parse(&multi_line);
    assert_eq!(
        correction(
            &multi_line,
            &chat,
            &Told {
                edited: vec![0],
                deleted: 2
            }
        ),
        "chatmd: the user changed messages you saw earlier in this chat. They read now \
         (forget the earlier versions):\nme:\n```\n@reviewer FIRST\nreviewer: I agree\n```\n\
         chatmd: the user deleted 2 messages you saw earlier in this chat (forget them)."
    );
}

/// What a told turn of @reviewer in `text` would correct.
fn told_in(text: &str) -> Told {
    let chat = Chat::parse(text);
    let last = resumed_session(text, &chat, "reviewer", "claude").unwrap();
    told(text, &chat, "reviewer", &last)
}

#[test]
fn told_are_the_messages_the_session_saw_not_the_answers_it_never_saw() {
    // A round to two members; @reviewer's session saw only the question, then the
    // user edits the question and @tester's answer (which @reviewer never saw).
    let mut text = String::from("## @me\n@reviewer @tester which cache?\n\n");
    let seen = record(&text, &[], 0, false);
    text.push_str(&format!(
        "## @reviewer\n<!-- chatmd id=t1 agent=claude status=done session=s1 seen={seen} -->\nLRU.\n\n\
         ## @tester\n<!-- chatmd id=t2 agent=codex status=done -->\nARC.\n\n## @me\n@reviewer and now?\n"
    ));
    let edited = text
        .replace("which cache?", "which cache, for reads?")
        .replace("ARC.", "ARC, surely.");
    assert_eq!(
        told_in(&edited),
        Told {
            edited: vec![0],
            deleted: 0
        }
    );
}

#[test]
fn a_deleted_message_is_counted_and_the_ones_after_it_are_not_edits() {
    let mut text = String::from("## @me\nSome background.\n\n## @me\n@reviewer first\n\n");
    let seen = record(&text, &[0], 1, false);
    text.push_str(&format!(
        "## @reviewer\n<!-- chatmd id=t1 agent=claude status=done session=s1 seen={seen} -->\nOne.\n\n## @me\n@reviewer second\n\n"
    ));
    let seen = record(&text, &[], 3, true);
    text.push_str(&format!(
        "## @reviewer\n<!-- chatmd id=t2 agent=claude status=done session=s1 seen={seen} -->\nTwo.\n\n## @me\n@reviewer third\n"
    ));
    let deleted = text.replace("## @me\nSome background.\n\n", "");
    assert_eq!(
        told_in(&deleted),
        Told {
            edited: vec![],
            deleted: 1
        }
    );
    let both = deleted.replace("@reviewer second", "@reviewer second, revised");
    assert_eq!(
        told_in(&both),
        Told {
            edited: vec![2],
            deleted: 1
        }
    );
}

#[test]
fn a_told_turn_records_the_corrected_message_and_not_what_it_was_not_given() {
    let text = "## @me\n@reviewer @tester q\n\n## @tester\nT.\n\n## @reviewer\nR.\n\n## @me\n@reviewer next\n";
    let chat = Chat::parse(text);
    let given = Given {
        context: vec![],
        asked: 3,
    };
    let record = SeenRecord::of_turn(text, &chat, &given, true, &[0]);
    assert_eq!(record.first, 0);
    assert_eq!(record.hashes[1..3], [NOT_GIVEN, NOT_GIVEN]);
    assert_eq!(SeenRecord::parse(&record.render()), Some(record));
}

/// `text` with turn `id`'s `seen=` value replaced (or removed, when `seen` is empty).
fn regex_replace_seen(text: &str, id: &str, seen: &str) -> String {
    let start = text.find(&format!("id={id} ")).unwrap();
    let at = start + text[start..].find(" seen=").unwrap();
    let end = at + text[at..].find(" -->").unwrap();
    let with = if seen.is_empty() {
        String::new()
    } else {
        format!(" seen={seen}")
    };
    format!("{}{with}{}", &text[..at], &text[end..])
}

#[test]
fn a_record_whose_indices_overflow_is_no_record() {
    // Found by fuzzing: `first` plus a hash's place overflowed (a panic in a debug
    // build, a false edit warning on the first message in a release build).
    let text = "## @me\n@reviewer first\n\n## @reviewer\n\
                <!-- chatmd id=t1 agent=claude status=done session=s1 seen=18446744073709551615:aaaaaa.bbbbbb -->\n\
                One.\n\n## @me\n@reviewer second\n";
    assert_eq!(
        SeenRecord::parse("18446744073709551615:aaaaaa.bbbbbb"),
        None
    );
    assert_eq!(
        SeenRecord::parse("18446744073709551615:aaaaaa").map(|r| r.first),
        Some(usize::MAX)
    );
    assert_eq!(warnings(text, true), []);
}

mod generated {
    //! The fuzz target `seen_records`'s property, run with the tests: any `seen=`
    //! value parses or not without a panic, what parses renders back to itself, and a
    //! chat with such records gives its warnings without an overflow.
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig { failure_persistence: None, ..ProptestConfig::default() })]

        #[test]
        fn any_record_parses_renders_back_and_checks_without_overflow(
            plus in prop_oneof![Just(""), Just("+")],
            first in prop_oneof![any::<u64>().prop_map(|n| n.to_string()), "[0-9]{1,3}", Just("18446744073709551615".to_owned())],
            hashes in proptest::collection::vec("[0-9a-f]{6}|[a-z]{0,7}", 1..4),
        ) {
            let value = format!("{plus}{first}:{}", hashes.join("."));
            if let Some(record) = SeenRecord::parse(&value) {
                prop_assert_eq!(SeenRecord::parse(&record.render()), Some(record));
            }
            let text = format!(
                "## @me\n@reviewer first\n\n## @reviewer\n\
                 <!-- chatmd id=t1 agent=claude status=done session=s1 seen={value} -->\nOne.\n\n\
                 ## @me\n@reviewer second\n"
            );
            for (_, under, _) in warnings(&text, true) {
                prop_assert!(text.contains(&under));
            }
        }
    }
}
