//! `chatmd import FILE… [--to DIR]`: turns another tool's chat file (chat.md `# %%`
//! cells, gp.nvim, vim-ai, lsp-ai) or a session a CLI stored (claude, codex, gemini)
//! into a new `.chat.md`, one line per file on what was kept and skipped. Never writes
//! over a file. `--list [DIR]` shows the stored sessions for a folder.

mod list;

use std::fs::OpenOptions;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use crate::agents::AgentKind;
use crate::agents::transcripts::{self, Skipped, Speaker, Transcript};
use crate::conversation::import::{answer_handle, render};
use crate::document::foreign;
use crate::team::trust::content_hash;
use crate::team::{Member, Team, TeamPlace, UserConfig};

#[derive(Debug, clap::Args)]
pub(super) struct ImportArgs {
    /// Chat files of other tools (chat.md `# %% user`, gp.nvim, vim-ai, lsp-ai) or
    /// sessions stored by claude (~/.claude/projects/<folder>/<id>.jsonl), codex
    /// (~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl) or gemini
    /// (~/.gemini/tmp/<project>/chats/session-*.jsonl).
    #[arg(required_unless_present = "list", value_name = "FILE")]
    files: Vec<PathBuf>,
    /// List the sessions claude, codex and gemini stored for DIR (default: the current
    /// folder): those that ran in it or in a workdir of its team's members.
    #[arg(long, value_name = "DIR", num_args = 0..=1, default_missing_value = ".", conflicts_with = "files")]
    list: Option<PathBuf>,
    /// The folder to write the chats into; its team answers them. Default: the folder
    /// of each chat file, and the current folder for a CLI's session.
    #[arg(long, value_name = "DIR")]
    to: Option<PathBuf>,
}

/// What one file became.
struct Imported {
    path: PathBuf,
    summary: String,
}

/// 0 when every file was imported, 2 when any could not be (each says why).
pub(super) fn run(args: &ImportArgs) -> ExitCode {
    if let Some(dir) = &args.to
        && !dir.is_dir()
    {
        eprintln!(
            "chatmd import: --to {}: no such folder; create it first",
            dir.display()
        );
        return ExitCode::from(2);
    }
    let trust = UserConfig::from_env().load_trust();
    if let Some(dir) = &args.list {
        let dir = match absolute(dir) {
            Ok(dir) => dir,
            Err(why) => {
                eprintln!("chatmd import: {why}");
                return ExitCode::from(2);
            }
        };
        let team = TeamPlace::of_folder(&dir).load(&trust);
        let home = std::env::var_os("HOME").map(PathBuf::from);
        let var = |name: &str| std::env::var_os(name).map(PathBuf::from);
        return list::run(&dir, &team, home.as_deref(), &var);
    }
    let mut failed = false;
    let mut out = io::stdout().lock();
    for file in &args.files {
        match import(file, args.to.as_deref(), &|dir| {
            TeamPlace::of_folder(dir).load(&trust)
        }) {
            Ok(done) => {
                let _ = writeln!(
                    out,
                    "{} -> {}: {}",
                    file.display(),
                    done.path.display(),
                    done.summary
                );
            }
            Err(why) => {
                failed = true;
                eprintln!("chatmd import: {}: {why}", file.display());
            }
        }
    }
    if failed {
        ExitCode::from(2)
    } else {
        ExitCode::SUCCESS
    }
}

/// Imports `file` into `to` (or its default folder) with the team `team_of` finds there.
fn import(
    file: &Path,
    to: Option<&Path>,
    team_of: &dyn Fn(&Path) -> Team,
) -> Result<Imported, String> {
    let bytes = std::fs::read(file).map_err(|e| format!("cannot read it: {e}"))?;
    let text = String::from_utf8(bytes)
        .map_err(|_| "not UTF-8 text, so no chat file or stored session".to_string())?;
    if transcripts::kind_of(&text).is_some() {
        let transcript = transcripts::read(&text).map_err(|e| e.to_string())?;
        let dir = absolute(to.unwrap_or(Path::new(".")))?;
        let team = team_of(&dir);
        let agent = answer_handle(&team, Some(transcript.kind));
        let chat = render(&transcript, &team.human, &agent);
        let short: String = transcript.session.chars().take(8).collect();
        let name = format!("{}-{}.chat.md", transcript.kind.name(), safe_name(&short));
        let path = write_new(&[dir.join(name)], &chat)?;
        let summary = session_summary(&transcript, file, &team, &agent);
        return Ok(Imported { path, summary });
    }
    let Some(found) = foreign::detect(&text) else {
        return Err("not a chat file chatmd can import: no `# %% user`, `💬:`, `>>> user` or `<|user|>` line, and not a session stored by claude, codex or gemini".to_string());
    };
    let dir = match to {
        Some(dir) => absolute(dir)?,
        None => absolute(file.parent().unwrap_or(Path::new(".")))?,
    };
    let team = team_of(&dir);
    let agent = answer_handle(&team, None);
    let chat = foreign::convert(&text, found.format, &team.human, &agent);
    let (_, messages) = foreign::parse(&text, found.format);
    let stem = stem(file);
    let path = write_new(
        &[
            dir.join(format!("{stem}.chat.md")),
            dir.join(format!("{stem}.imported.chat.md")),
        ],
        &chat,
    )?;
    let mut summary = format!(
        "{} chat, kept {}, skipped 0",
        found.format.name(),
        counted(messages.len(), "message")
    );
    let unclosed = foreign::unclosed_blocks(&text, found.format).len();
    if unclosed > 0 {
        summary.push_str(&format!(
            "; closed {unclosed} block(s) left open before the next message"
        ));
    }
    summary.push_str(&handle_note(&team, &agent));
    Ok(Imported { path, summary })
}

/// What a session's import kept and skipped, and whether its member will resume it.
fn session_summary(t: &Transcript, file: &Path, team: &Team, agent: &str) -> String {
    let count = |speaker| t.messages.iter().filter(|m| m.speaker == speaker).count();
    let mut s = format!(
        "{} session {}, kept {} ({} of the human, {}), skipped {}",
        t.kind.name(),
        t.session,
        counted(t.messages.len(), "message"),
        count(Speaker::Human),
        counted(count(Speaker::Agent), "answer"),
        t.skipped.total()
    );
    let reasons = skip_reasons(&t.skipped);
    if !reasons.is_empty() {
        s.push_str(&format!(" ({reasons})"));
    }
    match team.member(agent) {
        Some(member) if !member.resume => s.push_str(&format!(
            "; @{agent} does not continue this session: [members.{agent}] of chatmd.toml has `resume = false`"
        )),
        Some(member) => s.push_str(&resume_notes(t, member, file)),
        None => s.push_str(&handle_note(team, agent)),
    }
    s
}

/// `1 answer`, `2 answers`: the report is read by people.
fn counted(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("{n} {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// Why `member`'s CLI may not find the session: it ran in another folder (claude and
/// gemini keep sessions per folder; codex finds a thread by id from anywhere), or the
/// member keeps its CLI state in its own `home`, where the file is not.
fn resume_notes(t: &Transcript, member: &Member, file: &Path) -> String {
    let mut notes = String::new();
    let workdir = &member.workdir;
    let elsewhere = match (&t.cwd, &t.project_hash) {
        _ if !resumes_per_folder(t.kind) => None,
        (Some(cwd), _) if Path::new(cwd) != workdir => Some(cwd.clone()),
        (None, Some(hash)) if *hash != content_hash(workdir.as_os_str().as_encoded_bytes()) => {
            Some("another folder".to_string())
        }
        _ => None,
    };
    if let Some(folder) = elsewhere {
        notes.push_str(&format!(
            "; the session ran in {folder} but @{} works in {}: {} finds a session only from the folder it ran in",
            member.handle,
            workdir.display(),
            t.kind.name()
        ));
    }
    if let Some(home) = &member.home {
        let inside = match (file.canonicalize(), home.canonicalize()) {
            (Ok(file), Ok(home)) => file.starts_with(home),
            _ => false,
        };
        if !inside {
            notes.push_str(&format!(
                "; @{} keeps its {} state in its home {}, where this session file is not: copy the session there for its CLI to find it",
                member.handle,
                t.kind.name(),
                home.display()
            ));
        }
    }
    notes
}

fn skip_reasons(skipped: &Skipped) -> String {
    let kinds = [
        (skipped.context, "instructions and context the CLI added"),
        (skipped.bookkeeping, "CLI bookkeeping"),
        (skipped.inner, "reasoning and sub-agent entries"),
        (skipped.unreadable, "lines that are not JSON"),
    ];
    kinds
        .iter()
        .filter(|(n, _)| *n > 0)
        .map(|(n, what)| format!("{n} {what}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A note when the answers' handle is no member of the team.
fn handle_note(team: &Team, agent: &str) -> String {
    if team.member(agent).is_some() {
        return String::new();
    }
    format!(
        "; answers are under @{agent}, no member of the team in {}: add a folder {agent}/ with a role file there to continue with it",
        team.folder.display()
    )
}

/// Writes `text` to the first of `paths` that does not exist yet.
fn write_new(paths: &[PathBuf], text: &str) -> Result<PathBuf, String> {
    for path in paths {
        match OpenOptions::new().write(true).create_new(true).open(path) {
            Ok(mut file) => {
                file.write_all(text.as_bytes())
                    .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
                return Ok(path.clone());
            }
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(format!("cannot create {}: {e}", path.display())),
        }
    }
    let names: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
    Err(format!(
        "{} already exist(s); nothing was written (chatmd import never writes over a file): choose another folder with --to",
        names.join(" and ")
    ))
}

/// The file name without its chat suffix (`.chat.md`, `.aichat`, `.md`, `.txt`).
fn stem(file: &Path) -> String {
    let name = file
        .file_name()
        .map_or_else(|| "chat".to_string(), |n| n.to_string_lossy().into_owned());
    let stem = [".chat.md", ".aichat", ".md", ".txt", ".markdown"]
        .iter()
        .find_map(|suffix| name.strip_suffix(suffix))
        .unwrap_or(&name);
    safe_name(if stem.is_empty() { "chat" } else { stem })
}

/// `s` with path separators replaced, for a file name.
fn safe_name(s: &str) -> String {
    s.replace(['/', '\\', '\0'], "-")
}

fn absolute(dir: &Path) -> Result<PathBuf, String> {
    dir.canonicalize()
        .map_err(|e| format!("cannot use the folder {}: {e}", dir.display()))
}

/// Whether `kind`'s CLI finds a session only from the folder it ran in.
fn resumes_per_folder(kind: AgentKind) -> bool {
    let store = crate::agents::kinds::spec_of(kind).store.as_ref();
    store.is_some_and(|store| store.resumes_per_folder)
}
