//! A minimal CommonMark fenced-code tracker, line by line, and the chatmd message
//! heading test: markers and headings count only outside fenced code.

/// What a line is to the fence tracker.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum FenceStep {
    /// Ordinary line outside fenced code.
    Outside,
    /// Opening fence.
    Open,
    /// Line inside fenced code.
    Inside,
    /// Closing fence.
    Close,
}

/// Minimal CommonMark fenced-code tracker (top level only: no containers).
#[derive(Debug, Default, Clone, Copy)]
pub(super) struct Fence {
    /// Fence character and length of the open fence.
    pub(super) open: Option<(u8, usize)>,
}

impl Fence {
    pub(super) fn step(&mut self, line: &str) -> FenceStep {
        match self.open {
            Some((ch, len)) => match fence_run(line) {
                Some((c, n, rest))
                    if c == ch && n >= len && rest.trim_matches([' ', '\t']).is_empty() =>
                {
                    self.open = None;
                    FenceStep::Close
                }
                _ => FenceStep::Inside,
            },
            None => match fence_run(line) {
                Some((c, n, rest)) if c == b'~' || !rest.contains('`') => {
                    self.open = Some((c, n));
                    FenceStep::Open
                }
                _ => FenceStep::Outside,
            },
        }
    }
}

/// A run of at least three backticks or tildes after 0–3 spaces: its character, its
/// length and the rest of the line.
pub(super) fn fence_run(line: &str) -> Option<(u8, usize, &str)> {
    let b = line.as_bytes();
    let mut i = 0;
    while i < 3 && b.get(i) == Some(&b' ') {
        i += 1;
    }
    let c = *b.get(i)?;
    if c != b'`' && c != b'~' {
        return None;
    }
    let mut j = i;
    while b.get(j) == Some(&c) {
        j += 1;
    }
    (j - i >= 3).then(|| (c, j - i, &line[j..]))
}

/// If `line` is a chatmd message heading (`## @handle`, 0–3 spaces of indent), the byte
/// index of its `@`.
pub(super) fn heading_at(line: &str) -> Option<usize> {
    let b = line.as_bytes();
    let mut i = 0;
    while i < 3 && b.get(i) == Some(&b' ') {
        i += 1;
    }
    if b.get(i) != Some(&b'#') || b.get(i + 1) != Some(&b'#') {
        return None;
    }
    i += 2;
    let gap = i;
    while matches!(b.get(i), Some(b' ' | b'\t')) {
        i += 1;
    }
    if i == gap || b.get(i) != Some(&b'@') {
        return None;
    }
    b.get(i + 1)
        .is_some_and(u8::is_ascii_alphanumeric)
        .then_some(i)
}

/// Whether `line`, inside a fence of `c` × `n`, could only be the opening fence of a new
/// block: same character, long enough to close, but with an info string.
pub(super) fn reopens(line: &str, c: u8, n: usize) -> bool {
    matches!(
        fence_run(line),
        Some((c2, n2, rest)) if c2 == c && n2 >= n && !rest.trim().is_empty() && (c == b'~' || !rest.contains('`'))
    )
}
