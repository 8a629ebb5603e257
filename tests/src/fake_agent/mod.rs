//! The fake agent: one binary that impersonates `claude`, `codex` or `gemini` for tests,
//! checking its command line like the real CLI and replaying recorded transcripts.
//!
//! It picks the CLI from its own file name (`argv[0]`'s base name; tests symlink the
//! binary as `claude`, `codex` or `gemini` in a temp `PATH` folder) or `FAKE_AGENT_AS`.
//! It never touches the network. Run as `claude-agent-acp`, `codex-acp`, `gemini --acp`
//! or `fake-agent --acp`, it speaks ACP instead: see [`acp`] for its prompt keywords.
//!
//! # Knobs (environment variables)
//!
//! | variable | effect |
//! | --- | --- |
//! | `FAKE_AGENT_AS=claude\|codex\|gemini` | impersonate this CLI whatever the file name |
//! | `FAKE_AGENT_TRANSCRIPT=<name\|path>` | replay `<fixtures>/<cli>/<name>.jsonl` (or the file at a path containing `/`); default `resume` when resuming, else `tool-use` |
//! | `FAKE_AGENT_FIXTURES=<dir>` | where transcripts live (default: this crate's `fixtures/agents`) |
//! | `FAKE_AGENT_COST=<usd>` | what the model billed a generated claude answer (default 0): its `total_cost_usd`, or on `--resume` from version 2.1.332 on the session's running total (see `billing.rs`) |
//! | `FAKE_AGENT_TOKENS=<in>/<out>` | what the model billed a generated answer (default 10 in, one out per chunk): claude and gemini report it, codex on `exec resume` the thread's running total |
//! | `FAKE_AGENT_VERSION=<N.N.N>` | the version it is: `--version` prints it in the CLI's words, claude's init line names it and claude behaves as that version (default: the recorded one): from 2.1.332 on, `total_cost_usd` on `--resume` is the session's running total, and a resumed session keeps its first run's `--append-system-prompt` and ignores the run's own (needs `FAKE_AGENT_SESSIONS`, where that text is kept) |
//! | `FAKE_AGENT_SESSION=<id>` | the session id printed (default: the resumed id, else the transcript's) |
//! | `FAKE_AGENT_TEXT=<text>` | instead of a transcript, answer `<text>` in the CLI's format |
//! | `FAKE_AGENT_CHUNKS=<n>` | with `FAKE_AGENT_TEXT`: stream it as `n` deltas (default: one per word; codex has no deltas) |
//! | `FAKE_AGENT_DELAY_MS=<ms>` | sleep before each stdout line, and before printing `--version` (a CLI slow to start) |
//! | `FAKE_AGENT_SPREAD_MS=<ms>` | with `FAKE_AGENT_CHUNKS`: spread the chunk lines evenly over this long (a flood of 100k chunks in 1 s) |
//! | `FAKE_AGENT_CRASH_AT=<n>` | abort (killed by SIGABRT, no exit code) after `n` stdout lines |
//! | `FAKE_AGENT_HANG=1` | print nothing (but `FAKE_AGENT_STDERR`) and sleep forever |
//! | `FAKE_AGENT_HANG_AFTER=<n>` | print `n` stdout lines, then sleep forever |
//! | `FAKE_AGENT_EXIT=<code>` | exit with this code instead of the transcript's |
//! | `FAKE_AGENT_FLOOD_MB=<n>` | after the first line, print `n` MiB of answer-text events |
//! | `FAKE_AGENT_RESIDENT_MB=<n>` | hold `n` MiB of written (so resident) memory from the start until it exits: an agent as big as a real one, for chatmd's cap on the memory of kept agents |
//! | `FAKE_AGENT_GARBAGE=1` | after the first line, print an ANSI-colored line, invalid UTF-8 and non-JSON lines |
//! | `FAKE_AGENT_STDERR=<text>` | print this line on stderr first (a "started" signal for tests) |
//! | `FAKE_AGENT_IGNORE_TERM=1` | ignore SIGTERM (only SIGKILL ends it) |
//! | `FAKE_AGENT_GRANDCHILD=1` | start a child process that sleeps forever (same process group, same stdout) |
//! | `FAKE_AGENT_GRANDCHILD_PID=<file>` | write that child's pid here |
//! | `FAKE_AGENT_PROMPT_KNOBS=1` | also take knobs from the prompt's last `fake-agent: NAME=value, NAME=value` line (they win over the environment's), so one member can behave differently per turn |
//! | `FAKE_AGENT_RECORD=<file>` | write what it received as JSON: `pid`, `as`, `argv`, `cwd`, `env` (the state and trust variables), `stdin`, `prompt`, `resume`, `refused`, `signals` (the `SigBlk` and `SigIgn` masks it started with), and for claude `system`, the system text its model gets (this run's `--append-system-prompt`, or on a 2.1.332 resume the session's first); a `<file>` ending in `.jsonl` gets one line per run appended instead; claude with `--input-format stream-json` writes one record per user message it reads (`stdin`: that line, `prompt`: its text; the same `pid`), see `stream_input.rs` |
//! | `FAKE_AGENT_SESSIONS=<dir>` | a session store: each run adds the session it printed as `<dir>/<cli>/<id>`, and resuming an id not there prints the CLI's own "not found" (see `sessions.rs`); unset, every session resumes |
//!
//! A transcript's `<name>.meta.json` gives its exit code, stderr and whether the real
//! CLI would hang (see `fixtures/agents/README.md`).

pub mod acp;
mod billing;
mod claude;
mod cli;
mod codex;
mod gemini;
mod knobs;
mod play;
mod sessions;
mod stream_input;
mod transcript;

use std::path::Path;

pub use cli::Cli;
pub use knobs::Knobs;

/// Runs the fake agent with this process's arguments and environment; returns the exit
/// code (unless a knob aborts or hangs first).
pub fn main() -> i32 {
    if std::env::var_os(play::SLEEPER).is_some() {
        play::sleep_forever();
    }
    let argv: Vec<String> = std::env::args_os()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let knobs = match Knobs::from_env() {
        Ok(knobs) => knobs,
        Err(message) => return fail(&message),
    };
    if let Some(mb) = knobs.resident_mb {
        // Written, not only reserved: untouched pages are not resident.
        let held = vec![1u8; mb << 20];
        std::hint::black_box(&held);
        std::mem::forget(held);
    }
    if let Some(flavor) = acp::flavor_of(&argv, knobs.cli) {
        return acp::run(flavor, &argv, knobs);
    }
    let Some(cli) = knobs
        .cli
        .or_else(|| Cli::from_program(argv.first().map(String::as_str)))
    else {
        return fail(
            "name the binary claude, codex or gemini (a copy or a symlink), or set FAKE_AGENT_AS",
        );
    };
    let cwd = std::env::current_dir().unwrap_or_default();
    let decision = match cli {
        Cli::Claude => claude::decide(&argv[1..], knobs.version.as_deref()),
        Cli::Codex => codex::decide(&argv[1..], &cwd),
        Cli::Gemini => gemini::decide(&argv[1..]),
    };
    let knobs = match &decision {
        cli::Decision::Run(run) if knobs.prompt_knobs => {
            match Knobs::with_prompt(&run.prompt, |name| std::env::var(name).ok()) {
                Ok(knobs) => knobs,
                Err(message) => return fail(&message),
            }
        }
        _ => knobs,
    };
    if let cli::Decision::Serve(run) = decision {
        return stream_input::serve(cli, &argv, &knobs, run);
    }
    if let Some(path) = &knobs.record
        && let Err(error) = play::record(path, cli, &argv, &cwd, &decision, &knobs)
    {
        return fail(&format!("cannot write {}: {error}", path.display()));
    }
    match decision {
        cli::Decision::Print(stdout) => {
            // `--version` is the only thing printed without a turn.
            if let Some(delay) = knobs.delay {
                std::thread::sleep(delay);
            }
            match &knobs.version {
                Some(version) => print!("{}", cli.version_line_of(version)),
                None => print!("{stdout}"),
            }
            0
        }
        cli::Decision::Refuse { stderr, code, .. } => {
            eprint!("{stderr}");
            code
        }
        cli::Decision::Serve(_) => unreachable!("served above"),
        cli::Decision::Run(run) => match transcript::choose(cli, &knobs, &run) {
            Ok(script) => play::play(&knobs, cli, script),
            Err(message) => fail(&message),
        },
    }
}

/// A problem with the fake itself (not an impersonated error): exit 2 with a message.
fn fail(message: &str) -> i32 {
    eprintln!("fake-agent: {message}");
    2
}

/// Makes `fake` (the built `fake-agent` binary, `env!("CARGO_BIN_EXE_fake-agent")` in
/// this crate's tests) runnable as `claude`, `codex` and `gemini` in `dir` (symlinks, so
/// no copy is "text file busy" while another test runs it); returns `dir`, to put first
/// on `PATH` or to join with a CLI name.
pub fn install(fake: &Path, dir: &Path) -> std::io::Result<std::path::PathBuf> {
    std::fs::create_dir_all(dir)?;
    for cli in [Cli::Claude, Cli::Codex, Cli::Gemini] {
        let link = dir.join(cli.name());
        if link.symlink_metadata().is_err() {
            std::os::unix::fs::symlink(fake, &link)?;
        }
    }
    Ok(dir.to_path_buf())
}

/// Like [`install`], plus `claude-agent-acp` and `codex-acp` (the ACP adapters; gemini
/// speaks ACP as `gemini --acp`). Kept apart so a test can still find these missing.
pub fn install_acp(fake: &Path, dir: &Path) -> std::io::Result<std::path::PathBuf> {
    install(fake, dir)?;
    for name in acp::PROGRAMS {
        let link = dir.join(name);
        if link.symlink_metadata().is_err() {
            std::os::unix::fs::symlink(fake, &link)?;
        }
    }
    Ok(dir.to_path_buf())
}

/// The folder of recorded transcripts shipped with this crate.
pub fn default_fixtures() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/agents"))
}
