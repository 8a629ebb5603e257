//! The fake agent's ACP mode: it speaks the Agent Client Protocol on stdin/stdout the
//! way `gemini --acp` 0.61, `claude-agent-acp` 0.49 and `codex-acp` 2.6 do
//! (`fixtures/acp/recorded/`), with the mock model of those recordings behind it.
//!
//! # Invocation
//!
//! | command | flavor |
//! | --- | --- |
//! | `claude-agent-acp` (the binary under that name) | claude |
//! | `codex-acp` | codex |
//! | `gemini --acp` (or `--experimental-acp`) | gemini |
//! | `fake-agent --acp` with `FAKE_AGENT_AS=claude\|codex\|gemini` | that one |
//!
//! `fake_agent::install_acp` links the binary under the first three names.
//!
//! # Keywords in the prompt
//!
//! Looked for in the message being answered (after the prompt's last `[MESSAGE]` line,
//! else the whole prompt). The answer is the mock's line, three words per chunk:
//! `ANSWER-<api> role_seen=… marker_count=… roles=… team=… turn=… user_msgs=… assistant_msgs=… ask=<last ASK-… token>`.
//!
//! | keyword | behaviour |
//! | --- | --- |
//! | (none) | plain answer in several chunks, `end_turn` |
//! | `MOCK-MODE=slow` | the answer line, then 40 `SLOW-CHUNK-NN ` chunks `FAKE_AGENT_DELAY_MS` apart (default 250 ms) |
//! | `MOCK-MODE=toolwrite` | `touch tool-wrote.txt` (or `WRITE=<name>`) in the session's folder behind one permission request, in the flavor's exact sequence |
//! | `MOCK-MODE=toolwrite2` | two such commands, two permission requests (`WRITE=<a> WRITE=<b>`, default `tool-wrote.txt`, `tool-wrote-2.txt`) |
//! | `MOCK-MODE=exitplan` | claude only: a plan approval (ExitPlanMode: `switch_mode`, title "Ready to code?", `rawInput.plan`; 0.101's shape with `FAKE_ACP_CLAUDE_VERSION`); an approval switches the session's mode, and 0.101 sends the approved plan as a markdown `plan_update` to a client that declares `plan` |
//! | `MOCK-MODE=ask` | a question by `elicitation/create` (form: "Which color should the button be?", one property `color` with choices Blue/Red; `ASK=url`: a URL to open); the answer quotes the client's result as `tool_result="{…}"`; `cancel` ends the turn cancelled; a client without `elicitation` is not asked (`question.rs`) |
//! | `MOCK-MODE=mcp` | the answer quotes the MCP servers the session request carried, one `name transport command-or-url [env/headers]` each: `tool_result="mcp=files stdio mcp-files --root .; docs http https://…"` (an entry that is not the schema's `McpServer` fails the request with invalid params) |
//! | `MOCK-MODE=terminal` | a command through the client's terminal: `terminal/create` (`sh -c "printf 'line 1\\nline 2\\nline 3\\n'; exit 3"`; `RUN=sleep`: `echo $$ > terminal.pid; echo waiting; exec sleep 60`), a tool call embedding it, `wait_for_exit`, `output`, `release`; the answer quotes them: `tool_result="exit=3 signal=null truncated=false output=line 1\|line 2\|line 3"` (`terminal.rs`) |
//! | `MOCK-MODE=crash` | two chunks, a stderr line, exit 1 |
//! | `MOCK-MODE=writefile` | an edit through the client, as claude-agent-acp 0.101 makes one when the client offers `fs`: `fs/read_text_file` of `WRITE=<path>` (relative to the session's folder, `/` allowed; default `notes.txt`), then `fs/write_text_file` of its text with the first line upper-cased (`created by the fake agent` when the read failed); `WRITE-ABS=<path>` names an absolute path instead. The answer quotes `wrote <path>` or the client's error |
//! | `MOCK-MODE=readfile` | an `fs/read_text_file` request for `READ=<name>` (default `notes.txt`); the answer quotes the client's error |
//! | `MOCK-MODE=noauth` | claude: `session/prompt` fails `-32000 "Authentication required"` |
//! | `MOCK-MODE=render` | two thought chunks (one with a `## @me` line), a plan and two updates of it, an edit of `EDIT=<name>` (default `notes.txt`) as a tool call with its diff and location, usage, then the answer; each step `FAKE_AGENT_DELAY_MS` apart when set (`render.rs`) |
//!
//! # Environment
//!
//! | variable | effect |
//! | --- | --- |
//! | `FAKE_ACP_LOG=<file>` | append every line received, one JSON per line (a line that is not JSON as `{"malformed": "<line>"}`), after a `{"started": <pid>}` line when the process starts |
//! | `FAKE_ACP_CLAUDE_START_MODE=<mode>` | claude's sessions start in this mode (claude-agent-acp 0.101 starts in `auto`); in `auto` and `bypassPermissions` its tools run without a permission request |
//! | `FAKE_ACP_CLAUDE_VERSION=0.101.0` | claude plays claude-agent-acp 0.101 where its shapes differ from 0.49's: a plan approval titled "Approve Plan" with the plan only in the call's update and a `planFilePath` (`plan_approval.rs`) |
//! | `FAKE_ACP_NO_AUTH=1` | no credentials: gemini `session/new` → `-32000 "Gemini API key is missing or not configured."`, codex `session/new` → `-32000 "Authentication required"`, claude `session/prompt` → the same |
//! | `FAKE_ACP_EXIT_CODE=<n>` | once stdin closed, print gemini --acp 0.61's classifier-router line on stderr and exit with this code (it exited 1 after whole answers now and then) |
//! | `FAKE_ACP_LINGER_MS=<ms>` | after stdin closes, stay this long before exiting, as codex-acp does (2 s); a SIGTERM meanwhile is logged as `{"signal": "SIGTERM"}` and ends it (claude as 0.101 then never writes its cost record) |
//! | `FAKE_ACP_SAVE_LATE_MS=<ms>` | claude as 0.101: the cost record is written by a process left behind in the group, this long after the agent exited (Claude Code under the adapter still writing its session) |
//! | `FAKE_ACP_GEMINI_LOAD_FAILS=1` | gemini's `session/load` fails `-32603` "No previous sessions found for this project." and forgets the session, as the real one does within the minute of the session's creation |
//! | `FAKE_ACP_SAY_FIRST=<text>` | in a tool turn, the words the model says before its first tool call (default `I'll run a command.`; real models say anything there, a quoted record included) |
//! | `FAKE_ACP_STEERING=1` | advertise `_meta.steering.supported` and take `_session/steering` (`steering.rs`): `injected` during a prompt (the rest of the turn answers `steered: <text>`; slow mode stops its chunks), `promptRequired` when idle; without it the method is unknown (`-32601`) |
//! | `INITIAL_AGENT_MODE` | codex's mode (default `agent`, which never asks; `workspace-write` and `read-only` ask) |
//! | `CLAUDE_CONFIG_DIR`, `CODEX_HOME`, `GEMINI_CLI_HOME` | where sessions are kept (`fake-acp-sessions/`), so a new process resumes them |
//! | `FAKE_AGENT_TEXT`, `FAKE_AGENT_CHUNKS`, `FAKE_AGENT_DELAY_MS`, `FAKE_AGENT_SPREAD_MS`, `FAKE_AGENT_STDERR`, `FAKE_AGENT_RECORD`, `FAKE_AGENT_PROMPT_KNOBS` | as for the headless CLIs (per prompt with `fake-agent:` lines) |
//!
//! # Permission answers
//!
//! Each flavor offers its own options (`tools.rs`, `permission.rs`) and request ids count
//! from 0. An allow creates the file; a reject makes gemini and claude answer with the
//! refusal quoted and `end_turn`, codex end the turn `cancelled` with no text. An
//! "always" answer is kept where the real agent keeps it: gemini for the session only,
//! claude in `<cwd>/.claude/settings.local.json`, codex in
//! `$CODEX_HOME/rules/default.rules`; a later matching command is not asked about. The
//! outcome `cancelled` ends the turn `cancelled`. An `optionId` that was not offered is
//! taken as a refusal and reported on stderr.
//!
//! # Session settings
//!
//! Each flavor offers its recorded `configOptions` (claude: mode, model, effort; codex:
//! mode, collaboration mode, model; gemini none, only the legacy `modes`/`models`) and
//! answers `session/set_config_option` and `session/set_mode` as the real one does
//! (`settings.rs`): its result shapes, the `current_mode_update` /
//! `config_option_update` that follow, and its own error for an unknown option or a
//! value it does not offer (also reported on stderr: a client should check first).
//! `additionalDirectories` in a session request must be absolute paths (`-32602`
//! otherwise); gemini, which does not advertise them, complains on stderr.
//!
//! # Fork
//!
//! Where the flavor advertises `sessionCapabilities.fork` (claude, codex), `session/fork`
//! makes a new session holding the stored one's history under a new id (`fork.rs`).
//!
//! # Checks
//!
//! The first message must be `initialize` (else `-32600` and a stderr line; no real agent
//! checks this), asking `protocolVersion` 1 (else a stderr line). A prompt for a session
//! not open answers the agent's own `-32603`. A line that is not JSON gets what the ACP
//! SDK does: a stderr line and no answer. After `session/cancel`, a permission request
//! still waiting must be answered `cancelled`, else stderr says so; so does stderr for a
//! request never answered when stdin closes. `session/new`, `load` and `resume` need an
//! absolute `cwd` and an `mcpServers` list (`-32602` otherwise); a session resumes or loads
//! only in the folder it was created in. codex-acp stops at once (exit 1) when
//! `CODEX_HOME` names a missing folder. The process exits 0 when stdin closes.

mod answer;
mod files;
mod flavor;
mod fork;
mod ids;
pub(crate) mod json;
mod log;
mod mcp;
mod modes;
mod permission;
mod plan_approval;
mod question;
mod render;
mod replay;
mod server;
mod settings;
mod steering;
mod store;
mod terminal;
mod tools;
mod turn;
mod usage;
mod wire;

pub use log::{
    answers_received, methods_received, other_answers_received, questions_answered,
    requests_received, started_pids,
};

use std::path::Path;

use super::Knobs;
use super::cli::Cli;

/// The ACP flavor this command line asks for, if it is an ACP one.
pub fn flavor_of(argv: &[String], forced: Option<Cli>) -> Option<Cli> {
    let stem = Path::new(argv.first()?).file_stem()?.to_str()?;
    match stem {
        "claude-agent-acp" => return Some(Cli::Claude),
        "codex-acp" => return Some(Cli::Codex),
        _ => {}
    }
    let acp = argv[1..]
        .iter()
        .any(|a| a == "--acp" || a == "--experimental-acp");
    match Cli::from_name(stem) {
        // `claude --acp` and `codex --acp` are left to their own checkers, which refuse.
        Some(Cli::Gemini) if forced.is_none_or(|f| f == Cli::Gemini) => acp.then_some(Cli::Gemini),
        Some(_) => None,
        None => forced.filter(|_| acp),
    }
}

/// The program names [`install`] links.
pub const PROGRAMS: [&str; 2] = ["claude-agent-acp", "codex-acp"];

/// Runs the agent until stdin closes; returns the exit code.
pub fn run(flavor: Cli, argv: &[String], knobs: Knobs) -> i32 {
    if flavor == Cli::Codex
        && let Some(home) = std::env::var_os("CODEX_HOME")
        && !Path::new(&home).exists()
    {
        // codex-acp's app-server stops at once, with codex's own words.
        eprintln!(
            "Error finding codex home: CODEX_HOME points to \"{}\", but that path does not exist",
            Path::new(&home).display()
        );
        return 1;
    }
    if let Some(path) = &knobs.record
        && let Err(error) = record(path, flavor, argv)
    {
        eprintln!("fake-agent: cannot write {}: {error}", path.display());
        return 2;
    }
    if let Some(text) = &knobs.stderr {
        eprintln!("{text}");
    }
    let log = match std::env::var_os("FAKE_ACP_LOG").filter(|v| !v.is_empty()) {
        None => None,
        Some(path) => {
            let opened = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(&path);
            match opened {
                Ok(mut file) => {
                    // Which process got the messages after it: a test counts the
                    // agent's starts (a warm member's next turn starts none).
                    use std::io::Write;
                    let started = serde_json::json!({"started": std::process::id()});
                    let _ = writeln!(file, "{started}");
                    Some(file)
                }
                Err(error) => {
                    eprintln!(
                        "fake-agent: cannot open FAKE_ACP_LOG {}: {error}",
                        Path::new(&path).display()
                    );
                    return 2;
                }
            }
        }
    };
    let mut agent = server::Agent::new(flavor, knobs, wire::Inbox::start(log));
    loop {
        match agent.inbox.next() {
            wire::Event::Eof => break,
            wire::Event::Malformed(line) => wire::report_malformed(&line),
            wire::Event::Msg(msg) => agent.dispatch(msg),
        }
    }
    agent.finish();
    // A SIGTERM during the linger ends the process before it writes its cost record
    // (as a Node process without a handler for it): the record is lost.
    if !linger() {
        agent.save_costs();
    }
    exit_code_at_end()
}

/// `FAKE_ACP_EXIT_CODE`: the code the process exits with once stdin closed, after the
/// line gemini --acp 0.61 printed on stderr when it exited 1 after a whole answer.
fn exit_code_at_end() -> i32 {
    let code = std::env::var("FAKE_ACP_EXIT_CODE")
        .ok()
        .and_then(|v| v.trim().parse::<i32>().ok())
        .unwrap_or(0);
    if code != 0 {
        eprintln!(
            "Could not find promptId in context for classifier-router. This is unexpected. \
             Using a fallback ID: classifier-router-fallback-1796550498750-6e2387589ef91"
        );
    }
    code
}

/// `FAKE_ACP_LINGER_MS`: stays that long after stdin closed, as codex-acp does (2 s,
/// shutting its app server down), or as claude-agent-acp does on a busy machine before
/// it writes its cost record (the fake as 0.101 writes it after the linger), then
/// exits 0; a SIGTERM meanwhile is noted in
/// `FAKE_ACP_LOG` as `{"signal": "SIGTERM"}` and ends it at once, with 0 too. Returns
/// whether a SIGTERM ended it.
fn linger() -> bool {
    let Some(ms) = std::env::var("FAKE_ACP_LINGER_MS")
        .ok()
        .and_then(|v| v.trim().parse::<u64>().ok())
    else {
        return false;
    };
    let Ok(runtime) = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    else {
        return false;
    };
    let terminated = runtime.block_on(async {
        let Ok(mut term) =
            tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
        else {
            return false;
        };
        tokio::select! {
            _ = term.recv() => true,
            () = tokio::time::sleep(std::time::Duration::from_millis(ms)) => false,
        }
    });
    if terminated && let Some(path) = std::env::var_os("FAKE_ACP_LOG").filter(|v| !v.is_empty()) {
        use std::io::Write;
        if let Ok(mut file) = std::fs::OpenOptions::new().append(true).open(path) {
            let _ = writeln!(file, "{}", serde_json::json!({"signal": "SIGTERM"}));
        }
    }
    terminated
}

/// `FAKE_AGENT_RECORD` for an ACP run: how it was started (the messages are in
/// `FAKE_ACP_LOG`).
fn record(path: &Path, flavor: Cli, argv: &[String]) -> std::io::Result<()> {
    let env: serde_json::Map<String, serde_json::Value> = super::play::RECORDED_ENV
        .iter()
        .chain(&["INITIAL_AGENT_MODE"])
        .filter_map(|name| Some((name.to_string(), std::env::var(name).ok()?.into())))
        .collect();
    let record = serde_json::json!({
        "pid": std::process::id(),
        "as": flavor.name(),
        "acp": true,
        "argv": argv,
        "cwd": std::env::current_dir().unwrap_or_default(),
        "env": env,
    });
    super::play::write_record(path, &record)
}

/// The program a test runs for `flavor` (with `--acp` for gemini).
pub fn command_of(flavor: Cli) -> (&'static str, &'static [&'static str]) {
    match flavor {
        Cli::Gemini => (flavor::program(flavor), &["--acp"]),
        _ => (flavor::program(flavor), &[]),
    }
}
