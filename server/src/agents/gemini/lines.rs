//! Gemini's stream-json lines as typed, borrowing views in the manner of
//! `agents::json`: one struct per kind of line, with only the members the parser reads.

use serde::Deserialize;
use serde::de::IgnoredAny;

use crate::agents::fields::Members;
use crate::agents::json::{
    Bool, ErrorBody, ErrorLine, Obj, OtherLine, Str, ToolInput, U64, lines_by_type,
};
use crate::agents::output::sanitize;
use crate::agents::provenance::{ModelTokens, routed_model};

lines_by_type! {
    /// One stream-json line, read by its `type` into a struct with the members that
    /// kind of line has (serde skips the others without building them). Each struct has
    /// the `type` member, read and dropped, so that a line that repeats it is caught.
    pub(super) enum Line<'a> {
        "message" => Message(MessageLine<'a>),
        "init" => Init(Box<InitLine<'a>>),
        "tool_use" => ToolUse(Box<ToolUseLine<'a>>),
        "tool_result" => ToolResult(Box<ToolResultLine<'a>>),
        "error" => Error(Box<ErrorLine<'a>>),
        "result" => Result(Box<ResultLine<'a>>),
        _ => Other(OtherLine),
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
