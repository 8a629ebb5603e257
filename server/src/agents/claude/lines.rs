//! Claude's stream-json lines as typed, borrowing views in the manner of
//! `agents::json`: one struct per kind of line, with only the members the parser reads.

use std::borrow::Cow;

use serde::de::value::MapAccessDeserializer;
use serde::de::{IgnoredAny, MapAccess};
use serde::{Deserialize, Deserializer};

use crate::agents::fields::Content;
use crate::agents::json::{
    Bool, ErrorBody, Events, F64, Lenient, List, NonNull, Obj, Str, TokenCounts, ToolInput, U64,
    lenient, lines_by_type,
};
use crate::agents::permissions::DenialEntry;

lines_by_type! {
    /// One stream-json line, read by its `type` into a struct with the members that
    /// kind of line has (serde skips the others without building them). Each struct has
    /// the `type` member, read and dropped, so that a line that repeats it is caught,
    /// and `parent_tool_use_id`, which marks the lines of sub-agents.
    pub(super) enum Line<'a> {
        "stream_event" => Stream(StreamLine<'a>),
        "system" => System(Box<SystemLine<'a>>),
        "assistant" => Assistant(Box<MessageLine<'a>>),
        "user" => User(Box<MessageLine<'a>>),
        "result" => Result(Box<ResultLine<'a>>),
        _ => Other(OtherLine),
    }
}

impl Line<'_> {
    /// Whether the line comes from a sub-agent (it has a `parent_tool_use_id`).
    pub(super) fn sub_agent(&self) -> bool {
        match self {
            Line::Stream(line) => line.parent_tool_use_id.0,
            Line::System(line) => line.parent_tool_use_id.0,
            Line::Assistant(line) | Line::User(line) => line.parent_tool_use_id.0,
            Line::Result(line) => line.parent_tool_use_id.0,
            Line::Other(line) => line.parent_tool_use_id.0,
        }
    }
}

/// What starts the turn, from whichever line comes first with a `session_id` (the
/// `system`/`init` line, normally). Read in a pass of its own, only until then.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(super) struct Head<'a> {
    #[serde(rename = "type")]
    _type: IgnoredAny,
    #[serde(borrow)]
    pub(super) session_id: Str<'a>,
    #[serde(borrow)]
    pub(super) subtype: Str<'a>,
    #[serde(borrow)]
    pub(super) model: Str<'a>,
    #[serde(borrow)]
    pub(super) claude_code_version: Str<'a>,
}

impl<'a> Events<'a> for Head<'a> {
    fn read<D: Deserializer<'a>>(_: Option<&str>, d: D) -> Result<Self, D::Error> {
        Head::deserialize(d)
    }
}

/// `stream_event`: one of the API's streaming events. The most frequent line by far,
/// so it is kept small.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(super) struct StreamLine<'a> {
    #[serde(rename = "type")]
    _type: IgnoredAny,
    pub(super) parent_tool_use_id: NonNull,
    #[serde(borrow)]
    pub(super) event: Obj<StreamEvent<'a>>,
}

/// `system`: `init`, status, and `api_retry` notices.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(super) struct SystemLine<'a> {
    #[serde(rename = "type")]
    _type: IgnoredAny,
    pub(super) parent_tool_use_id: NonNull,
    #[serde(borrow)]
    pub(super) subtype: Str<'a>,
    #[serde(borrow)]
    pub(super) error: ErrorValue<'a>,
    pub(super) error_status: U64,
    pub(super) attempt: U64,
    pub(super) max_retries: U64,
}

/// `assistant` and `user`: a whole message.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(super) struct MessageLine<'a> {
    #[serde(rename = "type")]
    _type: IgnoredAny,
    pub(super) parent_tool_use_id: NonNull,
    #[serde(borrow)]
    pub(super) message: Obj<Message<'a>>,
    /// The error kind of a synthetic message (not logged in, API errors).
    #[serde(borrow)]
    pub(super) error: ErrorValue<'a>,
}

/// `result`: the end of the turn.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(super) struct ResultLine<'a> {
    #[serde(rename = "type")]
    _type: IgnoredAny,
    pub(super) parent_tool_use_id: NonNull,
    #[serde(borrow)]
    pub(super) subtype: Str<'a>,
    pub(super) is_error: Bool,
    #[serde(borrow)]
    pub(super) result: Str<'a>,
    #[serde(borrow)]
    pub(super) stop_reason: Str<'a>,
    pub(super) usage: Obj<TokenCounts>,
    /// What the run cost, in US dollars (claude's own estimate).
    pub(super) total_cost_usd: F64,
    /// Tool calls refused for want of an approval (`-p` cannot ask).
    #[serde(borrow)]
    pub(super) permission_denials: List<Obj<DenialEntry<'a>>>,
}

/// Any other kind of line.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(super) struct OtherLine {
    #[serde(rename = "type")]
    _type: IgnoredAny,
    pub(super) parent_tool_use_id: NonNull,
}

/// The API's streaming event; only `message_start`, `content_block_start` and
/// `content_block_delta` matter.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(super) struct StreamEvent<'a> {
    #[serde(rename = "type")]
    pub(super) kind: Kind,
    /// `message_start`
    #[serde(borrow)]
    pub(super) message: Obj<MessageId<'a>>,
    /// `content_block_start`
    #[serde(borrow)]
    pub(super) content_block: Obj<TextPart<'a>>,
    /// `content_block_delta`
    #[serde(borrow)]
    pub(super) delta: Obj<TextPart<'a>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(super) struct MessageId<'a> {
    #[serde(borrow)]
    pub(super) id: Str<'a>,
}

/// A content block or delta, for its text.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(super) struct TextPart<'a> {
    #[serde(rename = "type")]
    pub(super) kind: Kind,
    #[serde(borrow)]
    pub(super) text: Str<'a>,
}

/// The `type` of a stream event or of its parts, among those the parser looks at.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    MessageStart,
    ContentBlockStart,
    ContentBlockDelta,
    Text,
    TextDelta,
    #[default]
    Other,
}

impl Lenient<'_> for Kind {
    fn other() -> Self {
        Kind::Other
    }

    fn transient_str(text: &str) -> Self {
        match text {
            "message_start" => Kind::MessageStart,
            "content_block_start" => Kind::ContentBlockStart,
            "content_block_delta" => Kind::ContentBlockDelta,
            "text" => Kind::Text,
            "text_delta" => Kind::TextDelta,
            _ => Kind::Other,
        }
    }
}

impl<'de> Deserialize<'de> for Kind {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        lenient(d)
    }
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(super) struct Message<'a> {
    #[serde(borrow)]
    pub(super) id: Str<'a>,
    #[serde(borrow)]
    pub(super) content: List<Obj<Block<'a>>>,
}

/// A content block of a whole message: `text`, `tool_use` or `tool_result`.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(super) struct Block<'a> {
    #[serde(rename = "type", borrow)]
    pub(super) kind: Str<'a>,
    #[serde(borrow)]
    pub(super) text: Str<'a>,
    #[serde(borrow)]
    pub(super) id: Str<'a>,
    #[serde(borrow)]
    pub(super) name: Str<'a>,
    #[serde(borrow)]
    pub(super) input: Obj<ToolInput<'a>>,
    #[serde(borrow)]
    pub(super) tool_use_id: Str<'a>,
    pub(super) is_error: Bool,
    /// A `tool_result`'s output (its error text when `is_error`).
    pub(super) content: Content,
}

/// An `error` member: text, an object with a `message`, or anything else.
#[derive(Debug, Default)]
pub(super) enum ErrorValue<'a> {
    #[default]
    Absent,
    Null,
    Text(Cow<'a, str>),
    Object(ErrorBody<'a>),
    Other,
}

impl ErrorValue<'_> {
    /// Whether the member is there and not `null`.
    pub(super) fn is_set(&self) -> bool {
        !matches!(self, ErrorValue::Absent | ErrorValue::Null)
    }
}

impl<'de: 'a, 'a> Lenient<'de> for ErrorValue<'a> {
    fn other() -> Self {
        ErrorValue::Other
    }

    fn null() -> Self {
        ErrorValue::Null
    }

    fn borrowed_str(text: &'de str) -> Self {
        ErrorValue::Text(Cow::Borrowed(text))
    }

    fn transient_str(text: &str) -> Self {
        ErrorValue::Text(Cow::Owned(text.to_owned()))
    }

    fn owned_string(text: String) -> Self {
        ErrorValue::Text(Cow::Owned(text))
    }

    fn object<A: MapAccess<'de>>(map: A) -> Result<Self, A::Error> {
        ErrorBody::deserialize(MapAccessDeserializer::new(map)).map(ErrorValue::Object)
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for ErrorValue<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        lenient(d)
    }
}
