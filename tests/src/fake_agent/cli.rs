//! What the three argument checkers share: which CLI, what a checked command line asks
//! for (or why it is refused, in the real CLI's words), and reading stdin the same way.

use std::io::{IsTerminal, Read};
use std::path::Path;

/// The CLI being impersonated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cli {
    Claude,
    Codex,
    Gemini,
}

impl Cli {
    /// What `--version` prints, from `cli-help/versions.txt`.
    pub fn version_line(self) -> &'static str {
        match self {
            Cli::Claude => "2.1.197 (Claude Code)\n",
            Cli::Codex => "codex-cli 0.169.0\n",
            Cli::Gemini => "0.61.0\n",
        }
    }

    /// What `--version` prints for `version` (`FAKE_AGENT_VERSION`), in the CLI's words.
    pub fn version_line_of(self, version: &str) -> String {
        match self {
            Cli::Claude => format!("{version} (Claude Code)\n"),
            Cli::Codex => format!("codex-cli {version}\n"),
            Cli::Gemini => format!("{version}\n"),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Cli::Claude => "claude",
            Cli::Codex => "codex",
            Cli::Gemini => "gemini",
        }
    }

    pub fn from_name(name: &str) -> Option<Cli> {
        match name {
            "claude" => Some(Cli::Claude),
            "codex" => Some(Cli::Codex),
            "gemini" => Some(Cli::Gemini),
            _ => None,
        }
    }

    /// The CLI named by the program's file name (`/tmp/x/bin/codex` → codex).
    pub fn from_program(argv0: Option<&str>) -> Option<Cli> {
        let stem = Path::new(argv0?).file_stem()?.to_str()?;
        Cli::from_name(stem)
    }
}

/// How the output is printed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// JSON lines: claude/gemini `stream-json`, codex `--json`.
    Jsonl,
    /// One JSON object (claude/gemini `json`).
    Json,
    /// The answer text only.
    Text,
}

/// A command line the CLI accepts.
#[derive(Debug)]
pub struct Run {
    /// The prompt as the CLI sees it (argument and stdin combined its way).
    pub prompt: String,
    /// What was read from stdin, if it was read.
    pub stdin: Option<String>,
    /// The session to resume.
    pub resume: Option<String>,
    /// The system text this run's command line gives (claude's
    /// `--append-system-prompt`); `None` for none, and for codex and gemini.
    pub system: Option<String>,
    pub format: Format,
}

/// The outcome of checking a command line.
#[derive(Debug)]
pub enum Decision {
    Run(Run),
    /// Answered without a model turn (`--version`): stdout text, exit 0.
    Print(String),
    /// claude's `--input-format stream-json`: a turn per user message read on stdin,
    /// until it closes (`stream_input.rs`). `prompt` and `stdin` are empty.
    Serve(Run),
    /// Refused before any output: stderr text and exit code, as the real CLI does.
    Refuse {
        stderr: String,
        code: i32,
        stdin: Option<String>,
    },
}

impl Decision {
    pub fn refuse(stderr: impl Into<String>, code: i32) -> Decision {
        Decision::Refuse {
            stderr: stderr.into(),
            code,
            stdin: None,
        }
    }
}

/// All of stdin when it is not a terminal (the CLIs read piped stdin; `/dev/null` reads
/// as empty), lossily decoded.
pub fn read_stdin() -> Option<String> {
    let mut stdin = std::io::stdin();
    if stdin.is_terminal() {
        return None;
    }
    let mut bytes = Vec::new();
    stdin.read_to_end(&mut bytes).ok()?;
    Some(String::from_utf8_lossy(&bytes).into_owned())
}

/// How many values an option takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arity {
    Flag,
    /// Exactly one value, taken whatever it looks like.
    Value,
    /// One value if the next argument does not start with `-`.
    Optional,
    /// Every following argument up to one that starts with `-`.
    Variadic,
}

/// An option found on a command line.
#[derive(Debug, Clone)]
pub struct Found {
    /// The option's canonical (first listed) name.
    pub name: &'static str,
    pub values: Vec<String>,
}

/// The arity and canonical name of `arg` (`--x` or `-x`) in `spec`, a list of
/// (names separated by `|`, arity).
pub fn lookup(spec: &[(&'static str, Arity)], arg: &str) -> Option<(&'static str, Arity)> {
    spec.iter().find_map(|(names, arity)| {
        let mut all = names.split('|');
        let canonical = all.clone().next()?;
        all.any(|n| n == arg).then_some((canonical, *arity))
    })
}

/// Takes the values of option `arity` from `args` (after the option itself).
pub fn take_values(arity: Arity, args: &[String], i: &mut usize) -> Result<Vec<String>, ()> {
    let mut values = Vec::new();
    match arity {
        Arity::Flag => {}
        Arity::Value => {
            let value = args.get(*i).ok_or(())?;
            values.push(value.clone());
            *i += 1;
        }
        Arity::Optional => {
            if let Some(value) = args.get(*i).filter(|v| !v.starts_with('-')) {
                values.push(value.clone());
                *i += 1;
            }
        }
        Arity::Variadic => {
            while let Some(value) = args.get(*i).filter(|v| !v.starts_with('-')) {
                values.push(value.clone());
                *i += 1;
            }
            if values.is_empty() {
                return Err(());
            }
        }
    }
    Ok(values)
}

/// The last value of option `name`, if it was given.
pub fn value_of<'a>(found: &'a [Found], name: &str) -> Option<&'a str> {
    found
        .iter()
        .rev()
        .find(|f| f.name == name)
        .and_then(|f| f.values.first())
        .map(String::as_str)
}

/// Whether option `name` was given.
pub fn has(found: &[Found], name: &str) -> bool {
    found.iter().any(|f| f.name == name)
}
