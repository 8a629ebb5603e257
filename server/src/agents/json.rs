//! Typed, borrowing views of the CLIs' JSON lines, as forgiving as `serde_json::Value`.
//!
//! The parsers read each line into small structs that name only the fields they use:
//! serde skips every other field without building it, and strings without escapes are
//! borrowed from the line. The field types here never reject a value of an unexpected
//! JSON type; they read it the way `Value::as_str`, `as_u64`, `get` and friends would
//! (a number where a string was expected is simply no string), so a line that is valid
//! JSON is never refused because a CLI changed a field's type.

use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;

use serde::de::value::MapAccessDeserializer;
use serde::de::{Deserialize, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

use super::AgentEvent;
use super::output::not_json;

/// The lines of one CLI, read by their `type`: each kind of line has its own small
/// struct, with only the members the parser uses.
pub trait Events<'a>: Sized {
    /// The line whose `type` is `tag` (`None` when it has no string `type`), from `d`.
    /// Every struct it reads must have the `type` member too, so that a line that gives
    /// it twice is refused here and read again the way `Value` reads it.
    fn read<D: Deserializer<'a>>(tag: Option<&str>, d: D) -> Result<Self, D::Error>;
}

/// One stdout line of a JSON-lines CLI, read into its kind of event. Blank lines give
/// `Ok(None)`; a line that is not a JSON object gives the notice to emit (never a panic).
pub fn parse_line<'a, E: Events<'a>>(agent: &str, line: &'a str) -> Result<Option<E>, AgentEvent> {
    let trimmed = line.trim();
    if trimmed.is_empty() {
        return Ok(None);
    }
    // A JSON object starts with `{`; anything else (an array would even fill a struct
    // field by field) is not an event.
    if trimmed.starts_with('{') {
        if let Some(event) = read_typed(trimmed) {
            return Ok(Some(event));
        }
        // Valid JSON the typed view refuses: a key given twice (serde rejects duplicate
        // fields). Read it as `Value` does, the last occurrence winning.
        if let Ok(value @ Value::Object(_)) = serde_json::from_str::<Value>(trimmed) {
            let tag = value.get("type").and_then(Value::as_str).map(str::to_owned);
            if let Ok(event) = E::read(tag.as_deref(), value) {
                return Ok(Some(event));
            }
        }
    }
    Err(not_json(agent, trimmed))
}

/// The `type` member, for finding which struct reads the line.
#[derive(Default, serde::Deserialize)]
#[serde(default)]
struct Tag<'a> {
    #[serde(rename = "type", borrow)]
    kind: Str<'a>,
}

fn read_typed<'a, E: Events<'a>>(text: &'a str) -> Option<E> {
    let tag = match leading_tag(text) {
        Some(tag) => Some(Cow::Borrowed(tag)),
        // Another layout: one more pass over the line, for the tag alone.
        None => serde_json::from_str::<Tag>(text).ok()?.kind.0,
    };
    // The struct for the tag reads `type` again: a line that repeats it is refused.
    let mut deserializer = serde_json::Deserializer::from_str(text);
    let event = E::read(tag.as_deref(), &mut deserializer).ok()?;
    deserializer.end().ok()?;
    Some(event)
}

/// The tag of a line that starts the way every CLI here writes its events,
/// `{"type":"<tag>"`, without escapes in the tag; found without parsing the line.
fn leading_tag(text: &str) -> Option<&str> {
    let rest = text.strip_prefix(r#"{"type":""#)?;
    for (end, byte) in rest.bytes().enumerate() {
        match byte {
            b'"' => return Some(&rest[..end]),
            b'\\' => return None,
            _ => {}
        }
    }
    None
}

/// How a field type reads each kind of JSON value; everything not overridden reads as
/// [`Lenient::other`].
pub trait Lenient<'de>: Sized {
    /// A value of a kind the field does not take (and `null`, unless [`Lenient::null`]
    /// says otherwise).
    fn other() -> Self;

    fn null() -> Self {
        Self::other()
    }

    fn boolean(_: bool) -> Self {
        Self::other()
    }

    /// A non-negative integer that fits u64 (`serde_json` gives negatives as i64 and
    /// everything else as f64).
    fn unsigned(_: u64) -> Self {
        Self::other()
    }

    fn signed(_: i64) -> Self {
        Self::other()
    }

    /// A string borrowed from the input (it had no escapes).
    fn borrowed_str(text: &'de str) -> Self {
        Self::transient_str(text)
    }

    /// A string that lives only for the call (unescaped into a scratch buffer).
    fn transient_str(_: &str) -> Self {
        Self::other()
    }

    fn owned_string(text: String) -> Self {
        Self::transient_str(&text)
    }

    fn object<A: MapAccess<'de>>(mut map: A) -> Result<Self, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(Self::other())
    }

    fn array<A: SeqAccess<'de>>(mut seq: A) -> Result<Self, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Self::other())
    }
}

struct LenientVisitor<T>(PhantomData<T>);

impl<'de, T: Lenient<'de>> Visitor<'de> for LenientVisitor<T> {
    type Value = T;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<T, E> {
        Ok(T::boolean(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<T, E> {
        Ok(T::signed(v))
    }

    fn visit_u64<E>(self, v: u64) -> Result<T, E> {
        Ok(T::unsigned(v))
    }

    fn visit_f64<E>(self, _: f64) -> Result<T, E> {
        Ok(T::other())
    }

    fn visit_borrowed_str<E>(self, v: &'de str) -> Result<T, E> {
        Ok(T::borrowed_str(v))
    }

    fn visit_str<E>(self, v: &str) -> Result<T, E> {
        Ok(T::transient_str(v))
    }

    fn visit_string<E>(self, v: String) -> Result<T, E> {
        Ok(T::owned_string(v))
    }

    fn visit_unit<E>(self) -> Result<T, E> {
        Ok(T::null())
    }

    fn visit_none<E>(self) -> Result<T, E> {
        Ok(T::null())
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<T, D::Error> {
        d.deserialize_any(self)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<T, A::Error> {
        T::array(seq)
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<T, A::Error> {
        T::object(map)
    }
}

pub fn lenient<'de, D: Deserializer<'de>, T: Lenient<'de>>(d: D) -> Result<T, D::Error> {
    d.deserialize_any(LenientVisitor(PhantomData))
}

/// A string field: `Value::as_str` of the field.
#[derive(Debug, Default)]
pub struct Str<'a>(pub Option<Cow<'a, str>>);

impl Str<'_> {
    pub fn get(&self) -> Option<&str> {
        self.0.as_deref()
    }

    pub fn is(&self, expected: &str) -> bool {
        self.get() == Some(expected)
    }
}

impl<'de: 'a, 'a> Lenient<'de> for Str<'a> {
    fn other() -> Self {
        Str(None)
    }

    fn borrowed_str(text: &'de str) -> Self {
        Str(Some(Cow::Borrowed(text)))
    }

    fn transient_str(text: &str) -> Self {
        Str(Some(Cow::Owned(text.to_owned())))
    }

    fn owned_string(text: String) -> Self {
        Str(Some(Cow::Owned(text)))
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Str<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        lenient(d)
    }
}

/// A number field: `Value::as_u64` of the field.
#[derive(Debug, Default, Clone, Copy)]
pub struct U64(pub Option<u64>);

impl U64 {
    /// The number, 0 when absent (usage fields are optional everywhere).
    pub fn or_zero(self) -> u64 {
        self.0.unwrap_or(0)
    }
}

impl Lenient<'_> for U64 {
    fn other() -> Self {
        U64(None)
    }

    fn unsigned(v: u64) -> Self {
        U64(Some(v))
    }

    fn signed(v: i64) -> Self {
        U64(u64::try_from(v).ok())
    }
}

impl<'de> Deserialize<'de> for U64 {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        lenient(d)
    }
}

/// A number field: `Value::as_i64` of the field.
#[derive(Debug, Default, Clone, Copy)]
pub struct I64(pub Option<i64>);

impl Lenient<'_> for I64 {
    fn other() -> Self {
        I64(None)
    }

    fn unsigned(v: u64) -> Self {
        I64(i64::try_from(v).ok())
    }

    fn signed(v: i64) -> Self {
        I64(Some(v))
    }
}

impl<'de> Deserialize<'de> for I64 {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        lenient(d)
    }
}

/// A boolean field: `Value::as_bool` of the field.
#[derive(Debug, Default, Clone, Copy)]
pub struct Bool(pub Option<bool>);

impl Lenient<'_> for Bool {
    fn other() -> Self {
        Bool(None)
    }

    fn boolean(v: bool) -> Self {
        Bool(Some(v))
    }
}

impl<'de> Deserialize<'de> for Bool {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        lenient(d)
    }
}

/// A field whose value is an object read into `T`. Unlike `Option`, it tells a field
/// that is there but `null` (or not an object) from a missing one, as `Value::get` does.
#[derive(Debug, Default)]
pub enum Obj<T> {
    #[default]
    Absent,
    /// Present, but not an object.
    Other,
    Object(T),
}

impl<T> Obj<T> {
    /// The object, when the field is one.
    pub fn get(&self) -> Option<&T> {
        match self {
            Obj::Object(inner) => Some(inner),
            _ => None,
        }
    }

    /// The object, when the field is one, by value.
    pub fn into_inner(self) -> Option<T> {
        match self {
            Obj::Object(inner) => Some(inner),
            _ => None,
        }
    }

    /// Whether the field is there at all (`Value::get(..).is_some()`).
    pub fn is_present(&self) -> bool {
        !matches!(self, Obj::Absent)
    }
}

impl<'de, T: Deserialize<'de>> Lenient<'de> for Obj<T> {
    fn other() -> Self {
        Obj::Other
    }

    fn object<A: MapAccess<'de>>(map: A) -> Result<Self, A::Error> {
        T::deserialize(MapAccessDeserializer::new(map)).map(Obj::Object)
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Obj<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        lenient(d)
    }
}

/// An array field: its elements, none when the field is not an array.
#[derive(Debug)]
pub struct List<T>(pub Vec<T>);

impl<T> Default for List<T> {
    fn default() -> Self {
        List(Vec::new())
    }
}

impl<'de, T: Deserialize<'de>> Lenient<'de> for List<T> {
    fn other() -> Self {
        List::default()
    }

    fn array<A: SeqAccess<'de>>(mut seq: A) -> Result<Self, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(64));
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(List(items))
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for List<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        lenient(d)
    }
}

/// A field whose value is only tested for being there and not `null`
/// (`Value::get(..).is_some_and(|v| !v.is_null())`).
#[derive(Debug, Default, Clone, Copy)]
pub struct NonNull(pub bool);

impl Lenient<'_> for NonNull {
    fn other() -> Self {
        NonNull(true)
    }

    fn null() -> Self {
        NonNull(false)
    }
}

impl<'de> Deserialize<'de> for NonNull {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        lenient(d)
    }
}

/// The members of a tool call's input that can say what it acts on, in the order
/// [`super::output::tool_summary`] looks at them.
#[derive(Debug, Default, serde::Deserialize)]
#[serde(default)]
pub struct ToolInput<'a> {
    #[serde(borrow)]
    pub command: Str<'a>,
    #[serde(borrow)]
    pub file_path: Str<'a>,
    #[serde(borrow)]
    pub path: Str<'a>,
    #[serde(borrow)]
    pub absolute_path: Str<'a>,
    #[serde(borrow)]
    pub pattern: Str<'a>,
    #[serde(borrow)]
    pub url: Str<'a>,
    #[serde(borrow)]
    pub query: Str<'a>,
    #[serde(borrow)]
    pub prompt: Str<'a>,
    #[serde(borrow)]
    pub description: Str<'a>,
}

/// Token counts, under the names every CLI here uses.
#[derive(Debug, Default, serde::Deserialize)]
#[serde(default)]
pub struct TokenCounts {
    pub input_tokens: U64,
    pub output_tokens: U64,
    pub cache_creation_input_tokens: U64,
    pub cache_read_input_tokens: U64,
}

/// An `{"message": ...}` error object.
#[derive(Debug, Default, serde::Deserialize)]
#[serde(default)]
pub struct ErrorBody<'a> {
    #[serde(borrow)]
    pub message: Str<'a>,
}

#[cfg(test)]
mod tests {
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
}
