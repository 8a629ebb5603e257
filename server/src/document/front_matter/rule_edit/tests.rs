use super::*;
use crate::document::front_matter::rule_check::check_rule_edit;
use pretty_assertions::assert_eq;

/// `text` with the rule added, checked to read back with the rule and no problem.
fn added(text: &str, member: &str, rule: &str, decision: Decision) -> String {
    let RuleEdit::Edit(range, new) = add_rule_edit(text, member, rule, decision) else {
        panic!("no edit for {text:?}");
    };
    let edited = format!("{}{new}{}", &text[..range.start], &text[range.end..]);
    let fm = parse(&edited, &locate(&edited).unwrap());
    assert_eq!(fm.problems, [], "{edited}");
    let found = fm
        .permissions
        .iter()
        .filter(|m| m.member.value.eq_ignore_ascii_case(member))
        .flat_map(|m| &m.rules)
        .any(|r| r.text == rule && r.decision.value == decision);
    assert!(found, "the rule reads back: {edited}");
    edited
}

const ALLOW: Decision = Decision::Allow;

#[test]
fn a_chat_without_front_matter_gets_one() {
    let text = "## @me\n@writer go\n";
    assert_eq!(
        added(text, "writer", "execute: touch a", ALLOW),
        "---\npermissions:\n  writer:\n    \"execute: touch a\": allow\n---\n## @me\n@writer go\n"
    );
    let crlf = "\u{feff}## @me\r\nhi\r\n";
    assert_eq!(
        added(crlf, "writer", "edit: x", Decision::Reject),
        "\u{feff}---\r\npermissions:\r\n  writer:\r\n    \"edit: x\": reject\r\n---\r\n## @me\r\nhi\r\n"
    );
}

#[test]
fn a_new_key_goes_at_the_end_keeping_comments() {
    let text = "---\ntitle: Work # mine\n# a note\nmembers: [writer]\n---\n## @me\n";
    assert_eq!(
        added(text, "writer", "execute: touch a", ALLOW),
        "---\ntitle: Work # mine\n# a note\nmembers: [writer]\npermissions:\n  writer:\n    \"execute: touch a\": allow\n---\n## @me\n"
    );
}

#[test]
fn a_rule_joins_its_members_table_at_its_indentation() {
    let text = "---\npermissions:   # reviewed\n   writer:\n      \"edit: *\": reject  # never\n      # more to come\n   tester:\n      \"read: *\": allow\ntitle: x\n---\n";
    assert_eq!(
        added(text, "writer", "execute: cargo test", ALLOW),
        "---\npermissions:   # reviewed\n   writer:\n      \"edit: *\": reject  # never\n      \"execute: cargo test\": allow\n      # more to come\n   tester:\n      \"read: *\": allow\ntitle: x\n---\n"
    );
    assert_eq!(
        added(text, "reviewer", "execute: ls", ALLOW),
        "---\npermissions:   # reviewed\n   writer:\n      \"edit: *\": reject  # never\n      # more to come\n   tester:\n      \"read: *\": allow\n   reviewer:\n     \"execute: ls\": allow\ntitle: x\n---\n"
    );
}

#[test]
fn flow_tables_and_empty_values_take_the_rule_too() {
    let text = "---\npermissions: {writer: {\"edit: *\": reject}}\n---\n";
    assert_eq!(
        added(text, "writer", "read: a", ALLOW),
        "---\npermissions: {writer: {\"edit: *\": reject, \"read: a\": allow}}\n---\n"
    );
    assert_eq!(
        added(text, "tester", "read: a", ALLOW),
        "---\npermissions: {writer: {\"edit: *\": reject}, tester: {\"read: a\": allow}}\n---\n"
    );
    assert_eq!(
        added("---\npermissions: {}\n---\n", "w", "read: a", ALLOW),
        "---\npermissions: {w: {\"read: a\": allow}}\n---\n"
    );
    assert_eq!(
        added("---\npermissions:\ntitle: x\n---\n", "w", "read: a", ALLOW),
        "---\npermissions:\n  w:\n    \"read: a\": allow\ntitle: x\n---\n"
    );
    assert_eq!(
        added(
            "---\npermissions:\n  w: ~  # later\n---\n",
            "w",
            "read: a",
            ALLOW
        ),
        "---\npermissions:\n  w:\n    \"read: a\": allow  # later\n---\n"
    );
}

#[test]
fn the_same_rule_is_left_or_its_decision_changed() {
    let text = "---\npermissions:\n  writer:\n    \"read: a\": allow\n---\n";
    assert_eq!(
        add_rule_edit(text, "Writer", "read: a", ALLOW),
        RuleEdit::Present
    );
    assert_eq!(
        added(text, "writer", "read: a", Decision::Reject),
        "---\npermissions:\n  writer:\n    \"read: a\": reject\n---\n"
    );
}

#[test]
fn titles_are_quoted_so_any_text_round_trips() {
    let rule = "execute: echo \"hi\" \\*\tdone";
    let edited = added("---\n---\n", "w", rule, ALLOW);
    assert_eq!(
        edited,
        "---\npermissions:\n  w:\n    \"execute: echo \\\"hi\\\" \\\\*\\tdone\": allow\n---\n"
    );
}

#[test]
fn what_cannot_take_a_rule_is_left_alone() {
    for text in [
        "---\npermissions: all\n---\n",
        "---\npermissions:\n  w: allow\n---\n",
        "---\ntitle: [\n---\n",
        "---\n- a\n---\n",
    ] {
        assert!(
            matches!(
                add_rule_edit(text, "w", "read: a", ALLOW),
                RuleEdit::Unplaceable(_)
            ),
            "{text}"
        );
    }
}

/// The fuzzer's finds: front matter that is valid YAML, where the rule went in as
/// broken YAML or under another member (and `budget`, `routing` and the reject rules
/// stopped applying). Each now takes the rule with every other value kept, or is left
/// alone with a reason.
#[test]
fn fuzzed_layouts_take_the_rule_or_are_left_alone() {
    for (text, expected) in [
        // Indented top-level keys.
        (
            "---\n  title: x\n  routing: council\n---\n",
            Some(
                "---\n  title: x\n  routing: council\n  permissions:\n    writer:\n      \"read: a\": allow\n---\n",
            ),
        ),
        (
            "---\n  title: x\n  permissions:\n    tester:\n      \"read: *\": reject\n---\n",
            Some(
                "---\n  title: x\n  permissions:\n    tester:\n      \"read: *\": reject\n    writer:\n      \"read: a\": allow\n---\n",
            ),
        ),
        // An empty key under `permissions:`, quoted or not.
        (
            "---\npermissions:\n  \"\":\n    \"read: *\": reject\n  tester:\n    \"read: *\": reject\nbudget: {writer: 1}\n---\n",
            Some(
                "---\npermissions:\n  \"\":\n    \"read: *\": reject\n  tester:\n    \"read: *\": reject\n  writer:\n    \"read: a\": allow\nbudget: {writer: 1}\n---\n",
            ),
        ),
        (
            "---\npermissions:\n  :\n    \"read: *\": reject\nrouting: council\n---\n",
            None,
        ),
        // A flow table with a trailing comma, the member in it or not.
        (
            "---\npermissions: {writer: {\"edit: *\": reject},}\nrouting: council\n---\n",
            Some(
                "---\npermissions: {writer: {\"edit: *\": reject, \"read: a\": allow},}\nrouting: council\n---\n",
            ),
        ),
        (
            "---\npermissions: {tester: {\"edit: *\": reject},}\nrouting: council\n---\n",
            Some(
                "---\npermissions: {tester: {\"edit: *\": reject}, writer: {\"read: a\": allow}}\nrouting: council\n---\n",
            ),
        ),
        (
            "---\npermissions: {writer: {\"edit: *\": reject,},} # a '{' here\n---\n",
            Some(
                "---\npermissions: {writer: {\"edit: *\": reject, \"read: a\": allow},} # a '{' here\n---\n",
            ),
        ),
    ] {
        match add_rule_edit(text, "writer", "read: a", ALLOW) {
            RuleEdit::Edit(range, new) => {
                let edited = format!("{}{new}{}", &text[..range.start], &text[range.end..]);
                assert_eq!(Some(edited.as_str()), expected, "{text}");
                let check = check_rule_edit(text, &edited, "writer", "read: a", ALLOW);
                assert_eq!(check, Ok(()), "{edited}");
            }
            RuleEdit::Unplaceable(why) => {
                assert_eq!(expected, None, "{text}: {why}");
                assert_eq!(why, "a table without a key to align the rule with");
            }
            RuleEdit::Present => panic!("{text}"),
        }
    }
}

#[test]
fn an_edit_that_would_change_another_value_is_refused() {
    let text = "---\nrouting: council\n---\n";
    let broken =
        "---\nrouting: council\npermissions:\n  writer:\n    \"read: a\": allow\n   x: 1\n---\n";
    assert!(check_rule_edit(text, broken, "writer", "read: a", ALLOW).is_err());
    let elsewhere = "---\nrouting: council\npermissions:\n  tester:\n    \"read: a\": allow\n---\n";
    assert_eq!(
        check_rule_edit(text, elsewhere, "writer", "read: a", ALLOW),
        Err("the edit would change what other keys say".into())
    );
    let dropped = "---\npermissions:\n  writer:\n    \"read: a\": allow\n---\n";
    assert!(check_rule_edit(text, dropped, "writer", "read: a", ALLOW).is_err());
}

mod generated {
    //! The fuzz target `rule_edit`'s property on generated front matter (so that it runs
    //! with the tests, where cargo-fuzz and nightly are not at hand): the rule is placed
    //! with every other value kept and reads back through chatmd's parser, or the text
    //! is left alone.
    use super::*;
    use proptest::prelude::*;

    /// One line of front matter, from pieces that the fuzzer found troublesome: keys at
    /// any indentation, empty keys, flow tables with or without a trailing comma.
    fn line() -> impl Strategy<Value = String> {
        let indent = prop_oneof![Just(""), Just("  "), Just("    ")];
        let key = prop_oneof![
            Just("title: x"),
            Just("routing: council"),
            Just("budget: {writer: 1}"),
            Just("permissions:"),
            Just("permissions: {}"),
            Just("permissions: {writer: {\"edit: *\": reject},}"),
            Just("permissions: {tester: {\"edit: *\": reject}}"),
            Just("writer:"),
            Just("tester: ~"),
            Just("\"\":"),
            Just(":"),
            Just("@Writer:"),
            Just("\"read: a\": reject"),
            Just("\"edit: *\": allow # mine"),
            Just("# a comment"),
            Just("- a"),
        ];
        (indent, key).prop_map(|(indent, key)| format!("{indent}{key}"))
    }

    proptest! {
        #![proptest_config(ProptestConfig { failure_persistence: None, ..ProptestConfig::default() })]

        #[test]
        fn a_rule_is_placed_keeping_every_value_or_not_at_all(
            lines in proptest::collection::vec(line(), 0..7),
            member in prop_oneof![Just("writer"), Just("tester"), Just("newcomer")],
        ) {
            let text = format!("---\n{}---\n## @me\n", lines.iter().map(|l| format!("{l}\n")).collect::<String>());
            let RuleEdit::Edit(range, new) = add_rule_edit(&text, member, "read: a", ALLOW) else {
                return Ok(());
            };
            let edited = format!("{}{new}{}", &text[..range.start], &text[range.end..]);
            prop_assert_eq!(check_rule_edit(&text, &edited, member, "read: a", ALLOW), Ok(()));
            let problems = |t: &str| parse(t, &locate(t).unwrap()).problems.len();
            prop_assert!(problems(&edited) <= problems(&text), "{}", edited);
            let fm = parse(&edited, &locate(&edited).unwrap());
            let found = fm
                .permissions
                .iter()
                .filter(|m| m.member.value.eq_ignore_ascii_case(member))
                .flat_map(|m| &m.rules)
                .any(|r| r.text == "read: a" && r.decision.value == ALLOW);
            prop_assert!(found, "{}", edited);
        }
    }
}
