//! Codex's `--json` events as typed, borrowing views in the manner of `agents::json`:
//! one struct per kind of event, with only the members the parser reads.

use serde::de::IgnoredAny;
use serde::{Deserialize, Deserializer};

use crate::agents::fields::ErrorField;
use crate::agents::json::{ErrorBody, Events, I64, List, Obj, Str, TokenCounts};

/// One `--json` event, read by its `type` into a struct with the members that kind of
/// event has (serde skips the others without building them). Each struct has the `type`
/// member, read and dropped, so that a line that repeats it is caught.
#[derive(Debug)]
pub(super) enum Line<'a> {
    ThreadStarted(ThreadStarted<'a>),
    ItemStarted(ItemLine<'a>),
    ItemCompleted(ItemLine<'a>),
    Error(ErrorLine<'a>),
    TurnCompleted(TurnCompleted),
    TurnFailed(TurnFailed<'a>),
    Other(OtherLine),
}

impl<'a> Events<'a> for Line<'a> {
    fn read<D: Deserializer<'a>>(tag: Option<&str>, d: D) -> Result<Self, D::Error> {
        Ok(match tag {
            Some("item.completed") => Line::ItemCompleted(ItemLine::deserialize(d)?),
            Some("item.started") => Line::ItemStarted(ItemLine::deserialize(d)?),
            Some("thread.started") => Line::ThreadStarted(ThreadStarted::deserialize(d)?),
            Some("error") => Line::Error(ErrorLine::deserialize(d)?),
            Some("turn.completed") => Line::TurnCompleted(TurnCompleted::deserialize(d)?),
            Some("turn.failed") => Line::TurnFailed(TurnFailed::deserialize(d)?),
            _ => Line::Other(OtherLine::deserialize(d)?),
        })
    }
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(super) struct ThreadStarted<'a> {
    #[serde(rename = "type")]
    _type: IgnoredAny,
    #[serde(borrow)]
    pub(super) thread_id: Str<'a>,
}

/// `item.started`, `item.completed`
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(super) struct ItemLine<'a> {
    #[serde(rename = "type")]
    _type: IgnoredAny,
    /// Boxed: it is the largest part of any event, and a small `Line` is cheap to move.
    #[serde(borrow)]
    pub(super) item: Obj<Box<Item<'a>>>,
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
pub(super) struct TurnCompleted {
    #[serde(rename = "type")]
    _type: IgnoredAny,
    pub(super) usage: Obj<TokenCounts>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(super) struct TurnFailed<'a> {
    #[serde(rename = "type")]
    _type: IgnoredAny,
    #[serde(borrow)]
    pub(super) error: Obj<ErrorBody<'a>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(super) struct OtherLine {
    #[serde(rename = "type")]
    _type: IgnoredAny,
}

/// A thread item: an agent message, an error, or a tool call of some kind.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(super) struct Item<'a> {
    #[serde(borrow)]
    pub(super) id: Str<'a>,
    #[serde(rename = "type", borrow)]
    pub(super) kind: Str<'a>,
    /// `agent_message`
    #[serde(borrow)]
    pub(super) text: Str<'a>,
    /// `error`
    #[serde(borrow)]
    pub(super) message: Str<'a>,
    /// `command_execution`
    #[serde(borrow)]
    pub(super) command: Str<'a>,
    pub(super) exit_code: I64,
    #[serde(borrow)]
    pub(super) aggregated_output: Str<'a>,
    /// `file_change`
    #[serde(borrow)]
    pub(super) changes: List<Obj<Change<'a>>>,
    /// `mcp_tool_call`
    #[serde(borrow)]
    pub(super) server: Str<'a>,
    #[serde(borrow)]
    pub(super) tool: Str<'a>,
    #[serde(borrow)]
    pub(super) error: ErrorField<'a>,
    /// `web_search`
    #[serde(borrow)]
    pub(super) query: Str<'a>,
    #[serde(borrow)]
    pub(super) status: Str<'a>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(super) struct Change<'a> {
    #[serde(borrow)]
    pub(super) path: Str<'a>,
}
