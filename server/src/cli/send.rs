//! `chatmd send FILE [--to HANDLE]...`: runs the turns the chat calls for into the file,
//! streaming each answer to the terminal, with the same engine the editor uses.
//!
//! It holds the chat's lock while it runs (`turns/lock.rs`): when an editor (or another
//! `chatmd send`) is running turns in the same chat, it says who and runs nothing. With
//! the lock, a turn the file still shows unfinished runs nowhere: it was left by a
//! process that is gone (killed, crashed) and is marked `interrupted` before anything
//! else reads the chat.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::{Arc, OnceLock};

use clap::Args;

mod asking;
mod on_edit;
mod port;

use self::asking::Asking;
use self::port::SendPort;
use crate::agents::Registry;
use crate::conversation::section::interrupted_edits;
use crate::document::chat::Chat;
use crate::document::status::TurnStatus;
use crate::runner::signals::Signals;
use crate::turns::engine;
use crate::turns::file_port::{FilePort, kind};
use crate::turns::lock::{self, ChatLock, LockError};
use crate::turns::owner::{Owner, runs_elsewhere};
use crate::turns::runs::{self, Runs, SendRequest};
use crate::turns::{Edited, EditorPort, Level, PortError, TurnError};

#[derive(Debug, Args)]
pub struct SendArgs {
    /// The `.chat.md` file.
    pub file: PathBuf,
    /// Ask these members (instead of those the last message calls for).
    #[arg(long = "to", value_name = "HANDLE")]
    pub to: Vec<String>,
    /// When a member would resume a session that saw a message changed since: start it
    /// afresh from the file, tell it what changed, or fork the chat at that message.
    /// Without it, nothing is sent then.
    #[arg(long = "on-edit", value_name = "CHOICE")]
    pub on_edit: Option<on_edit::OnEdit>,
}

/// `eprintln!` that never panics: after SIGHUP the terminal may be gone, and the
/// summary must not turn a clean cancel into a crash.
macro_rules! say {
    ($($arg:tt)*) => {{
        let _ = writeln!(std::io::stderr(), $($arg)*);
    }};
}

/// The exit status when another process is running turns in the chat (`EX_TEMPFAIL`:
/// try again later).
const BUSY: u8 = 75;

/// Exit status: 0 when every turn succeeded, 1 when a turn failed or nothing could
/// run, 2 for a file that cannot be used, 75 when another process is running turns in
/// the chat, 128 + the signal's number when SIGINT (130), SIGTERM (143) or SIGHUP (129)
/// cancelled the turns.
pub fn run(args: &SendArgs) -> ExitCode {
    let file = match std::fs::canonicalize(&args.file) {
        Ok(file) => file,
        Err(error) => {
            say!("chatmd send: cannot open {}: {error}", args.file.display());
            return ExitCode::from(2);
        }
    };
    match std::fs::metadata(&file) {
        Ok(meta) if meta.is_file() => {}
        Ok(meta) => {
            let leads = if file != std::path::absolute(&args.file).unwrap_or_default() {
                format!(" (it leads to {})", file.display())
            } else {
                String::new()
            };
            say!(
                "chatmd send: {} is not a regular file but {}{leads}; a chat is a text file",
                args.file.display(),
                kind(&meta.file_type())
            );
            return ExitCode::from(2);
        }
        Err(error) => {
            say!("chatmd send: cannot open {}: {error}", args.file.display());
            return ExitCode::from(2);
        }
    }
    // Taken before the file is read: whatever the file says from here on, no other
    // chatmd process is writing turns into it.
    let lock = match ChatLock::acquire(&file, lock::SEND) {
        Ok(lock) => Some(lock),
        Err(LockError::Busy(holder)) => {
            say!(
                "chatmd send: nothing was sent: {holder}. Wait until it ends (or cancel it there) and send again."
            );
            return ExitCode::from(BUSY);
        }
        Err(error) => {
            say!("chatmd send: warning: {error}; going on without it");
            None
        }
    };
    // Loading the guard overlaps reading the team and the chat.
    crate::runner::start_guard_early();
    // The user's own agents.toml, when there is one.
    let (registry, problems) = Registry::load(None);
    for problem in problems {
        say!("chatmd send: {problem}");
    }
    // This run's turns, in the one registry of what runs (`turns/runs`), as the
    // editor's are in the server's.
    let runs = Runs::default();
    let run = runs.open_locked_run(&file.to_string_lossy(), lock);
    let mut port = match FilePort::open(&file) {
        Ok(file) => SendPort::new(
            file,
            (runs.clone(), run),
            Box::new(std::io::stdout()),
            Box::new(std::io::stderr()),
            Asking::for_stdin(),
        ),
        Err(error) => {
            say!("chatmd send: {error}");
            return ExitCode::from(2);
        }
    };
    let ctx = runs::context(SendRequest {
        chat: file.clone(),
        around: crate::team::current_folder(),
        targets: (!args.to.is_empty()).then(|| args.to.clone()),
        registry: Arc::new(registry),
        agent_path: None,
        user_config: crate::team::UserConfig::from_env(),
        // Members stay warm across the rounds of this run (chains, councils) and end
        // with it.
        runs: runs.clone(),
    });
    let cancel = ctx.cancel.clone();
    // One thread: a send waits on its agents, and what it computes between their
    // chunks is small; worker threads cost their start and their join (about a
    // millisecond of a short send). Blocking reads (the terminal's questions, an
    // agent's commands) have threads of their own.
    let runtime = match tokio::runtime::Builder::new_current_thread()
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
        let ready = async {
            mark_interrupted(&mut port).await?;
            let settled = on_edit::settle(&mut port, &ctx, args.on_edit).await?;
            for warning in &settled.warnings {
                say!("chatmd send: warning: {warning}");
            }
            if !settled.warnings.is_empty() && !settled.chosen {
                return Err(Refused::Unsettled);
            }
            Ok(settled.forked)
        };
        let sent = match ready.await {
            Ok(Some(fork)) => {
                say!(
                    "chatmd send: nothing was sent here: the chat up to the changed message is now {}; send there to go on, each member in a new session",
                    fork.display()
                );
                Ok(Sent::Forked)
            }
            Ok(None) => {
                if let Some(warning) = held_back_rules(&port, &args.file) {
                    say!("chatmd send: warning: {warning}");
                }
                Ok(Sent::Ran(engine::run(&mut port, &ctx).await?))
            }
            Err(busy @ Refused::Busy(_)) => {
                say!("chatmd send: {busy}");
                Ok(Sent::Busy)
            }
            Err(error) => Err(error),
        };
        if let Some(runs) = &ctx.runs {
            runs.end_kept().await;
        }
        sent
    });
    if port.teed() {
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
        Ok(Sent::Busy) => ExitCode::from(BUSY),
        Ok(Sent::Forked) => ExitCode::SUCCESS,
        Ok(Sent::Ran(report)) => {
            // A turn's error was told with the messages above (the engine tells every
            // one as its turn ends): the summary gives each turn's status.
            for turn in &report.turns {
                say!("@{}: {}", turn.member, turn.status.as_str());
            }
            if report.all_succeeded() {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            }
        }
    };
    stopped_by.map_or(code, crate::runner::signals::exit_code)
}

/// What `chatmd send` did.
enum Sent {
    Ran(engine::Report),
    /// Another process runs turns in the chat: nothing ran.
    Busy,
    /// `--on-edit fork`: the chat was forked, nothing ran here.
    Forked,
}

/// Why nothing or not everything ran.
#[derive(Debug, thiserror::Error)]
enum Refused {
    /// A turn runs in a process chatmd cannot see (on another host).
    #[error("nothing was sent: {0}")]
    Busy(String),
    #[error("{} keeps changing: cannot mark its interrupted turns", .0.display())]
    KeepsChanging(PathBuf),
    /// A session to resume saw a message the user changed since, and no `--on-edit`.
    #[error(
        "nothing was sent: send again with --on-edit fresh (a new session from the file), --on-edit tell (the session is told what changed) or --on-edit fork (a new chat up to the changed message)"
    )]
    Unsettled,
    /// `--on-edit fork` could not write the fork.
    #[error("nothing was sent: cannot fork the chat: {0}")]
    Fork(String),
    #[error(transparent)]
    Turn(#[from] TurnError),
}

impl From<PortError> for Refused {
    fn from(error: PortError) -> Refused {
        Refused::Turn(error.into())
    }
}

/// Marks the turns the file shows unfinished as `interrupted`: with the chat's lock
/// held, no process of this host runs them. A turn on another host may still run:
/// then nothing is sent.
async fn mark_interrupted(port: &mut SendPort) -> Result<(), Refused> {
    let path = port.path().to_path_buf();
    let marked = port.edit_until_applied(20, |snapshot| {
        let (text, chat) = (&*snapshot.text, &*snapshot.chat);
        if let Some(why) = unfinished_elsewhere(text, chat) {
            return Err(Refused::Busy(why));
        }
        let mut notes = Vec::new();
        let edits = interrupted_edits(text, chat, |handle, comment| {
            if runs_elsewhere(comment, Some(&path)) {
                return true;
            }
            let id = comment.id().unwrap_or("?");
            let status = comment.status().map_or("unfinished", TurnStatus::as_str);
            let process = Owner::of(comment).map_or(String::new(), |o| format!(" (pid {})", o.pid));
            notes.push(format!(
                "@{handle}'s turn {id} was left {status} by a process that is gone{process}: marked interrupted"
            ));
            false
        });
        Ok((!edits.is_empty()).then_some((edits, notes)))
    });
    match marked.await? {
        Edited::Applied(notes) => {
            for note in notes {
                say!("chatmd send: note: {note}");
            }
            Ok(())
        }
        Edited::Unneeded => Ok(()),
        Edited::GaveUp => Err(Refused::KeepsChanging(path)),
    }
}

/// The chat's own allow rules the user has not trusted there, said plainly: they are
/// left out of this run, and how to let them apply.
fn held_back_rules(port: &SendPort, shown_path: &std::path::Path) -> Option<String> {
    let text = port.current_text()?;
    let chat = Chat::parse(text);
    let front_matter = chat.front_matter.as_ref()?;
    let trust = crate::team::UserConfig::from_env().load_trust();
    let held = trust.held_back(port.path(), front_matter);
    if held.is_empty() {
        return None;
    }
    let rules: Vec<String> = held.iter().map(|a| a.shown()).collect();
    Some(format!(
        "the chat's allow rules {} are held back: a rule in a chat file applies only once \
         you trust it in that chat, so these requests are asked instead (with no terminal \
         to ask, rejected). Review the front matter, then run `{}`",
        rules.join(", "),
        crate::team::trust::trust_command(shown_path)
    ))
}

/// Why an unfinished turn may still run on another host, if one does.
fn unfinished_elsewhere(text: &str, chat: &Chat) -> Option<String> {
    chat.messages.iter().find_map(|message| {
        let comment = message.status_comment(text)?;
        let status = comment.status()?;
        if !matches!(
            status,
            TurnStatus::Queued | TurnStatus::Streaming | TurnStatus::Waiting
        ) {
            return None;
        }
        let owner = Owner::of(comment).filter(|o| !o.is_here())?;
        Some(format!(
            "@{}'s turn {} is {status} in process {} on {}, and chatmd cannot tell from here whether it still runs; \
             if it does not, set its status to `interrupted` and send again",
            message.handle(text),
            comment.id().unwrap_or("?"),
            owner.pid,
            owner.host
        ))
    })
}
