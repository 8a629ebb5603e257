//! What the fake prints: a recorded transcript with its session id swapped in, or an
//! answer generated in the CLI's real line format; converted for `json`/`text` output.

use std::path::PathBuf;

use serde_json::Value;

use super::cli::{Cli, Format, Run};
use super::{Knobs, billing, default_fixtures, sessions};

/// The output of one run.
#[derive(Debug, Default)]
pub struct Script {
    /// stdout lines, without their line breaks.
    pub lines: Vec<String>,
    pub stderr: String,
    pub code: i32,
    /// The real CLI would never exit by itself (codex offline).
    pub hang: bool,
}

/// The script for `run`: `FAKE_AGENT_TEXT` generated, else a transcript file.
pub fn choose(cli: Cli, knobs: &Knobs, run: &Run) -> Result<Script, String> {
    choose_in(cli, knobs, run, None)
}

/// A turn of a claude process that reads user messages on stdin (`stream_input.rs`):
/// what it reports differs from a process of its own.
#[derive(Clone, Copy, Debug)]
pub struct InProcess {
    /// The `total_cost_usd` it prints: a running total (computed by the caller).
    pub cost: f64,
    /// The process started a new session: its model keeps the context-window tag.
    pub new_session: bool,
}

/// [`choose`], for a turn `in_process` of a longer-lived process when given.
pub fn choose_in(
    cli: Cli,
    knobs: &Knobs,
    run: &Run,
    in_process: Option<InProcess>,
) -> Result<Script, String> {
    let resumed = run.resume.as_deref().filter(|id| is_session_id(id));
    if let (Some(store), Some(id)) = (&knobs.sessions, resumed)
        && !sessions::known(store, cli, id)
    {
        return sessions::not_found(cli, knobs, store, id);
    }
    let mut session_bill = None;
    let mut script = match &knobs.text {
        Some(text) => {
            let session = knobs.session.as_deref().or(resumed).unwrap_or(match cli {
                Cli::Claude => "ba6318a6-8ff6-4537-9fb3-78cdd30bb441",
                Cli::Codex => "01a2007b-3fb0-7ff3-8fab-536458979726",
                Cli::Gemini => "9cb17075-5b94-485f-8363-bc25f5176e5c",
            });
            let before = match (&knobs.sessions, resumed) {
                (Some(store), Some(id)) => billing::session_so_far(store, cli, id),
                _ => billing::Bill::default(),
            };
            let chunks = split(text, knobs.chunks).len();
            let mut reported = billing::report(cli, knobs, resumed.is_some(), before, chunks);
            if let Some(turn) = in_process {
                reported.cost = serde_json::Value::from(turn.cost).to_string();
                reported.resumed = !turn.new_session;
            }
            let script = generate(cli, text, knobs, session, &run.prompt, &reported);
            session_bill = Some(reported.session);
            script
        }
        None => {
            let default = if run.resume.is_some() {
                "resume"
            } else {
                "tool-use"
            };
            let mut script = load(cli, knobs, knobs.transcript.as_deref().unwrap_or(default))?;
            if let Some(new) = knobs.session.as_deref().or(resumed) {
                swap_session(cli, &mut script, new);
            }
            script
        }
    };
    if let Some(store) = &knobs.sessions {
        sessions::remember(store, cli, &script, run, session_bill)?;
    }
    script.lines = convert(cli, run.format, std::mem::take(&mut script.lines));
    Ok(script)
}

/// `latest`, `5` and an empty value pick a session by position, not by id.
fn is_session_id(id: &str) -> bool {
    !id.is_empty() && id != "latest" && !id.chars().all(|c| c.is_ascii_digit())
}

pub(super) fn load(cli: Cli, knobs: &Knobs, name: &str) -> Result<Script, String> {
    let path = if name.contains('/') {
        PathBuf::from(name)
    } else {
        let dir = knobs
            .fixtures
            .clone()
            .unwrap_or_else(|| default_fixtures().to_path_buf());
        dir.join(cli.name()).join(format!("{name}.jsonl"))
    };
    let text = std::fs::read_to_string(&path)
        .map_err(|e| format!("cannot read transcript {}: {e}", path.display()))?;
    let meta_path = path.with_extension("meta.json");
    let meta: Value = match std::fs::read_to_string(&meta_path) {
        Ok(meta) => serde_json::from_str(&meta)
            .map_err(|e| format!("{} is not valid JSON: {e}", meta_path.display()))?,
        Err(_) => Value::Null,
    };
    Ok(Script {
        lines: text.lines().map(str::to_owned).collect(),
        stderr: meta["stderr"].as_str().unwrap_or("").to_owned(),
        code: meta["code"].as_i64().unwrap_or(0) as i32,
        hang: meta["hang"].as_bool() == Some(true),
    })
}

/// Replaces the transcript's own session id everywhere (text replacement keeps every
/// line byte for byte otherwise).
fn swap_session(cli: Cli, script: &mut Script, new: &str) {
    let Some(old) = session_of(cli, script) else {
        return;
    };
    for line in &mut script.lines {
        *line = line.replace(&old, new);
    }
    script.stderr = script.stderr.replace(&old, new);
}

/// The session id the script prints (the first line that names one).
pub(super) fn session_of(cli: Cli, script: &Script) -> Option<String> {
    let key = match cli {
        Cli::Codex => "/thread_id",
        Cli::Claude | Cli::Gemini => "/session_id",
    };
    let old = script.lines.iter().find_map(|line| {
        let value: Value = serde_json::from_str(line).ok()?;
        value.pointer(key)?.as_str().map(str::to_owned)
    });
    old.filter(|old| !old.is_empty())
}

/// `text` split into `chunks` deltas, or into words (each with its following space).
fn split(text: &str, chunks: Option<usize>) -> Vec<String> {
    match chunks {
        Some(n) => {
            let chars: Vec<char> = text.chars().collect();
            let size = chars.len().div_ceil(n).max(1);
            chars.chunks(size).map(|c| c.iter().collect()).collect()
        }
        None => text.split_inclusive(' ').map(str::to_owned).collect(),
    }
}

/// Line templates in each CLI's own key order (serde_json would sort the keys);
/// `$NAME` placeholders take JSON values.
mod templates {
    pub const CLAUDE: [&str; 9] = [
        r#"{"type":"system","subtype":"init","cwd":".","session_id":$SESSION,"tools":[],"mcp_servers":[],"model":$MODEL,"permissionMode":"default","apiKeySource":"ANTHROPIC_API_KEY","claude_code_version":$VERSION,"uuid":"fake"}"#,
        r#"{"type":"stream_event","event":{"type":"message_start","message":{"id":"msg_fake","type":"message","role":"assistant","model":"claude-opus-4-8","content":[],"stop_reason":null,"usage":{"input_tokens":10,"output_tokens":1}}},"session_id":$SESSION,"parent_tool_use_id":null,"uuid":"fake"}"#,
        r#"{"type":"stream_event","event":{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}},"session_id":$SESSION,"parent_tool_use_id":null,"uuid":"fake"}"#,
        r#"{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":$TEXT}},"session_id":$SESSION,"parent_tool_use_id":null,"uuid":"fake"}"#,
        r#"{"type":"assistant","message":{"id":"msg_fake","type":"message","role":"assistant","model":"claude-opus-4-8","content":[{"type":"text","text":$TEXT}],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":10,"output_tokens":1}},"parent_tool_use_id":null,"session_id":$SESSION,"uuid":"fake"}"#,
        r#"{"type":"stream_event","event":{"type":"content_block_stop","index":0},"session_id":$SESSION,"parent_tool_use_id":null,"uuid":"fake"}"#,
        r#"{"type":"stream_event","event":{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":$COUNT}},"session_id":$SESSION,"parent_tool_use_id":null,"uuid":"fake"}"#,
        r#"{"type":"stream_event","event":{"type":"message_stop"},"session_id":$SESSION,"parent_tool_use_id":null,"uuid":"fake"}"#,
        r#"{"type":"result","subtype":"success","is_error":false,"api_error_status":null,"duration_ms":1,"duration_api_ms":1,"num_turns":1,"result":$TEXT,"stop_reason":"end_turn","session_id":$SESSION,"total_cost_usd":$COST,"usage":{"input_tokens":$INPUT,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":$OUTPUT,"service_tier":"standard"},"permission_denials":[],"terminal_reason":"completed","uuid":"fake"}"#,
    ];
    pub const CODEX: [&str; 4] = [
        r#"{"type":"thread.started","thread_id":$SESSION}"#,
        r#"{"type":"turn.started"}"#,
        r#"{"type":"item.completed","item":{"id":"item_0","type":"agent_message","text":$TEXT}}"#,
        r#"{"type":"turn.completed","usage":{"input_tokens":$INPUT,"cached_input_tokens":0,"cache_write_input_tokens":0,"output_tokens":$OUTPUT,"reasoning_output_tokens":0}}"#,
    ];
    pub const GEMINI: [&str; 4] = [
        r#"{"type":"init","timestamp":"2026-11-21T23:42:59.267Z","session_id":$SESSION,"model":"auto"}"#,
        r#"{"type":"message","timestamp":"2026-11-21T23:42:59.268Z","role":"user","content":$TEXT}"#,
        r#"{"type":"message","timestamp":"2026-11-21T23:42:59.364Z","role":"assistant","content":$TEXT,"delta":true}"#,
        r#"{"type":"result","timestamp":"2026-11-21T23:42:59.797Z","status":"success","stats":{"total_tokens":$TOTAL,"input_tokens":10,"output_tokens":$COUNT,"cached":0,"input":10,"duration_ms":1,"tool_calls":0,"models":{}}}"#,
    ];
}

/// `template` with each `$NAME` replaced by its value, in one pass (a value is never
/// scanned for placeholders).
fn fill(template: &str, values: &[(&str, &str)]) -> String {
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(at) = rest.find('$') {
        out.push_str(&rest[..at]);
        rest = &rest[at..];
        match values.iter().find(|(name, _)| rest.starts_with(name)) {
            Some((name, value)) => {
                out.push_str(value);
                rest = &rest[name.len()..];
            }
            None => {
                out.push('$');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

fn quoted(text: &str) -> String {
    Value::from(text).to_string()
}

/// A successful answer of `text` in `cli`'s line format, shaped like the recorded
/// streaming transcripts (codex's `--json` has no deltas: one whole message).
fn generate(
    cli: Cli,
    text: &str,
    knobs: &Knobs,
    session: &str,
    prompt: &str,
    reported: &billing::Reported,
) -> Script {
    let pieces = split(text, knobs.chunks);
    let version = quoted(knobs.version.as_deref().unwrap_or("2.1.197"));
    // claude names its model with the context window's tag on a new session only
    // (agents-2026-12.md).
    let model = quoted(if reported.resumed {
        "claude-opus-4-8"
    } else {
        "claude-opus-4-8[1m]"
    });
    let (session, whole, prompt) = (quoted(session), quoted(text), quoted(prompt));
    let count = pieces.len().to_string();
    let total = (10 + pieces.len()).to_string();
    let line = |template: &str, text: &str| {
        fill(
            template,
            &[
                ("$SESSION", &session),
                ("$TEXT", text),
                ("$COUNT", &count),
                ("$TOTAL", &total),
                ("$COST", &reported.cost),
                ("$INPUT", &reported.input),
                ("$OUTPUT", &reported.output),
                ("$VERSION", &version),
                ("$MODEL", &model),
            ],
        )
    };
    let deltas = |template: &str| {
        pieces
            .iter()
            .map(|p| line(template, &quoted(p)))
            .collect::<Vec<_>>()
    };
    let lines = match cli {
        Cli::Claude => {
            let t = templates::CLAUDE;
            // The init line names the version impersonated (`FAKE_AGENT_VERSION`).
            let init = match &knobs.version {
                Some(version) => line(t[0], "").replace(
                    r#""claude_code_version":"2.1.197""#,
                    &format!(r#""claude_code_version":{}"#, quoted(version)),
                ),
                None => line(t[0], ""),
            };
            let mut lines = vec![init, line(t[1], ""), line(t[2], "")];
            lines.extend(deltas(t[3]));
            lines.extend(t[4..].iter().map(|t| line(t, &whole)));
            lines
        }
        Cli::Codex => templates::CODEX.iter().map(|t| line(t, &whole)).collect(),
        Cli::Gemini => {
            let t = templates::GEMINI;
            let mut lines = vec![line(t[0], ""), line(t[1], &prompt)];
            lines.extend(deltas(t[2]));
            lines.push(line(t[3], ""));
            lines
        }
    };
    Script {
        lines,
        ..Script::default()
    }
}

/// The JSON lines as the other output formats print them.
fn convert(cli: Cli, format: Format, lines: Vec<String>) -> Vec<String> {
    if format == Format::Jsonl {
        return lines;
    }
    let events: Vec<Value> = lines
        .iter()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    let of_type = |t: &'static str| events.iter().filter(move |e| e["type"] == t);
    let answer = match cli {
        Cli::Claude => of_type("result")
            .next_back()
            .and_then(|r| r["result"].as_str())
            .unwrap_or("")
            .to_owned(),
        Cli::Codex => of_type("item.completed")
            .rfind(|e| e["item"]["type"] == "agent_message")
            .and_then(|e| e["item"]["text"].as_str())
            .unwrap_or("")
            .to_owned(),
        Cli::Gemini => of_type("message")
            .filter(|e| e["role"] == "assistant")
            .filter_map(|e| e["content"].as_str())
            .collect(),
    };
    match (format, cli) {
        (Format::Json, Cli::Gemini) => {
            let session = of_type("init")
                .next()
                .map_or(Value::Null, |e| e["session_id"].clone());
            let stats = of_type("result")
                .next_back()
                .map_or(Value::Null, |e| e["stats"].clone());
            vec![format!(
                r#"{{"session_id":{session},"response":{},"stats":{stats}}}"#,
                quoted(&answer)
            )]
        }
        (Format::Json, _) => of_type("result")
            .next_back()
            .map(Value::to_string)
            .into_iter()
            .collect(),
        _ => answer.lines().map(str::to_owned).collect(),
    }
}

/// One line of answer text of about 1 KiB in `cli`'s format, for floods.
pub fn flood_line(cli: Cli) -> String {
    let text = quoted(&format!("{}\n", "flood ".repeat(160)));
    let template = match cli {
        Cli::Claude => templates::CLAUDE[3],
        Cli::Codex => templates::CODEX[2],
        Cli::Gemini => templates::GEMINI[2],
    };
    fill(template, &[("$SESSION", "\"flood\""), ("$TEXT", &text)])
}

/// Lines no CLI should print but a test must survive: ANSI escapes, invalid UTF-8,
/// a truncated JSON object, a JSON value that is not an event.
pub fn garbage() -> Vec<Vec<u8>> {
    vec![
        b"\x1b[31mwarning:\x1b[0m fake-agent garbage".to_vec(),
        b"not json \xff\xfe\xc3\x28 invalid UTF-8".to_vec(),
        b"{\"type\": \"truncated".to_vec(),
        b"[1, 2, 3]".to_vec(),
    ]
}
