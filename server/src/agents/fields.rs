//! More field types in the manner of [`super::json`]: an `error` member that may be
//! `null`, an object read as the list of its members, and a tool result's content
//! (a string or an array of text blocks).

use serde::de::value::MapAccessDeserializer;
use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess};

use super::json::{ErrorBody, Lenient, Obj, Str, lenient};

/// An `error` member that may be `null`: the error object when it is one (codex's
/// `mcp_tool_call.error`), told apart from a missing or `null` member.
#[derive(Debug, Default)]
pub enum ErrorField<'a> {
    #[default]
    Absent,
    Null,
    Body(ErrorBody<'a>),
    /// Present, neither `null` nor an object.
    Other,
}

impl<'a> ErrorField<'a> {
    /// Whether the member is there and not `null`.
    pub fn is_set(&self) -> bool {
        !matches!(self, ErrorField::Absent | ErrorField::Null)
    }

    /// The error's `message`, when it has one.
    pub fn message(&self) -> Option<&str> {
        match self {
            ErrorField::Body(body) => body.message.get(),
            _ => None,
        }
    }
}

impl<'de: 'a, 'a> Lenient<'de> for ErrorField<'a> {
    fn other() -> Self {
        ErrorField::Other
    }

    fn null() -> Self {
        ErrorField::Null
    }

    fn object<A: MapAccess<'de>>(map: A) -> Result<Self, A::Error> {
        ErrorBody::deserialize(MapAccessDeserializer::new(map)).map(ErrorField::Body)
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for ErrorField<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        lenient(d)
    }
}

/// An object read as a list of its members, each value read into `T` (gemini's
/// `stats.models`, keyed by model name).
#[derive(Debug)]
pub struct Members<T>(pub Vec<(String, T)>);

impl<T> Default for Members<T> {
    fn default() -> Self {
        Members(Vec::new())
    }
}

impl<'de, T: Deserialize<'de>> Lenient<'de> for Members<T> {
    fn other() -> Self {
        Members::default()
    }

    fn object<A: MapAccess<'de>>(mut map: A) -> Result<Self, A::Error> {
        let mut members = Vec::new();
        while let Some((key, value)) = map.next_entry::<String, T>()? {
            members.push((key, value));
        }
        Ok(Members(members))
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Members<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        lenient(d)
    }
}

/// A tool result's `content`: a string, or an array of blocks whose `text` parts are
/// joined (claude's `tool_result.content` comes both ways).
#[derive(Debug, Default)]
pub struct Content(pub Option<String>);

/// A block of a [`Content`] array.
#[derive(Debug, Default, serde::Deserialize)]
#[serde(default)]
struct ContentPart<'a> {
    #[serde(borrow)]
    text: Str<'a>,
}

impl<'de> Lenient<'de> for Content {
    fn other() -> Self {
        Content(None)
    }

    fn transient_str(text: &str) -> Self {
        Content(Some(text.to_owned()))
    }

    fn owned_string(text: String) -> Self {
        Content(Some(text))
    }

    fn array<A: SeqAccess<'de>>(mut seq: A) -> Result<Self, A::Error> {
        let mut text = String::new();
        while let Some(part) = seq.next_element::<Obj<ContentPart<'de>>>()? {
            if let Some(piece) = part.get().and_then(|p| p.text.get()) {
                if !text.is_empty() {
                    text.push('\n');
                }
                text.push_str(piece);
            }
        }
        Ok(Content(Some(text)))
    }
}

impl<'de> Deserialize<'de> for Content {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        lenient(d)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[derive(Debug, Default, serde::Deserialize)]
    #[serde(default)]
    struct Probe<'a> {
        #[serde(borrow)]
        error: ErrorField<'a>,
        models: Members<Obj<ErrorBody<'a>>>,
        content: Content,
    }

    fn probe(json: &str) -> Probe<'_> {
        serde_json::from_str(json).expect("JSON")
    }

    #[test]
    fn fields_read_every_shape_without_refusing_one() {
        let p = probe(
            r#"{"error":{"message":"m"},"models":{"a":{"message":"x"},"b":1},"content":[{"type":"text","text":"one"},{"type":"image"},{"text":"two"}]}"#,
        );
        assert!(p.error.is_set());
        assert_eq!(p.error.message(), Some("m"));
        let names: Vec<&str> = p.models.0.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(names, ["a", "b"]);
        assert_eq!(p.content.0.as_deref(), Some("one\ntwo"));
        let p = probe(r#"{"error":null,"models":[1],"content":"plain"}"#);
        assert!(!p.error.is_set());
        assert!(p.models.0.is_empty());
        assert_eq!(p.content.0.as_deref(), Some("plain"));
        let p = probe(r#"{"error":"text","content":7}"#);
        assert!(p.error.is_set() && p.error.message().is_none());
        assert_eq!(p.content.0, None);
        assert!(!probe("{}").error.is_set());
    }
}
