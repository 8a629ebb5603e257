//! Parsing a long chat in parts, one thread each.
//!
//! A message heading (`## @handle` at the start of a line, outside code and HTML)
//! leaves the scanner in its initial state, so the text from one heading on scans the
//! same whether the scan started at the top or at that heading. A long chat is cut at
//! lines that look like headings, and each part is scanned on its own thread from its
//! cut on. Whether a cut really is a heading (and not, say, a line inside a code
//! block) is only known once the part before it reaches it: each part stops at the
//! next cut if it finds a heading there, and otherwise scans on to the end of the
//! text, which makes the parts after it redundant. The result is always the one a
//! single scan from the top gives.

use std::sync::OnceLock;

use super::scan::{Scan, reckon_headings, scan_with_room};

/// Parts shorter than this are not worth a thread of their own.
const MIN_PART: usize = 1 << 20;

/// How many threads this machine runs at once (at most 8).
pub(super) fn available_threads() -> usize {
    static THREADS: OnceLock<usize> = OnceLock::new();
    *THREADS.get_or_init(|| {
        std::thread::available_parallelism()
            .map_or(1, usize::from)
            .min(8)
    })
}

/// How many parts to cut `len` bytes of messages into, for `threads` threads.
pub(super) fn part_count(len: usize, threads: usize) -> usize {
    threads.min(len / MIN_PART).max(1)
}

/// Scans `text` from `from` (after the front matter) in up to `parts` parts.
pub(super) fn scan_in_parts(text: &str, from: usize, parts: usize) -> Scan {
    let cuts = cuts(text, from, parts);
    // The first part's list of messages has room for them all, so the others join it
    // where it is (copied into a new one, a 10 MB chat of 500k messages took 8 ms).
    let all = reckon_headings(&text.as_bytes()[from..]);
    let part = |i: usize| {
        let start = cuts[i];
        let next = cuts.get(i + 1).copied();
        let mut reached_next = false;
        let expected = next.unwrap_or(text.len()) - start;
        let room = if i == 0 { all } else { 0 };
        let scan = scan_with_room(text, 0, start, (expected, room), |at| {
            reached_next = Some(at) == next;
            reached_next
        });
        (scan, reached_next)
    };
    let scans: Vec<(Scan, bool)> = std::thread::scope(|threads| {
        let others: Vec<_> = (1..cuts.len())
            .map(|i| threads.spawn(move || part(i)))
            .collect();
        let first = part(0);
        std::iter::once(first)
            .chain(others.into_iter().map(|thread| {
                thread
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            }))
            .collect()
    });

    // The parts up to the first that scanned on to the end (its cut was no heading).
    let used = scans
        .iter()
        .position(|(_, reached_next)| !reached_next)
        .map_or(scans.len(), |last| last + 1);
    let count: usize = scans[..used]
        .iter()
        .map(|(scan, _)| scan.messages.len())
        .sum();
    let mut scans = scans.into_iter().take(used).map(|(scan, _)| scan);
    let mut whole = scans.next().expect("the first part");
    whole.messages.reserve_exact(count - whole.messages.len());
    for scan in scans {
        whole.first_header = whole.first_header.or(scan.first_header);
        whole.messages.extend(scan.messages);
    }
    whole
}

/// Where the parts start: `from`, then the first line after each of the evenly
/// spaced points that reads `## @`, in increasing order.
fn cuts(text: &str, from: usize, parts: usize) -> Vec<usize> {
    let finder = memchr::memmem::Finder::new(b"\n## @");
    let len = text.len() - from;
    let mut cuts = vec![from];
    for k in 1..parts {
        let point = (from + k * (len / parts)).max(*cuts.last().expect("one cut"));
        match finder.find(&text.as_bytes()[point..]) {
            Some(at) => cuts.push(point + at + 1),
            None => break,
        }
    }
    cuts
}
