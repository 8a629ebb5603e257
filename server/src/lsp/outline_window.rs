//! How much of a long chat the outline and the folds list one by one. An outline of
//! 500k messages is 80 MB of JSON at every keystroke, and no editor shows it usefully;
//! VS Code itself folds at most 5000 regions (`editor.foldingMaximumRegions`) and its
//! JSON server lists at most 5000 symbols (`json.maxItemsComputed`). A chat longer
//! than that lists its latest messages one by one, where the conversation goes on,
//! and the earlier ones as groups (`messages 1–1000`, …) that still lead to any part
//! of its history and fold it away.

use std::ops::Range;

use tower_lsp_server::ls_types::{DocumentSymbol, Position, SymbolKind};

use crate::document::chat::Chat;
use crate::document::text::{LineCol, PositionEncoding, Text, breaks_before, saturate};

/// At most how many entries (groups and messages) list a chat's messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shown {
    /// Entries at most: the latest messages, after the groups of the earlier ones.
    pub items: usize,
    /// Messages per group at least (at least 2, so that groups take fewer entries);
    /// more in a chat so long that it would make over [`Shown::GROUPS`] groups.
    pub group: usize,
}

impl Default for Shown {
    fn default() -> Shown {
        Shown::DEFAULT
    }
}

impl Shown {
    /// VS Code's own limits for a document's folds and a JSON file's symbols.
    pub const ITEMS: usize = 5000;
    /// Groups at most, about: each costs a few lookups in the text at every keystroke,
    /// and a hundred still lead to any part of a history.
    pub const GROUPS: usize = 100;
    pub const DEFAULT: Shown = Shown {
        items: Shown::ITEMS,
        group: 1000,
    };

    /// At most `items` entries, or the default count when `None`.
    pub fn at_most(items: Option<usize>) -> Shown {
        Shown {
            items: items.unwrap_or(Shown::ITEMS).max(1),
            ..Shown::DEFAULT
        }
    }

    /// What the outline and the folds list for a client with `capabilities`, when the
    /// user set `items` (`outlineItems`). An editor that keeps fewer folds than that
    /// (`rangeLimit`) would drop the latest messages' ones: the folds keep to it.
    pub fn for_client(
        items: Option<usize>,
        capabilities: &tower_lsp_server::ls_types::ClientCapabilities,
    ) -> (Shown, Shown) {
        let range_limit = capabilities
            .text_document
            .as_ref()
            .and_then(|t| t.folding_range.as_ref())
            .and_then(|f| f.range_limit)
            .and_then(|limit| usize::try_from(limit).ok());
        let folds = [items, range_limit].into_iter().flatten().min();
        (Shown::at_most(items), Shown::at_most(folds))
    }

    /// The first of `count` messages listed on its own: the fewest messages go into
    /// groups such that the groups and the messages after them are `items` at most
    /// (all of them, should their groups alone be more).
    pub fn first_alone(self, count: usize) -> usize {
        if count <= self.items {
            return 0;
        }
        let group = self.group_size(count);
        // The least `first` with `first >= count - items + ceil(first / group)`: the
        // right side grows slower than `first`, so going up from below reaches it.
        let mut first = count - self.items;
        loop {
            let needed = (count - self.items).saturating_add(first.div_ceil(group));
            if needed <= first {
                return first;
            }
            if needed >= count {
                return count;
            }
            first = needed;
        }
    }

    /// Messages per group in a chat of `count`: [`Shown::group`], or a multiple of it
    /// that makes no more than about [`Shown::GROUPS`] groups.
    fn group_size(self, count: usize) -> usize {
        let group = self.group.max(2);
        count.div_ceil(Shown::GROUPS).div_ceil(group).max(1) * group
    }

    /// The groups of the messages before `first` (see [`Shown::first_alone`]) of
    /// `count`, as ranges of message indices.
    pub fn groups(self, first: usize, count: usize) -> impl Iterator<Item = Range<usize>> {
        let group = self.group_size(count);
        (0..first)
            .step_by(group)
            .map(move |start| start..(start + group).min(first))
    }
}

/// The outline entry of a group of messages: from its first heading to the end of its
/// last message, named for the messages it holds (counted from 1).
#[allow(deprecated)] // `DocumentSymbol::deprecated` must still be filled in.
pub fn group_symbol(
    text: &Text,
    chat: &Chat,
    group: Range<usize>,
    enc: PositionEncoding,
) -> DocumentSymbol {
    let (first, last) = (&chat.messages[group.start], &chat.messages[group.end - 1]);
    let position = |byte: usize| {
        let LineCol { line, col } = text.byte_to_position(byte, enc);
        Position::new(line, col)
    };
    let header = first.header();
    DocumentSymbol {
        name: format!("messages {}–{}", group.start + 1, group.end),
        detail: None,
        kind: SymbolKind::ARRAY,
        tags: None,
        deprecated: None,
        range: tower_lsp_server::ls_types::Range::new(
            position(first.range().start),
            position(last.range().end),
        ),
        selection_range: tower_lsp_server::ls_types::Range::new(
            position(header.start),
            position(header.end),
        ),
        children: None,
    }
}

/// The fold of a group of messages, as a message's own: from its first heading to the
/// last line of its last message that is not blank (none when that is the same line).
/// `buf` holds the last message.
pub fn group_fold(
    text: &Text,
    chat: &Chat,
    group: Range<usize>,
    buf: &mut String,
) -> Option<(u32, u32)> {
    let (first, last) = (&chat.messages[group.start], &chat.messages[group.end - 1]);
    let line = saturate(text.line_of_byte(first.range().start));
    text.slice_into(last.range(), buf);
    let last_line = saturate(text.line_of_byte(last.range().start));
    let end = last_line.saturating_add(saturate(breaks_before(buf, buf.trim_end().len())));
    (end > line).then_some((line, end))
}

#[cfg(test)]
mod tests {
    use super::Shown;

    #[test]
    fn a_chat_within_the_limit_lists_every_message() {
        let shown = Shown {
            items: 10,
            group: 4,
        };
        assert_eq!(shown.first_alone(0), 0);
        assert_eq!(shown.first_alone(10), 0);
    }

    #[test]
    fn groups_and_the_latest_messages_take_the_limit_and_no_more() {
        for items in 1..30 {
            for group in 2..7 {
                let shown = Shown { items, group };
                for count in 0..200 {
                    let first = shown.first_alone(count);
                    let entries = shown.groups(first, count).count() + (count - first);
                    let fits = |first: usize| {
                        shown.groups(first, count).count() + (count - first) <= items
                    };
                    if fits(count) {
                        assert!(entries <= items, "{items} {group} {count}: {entries}");
                        // The fewest messages in groups: one fewer would not fit.
                        assert!(first == 0 || !fits(first - 1), "{items} {group} {count}");
                    } else {
                        // More groups than entries: all of them are grouped.
                        assert_eq!(first, count);
                    }
                    let grouped: usize = shown.groups(first, count).map(|g| g.len()).sum();
                    assert_eq!(grouped, first);
                }
            }
        }
    }

    #[test]
    fn the_default_lists_the_latest_messages_of_a_long_chat() {
        let shown = Shown::DEFAULT;
        let first = shown.first_alone(12_000);
        assert_eq!(
            shown.groups(first, 12_000).count() + (12_000 - first),
            Shown::ITEMS
        );
        // 7008 messages in 8 groups of 1000 (the last of 8), then the latest 4992.
        assert_eq!((first, shown.groups(first, 12_000).count()), (7008, 8));
        // Half a million: about a hundred groups of 5000, then the latest messages.
        let first = shown.first_alone(500_000);
        let groups: Vec<_> = shown.groups(first, 500_000).collect();
        assert_eq!(groups.len() + (500_000 - first), Shown::ITEMS);
        assert_eq!(groups[0], 0..5000);
        assert_eq!((first, groups.len()), (495_100, 100));
    }
}
