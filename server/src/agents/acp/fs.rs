//! `fs/read_text_file` and `fs/write_text_file`: chatmd offers both in `initialize`
//! (`fs.readTextFile`, `fs.writeTextFile`), so an agent that takes them (claude-agent-acp
//! 0.101) reads the editor's unsaved buffer and writes through an undoable edit instead
//! of the disk behind the editor's back. A request becomes an
//! [`AgentEvent::File`](crate::agents::AgentEvent::File) and waits here for the turn's
//! answer; the lines the agent asked for (`line`, 1-based, and `limit`) are cut from
//! the whole text here, as the ACP schema defines them.

use agent_client_protocol::v1::schema::{Error, RequestId};
use serde_json::{Value, json};

use super::rpc;
use crate::agents::{FileOp, FileOutcome, FileRefusal, FileRequest};

/// One file request waiting for the turn's answer.
#[derive(Debug)]
struct Pending {
    /// The agent's id, echoed in the answer.
    id: RequestId,
    key: crate::agents::RequestId,
    /// For a read: the first line wanted (1-based) and how many.
    lines: Option<(Option<u32>, Option<u32>)>,
}

/// The file requests of a turn that wait for their answer.
#[derive(Debug, Default)]
pub struct FileRequests {
    pending: Vec<Pending>,
    asked: u64,
}

impl FileRequests {
    /// The agent's request `id` of `method` as a request for the turn, or the error
    /// line that answers it at once (params that do not read).
    pub fn ask(
        &mut self,
        id: RequestId,
        method: &str,
        params: &Value,
    ) -> Result<FileRequest, Vec<u8>> {
        let path = params.get("path").and_then(Value::as_str);
        let number = |name: &str| {
            params
                .get(name)
                .and_then(Value::as_u64)
                .and_then(|n| u32::try_from(n).ok())
        };
        let (op, lines) = match (method, path) {
            ("fs/read_text_file", Some(_)) => {
                (FileOp::Read, Some((number("line"), number("limit"))))
            }
            ("fs/write_text_file", Some(_)) => {
                match params.get("content").and_then(Value::as_str) {
                    Some(content) => (
                        FileOp::Write {
                            content: content.to_owned(),
                        },
                        None,
                    ),
                    None => return Err(rpc::error(&id, Error::invalid_params())),
                }
            }
            _ => return Err(rpc::error(&id, Error::invalid_params())),
        };
        self.asked += 1;
        let key = crate::agents::RequestId(format!("fs-{}", self.asked));
        self.pending.push(Pending {
            id,
            key: key.clone(),
            lines,
        });
        Ok(FileRequest {
            id: key,
            path: path.unwrap_or_default().into(),
            op,
        })
    }

    /// The line answering request `key` with `outcome`; `None` when no such request
    /// waits (answered already).
    pub fn answer(
        &mut self,
        key: &crate::agents::RequestId,
        outcome: FileOutcome,
    ) -> Option<Vec<u8>> {
        let at = self.pending.iter().position(|p| p.key == *key)?;
        let pending = self.pending.remove(at);
        Some(match (outcome, pending.lines) {
            (Ok(text), Some((line, limit))) => rpc::result(
                &pending.id,
                json!({"content": lines_of(&text, line, limit)}),
            ),
            (Ok(_), None) => rpc::result(&pending.id, json!({})),
            (Err(FileRefusal::NotFound(message)), _) => {
                let error = Error::resource_not_found(None);
                rpc::error(&pending.id, Error::new(error.code.into(), message))
            }
            (Err(FileRefusal::Refused(message)), _) => {
                rpc::error(&pending.id, Error::new(-32603, message))
            }
        })
    }
}

impl super::AcpSession {
    /// The agent's `fs/…` request `id`: to the turn, or answered at once.
    pub(super) fn file_request(
        &mut self,
        id: RequestId,
        method: &str,
        params: &Value,
        out: &mut crate::agents::Outbox,
    ) {
        if !matches!(method, "fs/read_text_file" | "fs/write_text_file") {
            return out.write(rpc::error(&id, Error::method_not_found()));
        }
        match self.files.ask(id, method, params) {
            Ok(request) => out.push(crate::agents::AgentEvent::File(Box::new(request))),
            Err(line) => out.write(line),
        }
    }

    /// The turn's answer to file request `key`: false when none such waits.
    pub(super) fn file_answered(
        &mut self,
        key: &crate::agents::RequestId,
        outcome: FileOutcome,
        out: &mut crate::agents::Outbox,
    ) -> bool {
        let Some(line) = self.files.answer(key, outcome) else {
            return false;
        };
        out.write(line);
        true
    }
}

/// `limit` lines of `text` from line `line` (1-based; the whole text when neither is
/// given), each with its line break.
fn lines_of(text: &str, line: Option<u32>, limit: Option<u32>) -> String {
    if line.is_none() && limit.is_none() {
        return text.to_owned();
    }
    let skip = line.map_or(0, |l| l.saturating_sub(1) as usize);
    let take = limit.map_or(usize::MAX, |l| l as usize);
    text.split_inclusive('\n').skip(skip).take(take).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn a_read_answers_the_lines_asked_for() {
        let mut files = FileRequests::default();
        let params = json!({"sessionId": "s", "path": "/w/a.txt", "line": 2, "limit": 2});
        let request = files
            .ask(RequestId::Number(0), "fs/read_text_file", &params)
            .unwrap();
        assert_eq!(
            (request.path.display().to_string(), request.op),
            ("/w/a.txt".to_owned(), FileOp::Read)
        );
        let line = files.answer(&request.id, Ok("one\ntwo\nthree\nfour\n".into()));
        assert_eq!(
            String::from_utf8(line.unwrap()).unwrap(),
            "{\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{\"content\":\"two\\nthree\\n\"}}\n"
        );
        assert!(files.answer(&request.id, Ok(String::new())).is_none());
    }

    #[test]
    fn a_refused_write_is_an_error_with_the_reason() {
        let mut files = FileRequests::default();
        let params = json!({"sessionId": "s", "path": "/etc/x", "content": "hi\n"});
        let request = files
            .ask(RequestId::Str("w".into()), "fs/write_text_file", &params)
            .unwrap();
        assert_eq!(
            request.op,
            FileOp::Write {
                content: "hi\n".into()
            }
        );
        let refused = FileRefusal::Refused("outside the workspace".into());
        let line = files.answer(&request.id, Err(refused)).unwrap();
        assert_eq!(
            String::from_utf8(line).unwrap(),
            "{\"jsonrpc\":\"2.0\",\"id\":\"w\",\"error\":{\"code\":-32603,\"message\":\"outside the workspace\"}}\n"
        );
        let no_path = files.ask(RequestId::Number(1), "fs/read_text_file", &json!({}));
        assert!(no_path.is_err());
    }
}
