//! The one region where two versions of a text differ: how a document that changed
//! behind the server's back (a file saved by another program, a chat reopened or
//! renamed in the editor) is taken in as a single change.

use crate::document::ByteRange;

/// The one region where `new` differs from `old`: (range in `old`, length in `new`).
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
}
