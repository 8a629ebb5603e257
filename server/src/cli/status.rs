//! `chatmd status [PATH] [--json]`: every chat under PATH (or PATH itself) whose latest
//! round waits for the user, one line each, as the editor's workspace diagnostics list them.

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use serde::Serialize;

use crate::conversation::waiting::{Waiting, waiting};
use crate::document::chat::Chat;
use crate::document::text::{PositionEncoding, Text};
use crate::team::{is_chat_file, scan_chats};

#[derive(Debug, clap::Args)]
pub(super) struct StatusArgs {
    /// A folder (every `.chat.md` under it, skipping hidden folders, `node_modules`
    /// and `target`) or one `.chat.md` file.
    #[arg(default_value = ".")]
    path: PathBuf,
    /// Print JSON (stable field names) instead of lines.
    #[arg(long)]
    json: bool,
}

/// One thing that waits, where to find it.
#[derive(Debug, Serialize)]
struct Entry {
    file: PathBuf,
    /// 1-based.
    line: u32,
    /// 1-based, in characters.
    column: u32,
    kind: &'static str,
    member: String,
    message: String,
}

pub(super) fn run(args: &StatusArgs) -> ExitCode {
    let chats = match chats_at(&args.path) {
        Ok(chats) => chats,
        Err(error) => {
            eprintln!("chatmd status: {error}");
            return ExitCode::from(2);
        }
    };
    let mut entries = Vec::new();
    let mut unreadable = false;
    for path in &chats {
        match read_chat(path) {
            Ok(text) => {
                let chat = Chat::parse(&text);
                let found = waiting(&text, &chat);
                entries.extend(found.into_iter().map(|w| entry(path, &text, w)));
            }
            Err(error) => {
                eprintln!("chatmd status: {error}");
                unreadable = true;
            }
        }
    }
    let mut out = io::stdout().lock();
    let written = if args.json {
        serde_json::to_writer_pretty(&mut out, &entries)
            .map_err(io::Error::from)
            .and_then(|()| writeln!(out))
    } else {
        write_lines(&entries, chats.len(), &mut out)
    };
    // A chat that could not be read was named on stderr; the others are listed.
    let success = if unreadable {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    };
    super::output_written("status", written.and_then(|()| out.flush()), success)
}

/// The chats to look at: PATH itself when it is a chat file, else every chat under it.
fn chats_at(path: &Path) -> Result<Vec<PathBuf>, String> {
    let meta =
        std::fs::metadata(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    if meta.is_dir() {
        return Ok(scan_chats(path));
    }
    if is_chat_file(path) {
        return Ok(vec![path.to_path_buf()]);
    }
    Err(format!(
        "{} is not a folder or a `.chat.md` file; give a folder to look in, or a chat",
        path.display()
    ))
}

fn read_chat(path: &Path) -> Result<String, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    crate::document::decode(&bytes)
        .map(str::to_owned)
        .map_err(|e| format!("{}: {e}", path.display()))
}

fn entry(path: &Path, text: &str, wait: Waiting) -> Entry {
    let rope = Text::new(text);
    let at = rope.byte_to_position(wait.range.start, PositionEncoding::Utf8);
    let line_start = rope.line_start(at.line as usize);
    let column = text[line_start..wait.range.start].chars().count() + 1;
    Entry {
        // `chatmd status` in a folder: `team/x.chat.md`, not `./team/x.chat.md`.
        file: path.strip_prefix(".").unwrap_or(path).to_path_buf(),
        line: at.line + 1,
        column: u32::try_from(column).unwrap_or(u32::MAX),
        kind: wait.kind.as_str(),
        member: wait.member,
        message: wait.message,
    }
}

/// `file:line:column: kind: message`, the form terminals and editors turn into links,
/// then how many chats wait.
fn write_lines(entries: &[Entry], chats: usize, out: &mut impl Write) -> io::Result<()> {
    for e in entries {
        writeln!(
            out,
            "{}:{}:{}: {}: {}",
            e.file.display(),
            e.line,
            e.column,
            e.kind,
            e.message
        )?;
    }
    let mut waiting: Vec<&Path> = entries.iter().map(|e| e.file.as_path()).collect();
    waiting.dedup();
    let of = match chats {
        1 => "1 chat".to_owned(),
        n => format!("{n} chats"),
    };
    match waiting.len() {
        0 => writeln!(out, "Nothing waits for you ({of} looked at)."),
        1 => writeln!(out, "1 chat waits for you ({of} looked at)."),
        n => writeln!(out, "{n} chats wait for you ({of} looked at)."),
    }
}
