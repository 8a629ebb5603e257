//! `Backend`: the `LanguageServer` implementation. Every method the server answers is
//! listed here and delegates to its feature module.
//!
//! Document sync handlers never `.await`: tower-lsp-server runs handlers
//! concurrently, and an await before the state changes could reorder edits.

use std::sync::{Arc, Mutex};

use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::*;
use tower_lsp_server::{Client, LanguageServer};

use super::journal::Entry;
use super::state::{Document, State, lock};
use super::{
    capabilities, code_actions, code_lens, commands, completion, config, convert, definition,
    diagnostics, ext, folding, hover, interrupted, port, reopened, symbols, turn_actions, waiting,
    watch,
};
use crate::document::text::PositionEncoding;

mod framed;

pub struct Backend {
    client: Client,
    state: Arc<Mutex<State>>,
}

impl Backend {
    pub fn new(client: Client) -> Backend {
        Backend::with_state(client, Arc::new(Mutex::new(State::default())))
    }

    /// A backend on `state`, which the caller keeps to end the turns on a signal.
    pub(super) fn with_state(client: Client, state: Arc<Mutex<State>>) -> Backend {
        Backend { client, state }
    }

    /// A consistent copy of an open document, taken under the lock and used without it
    /// (cloning the rope and the parsed chat is cheap).
    fn snapshot(&self, uri: &Uri) -> Option<(Document, PositionEncoding)> {
        let state = lock(&self.state);
        state
            .documents
            .get(uri)
            .map(|d| (d.clone(), state.encoding))
    }

    /// `chatmd/turns`: the running turns, for status bars.
    pub async fn turns(&self, _params: serde_json::Value) -> Result<ext::RunningTurns> {
        let running = lock(&self.state).running.clone();
        Ok(ext::RunningTurns::of(&running))
    }

    /// `window/workDoneProgress/cancel`: the editor's cancel button on a turn's progress.
    pub async fn cancel_progress(&self, params: WorkDoneProgressCancelParams) {
        let running = lock(&self.state).running.clone();
        let token = match &params.token {
            NumberOrString::String(s) => s.clone(),
            NumberOrString::Number(n) => n.to_string(),
        };
        if !running.cancel_progress(&token) {
            tracing::debug!(token, "cancel for a progress that is not running");
        }
    }

    /// `didOpen`, with the document built.
    fn open(&self, doc: Document) {
        let (uri, version) = (doc.uri.clone(), doc.version);
        match reopened::open(&self.state, doc) {
            // An older copy of the file a run of this server wrote: its turns are
            // finished there, not dead.
            Some(path) => {
                reopened::catch_up_later(
                    self.client.clone(),
                    self.state.clone(),
                    uri.clone(),
                    path,
                );
            }
            // Which turns are dead is decided now, while the turns that run are still
            // registered: one that ends a moment later has written its last words.
            None => interrupted::mark_later(self.client.clone(), self.state.clone(), uri.clone()),
        }
        self.publish_later(uri, version, false);
    }

    fn publish_later(&self, uri: Uri, version: i32, debounce: bool) {
        tokio::spawn(diagnostics::publish(
            self.client.clone(),
            self.state.clone(),
            uri,
            version,
            debounce,
        ));
    }
}

impl LanguageServer for Backend {
    async fn initialize(&self, params: InitializeParams) -> Result<InitializeResult> {
        let encoding = capabilities::negotiate_encoding(&params);
        // Neovim can pull one buffer's diagnostics but never asks for the workspace's:
        // it gets them published, closed chats included.
        let neovim = params
            .client_info
            .as_ref()
            .is_some_and(|info| info.name.to_lowercase().contains("vim"));
        let pull_diagnostics =
            watch::client_flags(&params.capabilities).pull_diagnostics && !neovim;
        let root = params
            .workspace_folders
            .as_ref()
            .and_then(|f| f.first())
            .map(|f| f.uri.clone())
            .or_else(|| {
                #[allow(deprecated)]
                params.root_uri.clone()
            })
            .and_then(|uri| convert::file_path(&uri));
        {
            let mut state = lock(&self.state);
            state.encoding = encoding;
            state.root = root;
            state.client_flags = watch::client_flags(&params.capabilities);
            state.client_flags.pull_diagnostics = pull_diagnostics;
            state.client_flags.skips_stale_edits = neovim;
            state.client_flags.adds_final_line_break = neovim;
            config::Settings::from_initialization_options(params.initialization_options.as_ref())
                .apply(&mut state, &params.capabilities);
            // Notifications after this one are handled (tower-lsp-server holds them
            // until `initialize` is answered): large syncs may be staged for them.
            state.bypass.staged.serving(true);
        }
        Ok(InitializeResult {
            capabilities: capabilities::server_capabilities(encoding, pull_diagnostics),
            server_info: Some(capabilities::server_info()),
            offset_encoding: None,
        })
    }

    async fn initialized(&self, _: InitializedParams) {
        // Not awaited here: the server only ends once every handler has, and a client
        // that shuts down at once never sees (or answers) the registration.
        let (client, state) = (self.client.clone(), self.state.clone());
        tokio::spawn(async move { watch::register(&client, &state).await });
        super::commands::queued::serve_deliveries(self.client.clone(), self.state.clone());
        let (client, state) = (self.client.clone(), self.state.clone());
        tokio::spawn(async move {
            let scanning = state.clone();
            let _ = tokio::task::spawn_blocking(move || watch::scan_workspace(&scanning)).await;
            // Which folders to follow depends on where the chats are.
            super::disk_watch::start(client.clone(), state.clone());
            waiting::publish_workspace(client, state).await;
        });
    }

    async fn shutdown(&self) -> Result<()> {
        // Turns end cleanly (partial text kept, `cancelled`) rather than with the
        // process. Not waited for: after `shutdown` the editor's `didChange`s are
        // dropped (tower-lsp), so an edit could not be seen to land.
        super::end_turns(&self.state);
        // tower-lsp-server drops notifications from now on: staged syncs would wait
        // for good, and the guard with them, before it reads `exit`.
        lock(&self.state).bypass.staged.serving(false);
        // The kept agents end now, cleanly, rather than killed with the process.
        let running = lock(&self.state).running.clone();
        running.end_kept().await;
        Ok(())
    }

    async fn did_open(&self, params: DidOpenTextDocumentParams) {
        let doc = params.text_document;
        self.open(Document::new(doc.uri, doc.version, doc.text));
    }

    async fn did_change(&self, params: DidChangeTextDocumentParams) {
        let uri = params.text_document.uri;
        let version = params.text_document.version;
        {
            let mut state = lock(&self.state);
            let encoding = state.encoding;
            let Some(doc) = state.documents.get_mut(&uri) else {
                tracing::warn!(uri = uri.as_str(), "change for a document that is not open");
                return;
            };
            if version < doc.version {
                tracing::error!(
                    uri = uri.as_str(),
                    version,
                    previous = doc.version,
                    "document version went backwards"
                );
            }
            let mut entries = Vec::new();
            for change in params.content_changes {
                let range = change
                    .range
                    .map(|r| (convert::line_col(r.start), convert::line_col(r.end)));
                let edit = doc.apply_change(range, &change.text, encoding);
                entries.push(Entry {
                    version,
                    range: edit.start..edit.old_end,
                    text: change.text,
                });
            }
            doc.version = version;
            if let Some(journal) = state.journals.get_mut(&uri) {
                for entry in entries {
                    journal.push(entry);
                }
            }
        }
        self.publish_later(uri, version, true);
    }

    async fn did_close(&self, params: DidCloseTextDocumentParams) {
        {
            let mut state = lock(&self.state);
            state.documents.remove(&params.text_document.uri);
            // A turn writing into it goes on in the file on disk.
            if let Some(journal) = state.journals.get(&params.text_document.uri) {
                journal.changed.notify_waiters();
            }
        }
        // Diagnostics of a closed file would go stale; clear them, but for what waits in
        // it (as the file on disk says).
        let (client, state) = (self.client.clone(), self.state.clone());
        tokio::spawn(async move {
            let uri = params.text_document.uri;
            client
                .publish_diagnostics(uri.clone(), Vec::new(), None)
                .await;
            let closed = convert::file_path(&uri).into_iter().collect();
            waiting::publish_closed(&client, &state, closed).await;
        });
    }

    async fn did_rename_files(&self, params: RenameFilesParams) {
        port::files_renamed(&self.state, &params.files);
    }

    /// Asked before the files move: no edit is needed, but the turns writing into
    /// them learn where they go before the old documents close.
    async fn will_rename_files(&self, params: RenameFilesParams) -> Result<Option<WorkspaceEdit>> {
        port::files_renamed(&self.state, &params.files);
        Ok(None)
    }

    async fn did_change_watched_files(&self, params: DidChangeWatchedFilesParams) {
        watch::apply(&self.client, &self.state, params.changes).await;
    }

    async fn diagnostic(
        &self,
        params: DocumentDiagnosticParams,
    ) -> Result<DocumentDiagnosticReportResult> {
        let state = self.state.clone();
        let uri = params.text_document.uri;
        let report = tokio::task::spawn_blocking(move || waiting::document_report(&state, &uri));
        report
            .await
            .map_err(|_| tower_lsp_server::jsonrpc::Error::internal_error())
    }

    async fn workspace_diagnostic(
        &self,
        _params: WorkspaceDiagnosticParams,
    ) -> Result<WorkspaceDiagnosticReportResult> {
        let state = self.state.clone();
        tokio::task::spawn_blocking(move || waiting::workspace_report(&state))
            .await
            .map_err(|_| tower_lsp_server::jsonrpc::Error::internal_error())
    }

    async fn document_symbol(
        &self,
        params: DocumentSymbolParams,
    ) -> Result<Option<DocumentSymbolResponse>> {
        let Some((doc, enc)) = self.snapshot(&params.text_document.uri) else {
            return Ok(None);
        };
        let shown = lock(&self.state).outline;
        Ok(Some(DocumentSymbolResponse::Nested(
            symbols::document_symbols(&doc, enc, shown),
        )))
    }

    async fn symbol(
        &self,
        params: WorkspaceSymbolParams,
    ) -> Result<Option<WorkspaceSymbolResponse>> {
        let state = self.state.clone();
        let found =
            tokio::task::spawn_blocking(move || symbols::workspace_symbols(&state, &params.query))
                .await
                .unwrap_or_default();
        Ok(Some(WorkspaceSymbolResponse::Flat(found)))
    }

    async fn folding_range(&self, params: FoldingRangeParams) -> Result<Option<Vec<FoldingRange>>> {
        let Some((doc, enc)) = self.snapshot(&params.text_document.uri) else {
            return Ok(None);
        };
        let shown = lock(&self.state).folds;
        Ok(Some(folding::folding_ranges(&doc, enc, shown)))
    }

    async fn completion(&self, params: CompletionParams) -> Result<Option<CompletionResponse>> {
        let pos = params.text_document_position;
        let Some((doc, enc)) = self.snapshot(&pos.text_document.uri) else {
            return Ok(None);
        };
        let state = self.state.clone();
        let items = tokio::task::spawn_blocking(move || {
            completion::complete(&state, &doc, enc, pos.position)
        })
        .await
        .unwrap_or_default();
        Ok(items.map(CompletionResponse::Array))
    }

    async fn hover(&self, params: HoverParams) -> Result<Option<Hover>> {
        let pos = params.text_document_position_params;
        let Some((doc, enc)) = self.snapshot(&pos.text_document.uri) else {
            return Ok(None);
        };
        let state = self.state.clone();
        Ok(
            tokio::task::spawn_blocking(move || hover::hover(&state, &doc, enc, pos.position))
                .await
                .unwrap_or_default(),
        )
    }

    async fn goto_definition(
        &self,
        params: GotoDefinitionParams,
    ) -> Result<Option<GotoDefinitionResponse>> {
        let pos = params.text_document_position_params;
        let Some((doc, enc)) = self.snapshot(&pos.text_document.uri) else {
            return Ok(None);
        };
        let state = self.state.clone();
        Ok(tokio::task::spawn_blocking(move || {
            definition::definition(&state, &doc, enc, pos.position)
        })
        .await
        .unwrap_or_default())
    }

    async fn code_action(&self, params: CodeActionParams) -> Result<Option<CodeActionResponse>> {
        let Some((doc, enc)) = self.snapshot(&params.text_document.uri) else {
            return Ok(None);
        };
        let state = self.state.clone();
        Ok(tokio::task::spawn_blocking(move || {
            let mut actions = code_actions::code_actions(&state, &doc, enc, params.range);
            let turn = turn_actions::turn_actions(&state, &doc, enc, params.range);
            // A quick fix may run the same command as a turn action (Fork from here on
            // a message a session saw changing): offered once, as the quick fix.
            let turn: Vec<CodeAction> = turn
                .into_iter()
                .filter(|t| !actions.iter().any(|a| a.command == t.command))
                .collect();
            actions.extend(turn);
            actions.extend(super::changes::code_actions(&doc, enc, params.range));
            actions
        })
        .await
        .ok()
        .map(|actions| {
            actions
                .into_iter()
                .map(CodeActionOrCommand::CodeAction)
                .collect()
        }))
    }

    async fn code_lens(&self, params: CodeLensParams) -> Result<Option<Vec<CodeLens>>> {
        let Some((doc, enc)) = self.snapshot(&params.text_document.uri) else {
            return Ok(None);
        };
        let state = self.state.clone();
        Ok(
            tokio::task::spawn_blocking(move || code_lens::code_lenses(&state, &doc, enc))
                .await
                .ok(),
        )
    }

    async fn execute_command(
        &self,
        params: ExecuteCommandParams,
    ) -> Result<Option<serde_json::Value>> {
        commands::execute(&self.client, &self.state, params).await
    }
}
