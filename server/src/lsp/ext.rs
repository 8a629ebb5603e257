//! chatmd's extensions to the protocol, in one place (taplo's `lsp_ext`): the custom
//! request and notifications, the commands `workspace/executeCommand` answers, and
//! the types of their params. Editor plugins speak these names
//! (docs/editor-features.md); the server refers to them only through this module.

use serde::{Deserialize, Serialize};
use tower_lsp_server::jsonrpc::{Error, Result};
use tower_lsp_server::ls_types::notification::Notification;
use tower_lsp_server::ls_types::request::Request;
use tower_lsp_server::ls_types::{ExecuteCommandParams, Uri};

use crate::turns::runs::Runs;

/// `chatmd/turns`: the running turns, for status bars (params `{}`).
pub enum Turns {}

impl Request for Turns {
    type Params = serde_json::Value;
    type Result = RunningTurns;
    const METHOD: &'static str = "chatmd/turns";
}

/// `chatmd/turnsChanged`: the running turns, sent whenever one starts or ends.
pub enum TurnsChanged {}

impl Notification for TurnsChanged {
    type Params = RunningTurns;
    const METHOD: &'static str = "chatmd/turnsChanged";
}

/// What `chatmd/turns` answers and `chatmd/turnsChanged` carries.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunningTurns {
    pub turns: Vec<RunningTurn>,
}

/// One running turn.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RunningTurn {
    /// The chat's URI.
    pub uri: String,
    pub member: String,
    /// `streaming`, or `waiting` while the agent waits for the user's answer to a
    /// permission request (the list holds running turns only).
    pub status: String,
    pub elapsed_ms: u64,
    /// How much answer text the turn wrote so far.
    pub bytes: usize,
}

impl RunningTurns {
    pub fn of(running: &Runs) -> RunningTurns {
        let turns = running.list().into_iter().map(|t| RunningTurn {
            uri: t.document,
            member: t.member,
            status: if t.waiting { "waiting" } else { "streaming" }.to_owned(),
            elapsed_ms: t.elapsed.as_millis() as u64,
            bytes: t.bytes,
        });
        RunningTurns {
            turns: turns.collect(),
        }
    }
}

/// `chatmd/stagedSync`: the stand-in notification `framing` puts in place of a large
/// `didOpen` or `didChange`, whose params it kept (`framing::staged`). Never sent by
/// a client.
pub enum StagedSync {}

impl Notification for StagedSync {
    type Params = crate::lsp::framing::StagedKey;
    const METHOD: &'static str = "chatmd/stagedSync";
}

/// `chatmd/rawDocumentSymbol`: `textDocument/documentSymbol` as `framing` passes it on,
/// answered with a token for the serialized outline (`framing::output`). Never sent by
/// a client.
pub enum RawDocumentSymbol {}

impl Request for RawDocumentSymbol {
    type Params = tower_lsp_server::ls_types::DocumentSymbolParams;
    type Result = Option<crate::lsp::framing::RawToken>;
    const METHOD: &'static str = "chatmd/rawDocumentSymbol";
}

/// `textDocument/publishDiagnostics` with a token for the serialized params
/// (`framing::output` writes them in its place): a chat with 1000 problems would
/// otherwise go through a `serde_json::Value` tree of a few MB.
pub enum RawPublishDiagnostics {}

impl tower_lsp_server::ls_types::notification::Notification for RawPublishDiagnostics {
    type Params = crate::lsp::framing::RawToken;
    const METHOD: &'static str = "textDocument/publishDiagnostics";
}

/// `chatmd/rawFoldingRange`: `textDocument/foldingRange` as `framing` passes it on,
/// answered like [`RawDocumentSymbol`].
pub enum RawFoldingRange {}

impl Request for RawFoldingRange {
    type Params = tower_lsp_server::ls_types::FoldingRangeParams;
    type Result = Option<crate::lsp::framing::RawToken>;
    const METHOD: &'static str = "chatmd/rawFoldingRange";
}

/// `chatmd/diagnostics {uri}`: asked of the editor when a message with
/// `#diagnostics:path` is sent: the problems it shows for that file (every language
/// server's, not only chatmd's), as LSP diagnostics; `null` when it has none to tell.
pub enum SourceDiagnostics {}

impl Request for SourceDiagnostics {
    type Params = SourceDiagnosticsParams;
    type Result = Option<SourceDiagnosticsResult>;
    const METHOD: &'static str = "chatmd/diagnostics";
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SourceDiagnosticsParams {
    pub uri: Uri,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SourceDiagnosticsResult {
    pub diagnostics: Vec<tower_lsp_server::ls_types::Diagnostic>,
}

/// `chatmd/readBuffer {uri}`: asked of the editor when an agent reads a file
/// (ACP `fs/read_text_file`): the text of that file's buffer as the editor holds it,
/// unsaved changes included, or `null` when the file is not open there (then the disk
/// is read). Sent only to a client that declares it in `initialize`'s
/// `capabilities.experimental` as [`READ_BUFFER_CAPABILITY`]`: true`.
pub enum ReadBuffer {}

impl Request for ReadBuffer {
    type Params = ReadBufferParams;
    type Result = Option<ReadBufferResult>;
    const METHOD: &'static str = "chatmd/readBuffer";
}

/// The key under `capabilities.experimental` by which a client says it answers
/// `chatmd/readBuffer`.
pub const READ_BUFFER_CAPABILITY: &str = "chatmdReadBuffer";

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReadBufferParams {
    pub uri: Uri,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReadBufferResult {
    pub text: String,
}

/// `chatmd/invalidMessage`: the stand-in request `framing` puts in place of a
/// malformed client message; the server answers it with the error in its params, so
/// the client gets that error for its own request. Never sent by a client.
pub enum InvalidMessage {}

impl Request for InvalidMessage {
    type Params = StandIn;
    type Result = ();
    const METHOD: &'static str = "chatmd/invalidMessage";
}

/// The params of [`InvalidMessage`]: the error to answer with.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StandIn {
    pub code: i64,
    pub message: String,
}

/// The token of a turn's `$/progress`: `chatmd/turn/<n>/<member>`.
pub fn progress_token(n: u64, member: &str) -> String {
    format!("chatmd/turn/{n}/{member}")
}

/// `chatmd.send {uri, now?}`: the members the last message calls for answer; while
/// turns run in the chat, the message is queued until they end (`now`: sent at once).
pub const SEND: &str = "chatmd.send";
/// `chatmd.ask {uri, member}`: one member answers now.
pub const ASK: &str = "chatmd.ask";
/// `chatmd.next {uri}`: whoever is due next answers.
pub const NEXT: &str = "chatmd.next";
/// `chatmd.cancel {uri, member?, queued?}`: stops a member's turn, or every turn of
/// the chat; `queued`: takes the queued mark off the queued message instead.
pub const CANCEL: &str = "chatmd.cancel";
/// `chatmd.retry {uri, line}`: a new answer instead of the last one.
pub const RETRY: &str = "chatmd.retry";
/// `chatmd.fork {uri, line}`: a copy of the chat up to a message, in a new file.
pub const FORK: &str = "chatmd.fork";
/// `chatmd.answer {uri, request, option}`: answers a permission block, or a question
/// block (an ACP agent's `elicitation/create`: `option` is one of its answers, or
/// `Decline`); the running turn whose agent asked hears it at once and records it over
/// the block (`option`: an option's name, its id, or its kind such as `allow_once`).
pub const ANSWER: &str = "chatmd.answer";
/// `chatmd.newChat {folder?, title?}`: a new chat file.
pub const NEW_CHAT: &str = "chatmd.newChat";
/// `chatmd.trust {uri}`: trusts a workspace `chatmd.toml` as it is now.
pub const TRUST: &str = "chatmd.trust";
/// `chatmd.askAbout {uri, range, member?, chat?, newChat?, text?}`: asks the team about
/// a selection in any file: a new message in a chat (the most recent by default, or a
/// new one), sent, or queued while the chat's members answer.
pub const ASK_ABOUT: &str = "chatmd.askAbout";

/// `chatmd.undoChange {uri, line}`: restores what a file held before the turn whose
/// section lists it on `line` wrote it (one annotated edit); refused when the user
/// changed those lines since.
pub const UNDO_CHANGE: &str = "chatmd.undoChange";
/// `chatmd.openChange {uri, line}`: shows the file listed on `line` with the agent's
/// change selected.
pub const OPEN_CHANGE: &str = "chatmd.openChange";

/// Every command the server answers, as announced in `executeCommandProvider`.
pub const COMMANDS: [&str; 12] = [
    SEND,
    ASK,
    NEXT,
    CANCEL,
    RETRY,
    FORK,
    ANSWER,
    NEW_CHAT,
    TRUST,
    ASK_ABOUT,
    UNDO_CHANGE,
    OPEN_CHANGE,
];

/// The one JSON object every command takes (each reads the fields it needs).
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CommandArgs {
    pub uri: Option<Uri>,
    pub member: Option<String>,
    pub line: Option<u32>,
    pub request: Option<String>,
    pub option: Option<String>,
    pub folder: Option<String>,
    pub title: Option<String>,
    /// `chatmd.send`: send at once, even while members answer (a queued message too).
    pub now: Option<bool>,
    /// `chatmd.cancel`: take the queued mark off the chat's queued message.
    pub queued: Option<bool>,
    /// A selection (`chatmd.askAbout`).
    pub range: Option<tower_lsp_server::ls_types::Range>,
    /// The chat to ask in (`chatmd.askAbout`).
    pub chat: Option<Uri>,
    /// Ask in a new chat (`chatmd.askAbout`).
    pub new_chat: Option<bool>,
    /// The selection's text, as the editor has it (`chatmd.askAbout`).
    pub text: Option<String>,
}

impl CommandArgs {
    /// The arguments of `params`: none, or one JSON object.
    pub fn parse(params: &ExecuteCommandParams) -> Result<CommandArgs> {
        match params.arguments.as_slice() {
            [] => Ok(CommandArgs::default()),
            [object] => serde_json::from_value(object.clone()).map_err(|e| {
                Error::invalid_params(format!(
                    "{}: the argument must be one JSON object ({e})",
                    params.command
                ))
            }),
            _ => Err(Error::invalid_params(format!(
                "{} takes one JSON object argument",
                params.command
            ))),
        }
    }

    pub fn uri(&self) -> Result<Uri> {
        self.uri
            .clone()
            .ok_or_else(|| Error::invalid_params("this command needs `uri`: the chat's URI"))
    }

    /// The member's handle, without a leading `@`.
    pub fn member(&self) -> Result<String> {
        let member = self
            .member
            .as_deref()
            .ok_or_else(|| Error::invalid_params("this command needs `member`: a handle"))?;
        Ok(member.trim_start_matches('@').to_string())
    }

    pub fn line(&self) -> Result<u32> {
        self.line.ok_or_else(|| {
            Error::invalid_params("this command needs `line`: a 0-based line in the message")
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn running_turns_as_editors_read_them() {
        let turns = RunningTurns {
            turns: vec![RunningTurn {
                uri: "file:///c.chat.md".into(),
                member: "reviewer".into(),
                status: "streaming".into(),
                elapsed_ms: 1500,
                bytes: 42,
            }],
        };
        let want = json!({"turns": [{"uri": "file:///c.chat.md", "member": "reviewer",
            "status": "streaming", "elapsedMs": 1500, "bytes": 42}]});
        assert_eq!(serde_json::to_value(&turns).unwrap(), want);
    }

    #[test]
    fn command_args_are_one_object() {
        let params = |arguments| ExecuteCommandParams {
            command: SEND.into(),
            arguments,
            work_done_progress_params: Default::default(),
        };
        let args = CommandArgs::parse(&params(vec![json!({"member": "@a", "line": 3})]));
        let args = args.expect("one object");
        assert_eq!(
            (args.member().unwrap(), args.line().unwrap()),
            ("a".into(), 3)
        );
        let no_uri = args.uri().unwrap_err().message;
        assert_eq!(no_uri, "this command needs `uri`: the chat's URI");
        let two = CommandArgs::parse(&params(vec![json!({}), json!({})])).unwrap_err();
        assert_eq!(two.message, "chatmd.send takes one JSON object argument");
        assert!(COMMANDS.iter().all(|c| c.starts_with("chatmd.")));
    }
}
