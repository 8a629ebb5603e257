//! Objects that the lines of more than one CLI hold: a tool call's input, token counts,
//! an error body; and the lines codex and gemini write alike.

use serde::de::IgnoredAny;

use super::types::{Str, U64};

/// The members of a tool call's input that can say what it acts on, in the order
/// [`crate::agents::tools::tool_summary`] looks at them.
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

/// An `error` line: `{"type":"error","message":...}` (codex, gemini).
#[derive(Debug, Default, serde::Deserialize)]
#[serde(default)]
pub struct ErrorLine<'a> {
    #[serde(rename = "type")]
    _type: IgnoredAny,
    #[serde(borrow)]
    pub message: Str<'a>,
}

/// A line of a kind the parser does not read (codex, gemini).
#[derive(Debug, Default, serde::Deserialize)]
#[serde(default)]
pub struct OtherLine {
    #[serde(rename = "type")]
    _type: IgnoredAny,
}
