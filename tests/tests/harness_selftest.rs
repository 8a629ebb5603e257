//! Proves the LSP test client against a tiny tower-lsp-server defined here, so harness bugs
//! show up here and not as mysterious failures in chatmd's own scenario tests.

use std::collections::HashMap;
use std::str::FromStr;
use std::sync::Mutex;
use std::time::Duration;

use chatmd_tests::{TestClient, file_uri};
use serde_json::{Value, json};
use tokio::io::DuplexStream;
use tower_lsp_server::jsonrpc::{Error, Result};
use tower_lsp_server::ls_types::*;
use tower_lsp_server::{Client, LanguageServer, LspService, Server};

/// Answers hovers with the configuration it fetched and the document's text, reports each
/// document's size as a diagnostic, and edits through `workspace/applyEdit` on command.
struct Backend {
    client: Client,
    documents: Mutex<HashMap<Uri, String>>,
}

impl Backend {
    async fn publish_size(&self, uri: Uri, text: &str, version: i32) {
        let size = format!(
            "{} bytes, {} chars, {} UTF-16 units",
            text.len(),
            text.chars().count(),
            text.encode_utf16().count()
        );
        let diagnostic = Diagnostic::new_simple(Range::default(), size);
        self.client
            .publish_diagnostics(uri, vec![diagnostic], Some(version))
            .await;
    }
}

impl LanguageServer for Backend {
    async fn initialize(&self, params: InitializeParams) -> Result<InitializeResult> {
        let echo = json!({
            "workspaceFolders": params.workspace_folders,
            "positionEncodings": params.capabilities.general.and_then(|g| g.position_encodings),
        });
        Ok(InitializeResult {
            capabilities: ServerCapabilities {
                hover_provider: Some(HoverProviderCapability::Simple(true)),
                text_document_sync: Some(TextDocumentSyncCapability::Kind(
                    TextDocumentSyncKind::FULL,
                )),
                execute_command_provider: Some(ExecuteCommandOptions {
                    commands: vec!["selftest.edit".to_owned()],
                    ..Default::default()
                }),
                experimental: Some(echo),
                ..Default::default()
            },
            ..Default::default()
        })
    }

    async fn initialized(&self, _: InitializedParams) {
        let registration = Registration {
            id: "watch".to_owned(),
            method: "workspace/didChangeWatchedFiles".to_owned(),
            register_options: Some(json!({"watchers": [{"globPattern": "**/*.chat.md"}]})),
        };
        // The harness answers this one automatically.
        let _ = self.client.register_capability(vec![registration]).await;
    }

    async fn shutdown(&self) -> Result<()> {
        Ok(())
    }

    async fn did_open(&self, params: DidOpenTextDocumentParams) {
        let document = params.text_document;
        self.documents
            .lock()
            .unwrap()
            .insert(document.uri.clone(), document.text.clone());
        self.publish_size(document.uri, &document.text, document.version)
            .await;
    }

    async fn did_change(&self, params: DidChangeTextDocumentParams) {
        let Some(change) = params.content_changes.into_iter().last() else {
            return;
        };
        let uri = params.text_document.uri;
        self.documents
            .lock()
            .unwrap()
            .insert(uri.clone(), change.text.clone());
        self.publish_size(uri, &change.text, params.text_document.version)
            .await;
    }

    async fn did_close(&self, params: DidCloseTextDocumentParams) {
        let uri = params.text_document.uri;
        self.documents.lock().unwrap().remove(&uri);
        self.client.publish_diagnostics(uri, Vec::new(), None).await;
    }

    async fn hover(&self, params: HoverParams) -> Result<Option<Hover>> {
        // A notification, then a server→client request the client must answer before the
        // hover response can be sent: the notification is always on the wire first.
        self.client
            .log_message(MessageType::INFO, "hover requested")
            .await;
        let item = ConfigurationItem {
            scope_uri: None,
            section: Some("selftest".to_owned()),
        };
        let config = match self.client.configuration(vec![item]).await {
            Ok(values) => json!(values).to_string(),
            Err(error) => format!("error {}", error.code),
        };
        let uri = params.text_document_position_params.text_document.uri;
        let text = self
            .documents
            .lock()
            .unwrap()
            .get(&uri)
            .cloned()
            .unwrap_or_default();
        let contents = HoverContents::Markup(MarkupContent {
            kind: MarkupKind::PlainText,
            value: format!("config: {config}\n{text}"),
        });
        Ok(Some(Hover {
            contents,
            range: None,
        }))
    }

    async fn execute_command(&self, params: ExecuteCommandParams) -> Result<Option<LSPAny>> {
        if params.command != "selftest.edit" {
            return Err(Error::invalid_params("unknown command"));
        }
        let uri = params
            .arguments
            .first()
            .and_then(Value::as_str)
            .and_then(|uri| Uri::from_str(uri).ok())
            .ok_or_else(|| Error::invalid_params("expected a document URI"))?;
        // Like chatmd's turns: answer the command at once, edit from a background task.
        let client = self.client.clone();
        tokio::spawn(async move {
            client.show_message(MessageType::INFO, "editing").await;
            let edit = TextEdit::new(Range::default(), "hi".to_owned());
            let edit = WorkspaceEdit::new(HashMap::from([(uri, vec![edit])]));
            let outcome = match client.apply_edit(edit).await {
                Ok(response) => format!("applied: {}", response.applied),
                Err(error) => format!("apply failed: {}", error.message),
            };
            client.show_message(MessageType::INFO, outcome).await;
        });
        Ok(None)
    }
}

async fn serve(input: DuplexStream, output: DuplexStream) {
    let (service, socket) = LspService::new(|client| Backend {
        client,
        documents: Mutex::default(),
    });
    Server::new(input, output, socket).serve(service).await;
}

async fn initialized_client() -> TestClient {
    let mut client = TestClient::spawn(serve);
    client.initialize(json!({}), None).await;
    client
}

fn hover_params(uri: &str) -> Value {
    json!({"textDocument": {"uri": uri}, "position": {"line": 0, "character": 0}})
}

/// Splits a hover from [`Backend::hover`] into its configuration line and the document text.
fn hover_parts(hover: &Value) -> (String, String) {
    let value = hover["contents"]["value"].as_str().expect("markup hover");
    let (config, text) = value.split_once('\n').expect("a config line");
    (config.to_owned(), text.to_owned())
}

#[tokio::test]
async fn initialize_sends_workspace_and_capabilities_and_returns_the_result() {
    let root = tempfile::Builder::new()
        .prefix("harness root ")
        .tempdir()
        .unwrap();
    let mut client = TestClient::spawn(serve);
    let capabilities = json!({"general": {"positionEncodings": ["utf-8", "utf-16"]}});
    let result = client.initialize(capabilities, Some(root.path())).await;

    assert_eq!(result["capabilities"]["hoverProvider"], true);
    let echo = &result["capabilities"]["experimental"];
    let root_uri = file_uri(root.path());
    assert!(root_uri.contains("harness%20root%20"), "{root_uri}");
    assert_eq!(echo["workspaceFolders"][0]["uri"], root_uri.as_str());
    assert_eq!(echo["positionEncodings"], json!(["utf-8", "utf-16"]));

    // Sent by the server after `initialized`, answered by the harness.
    let registration = client
        .expect_auto_answered("client/registerCapability")
        .await;
    assert_eq!(
        registration["registrations"][0]["method"],
        "workspace/didChangeWatchedFiles"
    );
    client.shutdown().await;
}

#[tokio::test]
async fn requests_get_their_own_results_and_errors() {
    let mut client = TestClient::spawn(serve);
    let early = client
        .request("textDocument/hover", hover_params("file:///x"))
        .await;
    assert_eq!(early.unwrap_err()["code"], -32002, "not initialized yet");

    client.initialize(json!({}), None).await;
    let unknown = client.request("selftest/unknown", json!({})).await;
    assert_eq!(unknown.unwrap_err()["code"], -32601);
    let bad = client.execute_command("selftest.nothing", json!([])).await;
    assert_eq!(bad.unwrap_err()["code"], -32602);

    // Two requests in flight: each response goes to its own id, whatever the order.
    let first = client
        .send_request("textDocument/hover", hover_params("file:///a"))
        .await;
    let second = client.send_request("selftest/unknown", Value::Null).await;
    assert!(client.expect_response(second).await.is_err());
    assert!(client.expect_response(first).await.is_ok());
    client.shutdown().await;
}

#[tokio::test]
async fn notifications_that_arrive_during_a_request_are_queued() {
    let mut client = initialized_client().await;
    let uri = "file:///tmp/queued.chat.md";
    client.open(uri, "hello").await;

    let hover = client
        .request("textDocument/hover", hover_params(uri))
        .await;
    let (config, text) = hover_parts(&hover.unwrap());
    assert_eq!(text, "hello");
    // The harness answered `workspace/configuration` with null, which this server's
    // client library cannot read as a list.
    assert!(config.starts_with("config: error"), "{config}");
    let asked = client.auto_answered("workspace/configuration");
    assert_eq!(asked.len(), 1);
    assert_eq!(asked[0]["items"][0]["section"], "selftest");

    // Sent before the response, so already queued: no waiting needed.
    let logs = client.drain_notifications("window/logMessage").await;
    assert_eq!(logs.len(), 1);
    assert_eq!(logs[0]["message"], "hover requested");
    assert!(
        client
            .drain_notifications("window/logMessage")
            .await
            .is_empty()
    );

    let diagnostics = client.expect_diagnostics(uri).await;
    assert_eq!(
        diagnostics[0]["message"],
        "5 bytes, 5 chars, 5 UTF-16 units"
    );
    client.shutdown().await;
}

#[tokio::test]
async fn document_helpers_send_open_change_and_close() {
    let mut client = initialized_client().await;
    let uri = "file:///tmp/doc.chat.md";
    client.open(uri, "one").await;
    assert_eq!(
        client.expect_diagnostics(uri).await[0]["message"],
        "3 bytes, 3 chars, 3 UTF-16 units"
    );
    client.change(uri, 2, json!({"text": "three"})).await;
    assert_eq!(
        client.expect_diagnostics(uri).await[0]["message"],
        "5 bytes, 5 chars, 5 UTF-16 units"
    );
    client.close(uri).await;
    assert!(client.expect_diagnostics(uri).await.is_empty());
    client.shutdown().await;
}

#[tokio::test]
async fn a_test_can_take_and_answer_server_requests() {
    let mut client = initialized_client().await;
    let uri = "file:///tmp/edit.chat.md";

    // Opted out of the automatic answer, the test answers the configuration itself.
    client.set_auto_response("workspace/configuration", None);
    let hover = client
        .send_request("textDocument/hover", hover_params(uri))
        .await;
    let (id, params) = client.expect_request("workspace/configuration").await;
    assert_eq!(params["items"][0]["section"], "selftest");
    client.respond(id, json!([{"greeting": "hi"}])).await;
    let (config, _) = hover_parts(&client.expect_response(hover).await.unwrap());
    assert_eq!(config, r#"config: [{"greeting":"hi"}]"#);

    // applyEdit comes from a task the command spawned, after the command has answered.
    let answer = client.execute_command("selftest.edit", json!([uri])).await;
    assert_eq!(answer, Ok(Value::Null));
    let (id, params) = client.expect_request("workspace/applyEdit").await;
    assert_eq!(params["edit"]["changes"][uri][0]["newText"], "hi");
    client.respond(id, json!({"applied": true})).await;
    assert_eq!(
        client.expect_notification("window/showMessage").await["message"],
        "editing"
    );
    assert_eq!(
        client.expect_notification("window/showMessage").await["message"],
        "applied: true"
    );

    client
        .execute_command("selftest.edit", json!([uri]))
        .await
        .unwrap();
    let (id, _) = client.expect_request("workspace/applyEdit").await;
    client
        .respond_error(id, -32800, "rejected by the test")
        .await;
    let messages: Vec<Value> = [
        client.expect_notification("window/showMessage").await,
        client.expect_notification("window/showMessage").await,
    ]
    .into();
    assert_eq!(messages[1]["message"], "apply failed: rejected by the test");
    client.shutdown().await;
}

#[tokio::test]
async fn non_ascii_text_is_framed_by_bytes() {
    let mut client = initialized_client().await;
    let uri = "file:///tmp/%C3%A9t%C3%A9.chat.md";
    let text = "## @me\nété 日本語 🎉\r\n";
    client.open(uri, text).await;
    assert_eq!(
        client.expect_diagnostics(uri).await[0]["message"],
        "29 bytes, 18 chars, 19 UTF-16 units"
    );
    let hover = client
        .request("textDocument/hover", hover_params(uri))
        .await;
    assert_eq!(hover_parts(&hover.unwrap()).1, text);
    client.shutdown().await;
}

#[tokio::test]
async fn a_megabyte_message_goes_both_ways() {
    let mut client = initialized_client().await;
    let uri = "file:///tmp/big.chat.md";
    let line = "## @me écrit 日本語 and 🎉 in one line\n";
    let text = line.repeat((1 << 20) / line.len() + 1);
    assert!(text.len() > 1 << 20);
    client.open(uri, &text).await;
    let expected = format!(
        "{} bytes, {} chars, {} UTF-16 units",
        text.len(),
        text.chars().count(),
        text.encode_utf16().count()
    );
    assert_eq!(client.expect_diagnostics(uri).await[0]["message"], expected);
    let hover = client
        .request("textDocument/hover", hover_params(uri))
        .await;
    assert!(
        hover_parts(&hover.unwrap()).1 == text,
        "the text came back changed"
    );
    client.shutdown().await;
}

#[tokio::test]
async fn shutdown_ends_the_server() {
    let mut client = initialized_client().await;
    client.shutdown().await;
}

#[tokio::test]
#[should_panic(expected = "notification window/logMessage")]
async fn a_timeout_shows_what_arrived_meanwhile() {
    let mut client = initialized_client().await;
    // The hover's log message is on the wire before its response, so it is queued by now.
    let hover = client
        .request("textDocument/hover", hover_params("file:///t"))
        .await;
    assert!(hover.is_ok());
    client.set_timeout(Duration::from_millis(200));
    client.expect_notification("never/sent").await;
}

#[tokio::test]
#[should_panic(expected = "waiting for the response to request 1 `shutdown`")]
async fn a_server_that_never_answers_fails_the_test_in_time() {
    let mut client = TestClient::spawn(|input, output| async move {
        let _open = (input, output);
        std::future::pending::<()>().await;
    });
    client.set_timeout(Duration::from_millis(200));
    client.shutdown().await;
}

#[tokio::test]
#[should_panic(expected = "the server failed: panicked: boom")]
async fn a_server_that_panics_fails_the_test_with_its_message() {
    let mut client = TestClient::spawn(|input, output| async move {
        let _open = (input, output);
        panic!("boom");
    });
    client.initialize(json!({}), None).await;
}
