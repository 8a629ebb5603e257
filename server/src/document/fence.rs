//! Fenced code by CommonMark's rules, defined once: what opens a fence (three or more
//! backticks or tildes; a backtick fence's info string has no backtick), what closes
//! it (the same character, at least as many, nothing after but blanks), and how to
//! close one left open.
//!
//! The chat scanner applies these rules inside its container model (block quotes,
//! list items); the chat formats of other tools are read through that scanner too.

/// An open code fence.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Fence {
    /// `` ` `` or `~`.
    pub(super) ch: u8,
    /// How many of them opened it.
    pub(super) len: usize,
    /// Indentation of the container the fence lives in (a list item's content
    /// column); 0 at the top level.
    pub(super) base: usize,
}

impl Fence {
    /// The fence that `rest` (a line after its indentation) opens, in a container whose
    /// content starts at column `base`.
    pub(super) fn open(rest: &[u8], base: usize) -> Option<Fence> {
        let ch = *rest.first()?;
        if ch != b'`' && ch != b'~' {
            return None;
        }
        let len = run_length(rest, ch);
        if len < 3 {
            return None;
        }
        // A backtick fence's info string may not contain backticks (it would be inline code).
        if ch == b'`' && rest[len..].contains(&b'`') {
            return None;
        }
        Some(Fence { ch, len, base })
    }

    /// Whether `rest` (a line after its indentation) closes this fence.
    pub(super) fn is_closed_by(&self, rest: &[u8]) -> bool {
        let len = run_length(rest, self.ch);
        len >= self.len && rest[len..].iter().all(|&b| b == b' ' || b == b'\t')
    }

    /// The line that closes this fence.
    pub(super) fn closing_line(&self) -> String {
        char::from(self.ch).to_string().repeat(self.len)
    }
}

/// How many times `ch` repeats at the start of `s`.
pub(super) fn run_length(s: &[u8], ch: u8) -> usize {
    s.iter().take_while(|&&b| b == ch).count()
}

/// `line` without up to three spaces of indent: where a fence may start (a fourth
/// space, or a tab, leaves a blank first, which no fence starts with).
pub(super) fn after_indent(line: &[u8]) -> &[u8] {
    let spaces = line.iter().take(3).take_while(|&&b| b == b' ').count();
    &line[spaces..]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_open_fence_closes_with_its_own_line() {
        let fence = Fence::open(b"````rust", 0).expect("a fence");
        assert_eq!(fence.closing_line(), "````");
        let closes =
            [b"````".as_slice(), b"```", b"````x", b"`````  "].map(|l| fence.is_closed_by(l));
        assert_eq!(closes, [true, false, false, true]);
        assert_eq!(
            Fence::open(b"~~~", 2).map(|f| f.closing_line()),
            Some("~~~".into())
        );
    }
}
