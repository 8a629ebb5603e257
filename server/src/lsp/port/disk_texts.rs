//! The texts chat files had on disk while this server's turns wrote into them, kept by
//! fingerprint beyond the turns: an editor that opens a chat may have read one of them
//! just before chatmd wrote the next, and its `didOpen` then carries an older copy of
//! chatmd's own text. Recognised here, that copy is brought up to date by the server
//! (`port/disk.rs` while a run goes on, `lsp/reopened.rs` after) instead of being
//! taken for the user undoing the answer, or left for the editor to reload (Neovim
//! applies an edit of version 0 to whatever its buffer holds, so a reload racing the
//! server's own edit wrote the answer twice over).

use std::collections::{HashMap, VecDeque};
use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::{Path, PathBuf};

/// How many of a file's latest texts are recognised in a buffer that opens late.
const KEPT_TEXTS: usize = 32;
/// How many files' texts are kept (the least recently written go first).
const KEPT_FILES: usize = 64;

pub fn fingerprint(text: &str) -> u64 {
    let mut hasher = DefaultHasher::new();
    text.hash(&mut hasher);
    hasher.finish()
}

#[derive(Default)]
pub struct DiskTexts {
    by_file: HashMap<PathBuf, Vec<u64>>,
    /// Files by when their texts were last kept, the least recent first.
    recent: VecDeque<PathBuf>,
}

impl DiskTexts {
    /// Keeps the fingerprint of a text the file `path` has now.
    pub fn keep(&mut self, path: &Path, print: u64) {
        if let Some(at) = self.recent.iter().position(|p| p == path) {
            let again = self.recent.remove(at).expect("position is in range");
            self.recent.push_back(again);
        } else {
            if self.recent.len() == KEPT_FILES
                && let Some(oldest) = self.recent.pop_front()
            {
                self.by_file.remove(&oldest);
            }
            self.recent.push_back(path.to_path_buf());
        }
        let texts = self.by_file.entry(path.to_path_buf()).or_default();
        if texts.last() != Some(&print) {
            if texts.len() == KEPT_TEXTS {
                texts.remove(0);
            }
            texts.push(print);
        }
    }

    /// Whether anything was kept for `path` (before hashing a whole document).
    pub fn has(&self, path: &Path) -> bool {
        self.by_file.contains_key(path)
    }

    /// Whether `print` is one of the texts the file had.
    pub fn knows(&self, path: &Path, print: u64) -> bool {
        self.by_file.get(path).is_some_and(|t| t.contains(&print))
    }

    /// Whether `print` is the last text kept for the file: nobody changed it since.
    pub fn is_latest(&self, path: &Path, print: u64) -> bool {
        self.by_file.get(path).and_then(|t| t.last()) == Some(&print)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_files_latest_texts_are_kept_and_the_least_recent_files_go_first() {
        let mut kept = DiskTexts::default();
        let chat = Path::new("/ws/a.chat.md");
        for n in 0..(KEPT_TEXTS as u64 + 1) {
            kept.keep(chat, n);
        }
        assert!(!kept.knows(chat, 0), "the oldest text went");
        assert!(kept.knows(chat, 1) && kept.is_latest(chat, KEPT_TEXTS as u64));
        kept.keep(chat, KEPT_TEXTS as u64);
        assert!(kept.knows(chat, 1), "the same text again is not kept twice");
        let others: Vec<PathBuf> = (0..KEPT_FILES)
            .map(|n| PathBuf::from(format!("/ws/{n}.chat.md")))
            .collect();
        for (n, other) in others.iter().enumerate() {
            if n == KEPT_FILES / 2 {
                kept.keep(chat, 7);
            }
            kept.keep(other, 1);
        }
        assert!(kept.knows(chat, 7), "written to lately: kept");
        assert!(!kept.has(&others[0]), "the least recently written went");
        assert!(kept.has(&others[KEPT_FILES - 1]));
    }
}
