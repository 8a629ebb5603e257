//! Claude Code: `claude -p <prompt> --output-format stream-json --verbose
//! --include-partial-messages`, and its stream-json lines turned into events.
//!
//! - The role goes through `--append-system-prompt`, every turn (it is a flag of the
//!   run, not part of the saved session). A system text too large for one argument is
//!   put inline on top of the prompt instead, which then goes on stdin.
//! - The prompt follows `-p` directly, where no option of the member's `args` (some take
//!   several values, like `--allowedTools`) can swallow it; large prompts go on stdin.
//! - Success is `result.is_error == false`; `subtype: "success"` also comes with errors.
//! - Text comes from the `text_delta` stream events. The whole `assistant` blocks repeat
//!   it, so their text is used only for messages that were not streamed, and
//!   `result.result` only when no text came at all; an `assistant` line with `error`
//!   (not logged in, API errors) is an error message, not an answer.
//! - Lines with a `parent_tool_use_id` come from sub-agents and are left out.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};

use serde::de::value::MapAccessDeserializer;
use serde::de::{IgnoredAny, MapAccess};
use serde::{Deserialize, Deserializer};

use super::json::{
    Bool, ErrorBody, Events, Lenient, List, NonNull, Obj, Str, TokenCounts, ToolInput, U64,
    lenient, parse_line,
};
use super::output::{Paragraphs, ToolArguments, sanitize, tool_summary};
use super::plan::{self, ARGUMENT_LIMIT, base, extra_args, flag, inline, resume_session};
use super::reader::Turn;
use super::registry::AgentEntry;
use super::{AgentEvent, ExitInfo, Invocation, OutputParser, ToolStatus, Usage};
use crate::team::Member;

/// The flags the parser depends on.
pub const PROTOCOL_ARGS: [&str; 4] = [
    "--output-format",
    "stream-json",
    "--verbose",
    "--include-partial-messages",
];

/// The command line of one claude turn.
pub fn plan(
    entry: &AgentEntry,
    member: &Member,
    system: &str,
    body: &str,
    resume: Option<&str>,
) -> Invocation {
    let resume = resume_session(member, resume);
    let mut invocation = base(entry, member, true);
    let (system_flag, prompt) = if system.len() <= ARGUMENT_LIMIT {
        (Some(system).filter(|s| !s.is_empty()), body.to_owned())
    } else {
        (None, inline(system, body))
    };
    invocation.args.push("-p".to_owned());
    plan::prompt(&mut invocation, prompt, None);
    invocation.args.extend(PROTOCOL_ARGS.map(String::from));
    flag(&mut invocation, "--resume", resume);
    flag(&mut invocation, "--append-system-prompt", system_flag);
    extra_args(&mut invocation, entry, member);
    invocation
}

/// One stream-json line, read by its `type` into a struct with the members that kind of
/// line has (serde skips the others without building them). Each struct has the `type`
/// member, read and dropped, so that a line that repeats it is caught, and
/// `parent_tool_use_id`, which marks the lines of sub-agents.
#[derive(Debug)]
enum Line<'a> {
    Stream(StreamLine<'a>),
    // The others are boxed: they are rare, and a small `Line` is cheap to move.
    System(Box<SystemLine<'a>>),
    Assistant(Box<MessageLine<'a>>),
    User(Box<MessageLine<'a>>),
    Result(Box<ResultLine<'a>>),
    Other(OtherLine),
}

impl<'a> Events<'a> for Line<'a> {
    fn read<D: Deserializer<'a>>(tag: Option<&str>, d: D) -> Result<Self, D::Error> {
        Ok(match tag {
            Some("stream_event") => Line::Stream(StreamLine::deserialize(d)?),
            Some("assistant") => Line::Assistant(Deserialize::deserialize(d)?),
            Some("user") => Line::User(Deserialize::deserialize(d)?),
            Some("system") => Line::System(Deserialize::deserialize(d)?),
            Some("result") => Line::Result(Deserialize::deserialize(d)?),
            _ => Line::Other(OtherLine::deserialize(d)?),
        })
    }
}

impl Line<'_> {
    /// Whether the line comes from a sub-agent (it has a `parent_tool_use_id`).
    fn sub_agent(&self) -> bool {
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
struct Head<'a> {
    #[serde(rename = "type")]
    _type: IgnoredAny,
    #[serde(borrow)]
    session_id: Str<'a>,
    #[serde(borrow)]
    subtype: Str<'a>,
    #[serde(borrow)]
    model: Str<'a>,
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
struct StreamLine<'a> {
    #[serde(rename = "type")]
    _type: IgnoredAny,
    parent_tool_use_id: NonNull,
    #[serde(borrow)]
    event: Obj<StreamEvent<'a>>,
}

/// `system`: `init`, status, and `api_retry` notices.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct SystemLine<'a> {
    #[serde(rename = "type")]
    _type: IgnoredAny,
    parent_tool_use_id: NonNull,
    #[serde(borrow)]
    subtype: Str<'a>,
    #[serde(borrow)]
    error: ErrorValue<'a>,
    error_status: U64,
    attempt: U64,
    max_retries: U64,
    retry_delay_ms: U64,
}

/// `assistant` and `user`: a whole message.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct MessageLine<'a> {
    #[serde(rename = "type")]
    _type: IgnoredAny,
    parent_tool_use_id: NonNull,
    #[serde(borrow)]
    message: Obj<Message<'a>>,
    /// The error kind of a synthetic message (not logged in, API errors).
    #[serde(borrow)]
    error: ErrorValue<'a>,
}

/// `result`: the end of the turn.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct ResultLine<'a> {
    #[serde(rename = "type")]
    _type: IgnoredAny,
    parent_tool_use_id: NonNull,
    #[serde(borrow)]
    subtype: Str<'a>,
    is_error: Bool,
    #[serde(borrow)]
    result: Str<'a>,
    #[serde(borrow)]
    stop_reason: Str<'a>,
    usage: Obj<TokenCounts>,
}

/// Any other kind of line.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct OtherLine {
    #[serde(rename = "type")]
    _type: IgnoredAny,
    parent_tool_use_id: NonNull,
}

/// The API's streaming event; only `message_start`, `content_block_start` and
/// `content_block_delta` matter.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct StreamEvent<'a> {
    #[serde(rename = "type")]
    kind: Kind,
    /// `message_start`
    #[serde(borrow)]
    message: Obj<MessageId<'a>>,
    /// `content_block_start`
    #[serde(borrow)]
    content_block: Obj<TextPart<'a>>,
    /// `content_block_delta`
    #[serde(borrow)]
    delta: Obj<TextPart<'a>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct MessageId<'a> {
    #[serde(borrow)]
    id: Str<'a>,
}

/// A content block or delta, for its text.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct TextPart<'a> {
    #[serde(rename = "type")]
    kind: Kind,
    #[serde(borrow)]
    text: Str<'a>,
}

/// The `type` of a stream event or of its parts, among those the parser looks at.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
enum Kind {
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
struct Message<'a> {
    #[serde(borrow)]
    id: Str<'a>,
    #[serde(borrow)]
    content: List<Obj<Block<'a>>>,
}

/// A content block of a whole message: `text`, `tool_use` or `tool_result`.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Block<'a> {
    #[serde(rename = "type", borrow)]
    kind: Str<'a>,
    #[serde(borrow)]
    text: Str<'a>,
    #[serde(borrow)]
    id: Str<'a>,
    #[serde(borrow)]
    name: Str<'a>,
    #[serde(borrow)]
    input: Obj<ToolInput<'a>>,
    #[serde(borrow)]
    tool_use_id: Str<'a>,
    is_error: Bool,
}

/// An `error` member: text, an object with a `message`, or anything else.
#[derive(Debug, Default)]
enum ErrorValue<'a> {
    #[default]
    Absent,
    Null,
    Text(Cow<'a, str>),
    Object(ErrorBody<'a>),
    Other,
}

impl ErrorValue<'_> {
    /// Whether the member is there and not `null`.
    fn is_set(&self) -> bool {
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

/// Reads claude's stream-json output.
#[derive(Debug)]
pub struct ClaudeParser {
    turn: Turn,
    started: bool,
    /// Ids of messages whose text arrived as deltas (their `assistant` copies are skipped).
    streamed: HashSet<String>,
    any_delta: bool,
    paragraphs: Paragraphs,
    /// Tool call id → summary, to name the result when it comes back.
    tools: HashMap<String, String>,
    /// The text of an `assistant` line flagged as an error.
    error_text: Option<String>,
}

impl ClaudeParser {
    /// A parser whose messages name the agent `agent` (the registry entry's name).
    pub fn new(agent: &str) -> ClaudeParser {
        ClaudeParser {
            turn: Turn::new(agent),
            started: false,
            streamed: HashSet::new(),
            any_delta: false,
            paragraphs: Paragraphs::default(),
            tools: HashMap::new(),
            error_text: None,
        }
    }

    /// `Started`, from the first line with a session (but not a `result`: a run that fails
    /// before it starts, on an unknown resume id, reports only that, and its session is
    /// not one to keep).
    fn start(&mut self, line: &str, out: &mut Vec<AgentEvent>) {
        // The line was read as an event, so it reads as a head too.
        let Ok(Some(head)) = parse_line::<Head>(&self.turn.agent, line) else {
            return;
        };
        if let Some(session) = head.session_id.get() {
            self.started = true;
            let init = head.subtype.is("init");
            out.push(AgentEvent::Started {
                session: Some(session.to_owned()),
                model: head.model.get().filter(|_| init).map(str::to_owned),
            });
        }
    }

    fn event(&mut self, line: Line<'_>, out: &mut Vec<AgentEvent>) {
        // Sub-agents (the Task tool) report through the same stream; their words are
        // not this member's answer.
        if line.sub_agent() {
            return;
        }
        match line {
            Line::System(line) if line.subtype.is("api_retry") => {
                out.push(AgentEvent::Notice(self.retry_notice(&line)));
            }
            Line::Stream(line) => {
                if let Some(event) = line.event.into_inner() {
                    self.stream_event(event, out);
                }
            }
            Line::Assistant(line) => self.assistant(*line, out),
            Line::User(line) => self.tool_results(&line, out),
            Line::Result(line) => {
                // A run whose answer came in neither deltas nor blocks still has it here.
                let success = line.is_error.0 == Some(false);
                if success && !self.paragraphs.wrote() {
                    out.extend(self.paragraphs.text(line.result.get().unwrap_or("")));
                }
                out.push(self.result(&line));
            }
            Line::System(_) | Line::Other(_) => {}
        }
    }

    fn stream_event(&mut self, event: StreamEvent<'_>, out: &mut Vec<AgentEvent>) {
        match event.kind {
            Kind::MessageStart => {
                if let Some(id) = event.message.get().and_then(|m| m.id.get())
                    && !self.streamed.contains(id)
                {
                    self.streamed.insert(id.to_owned());
                }
            }
            Kind::ContentBlockStart => {
                if let Some(block) = event.content_block.into_inner()
                    && block.kind == Kind::Text
                {
                    self.paragraphs.block_ends();
                    out.extend(self.paragraphs.push(block.text.0.unwrap_or_default()));
                }
            }
            Kind::ContentBlockDelta => {
                if let Some(delta) = event.delta.into_inner()
                    && delta.kind == Kind::TextDelta
                {
                    self.any_delta = true;
                    out.extend(self.paragraphs.push(delta.text.0.unwrap_or_default()));
                }
            }
            _ => {}
        }
    }

    fn assistant(&mut self, line: MessageLine<'_>, out: &mut Vec<AgentEvent>) {
        let is_error = line.error.is_set();
        let Some(message) = line.message.into_inner() else {
            return;
        };
        let streamed = match message.id.get() {
            Some(id) => self.streamed.contains(id),
            None => self.any_delta,
        };
        for block in message.content.0.into_iter().filter_map(Obj::into_inner) {
            match block.kind.get() {
                Some("text") => {
                    let text = block.text.0.unwrap_or_default();
                    if is_error {
                        self.error_text = Some(sanitize(&text));
                    } else if !streamed {
                        self.paragraphs.block_ends();
                        out.extend(self.paragraphs.push(text));
                    }
                }
                Some("tool_use") => {
                    let summary = tool_summary(
                        block.name.get().unwrap_or("tool"),
                        block.input.get().map(|input| input as &dyn ToolArguments),
                    );
                    if let Some(id) = block.id.get() {
                        self.tools.insert(id.to_owned(), summary.clone());
                    }
                    out.push(AgentEvent::Tool {
                        summary,
                        status: ToolStatus::Started,
                    });
                }
                _ => {}
            }
        }
    }

    fn tool_results(&mut self, line: &MessageLine<'_>, out: &mut Vec<AgentEvent>) {
        let Some(message) = line.message.get() else {
            return;
        };
        for block in message.content.0.iter().filter_map(Obj::get) {
            if !block.kind.is("tool_result") {
                continue;
            }
            let summary = block
                .tool_use_id
                .get()
                .and_then(|id| self.tools.get(id).cloned())
                .unwrap_or_else(|| "tool".to_owned());
            let failed = block.is_error.0 == Some(true);
            out.push(AgentEvent::Tool {
                summary,
                status: if failed {
                    ToolStatus::Failed
                } else {
                    ToolStatus::Completed
                },
            });
        }
    }

    fn result(&mut self, line: &ResultLine<'_>) -> AgentEvent {
        self.turn.finished = true;
        if line.is_error.0 == Some(false) {
            let usage = line.usage.is_present().then(|| {
                let counts = line.usage.get();
                let count =
                    |field: fn(&TokenCounts) -> U64| counts.map_or(0, |c| field(c).or_zero());
                Usage {
                    // Anthropic counts cached prompt tokens apart; the model read them all.
                    input_tokens: count(|c| c.input_tokens)
                        + count(|c| c.cache_creation_input_tokens)
                        + count(|c| c.cache_read_input_tokens),
                    output_tokens: count(|c| c.output_tokens),
                }
            });
            return AgentEvent::Done {
                stop_reason: line.stop_reason.get().map(str::to_owned),
                usage,
            };
        }
        let own = line
            .result
            .get()
            .map(sanitize)
            .filter(|text| !text.trim().is_empty())
            .or_else(|| self.error_text.clone())
            .or_else(|| self.turn.stray.clone());
        let message =
            own.map(|text| text.trim().to_owned())
                .unwrap_or_else(|| match line.subtype.get() {
                    Some("error_max_turns") => {
                        format!("{} reached its turn limit (--max-turns)", self.turn.agent)
                    }
                    Some("error_max_budget_usd") => {
                        format!("{} reached its budget (--max-budget-usd)", self.turn.agent)
                    }
                    Some(subtype) => {
                        format!("{} ended with an error ({subtype})", self.turn.agent)
                    }
                    None => format!("{} ended with an error", self.turn.agent),
                });
        AgentEvent::Failed { message }
    }

    fn retry_notice(&self, line: &SystemLine<'_>) -> String {
        let status = line
            .error_status
            .0
            .map(|s| format!(" {s}"))
            .unwrap_or_default();
        let error = match &line.error {
            ErrorValue::Text(text) => format!(": {}", sanitize(text)),
            ErrorValue::Object(body) => body
                .message
                .get()
                .map(|text| format!(": {}", sanitize(text)))
                .unwrap_or_default(),
            ErrorValue::Absent | ErrorValue::Null | ErrorValue::Other => String::new(),
        };
        format!(
            "{} is retrying after API error{status}{error} (attempt {} of {}, next in {} ms)",
            self.turn.agent,
            line.attempt.or_zero(),
            line.max_retries.or_zero(),
            line.retry_delay_ms.or_zero(),
        )
    }
}

impl OutputParser for ClaudeParser {
    fn line(&mut self, line: &str, out: &mut Vec<AgentEvent>) {
        out.extend(super::resume::claude_not_found(line));
        if let Some(parsed) = self.turn.read::<Line>(line, out) {
            if !self.started && !matches!(parsed, Line::Result(_)) {
                self.start(line, out);
            }
            self.event(parsed, out);
        }
    }

    fn finish(&mut self, exit: &ExitInfo, out: &mut Vec<AgentEvent>) {
        if self.turn.exited() {
            out.push(self.turn.failure(self.error_text.as_deref(), &[], exit));
        }
    }
}
