//! Completion of context references after `#` in a chat: the kinds (`file:`, `diff`,
//! `diagnostics:`), then after `#file:` or `#diagnostics:` the workspace's files,
//! relative to its root (hidden folders, `target` and `node_modules` left out), for
//! the editor to filter as the path is typed.

use std::path::Path;
use std::sync::Mutex;

use tower_lsp_server::ls_types::*;

use super::super::convert;
use super::super::state::{Document, State};
use crate::document::text::PositionEncoding;

/// The most files offered; a larger workspace offers the first ones by path.
const MAX_FILES: usize = 5000;
/// How deep the walk goes below the root.
const MAX_DEPTH: usize = 16;

const KINDS: [(&str, &str); 3] = [
    (
        "file:",
        "a file of the workspace, or some of its lines: `#file:src/pay.rs:40-80`",
    ),
    (
        "diff",
        "the working tree's changes against HEAD, computed on send",
    ),
    ("diagnostics:", "the problems the editor reports for a file"),
];

/// The reference being typed at `offset`: where its `#` is, when a `#` starts the run
/// of non-blank text before `offset` (at a line start or after a space, `(` or `[`).
fn reference_start(text: &str, offset: usize) -> Option<usize> {
    let before = text.get(..offset)?.as_bytes();
    let start = before
        .iter()
        .rposition(|b| b.is_ascii_whitespace() || matches!(b, b'(' | b'['))
        .map_or(0, |i| i + 1);
    // `##` starts a heading, not a reference.
    (before.get(start) == Some(&b'#') && before.get(start + 1) != Some(&b'#')).then_some(start)
}

pub(super) fn complete(
    state: &Mutex<State>,
    doc: &Document,
    text: &str,
    offset: usize,
    enc: PositionEncoding,
) -> Option<Vec<CompletionItem>> {
    let hash = reference_start(text, offset)?;
    doc.chat.message_at(offset)?;
    if doc.chat.in_code(offset) {
        return None;
    }
    let typed = &text[hash + 1..offset];
    let path_start = ["file:", "diagnostics:"]
        .iter()
        .find_map(|kind| typed.starts_with(kind).then(|| hash + 1 + kind.len()));
    let Some(path_start) = path_start else {
        if typed.contains(':') {
            return None;
        }
        let range = convert::range(&doc.text, &(hash + 1..offset), enc);
        let items = KINDS
            .iter()
            .map(|(label, about)| CompletionItem {
                label: (*label).to_owned(),
                kind: Some(CompletionItemKind::KEYWORD),
                detail: Some((*about).to_owned()),
                text_edit: Some(CompletionTextEdit::Edit(TextEdit::new(
                    range,
                    (*label).to_owned(),
                ))),
                ..Default::default()
            })
            .collect();
        return Some(items);
    };
    let root = doc.team(state).root;
    if root.as_os_str().is_empty() {
        return None;
    }
    let range = convert::range(&doc.text, &(path_start..offset), enc);
    let items = workspace_files(&root)
        .into_iter()
        .map(|path| CompletionItem {
            label: path.clone(),
            kind: Some(CompletionItemKind::FILE),
            text_edit: Some(CompletionTextEdit::Edit(TextEdit::new(range, path))),
            ..Default::default()
        })
        .collect();
    Some(items)
}

/// The files under `root`, as paths relative to it with `/`, sorted, at most
/// [`MAX_FILES`]. Symlinks are not followed (a link out of the workspace is refused
/// on send anyway).
fn workspace_files(root: &Path) -> Vec<String> {
    let skipped = |name: &str| name.starts_with('.') || name == "target" || name == "node_modules";
    let mut files: Vec<String> = walkdir::WalkDir::new(root)
        .max_depth(MAX_DEPTH)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|e| e.depth() == 0 || !skipped(&e.file_name().to_string_lossy()))
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .filter_map(|e| {
            let relative = e.path().strip_prefix(root).ok()?;
            relative.to_str().map(|p| p.replace('\\', "/"))
        })
        .take(MAX_FILES)
        .collect();
    files.sort();
    files
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_reference_being_typed() {
        assert_eq!(reference_start("#", 1), Some(0));
        assert_eq!(reference_start("see #file:src/p", 15), Some(4));
        assert_eq!(reference_start("(#di", 4), Some(1));
        assert_eq!(reference_start("a#file:x", 8), None);
        assert_eq!(reference_start("## @me", 2), None);
    }
}
