//! Status comments: `<!-- chatmd key=value ... -->` parse and render tables, errors with
//! ranges, every turn status, and the round-trip properties.

use StatusError::{
    BadKey, MissingClose, MissingEquals, TextAfterClose, TextAfterQuote, UnterminatedQuote,
};
use chatmd::document::status::{
    InvalidKey, KNOWN_KEYS, StatusComment, StatusError, TurnStatus, UnknownTurnStatus, is_valid_key,
};
use pretty_assertions::assert_eq;
use proptest::prelude::*;

fn fields(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect()
}

fn comment(pairs: &[(&str, &str)]) -> StatusComment {
    StatusComment::from_fields(fields(pairs)).expect("valid keys")
}

/// Parses `line` and checks its fields, naming the line when they differ.
fn assert_parses(line: &str, expected: &[(&str, &str)]) {
    let got = match StatusComment::parse(line) {
        Ok(c) => c.fields().to_vec(),
        Err(e) => panic!("{line:?}: {e}"),
    };
    assert_eq!(got, fields(expected), "{line:?}");
}

#[test]
fn parse_table() {
    let cases: &[(&str, &[(&str, &str)])] = &[
        (
            "<!-- chatmd id=t1 agent=claude status=done session=6f1c0e2a took=12.4s -->",
            &[
                ("id", "t1"),
                ("agent", "claude"),
                ("status", "done"),
                ("session", "6f1c0e2a"),
                ("took", "12.4s"),
            ],
        ),
        ("<!-- chatmd -->", &[]),
        ("<!--chatmd-->", &[]),
        // Tolerant: no spaces, extra spaces and tabs, up to 3 spaces of indentation.
        ("<!--chatmd id=t1-->", &[("id", "t1")]),
        (
            "   <!--  chatmd \t id=t1\t\tstatus=queued   -->  ",
            &[("id", "t1"), ("status", "queued")],
        ),
        (
            "<!-- chatmd error=\"rate limited: retry in 5s\" id=t2 -->",
            &[("error", "rate limited: retry in 5s"), ("id", "t2")],
        ),
        (
            "<!-- chatmd error=\"say \\\"hi\\\" \\\\ bye\\nnext\" -->",
            &[("error", "say \"hi\" \\ bye\nnext")],
        ),
        // Unknown keys are kept, in order.
        (
            "<!-- chatmd x-custom=1 id=t3 my.key=z _k=v -->",
            &[
                ("x-custom", "1"),
                ("id", "t3"),
                ("my.key", "z"),
                ("_k", "v"),
            ],
        ),
        ("<!-- chatmd note= id=t4 -->", &[("note", ""), ("id", "t4")]),
        ("<!-- chatmd note=\"\" -->", &[("note", "")]),
        ("<!-- chatmd a=\"x\"-->", &[("a", "x")]),
        // Unquoted values are literal: backslashes, quotes and `=` included.
        (
            "<!-- chatmd path=C:\\dir a=b=c q=x\"y -->",
            &[("path", "C:\\dir"), ("a", "b=c"), ("q", "x\"y")],
        ),
        (
            "<!-- chatmd tokens=1200/340 exit=0 -->",
            &[("tokens", "1200/340"), ("exit", "0")],
        ),
        // Escapes in quotes; an unknown escape is kept as written.
        ("<!-- chatmd m=\"a--\\>b\" -->", &[("m", "a-->b")]),
        ("<!-- chatmd m=\"a--\\!>b\" -->", &[("m", "a--!>b")]),
        ("<!-- chatmd m=\"\\q\\r\\t\" -->", &[("m", "\\q\r\t")]),
        (
            "<!-- chatmd m=\"\\u{1F389}\\u{7}\\u{zz}\" -->",
            &[("m", "🎉\u{7}\\u{zz}")],
        ),
        (
            "<!-- chatmd id=日本 m=\"🎉 ok\" -->",
            &[("id", "日本"), ("m", "🎉 ok")],
        ),
        // A repeated key is kept as found.
        ("<!-- chatmd id=a id=b -->", &[("id", "a"), ("id", "b")]),
        // A stray `\r` (a line split on `\n` only) is tolerated after `-->`.
        ("<!-- chatmd id=t1 -->\r", &[("id", "t1")]),
    ];
    for (line, expected) in cases {
        assert_parses(line, expected);
    }
}

#[test]
fn lines_that_are_not_status_comments() {
    for line in [
        "",
        "hello",
        "<!-- other -->",
        "<!-- chatmdx id=1 -->",
        "<!-- Chatmd id=1 -->",
        "    <!-- chatmd id=1 -->",
        "\t<!-- chatmd id=1 -->",
        "<!- chatmd -->",
        "## @reviewer",
        "text <!-- chatmd id=1 -->",
    ] {
        assert_eq!(
            StatusComment::parse(line),
            Err(StatusError::NotAStatusComment),
            "{line:?}"
        );
    }
    assert_eq!(StatusError::NotAStatusComment.range(), None);
}

#[test]
fn errors_have_ranges_and_messages() {
    let cases: &[(&str, StatusError, &str, &str)] = &[
        (
            "<!-- chatmd id=t1",
            MissingClose { range: 0..17 },
            "<!-- chatmd id=t1",
            "the status comment is not closed: end the line with `-->`",
        ),
        (
            "  <!-- chatmd id=t1  ",
            MissingClose { range: 2..19 },
            "<!-- chatmd id=t1",
            "the status comment is not closed: end the line with `-->`",
        ),
        (
            "<!-- chatmd error=\"oops -->",
            UnterminatedQuote { range: 18..27 },
            "\"oops -->",
            "unterminated quoted value: add a closing `\"`",
        ),
        (
            "<!-- chatmd error=\"ends with backslash\\\" -->",
            UnterminatedQuote { range: 18..44 },
            "\"ends with backslash\\\" -->",
            "unterminated quoted value: add a closing `\"`",
        ),
        (
            "<!-- chatmd id=t1 done -->",
            MissingEquals {
                range: 18..22,
                token: "done".into(),
            },
            "done",
            "`done` is not `key=value`",
        ),
        (
            "<!-- chatmd 1d=x -->",
            BadKey {
                range: 12..14,
                key: "1d".into(),
            },
            "1d",
            "`1d` is not a valid key: use letters, digits, `_`, `.` and `-`, starting with a \
             letter or `_`",
        ),
        (
            "<!-- chatmd k\"=x -->",
            BadKey {
                range: 12..14,
                key: "k\"".into(),
            },
            "k\"",
            "`k\"` is not a valid key: use letters, digits, `_`, `.` and `-`, starting with a \
             letter or `_`",
        ),
        (
            "<!-- chatmd =x -->",
            BadKey {
                range: 12..13,
                key: String::new(),
            },
            "=",
            "missing key before `=`",
        ),
        (
            "<!-- chatmd a=\"b\"c -->",
            TextAfterQuote { range: 17..18 },
            "c",
            "expected a space after the closing `\"`",
        ),
        (
            "<!-- chatmd id=t1 --> hello ",
            TextAfterClose { range: 22..27 },
            "hello",
            "text after `-->`: the status comment must be alone on its line",
        ),
        (
            "<!-- chatmd 日本=x -->",
            BadKey {
                range: 12..18,
                key: "日本".into(),
            },
            "日本",
            "`日本` is not a valid key: use letters, digits, `_`, `.` and `-`, starting with a \
             letter or `_`",
        ),
    ];
    for (line, error, underlined, message) in cases {
        let got = StatusComment::parse(line).unwrap_err();
        assert_eq!(&got, error, "{line:?}");
        assert_eq!(&line[got.range().unwrap()], *underlined, "{line:?}");
        assert_eq!(got.to_string(), *message, "{line:?}");
    }
}

#[test]
fn render_table() {
    let cases: &[(&[(&str, &str)], &str)] = &[
        (&[], "<!-- chatmd -->"),
        (
            &[("id", "t1"), ("status", "done")],
            "<!-- chatmd id=t1 status=done -->",
        ),
        (
            &[("error", "rate limited")],
            "<!-- chatmd error=\"rate limited\" -->",
        ),
        (&[("note", "")], "<!-- chatmd note=\"\" -->"),
        (
            &[("k", "say \"hi\" \\ bye")],
            "<!-- chatmd k=\"say \\\"hi\\\" \\\\ bye\" -->",
        ),
        (&[("k", "a\"b")], "<!-- chatmd k=\"a\\\"b\" -->"),
        (&[("k", "C:\\dir")], "<!-- chatmd k=\"C:\\\\dir\" -->"),
        (
            &[("k", "a\nb\r\nc\td")],
            "<!-- chatmd k=\"a\\nb\\r\\nc\\td\" -->",
        ),
        (&[("k", "a-->b")], "<!-- chatmd k=\"a--\\>b\" -->"),
        (&[("k", "-->")], "<!-- chatmd k=\"--\\>\" -->"),
        (&[("k", "a--!>b")], "<!-- chatmd k=\"a--\\!>b\" -->"),
        (&[("k", "a->b--c")], "<!-- chatmd k=a->b--c -->"),
        (
            &[("k", "\u{7}\u{2028}\u{85}")],
            "<!-- chatmd k=\"\\u{7}\\u{2028}\\u{85}\" -->",
        ),
        (&[("k", "日本 🎉")], "<!-- chatmd k=\"日本 🎉\" -->"),
        (
            &[("k", "a=b"), ("x.y", "🎉")],
            "<!-- chatmd k=a=b x.y=🎉 -->",
        ),
    ];
    for (pairs, line) in cases {
        let c = comment(pairs);
        assert_eq!(c.render(), *line);
        assert_eq!(c.to_string(), *line);
        assert_parses(line, pairs);
    }
}

#[test]
fn the_format_example_round_trips() {
    for line in [
        "<!-- chatmd id=t1 agent=claude status=done session=6f1c0e2a took=12.4s -->",
        "<!-- chatmd id=t2 agent=codex status=streaming -->",
    ] {
        assert_eq!(StatusComment::parse(line).unwrap().render(), line);
    }
    // Tolerant input renders canonically.
    let c = StatusComment::parse("<!--chatmd   id=t1\tstatus=\"done\"-->").unwrap();
    assert_eq!(c.render(), "<!-- chatmd id=t1 status=done -->");
}

#[test]
fn every_turn_status() {
    assert_eq!(
        TurnStatus::ALL.map(TurnStatus::as_str).join(" "),
        "queued streaming waiting done skipped error cancelled interrupted steered"
    );
    for status in TurnStatus::ALL {
        assert_eq!(status.as_str().parse::<TurnStatus>(), Ok(status));
        assert_eq!(status.to_string(), status.as_str());
        let line = format!("<!-- chatmd id=t1 status={status} -->");
        assert_eq!(StatusComment::parse(&line).unwrap().status(), Some(status));
    }
    assert_eq!(
        "Done".parse::<TurnStatus>(),
        Err(UnknownTurnStatus("Done".into()))
    );
    assert_eq!(
        "paused".parse::<TurnStatus>().unwrap_err().to_string(),
        "unknown turn status `paused`: expected queued, streaming, waiting, done, skipped, \
         error, cancelled or interrupted"
    );
    assert_eq!(
        StatusComment::parse("<!-- chatmd status=paused -->")
            .unwrap()
            .status(),
        None
    );
    assert_eq!(
        StatusComment::parse("<!-- chatmd id=t1 -->")
            .unwrap()
            .status(),
        None
    );
}

#[test]
fn accessors() {
    let c = StatusComment::parse(
        "<!-- chatmd id=t1 agent=claude model=opus session=s-1 status=waiting x=1 -->",
    )
    .unwrap();
    assert_eq!(c.id(), Some("t1"));
    assert_eq!(c.agent(), Some("claude"));
    assert_eq!(c.model(), Some("opus"));
    assert_eq!(c.session(), Some("s-1"));
    assert_eq!(c.status(), Some(TurnStatus::Waiting));
    assert_eq!(c.get("x"), Some("1"));
    assert_eq!(c.get("missing"), None);
    let empty = StatusComment::new();
    assert_eq!(
        (empty.id(), empty.agent(), empty.model(), empty.session()),
        (None, None, None, None)
    );
    assert_eq!(
        KNOWN_KEYS,
        [
            "id", "agent", "model", "status", "session", "started", "context", "cost", "took",
            "stop", "exit", "tokens", "error", "resume", "seen", "next", "council", "letter",
            "letters",
        ]
    );
    assert!(KNOWN_KEYS.iter().all(|k| is_valid_key(k)));
    // An ACP agent's context window and cost, as the server writes them.
    let mut usage = StatusComment::new();
    usage.set("context", "20040/1000000");
    usage.set("cost", "0.0998 USD");
    let line = usage.render();
    assert_eq!(
        line,
        "<!-- chatmd context=20040/1000000 cost=\"0.0998 USD\" -->"
    );
    assert_eq!(StatusComment::parse(&line).unwrap(), usage);
}

#[test]
fn set_get_remove() {
    let mut c = StatusComment::parse("<!-- chatmd id=t1 status=streaming x=1 -->").unwrap();
    // Replacing keeps the field's place; a new key is appended.
    c.set_status(TurnStatus::Done);
    assert!(c.set("took", "12.4s"));
    assert_eq!(
        c.render(),
        "<!-- chatmd id=t1 status=done x=1 took=12.4s -->"
    );
    c.remove("x");
    assert!(c.set("error", "exit 1: \"boom\""));
    assert_eq!(
        c.render(),
        "<!-- chatmd id=t1 status=done took=12.4s error=\"exit 1: \\\"boom\\\"\" -->"
    );
    // An invalid key changes nothing.
    assert!(!c.set("bad key", "v"));
    assert!(!c.set("", "v"));
    assert_eq!(c.fields().len(), 4);

    // Repeats: `get` reads the first, `set` keeps one, `remove` drops all.
    let mut c = StatusComment::parse("<!-- chatmd id=a x=1 id=b -->").unwrap();
    assert_eq!(c.get("id"), Some("a"));
    c.set("id", "c");
    assert_eq!(c.render(), "<!-- chatmd id=c x=1 -->");
    let mut c = StatusComment::parse("<!-- chatmd id=a x=1 id=b -->").unwrap();
    c.remove("id");
    assert_eq!(c.render(), "<!-- chatmd x=1 -->");

    assert_eq!(
        StatusComment::from_fields(fields(&[("ok", "1"), ("not ok", "2")])),
        Err(InvalidKey("not ok".into()))
    );
}

// ---- properties --------------------------------------------------------------------

fn key() -> impl Strategy<Value = String> {
    "[A-Za-z_][A-Za-z0-9_.-]{0,8}"
}

fn value() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<String>(),
        // The characters that matter for quoting and escaping.
        "[-!>\"\\\\ \t\r\n=a\u{2028}\u{85}{}u]{0,16}",
        "[a-z0-9./:-]{0,12}",
    ]
}

fn field_list() -> impl Strategy<Value = Vec<(String, String)>> {
    prop::collection::vec((key(), value()), 0..6)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1024))]

    #[test]
    fn render_then_parse_gives_the_fields_back(fields in field_list()) {
        let c = StatusComment::from_fields(fields.clone()).unwrap();
        let line = c.render();
        let back = StatusComment::parse(&line);
        let parsed = back.as_ref().map(StatusComment::fields);
        prop_assert_eq!(parsed.as_deref(), Ok(&fields[..]), "{:?}", line);
        // And the canonical line is a fixed point.
        prop_assert_eq!(back.unwrap().render(), line);
    }

    #[test]
    fn rendered_lines_are_one_safe_comment(fields in field_list()) {
        let line = StatusComment::from_fields(fields).unwrap().render();
        prop_assert!(!line.contains(['\n', '\r', '\u{2028}', '\u{2029}', '\u{85}']), "{:?}", line);
        prop_assert!(!line.chars().any(char::is_control), "{:?}", line);
        // The comment ends exactly once, at the end (also for HTML5's `--!>`).
        prop_assert_eq!(line.find("-->"), Some(line.len() - 3), "{:?}", line);
        prop_assert!(!line.contains("--!>"), "{:?}", line);
        prop_assert!(line.starts_with("<!-- chatmd"));
    }

    #[test]
    fn any_line_parses_without_panic(rest in any::<String>(), tail in "[-=\" a\\\\>]{0,12}") {
        let _ = StatusComment::parse(&rest);
        let line = format!("<!-- chatmd {rest}{tail}");
        if let Err(e) = StatusComment::parse(&line)
            && let Some(range) = e.range() {
                prop_assert!(line.get(range.clone()).is_some(), "{:?} {:?}", line, range);
            }
    }
}
