//! Codex's `--json` events as typed, borrowing views in the manner of `agents::json`:
//! one struct per kind of event, with only the members the parser reads.

use serde::Deserialize;
use serde::de::IgnoredAny;

use crate::agents::fields::ErrorField;
use crate::agents::json::{
    ErrorBody, ErrorLine, I64, List, Obj, OtherLine, Str, TokenCounts, lines_by_type,
};

lines_by_type! {
    /// One `--json` event, read by its `type` into a struct with the members that kind
    /// of event has (serde skips the others without building them). Each struct has the
    /// `type` member, read and dropped, so that a line that repeats it is caught.
    pub(super) enum Line<'a> {
        "thread.started" => ThreadStarted(ThreadStarted<'a>),
        "item.started" => ItemStarted(ItemLine<'a>),
        "item.completed" => ItemCompleted(ItemLine<'a>),
        "error" => Error(ErrorLine<'a>),
        "turn.completed" => TurnCompleted(TurnCompleted),
        "turn.failed" => TurnFailed(TurnFailed<'a>),
        _ => Other(OtherLine),
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
