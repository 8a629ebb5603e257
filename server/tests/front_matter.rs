//! Front matter: locating the block, reading every key with exact byte ranges, problems
//! (syntax, wrong types, bad values, duplicates) and the `set_key_edit` helper.

use chatmd::document::ByteRange;
use chatmd::document::front_matter::{
    ConversationStatus, FrontMatter, FrontMatterBlock, ProblemKind, Routing, Spanned, locate,
    parse, set_key_edit,
};
use pretty_assertions::assert_eq;
use proptest::prelude::*;

fn read(text: &str) -> FrontMatter {
    let block = locate(text).expect("the text has front matter");
    parse(text, &block)
}

fn block(range: ByteRange, yaml: ByteRange) -> Option<FrontMatterBlock> {
    Some(FrontMatterBlock { range, yaml })
}

/// Problems as (kind, underlined text, message).
fn problems(text: &str) -> Vec<(ProblemKind, &str, String)> {
    read(text)
        .problems
        .into_iter()
        .map(|p| (p.kind, &text[p.range], p.message))
        .collect()
}

fn spanned_text<'a, T>(text: &'a str, value: &Option<Spanned<T>>) -> Option<&'a str> {
    value.as_ref().map(|v| &text[v.range.clone()])
}

fn apply(text: &str, (range, new): (ByteRange, String)) -> String {
    let mut out = text.to_owned();
    out.replace_range(range, &new);
    out
}

fn set(text: &str, key: &str, value: &str) -> String {
    let fm = locate(text).map(|b| parse(text, &b));
    apply(text, set_key_edit(text, fm.as_ref(), key, value))
}

use ProblemKind::{BadValue, Syntax, WrongType};

// Messages that several tests expect, written once.
const MAX_CHAIN_NOT_A_NUMBER: &str = "`max_chain` must be a whole number (default 3)";
const REPLY_STUB_NOT_A_BOOL: &str = "`reply_stub` must be `true` or `false` (default `true`)";
const STATUS_NOT_OPEN_OR_ENDED: &str = "`status` must be `open` or `ended` (default `open`)";
const MEMBERS_NOT_A_LIST: &str =
    "`members` must be a list of member handles, such as `[reviewer, tester]`";

// ---- locate ----------------------------------------------------------------------

#[test]
fn locate_finds_the_block_and_its_yaml() {
    assert_eq!(locate("---\ntitle: x\n---\nbody\n"), block(0..17, 4..13));
    // Trailing spaces and tabs on both fences.
    assert_eq!(locate("--- \t\ntitle: x\n---  \nbody"), block(0..21, 6..15));
    // `...` closes too.
    assert_eq!(locate("---\na: 1\n...\nrest"), block(0..13, 4..9));
    // The closing line may end the file.
    assert_eq!(locate("---\na: 1\n---"), block(0..12, 4..9));
    // An indented `---` is YAML content, not the closer.
    assert_eq!(locate("---\na: |\n  ---\n---\n"), block(0..19, 4..15));
}

#[test]
fn locate_handles_crlf_and_bom() {
    assert_eq!(locate("---\r\na: 1\r\n---\r\nrest"), block(0..16, 5..11));
    assert_eq!(locate("\u{feff}---\na: 1\n---\n"), block(3..16, 7..12));
    assert_eq!(locate("\u{feff}---\r\n---\r\n"), block(3..13, 8..8));
}

#[test]
fn locate_empty_block() {
    let text = "---\n---\nbody";
    assert_eq!(locate(text), block(0..8, 4..4));
    let fm = read(text);
    assert_eq!(fm.problems, vec![]);
    assert_eq!(fm.entries, vec![]);
}

#[test]
fn locate_without_a_closing_line_is_none() {
    assert_eq!(locate("---\ntitle: x\n\nbody\n"), None);
    assert_eq!(locate("---\n"), None);
    assert_eq!(locate("---"), None);
}

#[test]
fn locate_needs_the_fence_on_the_first_line() {
    for text in [
        "",
        "\n---\na: 1\n---\n",
        " ---\na: 1\n---\n",
        "----\na: 1\n---\n",
        "--- x\na: 1\n---\n",
        "text\n---\na: 1\n---\n",
        "\u{feff}\n---\na: 1\n---\n",
    ] {
        assert_eq!(locate(text), None, "{text:?}");
    }
}

// ---- known keys and defaults -----------------------------------------------------

const FULL: &str = "---
title: Payment module review
team: ../teams/core
members: [reviewer, \"@tester\"]
human: alice
routing: round-robin
max_chain: 5
context: 8
reply_stub: false
status: ended
forked_from: review.chat.md
---
Preamble.
";

#[test]
fn every_known_key() {
    let text = FULL;
    let fm = read(text);
    assert_eq!(fm.problems, vec![]);
    assert_eq!(fm.unknown_keys, vec![]);

    let title = fm.title.as_ref().unwrap();
    assert_eq!(title.value, "Payment module review");
    assert_eq!(title.range, 11..32);
    assert_eq!(fm.team.as_ref().unwrap().value, "../teams/core");
    assert_eq!(spanned_text(text, &fm.team), Some("../teams/core"));

    let members = fm.members.as_ref().unwrap();
    let values: Vec<&str> = members.iter().map(|m| m.value.as_str()).collect();
    assert_eq!(values, ["reviewer", "tester"]);
    let sources: Vec<&str> = members.iter().map(|m| &text[m.range.clone()]).collect();
    assert_eq!(sources, ["reviewer", "\"@tester\""]);

    assert_eq!(fm.human.as_ref().unwrap().value, "alice");
    assert_eq!(fm.routing.as_ref().unwrap().value, Routing::RoundRobin);
    assert_eq!(spanned_text(text, &fm.routing), Some("round-robin"));
    assert_eq!(fm.max_chain.as_ref().unwrap().value, 5);
    assert_eq!(spanned_text(text, &fm.max_chain), Some("5"));
    assert_eq!(fm.context.as_ref().unwrap().value, 8);
    assert_eq!(spanned_text(text, &fm.context), Some("8"));
    assert_eq!(fm.reply_stub.as_ref().unwrap().value, false);
    assert_eq!(spanned_text(text, &fm.reply_stub), Some("false"));
    assert_eq!(fm.status.as_ref().unwrap().value, ConversationStatus::Ended);
    assert_eq!(spanned_text(text, &fm.status), Some("ended"));
    assert_eq!(fm.forked_from.as_ref().unwrap().value, "review.chat.md");
    assert_eq!(spanned_text(text, &fm.forked_from), Some("review.chat.md"));

    assert_eq!(fm.max_chain(), 5);
    assert_eq!(fm.context(), 8);
    assert!(!fm.reply_stub());
    assert_eq!(fm.human(), "alice");
    assert_eq!(fm.routing(), Routing::RoundRobin);
    assert!(fm.is_ended());

    let keys: Vec<&str> = fm.entries.iter().map(|e| e.key.value.as_str()).collect();
    assert_eq!(
        keys,
        [
            "title",
            "team",
            "members",
            "human",
            "routing",
            "max_chain",
            "context",
            "reply_stub",
            "status",
            "forked_from"
        ]
    );
    let members_entry = fm.entry("members").unwrap();
    assert_eq!(&text[members_entry.key.range.clone()], "members");
    assert_eq!(
        &text[members_entry.value.clone()],
        "[reviewer, \"@tester\"]"
    );
}

#[test]
fn other_spellings_of_known_values() {
    let text = "---\nrouting: all\nstatus: open\nreply_stub: True\nhuman: \"@Bob\"\n\
                max_chain: 0x10\ncontext: +4\n---\n";
    let fm = read(text);
    assert_eq!(fm.problems, vec![]);
    assert_eq!(fm.routing(), Routing::All);
    assert!(!fm.is_ended());
    assert_eq!(fm.status.as_ref().unwrap().value, ConversationStatus::Open);
    assert!(fm.reply_stub());
    assert_eq!(fm.human(), "Bob");
    assert_eq!(fm.max_chain(), 16);
    assert_eq!(fm.context(), 4);

    let fm = read("---\nrouting: mentions\nmax_chain: 0\ncontext: 0\n---\n");
    assert_eq!(fm.problems, vec![]);
    assert_eq!(fm.routing(), Routing::Mentions);
    assert_eq!((fm.max_chain(), fm.context()), (0, 0));
}

#[test]
fn defaults() {
    for text in [
        "---\n---\n",
        "---\n# nothing yet\n---\n",
        "---\ntitle: x\n---\n",
    ] {
        let fm = read(text);
        assert_eq!(fm.problems, vec![], "{text:?}");
        assert_eq!(fm.max_chain(), 3);
        assert_eq!(fm.context(), 20);
        assert!(fm.reply_stub());
        assert_eq!(fm.human(), "me");
        assert_eq!(fm.routing(), Routing::Mentions);
        assert!(!fm.is_ended());
        assert_eq!(fm.members, None);
    }
    let empty = FrontMatter::empty(FrontMatterBlock {
        range: 0..0,
        yaml: 0..0,
    });
    assert_eq!(
        (empty.max_chain(), empty.context(), empty.human()),
        (3, 20, "me")
    );
}

#[test]
fn unknown_keys_are_kept_with_their_ranges() {
    let text = "---\ntitle: x\nmodel: opus\nTitle: y\n---\n";
    let fm = read(text);
    assert_eq!(fm.problems, vec![]);
    assert_eq!(
        fm.unknown_keys,
        vec![
            Spanned::new("model".into(), 13..18),
            Spanned::new("Title".into(), 25..30)
        ]
    );
    assert_eq!(fm.title.unwrap().value, "x");
    assert_eq!(fm.entries.len(), 3);
}

// ---- members -----------------------------------------------------------------------

fn member_values(fm: &FrontMatter) -> Option<Vec<&str>> {
    fm.members
        .as_ref()
        .map(|m| m.iter().map(|s| s.value.as_str()).collect())
}

#[test]
fn members_forms() {
    // A single handle is a one-element list.
    let fm = read("---\nmembers: reviewer\n---\n");
    assert_eq!(fm.problems, vec![]);
    assert_eq!(member_values(&fm), Some(vec!["reviewer"]));

    let fm = read("---\nmembers: []\n---\n");
    assert_eq!(member_values(&fm), Some(vec![]));

    let text = "---\nmembers:\n  - reviewer\n  - '@tester'\n---\n";
    let fm = read(text);
    assert_eq!(fm.problems, vec![]);
    assert_eq!(member_values(&fm), Some(vec!["reviewer", "tester"]));
    let sources: Vec<&str> = fm
        .members
        .unwrap()
        .iter()
        .map(|m| &text[m.range.clone()])
        .collect();
    assert_eq!(sources, ["reviewer", "'@tester'"]);
    assert_eq!(
        &text[read(text).entry("members").unwrap().value.clone()],
        "- reviewer\n  - '@tester'"
    );
}

#[test]
fn members_problems() {
    let text =
        "---\nmembers: [\"@reviewer\", tester, \"bad handle\", Tester, '@x.y-z_1', 9lives]\n---\n";
    let fm = read(text);
    assert_eq!(
        member_values(&fm),
        Some(vec!["reviewer", "tester", "x.y-z_1", "9lives"])
    );
    assert_eq!(
        problems(text),
        vec![
            (
                BadValue,
                "\"bad handle\"",
                "`bad handle` is not a valid handle: use letters, digits, `_`, `.` and `-`, \
                 starting with a letter or digit"
                    .into()
            ),
            (BadValue, "Tester", "`Tester` is listed twice".into()),
        ]
    );

    let text = "---\nmembers:\n  - a\n  -\n  - [x]\n  - _a\n---\n";
    assert_eq!(
        problems(text),
        vec![
            (
                WrongType,
                "-",
                "each member must be a handle, such as `reviewer`".into()
            ),
            (
                WrongType,
                "[x]",
                "each member must be a handle, such as `reviewer`".into()
            ),
            (
                BadValue,
                "_a",
                "`_a` is not a valid handle: use letters, digits, `_`, `.` and `-`, \
                 starting with a letter or digit"
                    .into()
            ),
        ]
    );

    // A comma-separated string is not split: it asks for a list.
    let text = "---\nmembers: reviewer, tester\n---\n";
    assert_eq!(
        problems(text),
        vec![(WrongType, "reviewer, tester", MEMBERS_NOT_A_LIST.into())]
    );
    assert_eq!(read(text).members, None);
}

// ---- problems ----------------------------------------------------------------------

#[test]
fn yaml_syntax_error_has_an_exact_range() {
    let text = "---\ntitle: \"unterminated\n---\n";
    let fm = read(text);
    assert_eq!(fm.problems.len(), 1);
    assert_eq!(fm.problems[0].range, 11..12);
    assert_eq!(&text[11..12], "\"");
    assert_eq!(
        fm.problems[0].message,
        "YAML syntax error: while scanning a quoted scalar, found unexpected end of stream"
    );
    assert_eq!(fm.problems[0].kind, Syntax);
    assert_eq!(fm.title, None);
}

#[test]
fn keys_before_a_syntax_error_are_still_read() {
    let text = "---\nstatus: ended\ntitle: a: b\n---\n";
    let fm = read(text);
    assert_eq!(fm.problems.len(), 1);
    assert_eq!(fm.problems[0].range, 26..27);
    assert_eq!(
        fm.problems[0].message,
        "YAML syntax error: mapping values are not allowed in this context"
    );
    assert!(fm.is_ended());
    // The broken line's value is not trusted.
    assert_eq!(fm.title, None);

    // A plain scalar the scanner glued onto the next (broken) line is dropped too.
    let fm = read("---\ntitle: foo\n  bar: baz\n---\n");
    assert_eq!(fm.title, None);
    assert_eq!(fm.problems[0].range, 20..21);
}

#[test]
fn a_leading_at_sign_needs_quotes() {
    let text = "---\nmembers: [@reviewer]\n---\n";
    assert_eq!(
        read(text).problems[0].range,
        14..15,
        "the range is the `@` itself"
    );
    assert_eq!(
        problems(text),
        vec![(
            Syntax,
            "@",
            "YAML syntax error: unexpected character: `@' (a handle starting with `@` must be \
             quoted, as in `\"@reviewer\"`, or written without the `@`)"
                .into()
        )]
    );
}

#[test]
fn an_error_at_the_end_of_the_yaml_is_an_empty_range_there() {
    let text = "---\nmembers: [a, b\n---\n";
    let fm = read(text);
    assert_eq!(fm.problems.len(), 1);
    assert_eq!(fm.problems[0].range, 19..19);
    assert_eq!(fm.block.yaml.end, 19);
    assert_eq!(
        fm.problems[0].message,
        "YAML syntax error: while parsing a flow sequence, expected ',' or ']'"
    );
}

#[test]
fn only_one_yaml_document() {
    let text = "---\na: 1\n--- b\n---\n";
    assert_eq!(
        problems(text),
        vec![(
            Syntax,
            "---",
            "only one YAML document is allowed in front matter".into()
        )]
    );
}

#[test]
fn the_top_level_must_be_a_mapping() {
    let message = "front matter must be `key: value` lines (a YAML mapping)".to_owned();
    assert_eq!(
        problems("---\n- a\n- b\n---\n"),
        vec![(WrongType, "- a\n- b\n", message.clone())]
    );
    assert_eq!(
        problems("---\njust text\n---\n"),
        vec![(WrongType, "just text\n", message)]
    );
}

#[test]
fn wrong_types_say_what_is_expected() {
    let text = "---
max_chain: lots
context: 2.5
reply_stub: maybe
members: {reviewer: yes}
title: [a, b]
team:
forked_from: ~
---
";
    let fm = read(text);
    assert_eq!(
        problems(text),
        vec![
            (WrongType, "lots", MAX_CHAIN_NOT_A_NUMBER.into()),
            (
                WrongType,
                "2.5",
                "`context` must be a whole number (default 20)".into()
            ),
            (WrongType, "maybe", REPLY_STUB_NOT_A_BOOL.into()),
            (WrongType, "{reviewer: yes}", MEMBERS_NOT_A_LIST.into()),
            (WrongType, "[a, b]", "`title` must be text".into()),
            // An omitted value underlines its key.
            (WrongType, "team", "`team` must be a folder path".into()),
            (WrongType, "~", "`forked_from` must be a file path".into()),
        ]
    );
    assert_eq!(
        (
            &fm.max_chain,
            &fm.context,
            &fm.reply_stub,
            &fm.members,
            &fm.title,
            &fm.team
        ),
        (&None, &None, &None, &None, &None, &None)
    );
    assert_eq!(
        (fm.max_chain(), fm.context(), fm.reply_stub()),
        (3, 20, true)
    );
}

#[test]
fn quoted_numbers_and_booleans_are_text() {
    assert_eq!(
        problems("---\nmax_chain: \"3\"\nreply_stub: 'false'\nreply_stub2: yes\n---\n"),
        vec![
            (WrongType, "\"3\"", MAX_CHAIN_NOT_A_NUMBER.into()),
            (WrongType, "'false'", REPLY_STUB_NOT_A_BOOL.into()),
        ]
    );
    assert_eq!(
        problems("---\nreply_stub: yes\n---\n"),
        vec![(WrongType, "yes", REPLY_STUB_NOT_A_BOOL.into())]
    );
    // Any scalar is text for a text key.
    let fm = read("---\ntitle: 42\nteam: true\n---\n");
    assert_eq!(fm.problems, vec![]);
    assert_eq!(fm.title.unwrap().value, "42");
    assert_eq!(fm.team.unwrap().value, "true");
}

#[test]
fn bad_values() {
    let text = "---
routing: random
status: closed
human: \"@@x\"
context: -1
max_chain: 4294967296
---
";
    assert_eq!(
        problems(text),
        vec![
            (
                BadValue,
                "random",
                "`routing` must be `mentions`, `round-robin`, `all`, `compare` or `council` (default `mentions`)".into()
            ),
            (BadValue, "closed", STATUS_NOT_OPEN_OR_ENDED.into()),
            (
                BadValue,
                "\"@@x\"",
                "`@@x` is not a valid handle: use letters, digits, `_`, `.` and `-`, \
                 starting with a letter or digit"
                    .into()
            ),
            (
                BadValue,
                "-1",
                "`context` cannot be negative; it must be a whole number (default 20)".into()
            ),
            (
                BadValue,
                "4294967296",
                "`max_chain` is too large (at most 4294967295)".into()
            ),
        ]
    );
    let fm = read(text);
    assert_eq!(fm.routing(), Routing::Mentions);
    assert!(!fm.is_ended());
    assert_eq!(fm.human(), "me");
}

#[test]
fn aliases_and_complex_keys() {
    assert_eq!(
        problems("---\nbase: &h alice\nhuman: *h\n---\n"),
        vec![(
            WrongType,
            "*h",
            "`human` must be a handle (default `me`); YAML aliases (`*name`) are not supported \
             in front matter"
                .into()
        )]
    );
    assert_eq!(
        problems("---\n[a]: 1\n? {b: 2}\n: 3\n---\n"),
        vec![
            (
                WrongType,
                "[a]",
                "a front matter key must be a name, such as `title`".into()
            ),
            (
                WrongType,
                "{b: 2}",
                "a front matter key must be a name, such as `title`".into()
            ),
        ]
    );
}

#[test]
fn duplicate_keys_use_the_first_and_report_the_second() {
    let text = "---\nmax_chain: 2\nmax_chain: 7\nx: 1\nx: 2\n---\n";
    let fm = read(text);
    assert_eq!(fm.max_chain(), 2);
    assert_eq!(
        fm.problems
            .iter()
            .map(|p| p.range.clone())
            .collect::<Vec<_>>(),
        [17..26, 35..36]
    );
    assert_eq!(
        problems(text),
        vec![
            (
                Syntax,
                "max_chain",
                "`max_chain` is set twice; only the first one is used".into()
            ),
            (
                Syntax,
                "x",
                "`x` is set twice; only the first one is used".into()
            ),
        ]
    );
    assert_eq!(fm.unknown_keys, vec![Spanned::new("x".into(), 30..31)]);
    assert_eq!(fm.entries.len(), 4);
}

// ---- byte offsets with non-ASCII text, CRLF, BOM -----------------------------------

#[test]
fn non_ascii_text_before_a_problem() {
    // "title: 日本語 🎉\n" is 22 bytes but 13 chars: ranges must be bytes.
    let text = "---\ntitle: 日本語 🎉\nmax_chain: lots\n---\n";
    let fm = read(text);
    assert_eq!(fm.title, Some(Spanned::new("日本語 🎉".into(), 11..25)));
    assert_eq!(fm.problems.len(), 1);
    assert_eq!(fm.problems[0].range, 37..41);
    assert_eq!(&text[37..41], "lots");

    // A syntax error after CJK text.
    let text = "---\ntitle: 日本語 🎉\nhuman: a: b\n---\n";
    let fm = read(text);
    assert_eq!(fm.problems[0].range, 34..35);
    assert_eq!(&text[34..35], ":");
    assert_eq!(fm.title.unwrap().value, "日本語 🎉");

    // Block scalars with non-ASCII text throw yaml-rust2's char index off; lines and
    // columns stay right.
    let text = "---\ntitle: |\n  日本語 🎉\n  é\nmax_chain: lots\nstatus: 🎉\n---\n";
    let fm = read(text);
    assert_eq!(fm.title.as_ref().unwrap().value, "日本語 🎉\né\n");
    assert_eq!(spanned_text(text, &fm.title), Some("|\n  日本語 🎉\n  é"));
    assert_eq!(
        problems(text),
        vec![
            (WrongType, "lots", MAX_CHAIN_NOT_A_NUMBER.into()),
            (BadValue, "🎉", STATUS_NOT_OPEN_OR_ENDED.into()),
        ]
    );

    // Non-ASCII members and quoted text.
    let text = "---\ntitle: \"« ok »\"\nmembers: [ü]\n---\n";
    assert_eq!(problems(text)[0].1, "ü");
    assert_eq!(read(text).title.unwrap().value, "« ok »");
}

#[test]
fn crlf_front_matter() {
    let text =
        "---\r\ntitle: Hi\r\nmax_chain: lots\r\nmembers:\r\n  - a\r\n  - b\r\n---\r\nbody\r\n";
    let fm = read(text);
    assert_eq!(fm.title, Some(Spanned::new("Hi".into(), 12..14)));
    assert_eq!(fm.problems.len(), 1);
    assert_eq!(fm.problems[0].range, 27..31);
    assert_eq!(member_values(&fm), Some(vec!["a", "b"]));
    assert_eq!(
        &text[fm.entry("members").unwrap().value.clone()],
        "- a\r\n  - b"
    );
}

#[test]
fn bom_and_dot_closer() {
    let text = "\u{feff}---\ntitle: 🎉\nstatus: ended\n...\nbody";
    let fm = read(text);
    assert_eq!(fm.block.range, 3..37);
    assert_eq!(fm.title, Some(Spanned::new("🎉".into(), 14..18)));
    assert!(fm.is_ended());
}

#[test]
fn value_ranges_cover_the_source_text() {
    let text = "---
a: 'it''s'   # comment
b: \"x\\\"y\"
c: plain text # comment
d: >-
  folded
  text

# a comment
e: [1, {f: 2}]
g:
  h: 1
---
";
    let fm = read(text);
    let values: Vec<(&str, &str)> = fm
        .entries
        .iter()
        .map(|e| (e.key.value.as_str(), &text[e.value.clone()]))
        .collect();
    assert_eq!(
        values,
        [
            ("a", "'it''s'"),
            ("b", "\"x\\\"y\""),
            ("c", "plain text"),
            ("d", ">-\n  folded\n  text"),
            ("e", "[1, {f: 2}]"),
            ("g", "h: 1"),
        ]
    );
}

// ---- set_key_edit -----------------------------------------------------------------

/// Sets `key: value` in each `(before, after)` text and checks the whole result.
fn assert_sets(key: &str, value: &str, cases: &[(&str, &str)]) {
    for &(before, after) in cases {
        assert_eq!(
            set(before, key, value),
            after,
            "setting {key} to {value:?} in {before:?}"
        );
    }
}

/// `assert_sets` for the key the server writes most: `status: ended`.
fn assert_ends(cases: &[(&str, &str)]) {
    assert_sets("status", "ended", cases);
}

/// The edit that sets `status: ended`, given the text's own front matter (if any).
fn end_edit(text: &str) -> (ByteRange, String) {
    let fm = locate(text).map(|b| parse(text, &b));
    set_key_edit(text, fm.as_ref(), "status", "ended")
}

#[test]
fn set_key_replaces_an_existing_value() {
    let text = "---\ntitle: x\nstatus: open\n---\nbody\n";
    assert_eq!(end_edit(text), (21..25, "ended".into()));
    assert_ends(&[(text, "---\ntitle: x\nstatus: ended\n---\nbody\n")]);
}

#[test]
fn set_key_inserts_a_line_before_the_closing_fence() {
    let text = "---\ntitle: x\n---\nbody\n";
    assert_eq!(end_edit(text), (13..13, "status: ended\n".into()));
    assert_ends(&[
        (text, "---\ntitle: x\nstatus: ended\n---\nbody\n"),
        ("---\n---\n", "---\nstatus: ended\n---\n"),
        (
            "---\ntitle: x\n...\nbody",
            "---\ntitle: x\nstatus: ended\n...\nbody",
        ),
    ]);
}

#[test]
fn set_key_creates_a_front_matter_block() {
    let text = "## @me\nhi\n";
    assert_eq!(end_edit(text), (0..0, "---\nstatus: ended\n---\n".into()));
    assert_ends(&[
        (text, "---\nstatus: ended\n---\n## @me\nhi\n"),
        ("", "---\nstatus: ended\n---\n"),
        // After a BOM; an unclosed `---` is ordinary text.
        ("\u{feff}hello", "\u{feff}---\nstatus: ended\n---\nhello"),
        ("---\nhello\n", "---\nstatus: ended\n---\n---\nhello\n"),
    ]);
}

#[test]
fn set_key_keeps_crlf() {
    assert_ends(&[
        (
            "---\r\ntitle: x\r\n---\r\nbody",
            "---\r\ntitle: x\r\nstatus: ended\r\n---\r\nbody",
        ),
        (
            "---\r\nstatus: open\r\n---\r\n",
            "---\r\nstatus: ended\r\n---\r\n",
        ),
        (
            "## @me\r\nhi\r\n",
            "---\r\nstatus: ended\r\n---\r\n## @me\r\nhi\r\n",
        ),
    ]);
}

#[test]
fn set_key_fills_an_omitted_value() {
    assert_ends(&[
        ("---\nstatus:\n---\n", "---\nstatus: ended\n---\n"),
        (
            "---\nstatus: # later\ntitle: x\n---\n",
            "---\nstatus: ended # later\ntitle: x\n---\n",
        ),
    ]);
}

#[test]
fn set_key_replaces_any_kind_of_value() {
    assert_sets(
        "title",
        "New",
        &[(
            "---\ntitle: |\n  old\n  text\nstatus: open\n---\n",
            "---\ntitle: New\nstatus: open\n---\n",
        )],
    );
    assert_sets(
        "forked_from",
        "c.chat.md",
        &[(
            "---\nforked_from: \"a b\" # where from\n---\n",
            "---\nforked_from: c.chat.md # where from\n---\n",
        )],
    );
    // Set twice: the first (the one that is used) changes.
    assert_ends(&[(
        "---\nstatus: open\nstatus: open\n---\n",
        "---\nstatus: ended\nstatus: open\n---\n",
    )]);
}

#[test]
fn set_key_quotes_values_that_need_it() {
    let cases = [
        ("review.chat.md", "review.chat.md"),
        ("notes: v2 #1.chat.md", "\"notes: v2 #1.chat.md\""),
        ("", "\"\""),
        ("null", "\"null\""),
        ("@me", "\"@me\""),
        (" padded", "\" padded\""),
        ("say \"hi\"\nbye\\", "\"say \\\"hi\\\"\\nbye\\\\\""),
        ("tab\there", "\"tab\\there\""),
        ("日本語 🎉", "日本語 🎉"),
    ];
    for (value, written) in cases {
        let out = set("---\n---\n", "forked_from", value);
        assert_eq!(out, format!("---\nforked_from: {written}\n---\n"));
        let fm = read(&out);
        assert_eq!(fm.problems, vec![], "{out:?}");
        assert_eq!(fm.forked_from.unwrap().value, value);
    }
}

#[test]
fn set_key_parses_when_the_given_front_matter_is_missing_or_stale() {
    let text = "---\nstatus: open\n---\n";
    assert_eq!(
        set_key_edit(text, None, "status", "ended"),
        (12..16, "ended".into())
    );
    let other = read("---\ntitle: something much longer\nstatus: open\n---\n");
    assert_eq!(
        set_key_edit(text, Some(&other), "status", "ended"),
        (12..16, "ended".into())
    );
}

// ---- properties ----------------------------------------------------------------------

fn yamlish() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<String>(),
        "[a-z_@&*!|>#:,'\"\\[\\]{}?~ \t\r\n\\-日🎉.0-9]{0,80}",
        "([a-z_]{1,10}: [a-z0-9 \"'@\\[\\],]{0,12}\r?\n){0,6}",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn any_yaml_parses_without_panic_and_ranges_stay_in_the_block(yaml in yamlish(), crlf in any::<bool>()) {
        let eol = if crlf { "\r\n" } else { "\n" };
        let text = format!("---{eol}{yaml}{eol}---{eol}body");
        let Some(block) = locate(&text) else { return Ok(()) };
        let fm = parse(&text, &block);
        let yaml_range = block.yaml.clone();
        let mut ranges: Vec<ByteRange> = fm.problems.iter().map(|p| p.range.clone()).collect();
        ranges.extend(fm.entries.iter().flat_map(|e| [e.key.range.clone(), e.value.clone()]));
        ranges.extend(fm.unknown_keys.iter().map(|k| k.range.clone()));
        ranges.extend(fm.members.iter().flatten().map(|m| m.range.clone()));
        ranges.extend(fm.title.iter().map(|t| t.range.clone()));
        for range in ranges {
            prop_assert!(range.start <= range.end, "{range:?}");
            prop_assert!(yaml_range.start <= range.start && range.end <= yaml_range.end, "{range:?} not in {yaml_range:?}");
            prop_assert!(text.get(range.clone()).is_some(), "{range:?} splits a char");
        }
        prop_assert!(fm.problems.iter().filter(|p| p.kind == Syntax && p.message.starts_with("YAML")).count() <= 1);
    }

    #[test]
    fn any_text_locates_without_panic(text in any::<String>()) {
        if let Some(block) = locate(&text) {
            prop_assert!(text.get(block.range.clone()).is_some());
            prop_assert!(block.range.start <= block.yaml.start && block.yaml.end <= block.range.end);
            let _ = parse(&text, &block);
        }
    }

    #[test]
    fn set_key_edit_round_trips_any_value(value in any::<String>(), base in 0usize..4) {
        let text = ["", "---\n---\n", "---\ntitle: x\nstatus: open\n---\nbody", "---\r\nforked_from: old\r\n---\r\n"][base];
        let out = set(text, "forked_from", &value);
        let fm = read(&out);
        prop_assert_eq!(&fm.problems, &vec![], "{:?}", out);
        prop_assert_eq!(fm.forked_from.map(|f| f.value), Some(value));
        let title_kept = text.contains("title: x");
        prop_assert_eq!(fm.title.is_some(), title_kept);
    }
}

#[test]
fn deep_nesting_does_not_overflow_the_stack() {
    let text = format!("---\nmembers:\n  {}x\n---\n", "- ".repeat(100_000));
    let fm = read(&text);
    assert_eq!(fm.problems.len(), 1, "{:?}", fm.problems);
    assert_eq!(
        fm.problems[0].message,
        "each member must be a handle, such as `reviewer`"
    );
    assert_eq!(fm.problems[0].range.start, 17);
    let text = format!("---\nmembers: {}\n---\n", "[".repeat(100_000));
    let fm = read(&text);
    assert_eq!(fm.problems[0].kind, Syntax);
    let mut nested = String::new();
    for depth in 0..300 {
        nested.push_str(&format!("{}k{depth}:\n", " ".repeat(depth)));
    }
    let fm = read(&format!("---\ntitle: x\nteam:\n{nested}---\n"));
    assert_eq!(fm.title.unwrap().value, "x");
}

#[test]
fn long_lines_and_many_keys_stay_fast() {
    // Quadratic work here (per-event scans of a long line) would make this hang.
    let handles: Vec<String> = (0..50_000).map(|i| format!("m{i}")).collect();
    let text = format!("---\nmembers: [{}]\n---\n", handles.join(", "));
    let fm = read(&text);
    assert_eq!(fm.members.as_ref().map(Vec::len), Some(50_000));
    assert_eq!(fm.problems, vec![]);

    let keys: String = (0..50_000).map(|i| format!("k{i}: v\n")).collect();
    let fm = read(&format!("---\n{keys}---\n"));
    assert_eq!(fm.unknown_keys.len(), 50_000);
}
