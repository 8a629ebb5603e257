//! Where two versions of a text differ: how a document that changed behind the
//! server's back (a file saved by another program, a chat reopened or renamed in the
//! editor, an editor that reports a change as the whole new text) is taken in.
//!
//! [`regions`] finds every separate region, so a change reported as one big
//! replacement (a whole-text `didChange`, a file rewritten) moves only what really
//! changed: a running answer's place between two edits of the user's stays where it
//! is, instead of being swept to the end of one region that spans both.

use std::time::{Duration, Instant};

use similar::{Algorithm, DiffTag, capture_diff_slices_deadline};

use crate::document::ByteRange;

/// The most bytes (old and new together) of a differing middle that [`regions`]
/// compares line by line; past it the middle counts as one region.
const MAX_DETAILED: usize = 4 << 20;
/// How long [`regions`] may look for the separate regions before it settles for
/// fewer, larger ones.
const DEADLINE: Duration = Duration::from_millis(30);

/// One region where two texts differ: `old` of the old text became `new` of the new.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Region {
    pub old: ByteRange,
    pub new: ByteRange,
}

/// Every region where `new` differs from `old`, in order, none touching the next.
/// Lines are compared first (an edit script over whole lines), then each changed
/// run of lines is narrowed to where its bytes differ, the way [`difference`] does:
/// so a region starts as late as it can, and typing on two lines far apart is two
/// regions while what lies between them stays.
pub fn regions(old: &str, new: &str) -> Vec<Region> {
    let Some((range, new_len)) = difference(old, new) else {
        return Vec::new();
    };
    let whole = Region {
        old: range.clone(),
        new: range.start..range.start + new_len,
    };
    if whole.old.is_empty()
        || whole.new.is_empty()
        || whole.old.len() + whole.new.len() > MAX_DETAILED
    {
        return vec![whole];
    }
    // The middle as whole lines: from the start of the first line that differs to the
    // end of the last one (the same lines in both texts around it).
    let start = old[..whole.old.start].rfind('\n').map_or(0, |i| i + 1);
    let suffix = old.len() - whole.old.end;
    let kept = old[whole.old.end..].find('\n').map_or(suffix, |i| i + 1);
    let (a, b) = (
        &old[start..whole.old.end + kept],
        &new[start..whole.new.end + kept],
    );
    let (a_lines, b_lines) = (lines(a), lines(b));
    let deadline = Instant::now() + DEADLINE;
    let ops = capture_diff_slices_deadline(Algorithm::Myers, &a_lines, &b_lines, Some(deadline));
    // Byte offsets of each line start (and of the end) in the middles.
    let starts = |lines: &[&str]| -> Vec<usize> {
        let mut at = 0;
        let mut out = vec![0];
        for line in lines {
            at += line.len();
            out.push(at);
        }
        out
    };
    let (a_at, b_at) = (starts(&a_lines), starts(&b_lines));
    let mut out = Vec::new();
    for op in ops {
        let (tag, o, n) = op.as_tag_tuple();
        if tag == DiffTag::Equal {
            continue;
        }
        let (o, n) = (a_at[o.start]..a_at[o.end], b_at[n.start]..b_at[n.end]);
        let Some((inner, inner_len)) = difference(&a[o.clone()], &b[n.clone()]) else {
            continue;
        };
        let (old_at, new_at) = (start + o.start + inner.start, start + n.start + inner.start);
        out.push(Region {
            old: old_at..old_at + inner.len(),
            new: new_at..new_at + inner_len,
        });
    }
    // An edit script whose pieces do not add up to the new text (seen with the diff's
    // ops at a text's last line, which has no line break) is not used: one region is
    // always right.
    if !adds_up(old, new, &out, &whole) {
        return vec![whole];
    }
    out
}

/// Whether `regions` (in order, within `whole`) turn `old` into `new`.
fn adds_up(old: &str, new: &str, regions: &[Region], whole: &Region) -> bool {
    let (mut at_old, mut at_new) = (whole.old.start, whole.new.start);
    for r in regions {
        if r.old.start < at_old || r.new.start < at_new {
            return false;
        }
        if old.get(at_old..r.old.start) != new.get(at_new..r.new.start) {
            return false;
        }
        at_old = r.old.end;
        at_new = r.new.end;
    }
    old.get(at_old..whole.old.end) == new.get(at_new..whole.new.end)
}

/// `text` cut into lines, each with its line break.
fn lines(text: &str) -> Vec<&str> {
    text.split_inclusive('\n').collect()
}

/// The one region where `new` differs from `old`: (range in `old`, length in `new`).
/// It starts as late as it can (the longest common start is kept first).
pub fn difference(old: &str, new: &str) -> Option<(ByteRange, usize)> {
    if old == new {
        return None;
    }
    let (a, b) = (old.as_bytes(), new.as_bytes());
    let mut prefix = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    while !old.is_char_boundary(prefix) || !new.is_char_boundary(prefix) {
        prefix -= 1;
    }
    let max_suffix = a.len().min(b.len()) - prefix;
    let mut suffix = a
        .iter()
        .rev()
        .zip(b.iter().rev())
        .take(max_suffix)
        .take_while(|(x, y)| x == y)
        .count();
    while !old.is_char_boundary(a.len() - suffix) || !new.is_char_boundary(b.len() - suffix) {
        suffix -= 1;
    }
    Some((prefix..a.len() - suffix, b.len() - suffix - prefix))
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn the_difference_is_one_region() {
        assert_eq!(difference("abc", "abc"), None);
        assert_eq!(difference("abcdef", "abXYdef"), Some((2..3, 2)));
        assert_eq!(difference("aaa", "aaaa"), Some((3..3, 1)));
        assert_eq!(difference("é", "è"), Some((0..2, 2)));
        assert_eq!(difference("x😀y", "x😁y"), Some((1..5, 4)));
    }

    /// `old` with `regions` replaced by their new text: must give `new`.
    fn rebuilt(old: &str, new: &str, regions: &[Region]) -> String {
        let mut out = String::new();
        let mut at = 0;
        for r in regions {
            out.push_str(&old[at..r.old.start]);
            out.push_str(&new[r.new.clone()]);
            at = r.old.end;
        }
        out.push_str(&old[at..]);
        out
    }

    proptest::proptest! {
        #[test]
        fn regions_always_rebuild_the_new_text(old in "[ab\né\n#@]{0,40}", new in "[ab\né\n#@]{0,40}") {
            let found = regions(&old, &new);
            proptest::prop_assert_eq!(rebuilt(&old, &new, &found), new.clone());
            for w in found.windows(2) {
                proptest::prop_assert!(w[0].old.end < w[1].old.start || w[0].new.end < w[1].new.start);
            }
        }
    }

    #[test]
    fn changes_on_separate_lines_are_separate_regions() {
        let old = "## @me\nhi\n\n## @reviewer\n<!-- s -->\nThe answer\n";
        let new = "## @me\nhi there\n\n## @reviewer\n<!-- s -->\nThe answer\n\n## @me\nnext\n";
        let found = regions(old, new);
        assert_eq!(
            found,
            vec![
                Region {
                    old: 9..9,
                    new: 9..15
                },
                Region {
                    old: old.len()..old.len(),
                    new: old.len() + 6..new.len()
                },
            ]
        );
    }

    #[test]
    fn separate_changes_are_separate_regions() {
        let old = "## @me\nhi\n\n## @reviewer\n<!-- s -->\nThe ans\n";
        let new = "## @me\nhi there\n\n## @reviewer\n<!-- s -->\nThe answer is\n\n## @me\nnext\n";
        let found = regions(old, new);
        assert_eq!(rebuilt(old, new, &found), new);
        assert_eq!(
            found
                .iter()
                .map(|r| (&old[r.old.clone()], &new[r.new.clone()]))
                .collect::<Vec<_>>(),
            vec![("", " there"), ("", "wer is\n\n## @me\nnext")]
        );
    }

    #[test]
    fn regions_rebuild_the_new_text_at_character_boundaries() {
        for (old, new) in [
            ("é😀x", "è😁x"),
            ("aaaa", "aaaaaa"),
            ("", "x"),
            ("x", ""),
            ("ab\ncd\n", "ab\n\ncd\n\n"),
            ("日本語のテキスト", "日本のテキスト語"),
            ("#\n\n", "\n\né"),
        ] {
            let found = regions(old, new);
            assert_eq!(
                rebuilt(old, new, &found),
                new,
                "{old:?} → {new:?}: {found:?}"
            );
            for r in &found {
                assert!(old.is_char_boundary(r.old.start) && old.is_char_boundary(r.old.end));
                assert!(new.is_char_boundary(r.new.start) && new.is_char_boundary(r.new.end));
            }
        }
    }
}
