//! Tests of the typed views: reading lines by their type, and fields read the way
//! `Value` accessors read them.

use std::borrow::Cow;

use serde::de::{Deserialize, Deserializer};

use super::*;
use pretty_assertions::assert_eq;

#[derive(Debug, Default, serde::Deserialize)]
#[serde(default)]
struct Probe<'a> {
    #[serde(rename = "type", borrow)]
    kind: Str<'a>,
    #[serde(borrow)]
    s: Str<'a>,
    n: U64,
    i: I64,
    b: Bool,
    #[serde(borrow)]
    o: Obj<ErrorBody<'a>>,
    l: List<U64>,
    p: NonNull,
}

impl<'a> Events<'a> for Probe<'a> {
    fn read<D: Deserializer<'a>>(_: Option<&str>, d: D) -> Result<Self, D::Error> {
        Probe::deserialize(d)
    }
}

/// The tag each line was read with.
#[derive(Debug)]
struct Tagged(Option<String>);

impl<'a> Events<'a> for Tagged {
    fn read<D: Deserializer<'a>>(tag: Option<&str>, d: D) -> Result<Self, D::Error> {
        Probe::deserialize(d)?;
        Ok(Tagged(tag.map(str::to_owned)))
    }
}

fn probe(line: &str) -> Probe<'_> {
    parse_line::<Probe>("x", line)
        .expect("JSON")
        .expect("not blank")
}

fn tag(line: &str) -> Option<String> {
    let tagged: Tagged = parse_line("x", line).expect("JSON").expect("not blank");
    tagged.0
}

#[test]
fn lines_are_read_by_their_type_wherever_it_is() {
    assert_eq!(leading_tag(r#"{"type":"a.b","s":1}"#), Some("a.b"));
    assert_eq!(leading_tag(r#"{"type":"a\u0062"}"#), None);
    assert_eq!(leading_tag(r#"{ "type":"a"}"#), None);
    assert_eq!(tag(r#"{"type":"a","s":"x"}"#).as_deref(), Some("a"));
    assert_eq!(tag(r#"{"s":"x","type":"a"}"#).as_deref(), Some("a"));
    assert_eq!(tag(r#" { "type" : "\u0061" } "#).as_deref(), Some("a"));
    assert_eq!(
        tag(r#"{"type":"a","s":"x","type":"b"}"#).as_deref(),
        Some("b")
    );
    assert_eq!(tag(r#"{"type":null,"type":"b"}"#).as_deref(), Some("b"));
    assert_eq!(tag(r#"{"type":7}"#), None);
    assert_eq!(tag(r#"{"s":"x"}"#), None);
    assert_eq!(tag("{}"), None);
}

#[test]
fn fields_read_like_value_accessors() {
    let p = probe(r#"{"s":"a","n":3,"i":-4,"b":true,"o":{"message":"m"},"l":[1,2],"p":0}"#);
    assert!(matches!(p.s.0, Some(Cow::Borrowed("a"))));
    assert_eq!((p.n.0, p.i.0, p.b.0), (Some(3), Some(-4), Some(true)));
    assert_eq!(p.o.get().and_then(|o| o.message.get()), Some("m"));
    assert_eq!(
        p.l.0.iter().map(|n| n.0).collect::<Vec<_>>(),
        [Some(1), Some(2)]
    );
    assert!(p.p.0);

    let p = probe(r#"{"s":"a\nb","n":-1,"i":1e3,"b":"yes","o":null,"l":{},"p":null}"#);
    assert!(matches!(p.s.0, Some(Cow::Owned(ref s)) if s == "a\nb"));
    assert_eq!((p.n.0, p.i.0, p.b.0), (None, None, None));
    assert!(p.o.is_present() && p.o.get().is_none());
    assert!(p.l.0.is_empty());
    assert!(!p.p.0);

    let p = probe(r#"{"s":[1,{"a":[]}],"n":2.0,"i":18446744073709551615,"o":"x"}"#);
    assert_eq!((p.s.get(), p.n.0, p.i.0), (None, None, None));
    assert!(p.o.is_present() && p.o.get().is_none());
    let p = probe("{}");
    assert!(!p.o.is_present() && !p.p.0);
}

#[test]
fn repeated_keys_keep_the_last_and_other_lines_are_notices() {
    let p = probe(r#"{"s":"first","o":{"message":"a","message":"b"},"s":"last"}"#);
    assert_eq!(p.s.get(), Some("last"));
    assert_eq!(p.o.get().and_then(|o| o.message.get()), Some("b"));
    assert!(parse_line::<Probe>("x", "  ").expect("blank").is_none());
    for bad in ["[1,2]", "\"s\"", "{\"s\":", "{} {}", "nope"] {
        assert!(parse_line::<Probe>("x", bad).is_err(), "{bad}");
    }
}
