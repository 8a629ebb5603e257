//! `codex exec` and `exec resume` command lines, checked like codex 0.169.0 (clap style):
//! unknown arguments, the git check, `CODEX_HOME`, stdin for `-` or after the prompt.

use std::path::Path;

use super::cli::{
    Arity, Cli, Decision, Format, Found, Run, has, lookup, read_stdin, take_values, value_of,
};

use Arity::{Flag, Value, Variadic};

/// Options of `codex exec` (cli-help/codex-exec--help.txt).
const EXEC: &[(&str, Arity)] = &[
    ("--config|-c", Value),
    ("--enable", Value),
    ("--disable", Value),
    ("--strict-config", Flag),
    ("--image|-i", Variadic),
    ("--model|-m", Value),
    ("--oss", Flag),
    ("--local-provider", Value),
    ("--profile|-p", Value),
    ("--sandbox|-s", Value),
    ("--approve-for-me", Flag),
    ("--dangerously-bypass-approvals-and-sandbox", Flag),
    ("--dangerously-bypass-hook-trust", Flag),
    ("--cd|-C", Value),
    ("--worktree", Flag),
    ("--add-dir", Value),
    ("--thread-source", Value),
    ("--cyber-access-program", Value),
    ("--skip-git-repo-check", Flag),
    ("--trust", Flag),
    ("--ephemeral", Flag),
    ("--ignore-user-config", Flag),
    ("--ignore-rules", Flag),
    ("--output-schema", Value),
    ("--color", Value),
    ("--json", Flag),
    ("--output-last-message|-o", Value),
    ("--help|-h", Flag),
    ("--version|-V", Flag),
];

/// Options of `codex exec resume` (cli-help/codex-exec-resume--help.txt): no `--cd`,
/// no `--sandbox`.
const RESUME: &[(&str, Arity)] = &[
    ("--config|-c", Value),
    ("--last", Flag),
    ("--all", Flag),
    ("--enable", Value),
    ("--disable", Value),
    ("--image|-i", Variadic),
    ("--strict-config", Flag),
    ("--model|-m", Value),
    ("--dangerously-bypass-approvals-and-sandbox", Flag),
    ("--dangerously-bypass-hook-trust", Flag),
    ("--worktree", Flag),
    ("--thread-source", Value),
    ("--cyber-access-program", Value),
    ("--skip-git-repo-check", Flag),
    ("--trust", Flag),
    ("--ephemeral", Flag),
    ("--ignore-user-config", Flag),
    ("--ignore-rules", Flag),
    ("--output-schema", Value),
    ("--json", Flag),
    ("--output-last-message|-o", Value),
    ("--help|-h", Flag),
];

const EXEC_USAGE: &str =
    "Usage: codex exec [OPTIONS] [PROMPT]\n       codex exec [OPTIONS] <COMMAND> [ARGS]";
const RESUME_USAGE: &str = "Usage: codex exec resume [OPTIONS] [SESSION_ID] [PROMPT]";

/// Checks `args` (without the program) like codex; `cwd` is where it runs.
pub fn decide(args: &[String], cwd: &Path) -> Decision {
    match args.first().map(String::as_str) {
        Some("--version" | "-V") => return Decision::Print(Cli::Codex.version_line().into()),
        Some("exec" | "e") => {}
        _ => return Decision::refuse("fake-agent: only `codex exec` is imitated\n", 2),
    }
    let parsed = match parse(&args[1..]) {
        Ok(parsed) => parsed,
        Err(refusal) => return refusal,
    };
    if let Some(mode) = value_of(&parsed.found, "--sandbox")
        && !["read-only", "workspace-write", "danger-full-access"].contains(&mode)
    {
        let message = format!(
            "error: invalid value '{mode}' for '--sandbox <SANDBOX_MODE>'\n  \
             [possible values: read-only, workspace-write, danger-full-access]\n\n\
             For more information, try '--help'.\n"
        );
        return Decision::refuse(message, 2);
    }
    if let Some(home) = std::env::var_os("CODEX_HOME")
        && !Path::new(&home).exists()
    {
        let message = format!(
            "Error finding codex home: CODEX_HOME points to \"{}\", but that path does not exist\n",
            Path::new(&home).display()
        );
        return Decision::refuse(message, 1);
    }
    if !has(&parsed.found, "--skip-git-repo-check") && !inside_git_repo(cwd) {
        return Decision::refuse(
            "Not inside a trusted directory and --skip-git-repo-check was not specified.\n",
            1,
        );
    }
    let from_stdin = matches!(parsed.prompt.as_deref(), None | Some("-"));
    if !from_stdin {
        eprintln!("Reading additional input from stdin...");
    }
    let stdin = read_stdin();
    let piped = stdin.clone().unwrap_or_default();
    let prompt = match parsed.prompt {
        Some(prompt) if !from_stdin && !piped.is_empty() => {
            format!("{prompt}\n\n<stdin>\n{piped}\n</stdin>")
        }
        Some(prompt) if !from_stdin => prompt,
        _ => piped,
    };
    Decision::Run(Run {
        prompt,
        stdin,
        resume: parsed.session,
        system: None,
        format: if has(&parsed.found, "--json") {
            Format::Jsonl
        } else {
            Format::Text
        },
    })
}

struct Parsed {
    found: Vec<Found>,
    session: Option<String>,
    prompt: Option<String>,
}

/// `exec [OPTIONS] [PROMPT]` or `exec [OPTIONS] resume [OPTIONS] [SESSION_ID] [PROMPT]`,
/// clap's way: `--name=value`, `--` ends the options, a value may not look like an option.
fn parse(args: &[String]) -> Result<Parsed, Decision> {
    let mut parsed = Parsed {
        found: Vec::new(),
        session: None,
        prompt: None,
    };
    let mut spec = EXEC;
    let mut usage = EXEC_USAGE;
    let mut resuming = false;
    let mut positionals = Vec::new();
    let mut i = 0;
    let mut options_done = false;
    while i < args.len() {
        let arg = &args[i];
        i += 1;
        if !options_done && arg == "--" {
            options_done = true;
            continue;
        }
        if options_done || !arg.starts_with('-') || arg == "-" {
            if !resuming && positionals.is_empty() && arg == "resume" && !options_done {
                resuming = true;
                spec = RESUME;
                usage = RESUME_USAGE;
                continue;
            }
            positionals.push(arg.clone());
            continue;
        }
        let (flag, inline) = match arg.split_once('=') {
            Some((flag, value)) if arg.starts_with("--") => (flag, Some(value.to_owned())),
            _ => (arg.as_str(), None),
        };
        let Some((name, arity)) = lookup(spec, flag) else {
            return Err(unexpected(flag, usage, true));
        };
        let takes_value = arity != Flag;
        let next_is_flag = args.get(i).is_some_and(|v| v.starts_with('-') && v != "-");
        let values = match inline {
            Some(value) => vec![value],
            None if takes_value && next_is_flag => return Err(missing_value(flag, usage)),
            None => take_values(arity, args, &mut i).map_err(|()| missing_value(flag, usage))?,
        };
        parsed.found.push(Found { name, values });
    }
    let last = has(&parsed.found, "--last");
    let wanted = if resuming && !last { 2 } else { 1 };
    if positionals.len() > wanted {
        return Err(unexpected(&positionals[wanted], usage, false));
    }
    let mut positionals = positionals.into_iter();
    if resuming && !last {
        parsed.session = positionals.next();
    }
    parsed.prompt = positionals.next();
    Ok(parsed)
}

fn unexpected(arg: &str, usage: &str, is_option: bool) -> Decision {
    let tip = if is_option {
        format!("\n  tip: to pass '{arg}' as a value, use '-- {arg}'\n")
    } else {
        String::new()
    };
    let message = format!(
        "error: unexpected argument '{arg}' found\n{tip}\n{usage}\n\nFor more information, try '--help'.\n"
    );
    Decision::refuse(message, 2)
}

fn missing_value(flag: &str, usage: &str) -> Decision {
    let message = format!(
        "error: a value is required for '{flag}' but none was supplied\n\n{usage}\n\nFor more information, try '--help'.\n"
    );
    Decision::refuse(message, 2)
}

/// Whether `cwd` or a folder above it holds `.git`.
fn inside_git_repo(cwd: &Path) -> bool {
    cwd.ancestors().any(|dir| dir.join(".git").exists())
}
