//! `chatmd init [FOLDER] [--member HANDLE=AGENT ...] [--dry-run]`: a starter team in a
//! folder — member folders with short roles, the team instruction, `chatmd.toml`, a
//! first chat and git ignore rules — then which CLIs are missing and how to fix that.
//! It never overwrites a file: a second run writes nothing and says so.

mod ask;
mod detect;
mod files;
mod spec;

use std::fs::OpenOptions;
use std::io::{self, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;

use crate::agents::AgentKind;
use crate::team::trust::{self, shell_word, trust_command};
use crate::team::{CONFIG_FILE_NAME, UserConfig, current_folder, workspace_root};
use files::{FIRST_CHAT, GITIGNORE, NewFile};
use spec::{DEFAULT_TEAM, MemberSpec};

#[derive(Debug, clap::Args)]
pub(super) struct InitArgs {
    /// The team folder (made if missing); default: the current folder.
    #[arg(default_value = ".")]
    folder: PathBuf,
    /// A member as HANDLE=AGENT, AGENT one of claude, codex, gemini or acp:<preset>
    /// (repeat it). Without it, `init` asks on a terminal, else makes
    /// reviewer=claude, tester=codex, writer=gemini.
    #[arg(long = "member", value_name = "HANDLE=AGENT")]
    members: Vec<String>,
    /// Give each member a home of its own (.state/<handle>): its CLI's login, sessions
    /// and settings apart from yours. `init` trusts the chatmd.toml it writes for it.
    #[arg(long)]
    home: bool,
    /// Show what would be written, and write nothing.
    #[arg(long)]
    dry_run: bool,
}

/// What `init` does with one file.
#[derive(Debug)]
enum Step {
    /// Makes it.
    Create(NewFile),
    /// Leaves it: it exists (or the member's folder already has a role file).
    Keep { path: String, why: &'static str },
    /// Adds the missing ignore rules to an existing `.gitignore`.
    Append { path: String, text: String },
}

pub(super) fn run(args: &InitArgs) -> ExitCode {
    let members = match members(args) {
        Ok(members) => members,
        Err(message) => {
            eprintln!("chatmd init: error: {message}");
            return ExitCode::from(2);
        }
    };
    if args.folder.exists() && !args.folder.is_dir() {
        eprintln!(
            "chatmd init: error: {} is not a folder; give a folder for the team (it is made \
             when missing)",
            args.folder.display()
        );
        return ExitCode::from(2);
    }
    let steps = plan(&args.folder, &members, args.home);
    let mut out = io::stdout().lock();
    let shown = if args.dry_run {
        show_dry_run(&mut out, &args.folder, &steps)
    } else {
        match write(&args.folder, &steps).and_then(|()| homes(&args.folder, &members, args)) {
            Ok(()) => show_done(&mut out, &args.folder, &steps)
                .and_then(|()| show_trust(&mut out, &args.folder, &steps, args.home)),
            Err(error) => {
                eprintln!("chatmd init: error: {error:#}");
                return ExitCode::FAILURE;
            }
        }
    };
    let homes = args.home.then(|| absolute(&args.folder).join(files::HOMES));
    // The version probe never runs a program inside the workspace around the team, the
    // root `chatmd send` from this folder would use (team/place.rs): a program that
    // send would refuse to trust unasked is not run here either.
    let root = workspace_root(current_folder().as_deref(), &absolute(&args.folder));
    let detected = detect::cli_lines(
        &members,
        &root,
        &detect::Machine::from_env(),
        homes.as_deref(),
    );
    let shown = shown.and_then(|()| show_next(&mut out, &args.folder, &detected, args.dry_run));
    match shown.and_then(|()| out.flush()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) if error.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("chatmd init: error: {error}");
            ExitCode::FAILURE
        }
    }
}

/// The members from the flags, else typed on a terminal, else the default team.
fn members(args: &InitArgs) -> Result<Vec<MemberSpec>, String> {
    if !args.members.is_empty() {
        return spec::parse_members(args.members.iter().map(String::as_str))
            .map_err(|e| format!("--member {e}"));
    }
    if io::stdin().is_terminal() {
        let typed = ask::ask_members(&mut io::stdin().lock(), &mut io::stdout().lock())
            .map_err(|e| format!("cannot read the members: {e}"))?;
        return typed.ok_or_else(|| {
            "no members given; nothing written. Give them as --member HANDLE=AGENT".to_owned()
        });
    }
    Ok(spec::parse_members(DEFAULT_TEAM.split_whitespace()).expect("the default team parses"))
}

fn plan(folder: &Path, members: &[MemberSpec], homes: bool) -> Vec<Step> {
    let mut steps: Vec<Step> = files::team_files(members, homes)
        .into_iter()
        .map(|file| {
            if folder.join(&file.path).symlink_metadata().is_ok() {
                Step::Keep {
                    path: file.path,
                    why: "exists",
                }
            } else if has_role_file(&folder.join(&file.path)) {
                // A second role file would make the folder ambiguous.
                Step::Keep {
                    path: file.path,
                    why: "its folder already has a role file",
                }
            } else {
                Step::Create(file)
            }
        })
        .collect();
    let gitignore = folder.join(GITIGNORE);
    steps.push(match std::fs::read_to_string(&gitignore) {
        Ok(existing) => {
            let missing = files::missing_rules(&existing);
            if missing.is_empty() {
                Step::Keep {
                    path: GITIGNORE.to_owned(),
                    why: "has the ignore rules",
                }
            } else {
                Step::Append {
                    path: GITIGNORE.to_owned(),
                    text: files::ignore_addition(&existing, &missing),
                }
            }
        }
        Err(_) if gitignore.symlink_metadata().is_ok() => Step::Keep {
            path: GITIGNORE.to_owned(),
            why: "exists and cannot be read",
        },
        Err(_) => Step::Create(NewFile {
            path: GITIGNORE.to_owned(),
            text: files::ignore_addition("", &files::IGNORE_RULES),
            what: "keeps member homes and CLI state out of git".to_owned(),
        }),
    });
    steps
}

/// Whether `role_file`'s folder holds a role file of any kind (`reviewer/AGENTS.md`
/// when `init` would write `reviewer/CLAUDE.md`).
fn has_role_file(role_file: &Path) -> bool {
    let is_role = role_file
        .file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| AgentKind::from_role_file_name(n).is_some());
    let Some(dir) = role_file.parent().filter(|_| is_role) else {
        return false;
    };
    AgentKind::ALL
        .iter()
        .any(|kind| dir.join(kind.role_file_name()).symlink_metadata().is_ok())
}

fn write(folder: &Path, steps: &[Step]) -> anyhow::Result<()> {
    for step in steps {
        match step {
            Step::Create(file) => {
                let path = folder.join(&file.path);
                if let Some(parent) = path.parent() {
                    std::fs::create_dir_all(parent)
                        .with_context(|| format!("cannot make {}", parent.display()))?;
                }
                // `create_new`: a file that appeared since the plan is still not overwritten.
                OpenOptions::new()
                    .write(true)
                    .create_new(true)
                    .open(&path)
                    .and_then(|mut f| f.write_all(file.text.as_bytes()))
                    .with_context(|| format!("cannot write {}", path.display()))?;
            }
            Step::Append { path, text } => {
                let path = folder.join(path);
                OpenOptions::new()
                    .append(true)
                    .open(&path)
                    .and_then(|mut f| f.write_all(text.as_bytes()))
                    .with_context(|| format!("cannot add to {}", path.display()))?;
            }
            Step::Keep { .. } => {}
        }
    }
    Ok(())
}

/// With `--home`: each home folder, so a login can go there before the first turn.
fn homes(folder: &Path, members: &[MemberSpec], args: &InitArgs) -> anyhow::Result<()> {
    if !args.home {
        return Ok(());
    }
    for member in members.iter().filter(|m| m.runs.kind().is_some()) {
        let home = folder.join(files::HOMES).join(&member.handle);
        std::fs::create_dir_all(&home)
            .with_context(|| format!("cannot make {}", home.display()))?;
    }
    Ok(())
}

/// With `--home`, the `chatmd.toml` `init` just wrote sets `home`, which applies only
/// in a trusted file: the user asked for it and chatmd wrote every line, so `init`
/// records the trust (the same record `chatmd trust` makes). A kept file is not touched.
fn show_trust(out: &mut dyn Write, folder: &Path, steps: &[Step], home: bool) -> io::Result<()> {
    let written = steps.iter().find_map(|step| match step {
        Step::Create(file) if file.path == CONFIG_FILE_NAME => Some(file),
        _ => None,
    });
    let Some(file) = written.filter(|_| home) else {
        return Ok(());
    };
    let path = absolute(&folder.join(&file.path));
    match UserConfig::from_env().trust_file(&path, file.text.as_bytes()) {
        Ok(_) => writeln!(
            out,
            "\nTrusted {CONFIG_FILE_NAME} (its `home` settings apply only in a trusted file; \
             `chatmd trust --revoke {}` takes it back). A change to it needs `chatmd trust` again.",
            shell_word(&path.display().to_string())
        ),
        Err(error) => writeln!(
            out,
            "\nCould not trust {CONFIG_FILE_NAME} ({error}): its `home` settings apply once you \
             run `{}`.",
            trust_command(&path)
        ),
    }
}

/// `path` made absolute against the current folder.
fn absolute(path: &Path) -> PathBuf {
    std::env::current_dir()
        .map(|cwd| trust::absolute(&cwd, path))
        .unwrap_or_else(|_| path.to_path_buf())
}

fn rows(steps: &[Step], created: &str, appended: &str) -> Vec<String> {
    let width = steps.iter().map(|s| path_of(s).len()).max().unwrap_or(0);
    steps
        .iter()
        .map(|step| match step {
            Step::Create(file) => format!("  {created}  {:width$}  {}", file.path, file.what),
            Step::Append { path, .. } => {
                format!("  {appended}  {path:width$}  the ignore rules it lacked")
            }
            Step::Keep { path, why } => {
                format!("  {:w$}  {path:width$}  {why}", "kept", w = created.len())
            }
        })
        .map(|row| row.trim_end().to_owned())
        .collect()
}

fn path_of(step: &Step) -> &str {
    match step {
        Step::Create(file) => &file.path,
        Step::Append { path, .. } | Step::Keep { path, .. } => path,
    }
}

fn show_done(out: &mut dyn Write, folder: &Path, steps: &[Step]) -> io::Result<()> {
    if steps.iter().all(|s| matches!(s, Step::Keep { .. })) {
        writeln!(
            out,
            "The team in {} is already set up: nothing written (init never overwrites a file).",
            folder.display()
        )?;
    } else {
        writeln!(out, "Made the team in {}:", folder.display())?;
    }
    for row in rows(steps, "created", "added  ") {
        writeln!(out, "{row}")?;
    }
    Ok(())
}

fn show_dry_run(out: &mut dyn Write, folder: &Path, steps: &[Step]) -> io::Result<()> {
    writeln!(
        out,
        "Would make the team in {} (--dry-run: nothing written):",
        folder.display()
    )?;
    for row in rows(steps, "would create", "would add   ") {
        writeln!(out, "{row}")?;
    }
    for step in steps {
        let (path, text) = match step {
            Step::Create(file) => (&file.path, &file.text),
            Step::Append { path, text } => (path, text),
            Step::Keep { .. } => continue,
        };
        writeln!(out, "\n{path}:")?;
        for line in text.lines() {
            if line.is_empty() {
                writeln!(out)?;
            } else {
                writeln!(out, "    {line}")?;
            }
        }
    }
    Ok(())
}

fn show_next(
    out: &mut dyn Write,
    folder: &Path,
    detected: &[String],
    dry_run: bool,
) -> io::Result<()> {
    writeln!(out, "\nThe agent CLIs on this machine:")?;
    for line in detected {
        writeln!(out, "{line}")?;
    }
    if dry_run {
        return Ok(());
    }
    let chat = folder.join(FIRST_CHAT);
    writeln!(
        out,
        "\nNext: `chatmd members {}` shows the team; `chatmd send {}` (or Send in your \
         editor) asks it.",
        shell_word(&folder.display().to_string()),
        shell_word(&chat.display().to_string())
    )
}
