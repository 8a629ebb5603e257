//! `claude -p --input-format stream-json --output-format stream-json --verbose`: a
//! process that answers one turn per user message it reads on stdin, until stdin
//! closes. What it does is what the real Claude Code 2.1.197 and 2.1.332 did against
//! the mock model (`fixtures/agents/claude/stream-input/`, recorded 2026-12-06):
//!
//! - A message is one line, `{"type":"user","message":{"role":"user","content":TEXT}}`
//!   (`content` may also be a list of `{"type":"text","text":…}` blocks).
//! - Each turn prints the whole run's lines again, from the `system`/`init` line (same
//!   session, same model as the process's first turn) to the `result` line that ends it.
//! - `usage` is the turn's own; `total_cost_usd` runs over the process's turns (and on
//!   a 2.1.332 `--resume`, over the whole session, as a resumed run's does).
//! - The process's `--append-system-prompt` applies to every turn (on a 2.1.332
//!   `--resume`, the session's first one does, as for a resumed run).
//! - stdin closed: it exits 0, printing nothing more (a prompt argument is ignored).
//!
//! With `FAKE_AGENT_RECORD`, each turn appends its record (the same `pid` for every turn
//! of the process) with `stdin`, the line read, and `prompt`, the message's text.

use std::io::BufRead;

use serde_json::Value;

use super::billing::session_so_far;
use super::cli::{Cli, Decision, Run};
use super::transcript::{InProcess, choose_in, session_of};
use super::{Knobs, fail, play};

/// Serves `run`'s process: a turn per message, exit 0 when stdin closes.
pub fn serve(cli: Cli, argv: &[String], knobs: &Knobs, run: Run) -> i32 {
    let cwd = std::env::current_dir().unwrap_or_default();
    let resumed_at_start = run.resume.clone();
    // What the session had cost before this process (2.1.332 reports it on --resume).
    let before = match (&knobs.sessions, &resumed_at_start) {
        (Some(store), Some(id)) if knobs.keeps_first_system() => {
            session_so_far(store, cli, id).cost
        }
        _ => 0.0,
    };
    let mut spent = 0.0;
    let mut session: Option<String> = None;
    for line in std::io::stdin().lock().lines() {
        let Ok(line) = line else { break };
        if line.trim().is_empty() {
            continue;
        }
        let Some(prompt) = user_text(&line) else {
            // Not recorded from a real run: a line that is no user message.
            eprintln!("fake-agent: not a stream-json user message: {line}");
            return 1;
        };
        let knobs = if knobs.prompt_knobs {
            match Knobs::with_prompt(&prompt, |name| std::env::var(name).ok()) {
                Ok(knobs) => knobs,
                Err(message) => return fail(&message),
            }
        } else {
            knobs.clone()
        };
        // A later turn goes on with the session the first one printed, as a resume does.
        let turn = Run {
            prompt,
            stdin: Some(line),
            resume: session.clone().or_else(|| run.resume.clone()),
            system: run.system.clone(),
            format: run.format,
        };
        let decision = Decision::Run(turn);
        if let Some(path) = &knobs.record
            && let Err(error) = play::record(path, cli, argv, &cwd, &decision, &knobs)
        {
            return fail(&format!("cannot write {}: {error}", path.display()));
        }
        let Decision::Run(turn) = decision else {
            unreachable!("built as a run above")
        };
        let process = Process {
            before,
            new_session: resumed_at_start.is_none(),
        };
        if let Err(code) = serve_turn(cli, &knobs, turn, &mut spent, process, &mut session) {
            return code;
        }
    }
    0
}

/// What a turn's report depends on besides the turn.
struct Process {
    /// What the session had cost before this process, where the CLI counts it.
    before: f64,
    /// The process started a new session (no `--resume`).
    new_session: bool,
}

/// Plays one turn; `Err(code)` when the process ends with it (a failed resume, an
/// exit knob).
fn serve_turn(
    cli: Cli,
    knobs: &Knobs,
    turn: Run,
    spent: &mut f64,
    process: Process,
    session: &mut Option<String>,
) -> Result<(), i32> {
    let own: f64 = knobs
        .cost
        .as_deref()
        .and_then(|c| c.parse().ok())
        .unwrap_or(0.0);
    *spent += own;
    let in_process = InProcess {
        cost: process.before + *spent,
        new_session: process.new_session,
    };
    let script = match choose_in(cli, knobs, &turn, Some(in_process)) {
        Ok(script) => script,
        Err(message) => return Err(fail(&message)),
    };
    if session.is_none() {
        *session = session_of(cli, &script);
    }
    let failed = script.code != 0;
    let code = play::play(knobs, cli, script);
    match knobs.exit {
        Some(code) => Err(code),
        None if failed || code == 141 => Err(code),
        None => Ok(()),
    }
}

/// The text of a stream-json user message line.
fn user_text(line: &str) -> Option<String> {
    let value: Value = serde_json::from_str(line).ok()?;
    if value["type"] != "user" {
        return None;
    }
    match &value["message"]["content"] {
        Value::String(text) => Some(text.clone()),
        Value::Array(blocks) => Some(
            blocks
                .iter()
                .filter(|b| b["type"] == "text")
                .filter_map(|b| b["text"].as_str())
                .collect::<Vec<_>>()
                .join("\n"),
        ),
        _ => None,
    }
}
