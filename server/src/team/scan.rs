//! The workspace scan: every `.chat.md` file at start, and which changed files matter
//! to teams (for `workspace/didChangeWatchedFiles`).

use std::path::{Path, PathBuf};

use walkdir::{DirEntry, WalkDir};

use super::config::CONFIG_FILE_NAME;
use super::discover::TEAM_INSTRUCTION_FILE;

/// Folders never scanned: version control, dependencies and build output.
const SKIPPED_FOLDERS: [&str; 3] = [".git", "node_modules", "target"];

/// Every `*.chat.md` file under `root`, sorted. Skips `.git`, `node_modules`, `target`
/// and hidden folders; symlinks are not followed.
pub fn scan_chats(root: &Path) -> Vec<PathBuf> {
    let mut chats: Vec<PathBuf> = WalkDir::new(root)
        .into_iter()
        .filter_entry(|entry| entry.depth() == 0 || !is_skipped_folder(entry))
        .filter_map(Result::ok)
        .filter(|entry| entry.file_type().is_file() && is_chat_file(entry.path()))
        .map(DirEntry::into_path)
        .collect();
    chats.sort();
    chats
}

fn is_skipped_folder(entry: &DirEntry) -> bool {
    let name = entry.file_name().to_string_lossy();
    entry.file_type().is_dir() && (name.starts_with('.') || SKIPPED_FOLDERS.contains(&&*name))
}

/// Whether `path` is a chat by its name: `<name>.chat.md`, with a name. The one rule
/// for the workspace scan, the file watchers and `chatmd members`; a file called just
/// `.chat.md` is not a chat (it is a hidden file named `chat.md`).
pub fn is_chat_file(path: &Path) -> bool {
    path.file_name()
        .and_then(|name| name.to_str())
        .is_some_and(|name| name.len() > ".chat.md".len() && name.ends_with(".chat.md"))
}

/// Whether a change to `path` can change a team or a chat: role files (and the files
/// the CLIs load next to them), `team_instruction.md`, `chatmd.toml`, `*.chat.md`.
pub fn is_team_relevant(path: &Path) -> bool {
    const NAMES: [&str; 7] = [
        "CLAUDE.md",
        "AGENTS.md",
        "GEMINI.md",
        "AGENTS.override.md",
        "CLAUDE.local.md",
        TEAM_INSTRUCTION_FILE,
        CONFIG_FILE_NAME,
    ];
    is_chat_file(path)
        || path
            .file_name()
            .and_then(|name| name.to_str())
            .is_some_and(|name| NAMES.contains(&name))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_chat_file_is_a_name_then_dot_chat_md() {
        assert!(is_chat_file(Path::new("t/standup.chat.md")));
        assert!(is_chat_file(Path::new("a.b.chat.md")));
        for no in [
            ".chat.md",
            "t/.chat.md",
            "chat.md",
            "a.chat.md.bak",
            "a.chat.mdx",
        ] {
            assert!(!is_chat_file(Path::new(no)), "{no}");
        }
    }

    #[test]
    fn relevant_files() {
        for yes in [
            "t/bob/AGENTS.md",
            "CLAUDE.md",
            "x/GEMINI.md",
            "team_instruction.md",
            "a/chatmd.toml",
            "a/standup.chat.md",
            "AGENTS.override.md",
        ] {
            assert!(is_team_relevant(Path::new(yes)), "{yes}");
        }
        for no in [
            "README.md",
            "a/.chat.md",
            "chat.md",
            "agents.md",
            "x/chatmd.toml.bak",
        ] {
            assert!(!is_team_relevant(Path::new(no)), "{no}");
        }
    }
}
