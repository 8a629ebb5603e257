//! Typed, borrowing views of the CLIs' JSON lines, as forgiving as `serde_json::Value`.
//!
//! The parsers read each line into small structs that name only the fields they use:
//! serde skips every other field without building it, and strings without escapes are
//! borrowed from the line. The field types here never reject a value of an unexpected
//! JSON type; they read it the way `Value::as_str`, `as_u64`, `get` and friends would
//! (a number where a string was expected is simply no string), so a line that is valid
//! JSON is never refused because a CLI changed a field's type.
//!
//! This module reads a line by its `type`; `lenient` is how a field reads any JSON
//! value, `types` has the field types and `shared` the objects several CLIs' lines hold.

mod lenient;
mod shared;
mod types;

pub use lenient::{Lenient, lenient};
pub use shared::{ErrorBody, ErrorLine, OtherLine, TokenCounts, ToolInput};
pub use types::{Bool, F64, I64, List, NonNull, Obj, Str, U64};

use std::borrow::Cow;

use serde::de::Deserializer;
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

/// Declares the lines of one CLI: an enum with a variant per `type` tag, and one for
/// every other tag, read by [`Events::read`] into the variant's struct (a boxed one
/// for a rare, large kind of line: a small enum is cheap to move).
macro_rules! lines_by_type {
    (
        $(#[$doc:meta])*
        $vis:vis enum $name:ident<$lt:lifetime> {
            $($tag:literal => $variant:ident($ty:ty),)*
            _ => $other:ident($other_ty:ty) $(,)?
        }
    ) => {
        $(#[$doc])*
        #[derive(Debug)]
        $vis enum $name<$lt> {
            $($variant($ty),)*
            $other($other_ty),
        }

        impl<$lt> $crate::agents::json::Events<$lt> for $name<$lt> {
            fn read<D: serde::Deserializer<$lt>>(
                tag: Option<&str>,
                d: D,
            ) -> Result<Self, D::Error> {
                Ok(match tag {
                    $(Some($tag) => $name::$variant(serde::Deserialize::deserialize(d)?),)*
                    _ => $name::$other(serde::Deserialize::deserialize(d)?),
                })
            }
        }
    };
}
pub(crate) use lines_by_type;

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

#[cfg(test)]
mod tests;
