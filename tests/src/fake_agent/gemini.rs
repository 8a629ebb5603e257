//! `gemini` command lines, checked like Gemini CLI 0.61.0 (yargs style): headless with
//! `-p` or piped stdin, exit 55 when untrusted, stdin first and the `-p` text appended.

use super::cli::{
    Arity, Cli, Decision, Format, Found, Run, has, lookup, read_stdin, take_values, value_of,
};

use Arity::{Flag, Optional, Value, Variadic};

/// Options of `gemini --help` (cli-help/gemini--help.txt).
const OPTIONS: &[(&str, Arity)] = &[
    ("--debug|-d", Flag),
    ("--model|-m", Value),
    ("--prompt|-p", Value),
    ("--prompt-interactive|-i", Value),
    ("--skip-trust", Flag),
    ("--worktree|-w", Optional),
    ("--sandbox|-s", Flag),
    ("--yolo|-y", Flag),
    ("--approval-mode", Value),
    ("--policy", Variadic),
    ("--admin-policy", Variadic),
    ("--acp", Flag),
    ("--experimental-acp", Flag),
    ("--allowed-mcp-server-names", Variadic),
    ("--allowed-tools", Variadic),
    ("--extensions|-e", Variadic),
    ("--list-extensions|-l", Flag),
    ("--resume|-r", Optional),
    ("--session-file", Value),
    ("--session-id", Value),
    ("--list-sessions", Flag),
    ("--delete-session", Value),
    ("--include-directories", Variadic),
    ("--screen-reader", Flag),
    ("--output-format|-o", Value),
    ("--raw-output", Flag),
    ("--accept-raw-output-risk", Flag),
    ("--version|-v", Flag),
    ("--help|-h", Flag),
];

/// The untrusted-folder message (agent-clis.md §3.1, which trims its end with `…`).
const UNTRUSTED: &str = "Gemini CLI is not running in a trusted directory. To proceed, either use --skip-trust, set the GEMINI_CLI_TRUST_WORKSPACE=true environment variable, or trust this directory…\n";

/// Checks `args` (without the program) like gemini; reads stdin only when it runs.
pub fn decide(args: &[String]) -> Decision {
    let mut found: Vec<Found> = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let arg = &args[i];
        i += 1;
        if !arg.starts_with('-') || arg == "-" {
            continue; // the positional query: interactive mode, not imitated
        }
        let (flag, inline) = match arg.split_once('=') {
            Some((flag, value)) if arg.starts_with("--") => (flag, Some(value.to_owned())),
            _ => (arg.as_str(), None),
        };
        // yargs is not strict here: an unknown option is read as a boolean flag.
        let Some((name, arity)) = lookup(OPTIONS, flag) else {
            continue;
        };
        let values = match inline {
            Some(value) => vec![value],
            None => match take_values(arity, args, &mut i) {
                Ok(values) => values,
                Err(()) => {
                    let message = format!("Not enough arguments following: {}\n", &name[2..]);
                    return Decision::refuse(message, 1);
                }
            },
        };
        found.push(Found { name, values });
    }
    if has(&found, "--version") {
        return Decision::Print(Cli::Gemini.version_line().into());
    }
    let piped = !std::io::IsTerminal::is_terminal(&std::io::stdin());
    if !has(&found, "--prompt") && !piped {
        return Decision::refuse(
            "fake-agent: gemini without -p starts its interactive UI, which the fake does not imitate\n",
            2,
        );
    }
    let trusted = std::env::var("GEMINI_CLI_TRUST_WORKSPACE").as_deref() == Ok("true");
    if !has(&found, "--skip-trust") && !trusted {
        return Decision::refuse(UNTRUSTED, 55);
    }
    if let Some(mode) = value_of(&found, "--approval-mode")
        && !["default", "auto_edit", "yolo", "plan"].contains(&mode)
    {
        let message = format!(
            "Invalid values:\n  Argument: approval-mode, Given: \"{mode}\", Choices: \"default\", \"auto_edit\", \"yolo\", \"plan\"\n"
        );
        return Decision::refuse(message, 1);
    }
    let format = match value_of(&found, "--output-format").unwrap_or("text") {
        "stream-json" => Format::Jsonl,
        "json" => Format::Json,
        "text" => Format::Text,
        other => {
            let message = format!(
                "Invalid values:\n  Argument: output-format, Given: \"{other}\", Choices: \"text\", \"json\", \"stream-json\"\n"
            );
            return Decision::refuse(message, 1);
        }
    };
    let stdin = read_stdin();
    let flag = value_of(&found, "--prompt").unwrap_or("");
    let prompt = match stdin.as_deref().filter(|s| !s.is_empty()) {
        Some(piped) if flag.is_empty() => piped.to_owned(),
        Some(piped) => format!("{piped}\n\n{flag}"),
        None => flag.to_owned(),
    };
    Decision::Run(Run {
        prompt,
        stdin,
        resume: value_of(&found, "--resume").map(str::to_owned),
        system: None,
        format,
    })
}
