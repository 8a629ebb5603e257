//! `chatmd send FILE [--to HANDLE]...`: runs the turns the chat calls for into the file,
//! streaming each answer to the terminal, with the same engine the editor uses.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::{Arc, OnceLock};

use clap::Args;
use tokio_util::sync::CancellationToken;

use super::signals::Signals;
use crate::agents::Registry;
use crate::turns::Level;
use crate::turns::engine::{self, Context};
use crate::turns::file_port::FilePort;

#[derive(Debug, Args)]
pub struct SendArgs {
    /// The `.chat.md` file.
    pub file: PathBuf,
    /// Ask these members (instead of those the last message calls for).
    #[arg(long = "to", value_name = "HANDLE")]
    pub to: Vec<String>,
}

/// `eprintln!` that never panics: after SIGHUP the terminal may be gone, and the
/// summary must not turn a clean cancel into a crash.
macro_rules! say {
    ($($arg:tt)*) => {{
        let _ = writeln!(std::io::stderr(), $($arg)*);
    }};
}

/// Exit status: 0 when every turn succeeded, 1 when a turn failed or nothing could
/// run, 2 for a file that cannot be used, 128 + the signal's number when SIGINT (130),
/// SIGTERM (143) or SIGHUP (129) cancelled the turns.
pub fn run(args: &SendArgs) -> ExitCode {
    let file = match std::fs::canonicalize(&args.file) {
        Ok(file) => file,
        Err(error) => {
            say!("chatmd send: cannot open {}: {error}", args.file.display());
            return ExitCode::from(2);
        }
    };
    let folder = file.parent().map(PathBuf::from).unwrap_or_default();
    let root = super::members::workspace_root(&folder);
    // The user's own agents.toml is optional: only an existing one is read.
    let user_registry = crate::agents::registry::default_path().filter(|p| p.exists());
    let (registry, problems) = Registry::load(user_registry.as_deref());
    for problem in problems {
        say!("chatmd send: {problem}");
    }
    let echo: Box<dyn Write + Send> = Box::new(std::io::stdout());
    let mut port = match FilePort::open(&file, Some(echo)) {
        Ok(port) => port.with_notes(Box::new(std::io::stderr())),
        Err(error) => {
            say!("chatmd send: {error}");
            return ExitCode::from(2);
        }
    };
    let cancel = CancellationToken::new();
    let ctx = Context {
        workspace_root: root,
        chat_path: file.clone(),
        registry: Arc::new(registry),
        cancel: cancel.clone(),
        targets: (!args.to.is_empty()).then(|| args.to.clone()),
        agent_path: None,
        user_config: crate::team::UserConfig::from_env(),
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            say!("chatmd send: cannot start: {error}");
            return ExitCode::FAILURE;
        }
    };
    let stopped_by = Arc::new(OnceLock::new());
    let result = runtime.block_on(async {
        // SIGINT, SIGTERM and SIGHUP cancel the turns cleanly: partial text stays, the
        // status says `cancelled`, the agents' process groups are killed.
        match Signals::listen() {
            Ok(mut signals) => {
                let (watcher, stopped_by) = (cancel.clone(), Arc::clone(&stopped_by));
                tokio::spawn(async move {
                    let signal = signals.recv().await;
                    let _ = stopped_by.set(signal);
                    watcher.cancel();
                });
            }
            Err(error) => {
                say!("chatmd send: cannot listen for Ctrl-C, SIGTERM and SIGHUP: {error}")
            }
        }
        engine::run(&mut port, &ctx).await
    });
    if port.echoed() {
        // The streamed answers end where the agents stopped: finish their last line.
        let _ = writeln!(std::io::stdout());
    }
    for (level, message) in &port.messages {
        let tag = match level {
            Level::Info => "note",
            Level::Warning => "warning",
            Level::Error => "error",
        };
        say!("chatmd send: {tag}: {message}");
    }
    let stopped_by = stopped_by.get().copied();
    if let Some(signal) = stopped_by {
        say!("chatmd send: {signal}: the turns were cancelled");
    }
    let code = match result {
        Err(error) => {
            say!("chatmd send: {error}");
            ExitCode::FAILURE
        }
        Ok(report) => {
            for turn in &report.turns {
                let status = turn.status.as_str();
                let told = |e: &String| {
                    port.messages
                        .iter()
                        .any(|(_, m)| *m == format!("@{}: {e}", turn.member))
                };
                match &turn.error {
                    Some(error) if !told(error) => say!("@{}: {status}: {error}", turn.member),
                    _ => say!("@{}: {status}", turn.member),
                }
            }
            if report.all_succeeded() {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            }
        }
    };
    stopped_by.map_or(code, super::signals::exit_code)
}
