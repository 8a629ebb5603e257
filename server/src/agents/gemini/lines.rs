//! Gemini's stream-json lines as typed, borrowing views in the manner of
//! `agents::json`: one struct per kind of line, with only the members the parser reads.

use serde::de::IgnoredAny;
use serde::{Deserialize, Deserializer};

use crate::agents::fields::Members;
use crate::agents::json::{Bool, ErrorBody, Events, Obj, Str, ToolInput, U64};
use crate::agents::output::sanitize;
use crate::agents::provenance::{ModelTokens, routed_model};

/// One stream-json line, read by its `type` into a struct with the members that kind of
/// line has (serde skips the others without building them). Each struct has the `type`
/// member, read and dropped, so that a line that repeats it is caught.
#[derive(Debug)]
pub(super) enum Line<'a> {
    Message(MessageLine<'a>),
    // The others are boxed: they are rare, and a small `Line` is cheap to move.
    Init(Box<InitLine<'a>>),
    ToolUse(Box<ToolUseLine<'a>>),
    ToolResult(Box<ToolResultLine<'a>>),
    Error(Box<ErrorLine<'a>>),
    Result(Box<ResultLine<'a>>),
    Other(OtherLine),
}

impl<'a> Events<'a> for Line<'a> {
    fn read<D: Deserializer<'a>>(tag: Option<&str>, d: D) -> Result<Self, D::Error> {
        Ok(match tag {
            Some("message") => Line::Message(MessageLine::deserialize(d)?),
            Some("init") => Line::Init(Deserialize::deserialize(d)?),
            Some("tool_use") => Line::ToolUse(Deserialize::deserialize(d)?),
            Some("tool_result") => Line::ToolResult(Deserialize::deserialize(d)?),
            Some("error") => Line::Error(Deserialize::deserialize(d)?),
            Some("result") => Line::Result(Deserialize::deserialize(d)?),
            _ => Line::Other(OtherLine::deserialize(d)?),
        })
    }
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(super) struct InitLine<'a> {
    #[serde(rename = "type")]
    _type: IgnoredAny,
    #[serde(borrow)]
    pub(super) session_id: Str<'a>,
    #[serde(borrow)]
    pub(super) model: Str<'a>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(super) struct MessageLine<'a> {
    #[serde(rename = "type")]
    _type: IgnoredAny,
    #[serde(borrow)]
    pub(super) role: Str<'a>,
    #[serde(borrow)]
    pub(super) content: Str<'a>,
    pub(super) delta: Bool,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(super) struct ToolUseLine<'a> {
    #[serde(rename = "type")]
    _type: IgnoredAny,
    #[serde(borrow)]
    pub(super) tool_name: Str<'a>,
    #[serde(borrow)]
    pub(super) tool_id: Str<'a>,
    #[serde(borrow)]
    pub(super) parameters: Obj<ToolInput<'a>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(super) struct ToolResultLine<'a> {
    #[serde(rename = "type")]
    _type: IgnoredAny,
    #[serde(borrow)]
    pub(super) tool_id: Str<'a>,
    #[serde(borrow)]
    pub(super) status: Str<'a>,
    #[serde(borrow)]
    pub(super) output: Str<'a>,
    #[serde(borrow)]
    pub(super) error: Obj<ErrorBody<'a>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(super) struct ErrorLine<'a> {
    #[serde(rename = "type")]
    _type: IgnoredAny,
    #[serde(borrow)]
    pub(super) message: Str<'a>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(super) struct ResultLine<'a> {
    #[serde(rename = "type")]
    _type: IgnoredAny,
    #[serde(borrow)]
    pub(super) status: Str<'a>,
    #[serde(borrow)]
    pub(super) error: Obj<ErrorBody<'a>>,
    pub(super) stats: Obj<Stats>,
}

/// `result.stats`: the turn's tokens, in all and per model.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(super) struct Stats {
    pub(super) input_tokens: U64,
    pub(super) output_tokens: U64,
    pub(super) models: Members<Obj<ModelStats>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(super) struct ModelStats {
    pub(super) input_tokens: U64,
    pub(super) output_tokens: U64,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(super) struct OtherLine {
    #[serde(rename = "type")]
    _type: IgnoredAny,
}

impl Stats {
    /// The model that answered (not the router's classifier call).
    pub(super) fn answering_model(&self) -> Option<String> {
        let models = self.models.0.iter().map(|(name, stats)| {
            let stats = stats.get();
            let tokens = ModelTokens {
                input_tokens: stats.map_or(0, |s| s.input_tokens.or_zero()),
                output_tokens: stats.map_or(0, |s| s.output_tokens.or_zero()),
            };
            (name.as_str(), tokens)
        });
        routed_model(models).map(sanitize)
    }
}
