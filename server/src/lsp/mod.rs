//! The language server glue: the only module that knows LSP types. One file per
//! feature; `backend.rs` lists every method the server answers.

mod backend;
mod capabilities;
mod code_actions;
mod code_lens;
mod commands;
mod completion;
mod convert;
mod definition;
mod diagnostics;
mod echo;
mod folding;
mod framing;
mod hover;
mod interrupted;
mod journal;
mod port;
mod progress;
mod state;
mod symbols;
mod turn_actions;
mod watch;

pub use backend::Backend;

use tokio::io::{AsyncRead, AsyncWrite};
use tower_lsp_server::{LspService, Server};

/// Serves LSP over any pair of streams (stdio in production, in-memory pipes in tests)
/// until the client exits.
pub async fn serve<I, O>(input: I, output: O)
where
    I: AsyncRead + Unpin + Send + 'static,
    O: AsyncWrite + Unpin + Send + 'static,
{
    let (service, socket) = LspService::build(Backend::new)
        .custom_method(framing::INVALID_MESSAGE_METHOD, Backend::invalid_message)
        .custom_method("chatmd/turns", Backend::turns)
        .custom_method("window/workDoneProgress/cancel", Backend::cancel_progress)
        .finish();
    // Turn commands wait for the editor's answers to their edits; more slots than the
    // default 4 keep a few of them from holding up everything else.
    Server::new(framing::guard(input), output, socket)
        .concurrency_level(16)
        .serve(service)
        .await;
}

/// Serves LSP on stdin/stdout until the client exits.
pub fn run_stdio() -> anyhow::Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(serve(tokio::io::stdin(), tokio::io::stdout()));
    Ok(())
}
