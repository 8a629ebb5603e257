//! What one scan of a chat found, stored once for all the messages it made: flat
//! lists of mentions, markers, permission blocks and code blocks, and per message a
//! record of where its parts are.

use super::CodeBlock;
use crate::document::ByteRange;
use crate::document::inline::{Marker, Mention};
use crate::document::permission::PermissionOption;
use crate::document::status::{StatusComment, StatusError};

/// A permission block as a scan stores it: its options are a run of the store's
/// flat list of options.
#[derive(Clone, Debug)]
pub(super) struct StoredPermission {
    pub(super) range: ByteRange,
    pub(super) id: ByteRange,
    pub(super) text: ByteRange,
    pub(super) options: std::ops::Range<usize>,
}

/// Where one message's parts are in its scan's [`Store`], with byte ranges as they
/// were when it was scanned. A message's items in each list run from its record's
/// first index to the next record's (or the end of the list), and the message itself
/// from its heading to the next record's heading (or the end of the scan).
#[derive(Clone, Debug)]
pub(super) struct Record {
    /// The heading line, without its line break; the message starts where it starts.
    pub(super) header: ByteRange,
    pub(super) handle: ByteRange,
    /// The status comment line (without its line break); empty when there is none.
    pub(super) status: ByteRange,
    pub(super) body_start: usize,
    /// Where the message's items start in each of the store's lists.
    pub(super) starts: Starts,
}

/// Where one message's items start in each list of its [`Store`]; they run to the
/// next message's starts (or the end of the list).
#[derive(Clone, Copy, Debug)]
pub(super) struct Starts {
    pub(super) mentions: usize,
    pub(super) markers: usize,
    pub(super) permissions: usize,
    pub(super) code_blocks: usize,
}

/// A status comment as parsed, cached for the messages that share a store.
pub(super) type ParsedStatus = std::sync::OnceLock<Result<StatusComment, StatusError>>;

/// What one scan found, in flat lists shared by the messages it made (and by copies
/// of them): one allocation per list and scan instead of several per message. Never
/// changed once built, except for the status comments parsed on first use: most
/// requests never look at most of them, and parsing them all would dominate a parse.
///
/// A store lives as long as any of its messages: after incremental re-parses, what a
/// scan found for messages since replaced stays in memory until the last message of
/// that scan is replaced too (at most what that scan found).
#[derive(Debug, Default)]
pub(super) struct Store {
    pub(super) records: Vec<Record>,
    pub(super) mentions: Vec<Mention>,
    pub(super) markers: Vec<Marker>,
    pub(super) permissions: Vec<StoredPermission>,
    pub(super) options: Vec<PermissionOption>,
    pub(super) code_blocks: Vec<CodeBlock>,
    /// Where the last message ends.
    pub(super) end: usize,
    /// One slot per record, made when the first status comment is asked for.
    pub(super) parsed: std::sync::OnceLock<Box<[ParsedStatus]>>,
}

impl Store {
    /// Where the items of a message that starts now would start: at the end of each list.
    pub(super) fn starts(&self) -> Starts {
        Starts {
            mentions: self.mentions.len(),
            markers: self.markers.len(),
            permissions: self.permissions.len(),
            code_blocks: self.code_blocks.len(),
        }
    }

    /// The `i`th message's run of one of the lists: `list` picks the list, `start`
    /// where a message's items start in it.
    pub(super) fn run<T>(
        &self,
        i: usize,
        list: fn(&Store) -> &[T],
        start: fn(&Starts) -> usize,
    ) -> &[T] {
        let items = list(self);
        let end = self
            .records
            .get(i + 1)
            .map_or(items.len(), |next| start(&next.starts));
        &items[start(&self.records[i].starts)..end]
    }
}
