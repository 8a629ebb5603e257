//! The fake's session store (`FAKE_AGENT_SESSIONS=<dir>`): which sessions it knows, so
//! that resuming one it does not know fails the way the real CLI fails. A run that
//! prints a session adds `<dir>/<cli>/<id>`; a test deletes a file to make a session
//! "lost", or creates one to make it known.
//!
//! The "not found" output is the `resume-unknown` transcript of the CLI with the id
//! asked for in place of the recorded one (claude: a line on stdout and an
//! `error_during_execution` result, exit 1; codex: one stderr line, exit 1; gemini:
//! stderr, exit 42, with the folder it searched).

use std::path::{Path, PathBuf};

use super::Knobs;
use super::billing::Bill;
use super::cli::{Cli, Run};
use super::transcript::{Script, load, session_of};

/// Whether the store knows session `id` of `cli`.
pub fn known(store: &Path, cli: Cli, id: &str) -> bool {
    is_plain(id) && store.join(cli.name()).join(id).is_file()
}

/// Adds the session `script` prints to the store: what it has billed so far when the
/// run was generated (`billing.rs`), in the file named by its id, and the system text
/// of its first run (claude's `--append-system-prompt`) beside it, which a resumed run
/// leaves as it is: what claude 2.1.332 keeps ([`model_system`]).
pub fn remember(
    store: &Path,
    cli: Cli,
    script: &Script,
    run: &Run,
    billed: Option<Bill>,
) -> Result<(), String> {
    let Some(id) = session_of(cli, script).filter(|id| is_plain(id)) else {
        return Ok(());
    };
    let dir = store.join(cli.name());
    let system = dir.join(format!("{id}.system"));
    std::fs::create_dir_all(&dir)
        .and_then(|()| {
            std::fs::write(
                dir.join(&id),
                billed.map(|b| b.stored()).unwrap_or_default(),
            )
        })
        .and_then(|()| {
            if run.resume.is_some() && system.is_file() {
                Ok(())
            } else {
                std::fs::write(&system, run.system.as_deref().unwrap_or(""))
            }
        })
        .map_err(|e| format!("cannot write the session store {}: {e}", dir.display()))
}

/// The system text claude's model gets on `run`: the run's own `--append-system-prompt`,
/// except that 2.1.332 on `--resume` keeps the session's first run's, and a session
/// started without one gets none (agents-2026-12.md). `None`: no system text.
pub fn model_system(knobs: &Knobs, run: &Run) -> Option<String> {
    let resumed = run.resume.as_deref().filter(|id| is_plain(id));
    match (resumed, &knobs.sessions) {
        (Some(id), Some(store)) if knobs.keeps_first_system() => {
            std::fs::read_to_string(store.join(Cli::Claude.name()).join(format!("{id}.system")))
                .ok()
                .filter(|text| !text.is_empty())
        }
        _ => run.system.clone(),
    }
}

/// An id usable as a file name (the fake never writes outside its store).
fn is_plain(id: &str) -> bool {
    !id.is_empty()
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

/// What `cli` prints when asked to resume `id`, which it does not know.
pub fn not_found(cli: Cli, knobs: &Knobs, store: &Path, id: &str) -> Result<Script, String> {
    let mut script = load(cli, knobs, "resume-unknown")?;
    let recorded = match cli {
        Cli::Claude => script.lines.first().and_then(|line| {
            line.strip_prefix("No conversation found with session ID: ")
                .map(str::to_owned)
        }),
        Cli::Codex => between(&script.stderr, "for thread id ", " "),
        Cli::Gemini => between(&script.stderr, "Invalid session identifier \"", "\""),
    }
    .ok_or_else(|| {
        format!(
            "the {} resume-unknown transcript names no session",
            cli.name()
        )
    })?;
    for line in &mut script.lines {
        *line = line.replace(&recorded, id);
    }
    script.stderr = script.stderr.replace(&recorded, id);
    if cli == Cli::Gemini {
        script.stderr = gemini_stderr(&script.stderr, store);
    }
    Ok(script)
}

fn between(text: &str, before: &str, after: &str) -> Option<String> {
    let start = text.find(before)? + before.len();
    let len = text[start..].find(after)?;
    Some(text[start..start + len].to_owned())
}

/// gemini names the folder it searched, in the CLI's home; with no session at all for
/// the project it says that instead (gemini-cli `SessionError`).
fn gemini_stderr(recorded: &str, store: &Path) -> String {
    let any = std::fs::read_dir(store.join(Cli::Gemini.name()))
        .is_ok_and(|mut entries| entries.next().is_some());
    if !any {
        return "Error resuming session: No previous sessions found for this project.\n".into();
    }
    let home = std::env::var_os("GEMINI_CLI_HOME")
        .or_else(|| std::env::var_os("HOME"))
        .map(PathBuf::from)
        .unwrap_or_default();
    let project = std::env::current_dir()
        .ok()
        .and_then(|cwd| cwd.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_default();
    let chats = home.join(".gemini/tmp").join(project).join("chats");
    match between(recorded, "Searched for sessions in ", ".\n") {
        Some(dir) => recorded.replace(&dir, &chats.display().to_string()),
        None => recorded.to_owned(),
    }
}
