//! The requests and notifications `framing` puts in place of client messages: large
//! document syncs it decoded itself, the outline and folding it writes from bytes, and
//! the stand-in for a malformed message.

use std::sync::Arc;

use tower_lsp_server::LanguageServer;
use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::*;

use super::Backend;
use crate::document::text::PositionEncoding;
use crate::lsp::state::{Document, lock};
use crate::lsp::{ext, framing, pieces};

impl Backend {
    /// `chatmd/stagedSync`: a large `didOpen` or `didChange`, decoded by `framing`.
    pub async fn staged_sync(&self, params: framing::StagedKey) {
        let staged = lock(&self.state).bypass.staged.take(params);
        match staged {
            Some(framing::Staged::Open(doc)) => self.open(*doc),
            Some(framing::Staged::Change(params)) => self.did_change(params).await,
            None => tracing::error!(
                key = params.key,
                "a staged document sync is gone; the document may differ from the editor's"
            ),
        }
    }

    /// `textDocument/documentSymbol`, serialized here and written by `framing`.
    pub async fn raw_document_symbol(
        &self,
        params: DocumentSymbolParams,
    ) -> Result<Option<framing::RawToken>> {
        let shown = lock(&self.state).outline;
        Ok(self
            .raw_result(&params.text_document.uri, |doc, enc| {
                doc.outline_json(|| pieces::outline_json(doc, enc, shown))
            })
            .await)
    }

    /// `textDocument/foldingRange`, serialized here and written by `framing`.
    pub async fn raw_folding_range(
        &self,
        params: FoldingRangeParams,
    ) -> Result<Option<framing::RawToken>> {
        let shown = lock(&self.state).folds;
        Ok(self
            .raw_result(&params.text_document.uri, |doc, enc| {
                pieces::folding_json(doc, enc, shown)
            })
            .await)
    }

    /// The token of a result `make` serializes for the open document `uri`, for
    /// `framing` to write; `None` (`null`) when it is not open.
    async fn raw_result(
        &self,
        uri: &Uri,
        make: impl FnOnce(&Document, PositionEncoding) -> Arc<Vec<u8>>,
    ) -> Option<framing::RawToken> {
        let (doc, enc) = self.snapshot(uri)?;
        let json = make(&doc, enc);
        let raw = lock(&self.state).bypass.raw.clone();
        // Returned at once: the response carrying the token is sure to be written.
        Some(raw.stash(json).await)
    }

    /// Answers the stand-in for a malformed client message with its error (see
    /// `framing`).
    pub async fn invalid_message(&self, params: ext::StandIn) -> Result<()> {
        Err(tower_lsp_server::jsonrpc::Error {
            code: params.code.into(),
            message: params.message.into(),
            data: None,
        })
    }
}
