//! `claude`'s command line, checked the way Claude Code 2.1.197 does (commander-style
//! options): unknown options, stream-json without `--verbose`, skip-permissions as root.
//! With `FAKE_AGENT_VERSION=2.1.332` it is that version: on `--resume` the model gets
//! the session's first `--append-system-prompt`, not this run's (`sessions.rs`).

use super::cli::{
    Arity, Cli, Decision, Format, Found, Run, has, lookup, read_stdin, take_values, value_of,
};

use Arity::{Flag, Optional, Value, Variadic};

/// The options of `claude --help` (plus the hidden ones the reference tested).
const OPTIONS: &[(&str, Arity)] = &[
    ("--print|-p", Flag),
    ("--verbose", Flag),
    ("--output-format", Value),
    ("--input-format", Value),
    ("--include-partial-messages", Flag),
    ("--include-hook-events", Flag),
    ("--append-system-prompt", Value),
    ("--append-system-prompt-file", Value),
    ("--system-prompt", Value),
    ("--system-prompt-file", Value),
    ("--resume|-r", Optional),
    ("--continue|-c", Flag),
    ("--session-id", Value),
    ("--fork-session", Flag),
    ("--no-session-persistence", Flag),
    ("--model", Value),
    ("--fallback-model", Value),
    ("--effort", Value),
    ("--add-dir", Variadic),
    ("--allowedTools|--allowed-tools", Variadic),
    ("--disallowedTools|--disallowed-tools", Variadic),
    ("--tools", Variadic),
    ("--permission-mode", Value),
    ("--dangerously-skip-permissions", Flag),
    ("--allow-dangerously-skip-permissions", Flag),
    ("--max-turns", Value),
    ("--max-budget-usd", Value),
    ("--mcp-config", Variadic),
    ("--strict-mcp-config", Flag),
    ("--settings", Value),
    ("--setting-sources", Value),
    ("--agent", Value),
    ("--agents", Value),
    ("--json-schema", Value),
    ("--betas", Variadic),
    ("--debug|-d", Optional),
    ("--debug-file", Value),
    ("--bare", Flag),
    ("--safe-mode", Flag),
    ("--name|-n", Value),
    ("--plugin-dir", Value),
    ("--plugin-url", Value),
    ("--file", Variadic),
    ("--replay-user-messages", Flag),
    ("--disable-slash-commands", Flag),
    ("--exclude-dynamic-system-prompt-sections", Flag),
    ("--ide", Flag),
    ("--brief", Flag),
    ("--chrome", Flag),
    ("--no-chrome", Flag),
    ("--prompt-suggestions", Optional),
    ("--ax-screen-reader", Flag),
    ("--worktree|-w", Optional),
    ("--tmux", Flag),
    ("--from-pr", Optional),
    ("--remote-control", Optional),
    ("--remote-control-session-name-prefix", Value),
    ("--background|--bg", Flag),
    ("--help|-h", Flag),
    ("--version|-v", Flag),
];

/// The choices of `--permission-mode` (cli-help/claude--help.txt).
const PERMISSION_MODES: [&str; 6] = [
    "acceptEdits",
    "auto",
    "bypassPermissions",
    "default",
    "dontAsk",
    "plan",
];

/// The first Claude Code version that keeps a session's first `--append-system-prompt`
/// on `--resume` and ignores the one given then (agents-2026-12.md).
pub const KEEPS_FIRST_SYSTEM: &str = "2.1.332";

/// Checks `args` (without the program) like claude, as `version` (default 2.1.197);
/// reads stdin only when it runs.
pub fn decide(args: &[String], version: Option<&str>) -> Decision {
    let (found, operands) = match parse(args) {
        Ok(parsed) => parsed,
        Err(refusal) => return refusal,
    };
    if has(&found, "--version") {
        return Decision::Print(match version {
            Some(version) => format!("{version} (Claude Code)\n"),
            None => Cli::Claude.version_line().into(),
        });
    }
    if operands.len() > 1 {
        let message = format!(
            "error: too many arguments. Expected 1 argument but got {}.\n",
            operands.len()
        );
        return Decision::refuse(message, 1);
    }
    if !has(&found, "--print") {
        return Decision::refuse(
            "fake-agent: claude without -p starts its interactive UI, which the fake does not imitate\n",
            2,
        );
    }
    if found
        .iter()
        .any(|f| f.name == "--resume" && f.values.is_empty())
    {
        // Without an id, `--resume` opens a picker; headless chatmd always names the id.
        return Decision::refuse(
            "fake-agent: claude --resume without a session id opens its interactive picker, which the fake does not imitate\n",
            2,
        );
    }
    let format = match value_of(&found, "--output-format").unwrap_or("text") {
        "stream-json" => Format::Jsonl,
        "json" => Format::Json,
        "text" => Format::Text,
        other => {
            let message = format!(
                "error: option '--output-format <format>' argument '{other}' is invalid. \
                 Allowed choices are text, json, stream-json.\n"
            );
            return Decision::refuse(message, 1);
        }
    };
    if format == Format::Jsonl && !has(&found, "--verbose") {
        return Decision::refuse(
            "Error: When using --print, --output-format=stream-json requires --verbose\n",
            1,
        );
    }
    if let Some(mode) = value_of(&found, "--permission-mode")
        && !PERMISSION_MODES.contains(&mode)
    {
        let message = format!(
            "error: option '--permission-mode <mode>' argument '{mode}' is invalid. \
             Allowed choices are {}.\n",
            PERMISSION_MODES.join(", ")
        );
        return Decision::refuse(message, 1);
    }
    let bypass = has(&found, "--dangerously-skip-permissions")
        || value_of(&found, "--permission-mode") == Some("bypassPermissions");
    if bypass && is_root() && std::env::var("IS_SANDBOX").as_deref() != Ok("1") {
        return Decision::refuse(
            "--dangerously-skip-permissions cannot be used with root/sudo privileges for security reasons\n",
            1,
        );
    }
    let stream_input = match value_of(&found, "--input-format").unwrap_or("text") {
        "stream-json" => true,
        "text" => false,
        other => {
            // Not captured from a real run: commander's wording for a bad choice.
            let message = format!(
                "error: option '--input-format <format>' argument '{other}' is invalid. \
                 Allowed choices are text, stream-json.\n"
            );
            return Decision::refuse(message, 1);
        }
    };
    if stream_input {
        // Recorded from 2.1.197 (stream-input/README.md).
        if format != Format::Jsonl {
            return Decision::refuse(
                "Error: --input-format=stream-json requires output-format=stream-json.\n",
                1,
            );
        }
        return Decision::Serve(Run {
            prompt: String::new(),
            stdin: None,
            resume: value_of(&found, "--resume").map(str::to_owned),
            system: value_of(&found, "--append-system-prompt").map(str::to_owned),
            format,
        });
    }
    let stdin = read_stdin();
    let argument = operands.first().cloned().unwrap_or_default();
    let piped = stdin.as_deref().unwrap_or("");
    let prompt = match (piped.is_empty(), argument.is_empty()) {
        (true, _) => argument,
        (false, true) => piped.to_owned(),
        (false, false) => format!("{piped}\n{argument}"),
    };
    if prompt.trim().is_empty() {
        // Not captured in the reference: Claude Code's wording for a missing prompt.
        return Decision::Refuse {
            stderr: "Error: Input must be provided either through stdin or as a prompt argument when using --print\n".into(),
            code: 1,
            stdin,
        };
    }
    Decision::Run(Run {
        prompt,
        stdin,
        resume: value_of(&found, "--resume").map(str::to_owned),
        system: value_of(&found, "--append-system-prompt").map(str::to_owned),
        format,
    })
}

/// Options and operands, commander's way: a required value is the next argument
/// whatever it looks like, `--name=value` works, `--` ends the options.
fn parse(args: &[String]) -> Result<(Vec<Found>, Vec<String>), Decision> {
    let mut found = Vec::new();
    let mut operands = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let arg = &args[i];
        i += 1;
        if arg == "--" {
            operands.extend(args[i..].iter().cloned());
            break;
        }
        if !arg.starts_with('-') || arg == "-" {
            operands.push(arg.clone());
            continue;
        }
        let (flag, inline) = match arg.split_once('=') {
            Some((flag, value)) if arg.starts_with("--") => (flag, Some(value.to_owned())),
            _ => (arg.as_str(), None),
        };
        let Some((name, arity)) = lookup(OPTIONS, flag) else {
            return Err(Decision::refuse(
                format!("error: unknown option '{flag}'\n"),
                1,
            ));
        };
        let values = match inline {
            Some(value) => vec![value],
            None => take_values(arity, args, &mut i).map_err(|()| {
                Decision::refuse(format!("error: option '{flag}' argument missing\n"), 1)
            })?,
        };
        found.push(Found { name, values });
    }
    Ok((found, operands))
}

/// Whether this process runs as root (effective uid 0), from `/proc/self/status`.
fn is_root() -> bool {
    let Ok(status) = std::fs::read_to_string("/proc/self/status") else {
        return false;
    };
    status
        .lines()
        .find_map(|line| line.strip_prefix("Uid:"))
        .and_then(|ids| ids.split_whitespace().nth(1))
        == Some("0")
}
