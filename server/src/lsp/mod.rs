//! The language server glue: the only module that knows LSP types. One file per
//! feature; `backend.rs` lists every method the server answers.

mod backend;
mod capabilities;
mod changes;
mod chat_team;
mod code_actions;
mod code_lens;
mod commands;
mod completion;
mod config;
mod convert;
mod definition;
mod diagnostics;
mod disk_watch;
mod echo;
#[cfg(test)]
mod edit_model_tests;
mod ext;
mod folding;
pub mod framing;
mod hover;
mod interrupted;
mod journal;
mod kept;
mod login;
mod message_problems;
mod outline_window;
mod pieces;
mod pipes;
mod port;
mod progress;
mod published;
mod references;
mod reopened;
mod routing_help;
mod seen_kept;
mod seen_walk;
mod shared_text;
mod state;
mod symbols;
mod symbols_json;
mod told;
mod trust;
mod trust_chat;
mod turn_actions;
mod usage;
mod waiting;
mod watch;

pub use backend::Backend;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use nix::sys::signal::Signal;
use tokio::io::{AsyncRead, AsyncWrite};
use tower_lsp_server::ls_types::notification::Notification;
use tower_lsp_server::ls_types::request::Request;
use tower_lsp_server::{LspService, Server};

use crate::runner::signals::Signals;
use crate::team::UserConfig;
use state::{State, lock};

/// After SIGINT, SIGTERM or SIGHUP: how long the cancelled turns have to write
/// `cancelled` (their agents get SIGTERM and a 2 s grace, then the editor applies the
/// last edit) before the server exits anyway.
const SIGNAL_WAIT: Duration = Duration::from_secs(5);

/// After `exit` or the end of the input: how long handlers still running get to finish
/// (one waiting for the client's answer never would) before the server stops anyway.
const EXIT_WAIT: Duration = Duration::from_secs(1);

/// How `chatmd lsp` ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stopped {
    /// The client sent `exit` or closed the input; `after_shutdown`: it sent `shutdown`
    /// first, as the protocol asks (the exit code is 0, else 1).
    Exit { after_shutdown: bool },
    /// SIGINT, SIGTERM or SIGHUP.
    Signal(Signal),
}

/// Serves LSP over any pair of streams (stdio in production, in-memory pipes in tests)
/// until the client exits.
pub async fn serve<I, O>(input: I, output: O)
where
    I: AsyncRead + Unpin + Send + 'static,
    O: AsyncWrite + Unpin + Send + 'static,
{
    serve_with_user_config(input, output, UserConfig::from_env()).await;
}

/// [`serve`] with the user's own config folder given (what the user trusts) instead of
/// taken from `XDG_CONFIG_HOME`: tests run servers for several users in one process.
pub async fn serve_with_user_config<I, O>(input: I, output: O, user_config: UserConfig)
where
    I: AsyncRead + Unpin + Send + 'static,
    O: AsyncWrite + Unpin + Send + 'static,
{
    let state = State {
        user_config,
        ..State::default()
    };
    serve_state(input, output, Arc::new(Mutex::new(state))).await;
}

/// Serves until the client exits; returns whether it sent `shutdown` first.
async fn serve_state<I, O>(input: I, output: O, state: Arc<Mutex<State>>) -> bool
where
    I: AsyncRead + Unpin + Send + 'static,
    O: AsyncWrite + Unpin + Send + 'static,
{
    let ended = tokio_util::sync::CancellationToken::new();
    let backend_state = state.clone();
    let (service, socket) =
        LspService::build(move |client| Backend::with_state(client, backend_state))
            .custom_method(ext::InvalidMessage::METHOD, Backend::invalid_message)
            .custom_method(ext::StagedSync::METHOD, Backend::staged_sync)
            .custom_method(ext::RawDocumentSymbol::METHOD, Backend::raw_document_symbol)
            .custom_method(ext::RawFoldingRange::METHOD, Backend::raw_folding_range)
            .custom_method(ext::Turns::METHOD, Backend::turns)
            .custom_method("window/workDoneProgress/cancel", Backend::cancel_progress)
            .finish();
    let bypass = lock(&state).bypass.clone();
    let connection = framing::connect(input, output, ended.clone(), bypass);
    {
        // Turn commands wait for the editor's answers to their edits; more slots than
        // the default 4 keep a few of them from holding up everything else.
        let server = Server::new(connection.input, connection.output, socket)
            .concurrency_level(16)
            .serve(service);
        tokio::pin!(server);
        tokio::select! {
            () = &mut server => {}
            () = ended.cancelled() => {
                if tokio::time::timeout(EXIT_WAIT, &mut server).await.is_err() {
                    tracing::warn!("requests still running {EXIT_WAIT:?} after the client left; stopping anyway");
                }
            }
        }
    }
    // The server's output is closed with it: what it wrote last (the answer to
    // `shutdown`) still goes out.
    if tokio::time::timeout(EXIT_WAIT, connection.written)
        .await
        .is_err()
    {
        tracing::warn!("the client did not read the server's last messages within {EXIT_WAIT:?}");
    }
    // `shutdown` ends the turns (`end_turns`), which marks this; so does a signal, but
    // that ends the server elsewhere.
    lock(&state).shutting_down
}

/// Ends every turn: cancels the running ones (their agents' process groups are killed,
/// their sections say `cancelled`) and refuses new ones. Returns the tracker of the
/// tasks running them, to wait for them to write that.
fn end_turns(state: &Mutex<State>) -> tokio_util::task::TaskTracker {
    let (running, runs) = {
        let mut state = lock(state);
        state.shutting_down = true;
        (state.running.clone(), state.runs.clone())
    };
    running.close();
    runs.close();
    runs
}

/// Serves LSP on stdin/stdout until the client exits or SIGINT, SIGTERM or SIGHUP
/// arrives: then the turns are cancelled and given
/// [`SIGNAL_WAIT`] to write `cancelled` — into the editor's buffer while the editor
/// answers, into the file on disk for a document that is not open — and the server
/// stops without waiting for the client.
pub fn run_stdio() -> anyhow::Result<Stopped> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    let state = Arc::new(Mutex::new(State {
        user_config: UserConfig::from_env(),
        ..State::default()
    }));
    let stopped = runtime.block_on(async {
        let mut signals = Signals::listen()?;
        let stop = async {
            let signal = signals.recv().await;
            tracing::info!("{signal}: cancelling the running turns and exiting");
            let runs = end_turns(&state);
            if tokio::time::timeout(SIGNAL_WAIT, runs.wait()).await.is_err() {
                tracing::warn!(
                    "the turns did not finish within {SIGNAL_WAIT:?}; exiting anyway (their agents are killed)"
                );
            }
            let running = lock(&state).running.clone();
            running.end_kept().await;
            signal
        };
        let (input, output) = pipes::stdio();
        let stopped = tokio::select! {
            after_shutdown = serve_state(input, output, state.clone()) => {
                Stopped::Exit { after_shutdown }
            }
            signal = stop => Stopped::Signal(signal),
        };
        // An `exit` without `shutdown`, or the input closed: the kept agents end too.
        let running = lock(&state).running.clone();
        running.end_kept().await;
        anyhow::Ok(stopped)
    })?;
    // Reading stdin blocks a thread that only the client's end of the pipe would free;
    // dropping the tasks kills any agent still running (and its process group).
    runtime.shutdown_timeout(Duration::from_millis(500));
    Ok(stopped)
}
