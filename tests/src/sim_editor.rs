//! An editor around [`TestClient`]: it keeps the text of its open documents, answers
//! the server's `workspace/applyEdit` the way a real editor does, echoes applied edits
//! back as `didChange`, and lets a test type into a document at chosen moments (just
//! before the editor handles the server's n-th edit, so that edit is stale).
//!
//! The two behaviours follow what real editors were seen doing
//! (`shared/reference/real-editors.md`):
//! - [`Behaviour::VsCode`]: an edit for an older version is refused (`applied: false`);
//!   a replacing edit is echoed as a minimal diff.
//! - [`Behaviour::Neovim`]: an edit for an older version is skipped but answered
//!   `applied: true`, except one for version 0, which is applied at its old positions;
//!   an insert at the very end of the file is echoed as replacing the last line break
//!   with the text plus one more line break.

use std::collections::HashMap;

use serde_json::{Value, json};

use crate::lsp_client::TestClient;

mod files;
mod reports;
mod text;

pub use reports::Reports;
pub use text::redact;
use text::{offset, position};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Behaviour {
    VsCode,
    Neovim,
}

/// Where typed text goes.
#[derive(Clone, Debug)]
pub enum At {
    /// At the end of the document.
    End,
    /// Just after the first occurrence of this text.
    After(String),
    /// Just before the first occurrence of this text.
    Before(String),
    /// At the cursor (see [`SimEditor::place_cursor`]); the cursor moves past the text.
    Cursor,
}

struct Doc {
    text: String,
    version: i32,
    /// The server was told of it (`didOpen`): chats are; other files are only the
    /// editor's buffers, which chatmd reads through `chatmd/readBuffer`.
    synced: bool,
}

/// The server requests the editor answers while it waits: its edits, and the buffers
/// it reads for an agent (`files.rs`).
const SERVED: &[&str] = &["workspace/applyEdit", "chatmd/readBuffer"];

struct Typing {
    uri: String,
    at: At,
    text: String,
}

pub struct SimEditor {
    pub client: TestClient,
    behaviour: Behaviour,
    utf8: bool,
    docs: HashMap<String, Doc>,
    /// Typing to do just before handling the n-th edit (1-based).
    typing: Vec<(usize, Typing)>,
    /// Edits received so far, refused or skipped ones included.
    pub edits: usize,
    /// Edits refused (VS Code) or skipped (Neovim) for an old version.
    pub stale: usize,
    /// Everything typed so far, in order.
    pub typed: Vec<String>,
    /// The user's cursor: a document and a byte offset, moved by every change the way
    /// the editor moves it. VS Code (and Helix) carry a cursor that sits exactly where
    /// the server inserts text past it; Neovim leaves it before the insert.
    pub cursor: Option<(String, usize)>,
    /// Report each applied edit in several `didChange` notifications: one per text
    /// edit, and a multi-line insert in two (Neovim was seen doing so at the end of
    /// a slow turn, 150 ms apart: its `didChange` debounce).
    pub split_echo: bool,
    /// How changes are reported (the user's and the echo of the server's edits).
    pub reports: Reports,
    /// Refuse an edit for an older version with an error reply instead of `applied:
    /// false`, as eglot does ("Edits on … require version 36, you have 37").
    pub stale_as_error: bool,
    /// The agents' file edits received (annotated `workspace/applyEdit` params), in order.
    pub file_edits: Vec<Value>,
}

impl SimEditor {
    /// `utf8`: the server was initialized with UTF-8 positions (else UTF-16).
    pub fn new(client: TestClient, behaviour: Behaviour, utf8: bool) -> SimEditor {
        SimEditor {
            client,
            behaviour,
            utf8,
            docs: HashMap::new(),
            typing: Vec::new(),
            edits: 0,
            stale: 0,
            typed: Vec::new(),
            split_echo: false,
            reports: Reports::Ranges,
            cursor: None,
            stale_as_error: false,
            file_edits: Vec::new(),
        }
    }

    pub async fn open(&mut self, uri: &str, text: &str) {
        self.client.open(uri, text).await;
        self.docs.insert(
            uri.to_string(),
            Doc {
                text: text.to_string(),
                version: 1,
                synced: true,
            },
        );
    }

    pub async fn close(&mut self, uri: &str) {
        self.docs.remove(uri);
        self.client.close(uri).await;
    }

    /// Opens `uri` with `text` as a buffer the server is not told of (a source file:
    /// chatmd's document selector takes chats only).
    pub fn open_unsynced(&mut self, uri: &str, text: &str) {
        let doc = Doc {
            text: text.to_string(),
            version: 1,
            synced: false,
        };
        self.docs.insert(uri.to_string(), doc);
    }

    /// Whether the editor holds a buffer of `uri`.
    pub fn has_buffer(&self, uri: &str) -> bool {
        self.docs.contains_key(uri)
    }

    /// The document's text as the editor shows it.
    pub fn text(&self, uri: &str) -> &str {
        &self.docs[uri].text
    }

    /// Puts the user's cursor at `offset` of the document.
    pub fn place_cursor(&mut self, uri: &str, offset: usize) {
        self.cursor = Some((uri.to_string(), offset));
    }

    /// Types `text` into the document now.
    pub async fn type_text(&mut self, uri: &str, at: At, text: &str) {
        let doc = self.docs.get(uri).expect("the document is open");
        let offset = match &at {
            At::End => doc.text.len(),
            At::After(anchor) => {
                doc.text.find(anchor.as_str()).expect("anchor text present") + anchor.len()
            }
            At::Before(anchor) => doc.text.find(anchor.as_str()).expect("anchor text present"),
            At::Cursor => match &self.cursor {
                Some((u, at)) if u == uri => *at,
                _ => panic!("no cursor in {uri}"),
            },
        };
        self.replace(uri, offset..offset, text).await;
        if matches!(at, At::Cursor)
            && let Some((_, cursor)) = &mut self.cursor
        {
            *cursor = offset + text.len();
        }
        self.typed.push(text.to_string());
    }

    /// Moves the cursor through a change of `uri`: `carried` says whether text
    /// inserted exactly at the cursor carries it along.
    fn move_cursor(
        &mut self,
        uri: &str,
        range: &std::ops::Range<usize>,
        len: usize,
        carried: bool,
    ) {
        let Some((u, at)) = &mut self.cursor else {
            return;
        };
        if u != uri {
            return;
        }
        *at = if range.is_empty() && *at == range.start {
            if carried { *at + len } else { *at }
        } else if *at <= range.start {
            *at
        } else if *at >= range.end {
            *at - range.len() + len
        } else {
            range.start + len
        };
    }

    /// Types `text` at `at` just before the editor handles the server's `n`-th edit (or
    /// a later one, once the text `at` names is there).
    pub fn type_before_edit(&mut self, n: usize, uri: &str, at: At, text: &str) {
        self.typing.push((
            n,
            Typing {
                uri: uri.to_string(),
                at,
                text: text.to_string(),
            },
        ));
    }

    /// Deletes a byte range of the document now, as the user would.
    pub async fn delete(&mut self, uri: &str, range: std::ops::Range<usize>) {
        self.replace(uri, range, "").await;
    }

    /// Replaces a byte range and reports it with `didChange`.
    pub async fn replace(&mut self, uri: &str, range: std::ops::Range<usize>, text: &str) {
        let utf8 = self.utf8;
        let doc = self.docs.get_mut(uri).expect("the document is open");
        let change = json!({
            "range": {
                "start": position(&doc.text, range.start, utf8),
                "end": position(&doc.text, range.end, utf8),
            },
            "text": text,
        });
        doc.text.replace_range(range.clone(), text);
        doc.version += 1;
        let version = doc.version;
        let change = match self.reports {
            Reports::WholeText => json!({"text": doc.text}),
            _ => change,
        };
        self.move_cursor(uri, &range, text.len(), false);
        self.client.change(uri, version, json!([change])).await;
    }

    /// Opens a new line below the last one (Neovim's `o` there), reported the way
    /// Neovim reports it: the file's final line break replaced by two.
    pub async fn open_line_at_end(&mut self, uri: &str) {
        let utf8 = self.utf8;
        let doc = self.docs.get_mut(uri).expect("the document is open");
        assert!(doc.text.ends_with('\n'), "the file ends with a line break");
        let last = doc.text.len() - 1..doc.text.len();
        let change = json!({
            "range": {
                "start": position(&doc.text, last.start, utf8),
                "end": position(&doc.text, last.end, utf8),
            },
            "text": "\n\n",
        });
        doc.text.push('\n');
        doc.version += 1;
        let version = doc.version;
        self.typed.push("\n".into());
        self.client.change(uri, version, json!([change])).await;
    }

    /// Handles the server's edits until `done` holds.
    pub async fn run_until(&mut self, what: &str, done: impl Fn(&SimEditor) -> bool) {
        let mut rounds = 0;
        while !done(self) {
            rounds += 1;
            assert!(rounds < 100_000, "still waiting for {what}");
            if let Err((method, id, params)) =
                self.client.expect_response_or_one_of(None, SERVED).await
            {
                self.serve(&method, id, params).await;
            }
        }
    }

    /// Runs a command, handling the server's edits until its answer arrives.
    pub async fn command(&mut self, command: &str, argument: Value) -> Result<Value, Value> {
        let params = json!({"command": command, "arguments": [argument]});
        let id = self
            .client
            .send_request("workspace/executeCommand", params)
            .await;
        loop {
            match self
                .client
                .expect_response_or_one_of(Some(id), SERVED)
                .await
            {
                Ok(answer) => return answer,
                Err((method, request, params)) => self.serve(&method, request, params).await,
            }
        }
    }

    /// Answers one request of the server's that the editor serves.
    async fn serve(&mut self, method: &str, id: Value, params: Value) {
        match method {
            "chatmd/readBuffer" => files::read_buffer(self, id, &params).await,
            _ if !params["edit"]["changeAnnotations"].is_null() => {
                files::agent_edit(self, id, params).await;
            }
            _ => self.handle_edit(id, params).await,
        }
    }

    /// Answers one `workspace/applyEdit` like the editor this one imitates.
    pub async fn handle_edit(&mut self, id: Value, params: Value) {
        self.edits += 1;
        // Typing is due at its edit, or later once the text it goes next to is there.
        let due: Vec<Typing> = {
            let n = self.edits;
            let docs = &self.docs;
            let ready = |t: &Typing| {
                let Some(doc) = docs.get(&t.uri) else {
                    return false;
                };
                match &t.at {
                    At::End | At::Cursor => true,
                    At::After(a) | At::Before(a) => doc.text.contains(a.as_str()),
                }
            };
            let (now, later) = std::mem::take(&mut self.typing)
                .into_iter()
                .partition(|(at, t)| *at <= n && ready(t));
            self.typing = later;
            now.into_iter().map(|(_, t)| t).collect()
        };
        for t in due {
            self.type_text(&t.uri, t.at, &t.text).await;
        }
        assert!(
            params["label"].is_null(),
            "streaming edits carry no label (Neovim prints every label)"
        );
        let change = &params["edit"]["documentChanges"][0];
        let uri = change["textDocument"]["uri"]
            .as_str()
            .expect("a versioned document edit")
            .to_string();
        let version = change["textDocument"]["version"]
            .as_i64()
            .expect("edits carry the version they were computed for") as i32;
        let Some(doc) = self.docs.get(&uri) else {
            self.client
                .respond(id, json!({"applied": false, "failureReason": "not open"}))
                .await;
            return;
        };
        // Neovim checks versions only above 0: an edit for a buffer not changed since
        // it was opened is applied whatever changed since, at its old positions.
        let checked = !(self.behaviour == Behaviour::Neovim && version == 0);
        if version != doc.version && checked {
            self.stale += 1;
            if self.stale_as_error {
                let message = format!(
                    "Edits on `{uri}' require version {version}, you have {}",
                    doc.version
                );
                // jsonrpc.el's code for an error signalled with a message alone.
                self.client.respond_error(id, 32603, &message).await;
                return;
            }
            let answer = match self.behaviour {
                Behaviour::VsCode => json!({"applied": false, "failureReason": "stale version"}),
                // Neovim skips it ("Buffer newer than edits") and still says yes.
                Behaviour::Neovim => json!({"applied": true}),
            };
            self.client.respond(id, answer).await;
            return;
        }
        let utf8 = self.utf8;
        let mut edits: Vec<(std::ops::Range<usize>, String)> = change["edits"]
            .as_array()
            .expect("edits")
            .iter()
            .map(|e| {
                let start = offset(&doc.text, &e["range"]["start"], utf8);
                let end = offset(&doc.text, &e["range"]["end"], utf8);
                (
                    start..end,
                    e["newText"].as_str().expect("newText").to_string(),
                )
            })
            .collect();
        edits.sort_by_key(|(r, _)| std::cmp::Reverse(r.start));
        let carried = self.behaviour == Behaviour::VsCode;
        for (range, new) in &edits {
            self.move_cursor(&uri, range, new.len(), carried);
        }
        let doc = &self.docs[&uri];
        let mut text = doc.text.clone();
        // The notifications that report the edit, each a list of changes.
        let mut notifications: Vec<Vec<Value>> = vec![Vec::new()];
        if self.reports != Reports::Ranges {
            notifications = reports::report(self.reports, self.behaviour, &mut text, &edits, utf8);
            return self.echo(id, &uri, text, notifications).await;
        }
        for (range, new) in edits {
            let (range, new) = text::echo_of(self.behaviour, &text, range, &new);
            let parts = match new.find('\n') {
                Some(i) if self.split_echo && i + 1 < new.len() => {
                    let at = range.start + i + 1;
                    vec![
                        (range, new[..=i].to_string()),
                        (at..at, new[i + 1..].to_string()),
                    ]
                }
                _ => vec![(range, new)],
            };
            for (range, new) in parts {
                let change = json!({
                    "range": {
                        "start": position(&text, range.start, utf8),
                        "end": position(&text, range.end, utf8),
                    },
                    "text": new,
                });
                text.replace_range(range, &new);
                if self.split_echo {
                    notifications.push(vec![change]);
                } else {
                    notifications[0].push(change);
                }
            }
        }
        self.echo(id, &uri, text, notifications).await;
    }

    /// Takes `text` as the document's and reports it in `notifications`, answering the
    /// edit `id` before or after them.
    async fn echo(
        &mut self,
        id: Value,
        uri: &str,
        text: String,
        mut notifications: Vec<Vec<Value>>,
    ) {
        notifications.retain(|n| !n.is_empty());
        let doc = self.docs.get_mut(uri).expect("open");
        doc.text = text;
        let first_version = doc.version + 1;
        doc.version += notifications.len() as i32;
        // Editors send the echo and the answer in either order: alternate.
        let answer_first = !self.edits.is_multiple_of(2);
        if answer_first {
            self.client
                .respond(id.clone(), json!({"applied": true}))
                .await;
        }
        for (n, changes) in notifications.into_iter().enumerate() {
            if n > 0 {
                // The editor's own pace (Neovim debounces didChange by 150 ms): the
                // server sees the first part alone.
                tokio::time::sleep(std::time::Duration::from_millis(150)).await;
            }
            self.client
                .change(uri, first_version + n as i32, json!(changes))
                .await;
        }
        if !answer_first {
            self.client.respond(id, json!({"applied": true})).await;
        }
    }
}

/// Starts a session the way an editor like `behaviour` does, for the workspace at
/// `root` with the agents' CLIs in `agent_path`: `initialize` (UTF-8 positions offered
/// when `utf8`, else UTF-16 only; progress, showDocument and message actions
/// supported), then `initialized`.
pub async fn initialize(
    client: &mut TestClient,
    behaviour: Behaviour,
    root: &std::path::Path,
    agent_path: &std::path::Path,
    utf8: bool,
) {
    let options = json!({"agentPath": agent_path});
    initialize_with(client, behaviour, root, utf8, options).await;
}

/// [`initialize`] with these `initializationOptions`.
pub async fn initialize_with(
    client: &mut TestClient,
    behaviour: Behaviour,
    root: &std::path::Path,
    utf8: bool,
    options: Value,
) {
    let name = match behaviour {
        Behaviour::VsCode => "Visual Studio Code",
        Behaviour::Neovim => "Neovim",
    };
    let encodings = if utf8 {
        json!(["utf-8", "utf-16"])
    } else {
        json!(["utf-16"])
    };
    let root = crate::file_uri(root);
    let params = json!({
        "processId": null,
        "clientInfo": {"name": name},
        "capabilities": {
            "general": {"positionEncodings": encodings},
            "window": {
                "workDoneProgress": true,
                "showDocument": {"support": true},
                "showMessage": {"messageActionItem": {"additionalPropertiesSupport": false}},
            },
            // VS Code and Neovim both create and delete files in a workspace edit.
            "workspace": {"workspaceEdit": {"resourceOperations": ["create", "rename", "delete"]}},
            // The buffers of open files are read for agents (VS Code, Neovim and Emacs
            // answer `chatmd/readBuffer`).
            "experimental": {"chatmdReadBuffer": true},
        },
        "rootUri": root,
        "workspaceFolders": [{"uri": root, "name": "ws"}],
        "initializationOptions": options,
    });
    client
        .request("initialize", params)
        .await
        .expect("initialize");
    client.notify("initialized", json!({})).await;
}
