//! Inline syntax inside message text: `@handle` mentions and the routing markers
//! `[NEXT: handle]` and `[DONE]`, found outside inline code spans.

use super::{ByteRange, bytes};

/// A `@handle` in message text. Whether it names a member is decided with the team.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mention {
    /// The `@` and the handle.
    pub range: ByteRange,
    /// The handle alone.
    pub handle: ByteRange,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MarkerKind {
    /// `[NEXT: handle]`: that member speaks next; the range is the handle.
    Next(ByteRange),
    /// `[DONE]`.
    Done,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Marker {
    pub range: ByteRange,
    pub kind: MarkerKind,
}

/// Whether `b` may start a handle.
pub fn is_handle_start(b: u8) -> bool {
    b.is_ascii_alphanumeric()
}

/// Whether `b` may continue a handle.
pub const fn is_handle_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-')
}

/// Whether `s` is a valid handle: `[A-Za-z0-9][A-Za-z0-9_.-]*`.
pub fn is_valid_handle(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty() && is_handle_start(b[0]) && b.iter().all(|&c| is_handle_byte(c))
}

/// [`is_handle_byte`] as a table.
const HANDLE_BYTES: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 256 {
        table[b] = is_handle_byte(b as u8);
        b += 1;
    }
    table
};

/// Length of the handle at the start of `s`, without trailing `.`, `-` and `_`, which
/// are punctuation (`@tester.` mentions `tester`).
pub fn handle_len(s: &[u8]) -> usize {
    if !s.first().is_some_and(|&b| is_handle_start(b)) {
        return 0;
    }
    let mut len = s
        .iter()
        .position(|&b| !HANDLE_BYTES[b as usize])
        .unwrap_or(s.len());
    while len > 1 && matches!(s[len - 1], b'.' | b'-' | b'_') {
        len -= 1;
    }
    len
}

/// Finds the mentions and markers in one line of text (not code). `base` is the
/// line's offset in the document; the results are absolute.
pub fn scan_line(line: &str, base: usize, mentions: &mut Vec<Mention>, markers: &mut Vec<Marker>) {
    if let Some(first) = bytes::find_inline_start(line.as_bytes(), 0) {
        scan_from(line.as_bytes(), first, base, mentions, markers);
    }
}

/// [`scan_line`] on the bytes of a line whose first `@`, `[` or backtick is at `first`.
pub(super) fn scan_from(
    b: &[u8],
    first: usize,
    base: usize,
    mentions: &mut impl Extend<Mention>,
    markers: &mut Vec<Marker>,
) {
    let mut at = first;
    loop {
        let i;
        match b[at] {
            b'`' => {
                let run = b[at..].iter().take_while(|&&c| c == b'`').count();
                i = match closing_backticks(b, at + run, run) {
                    Some(end) => end,
                    None => at + run,
                };
            }
            b'@' => {
                let preceded_ok = at == 0 || matches!(b[at - 1], b' ' | b'\t' | b'(' | b'[');
                // Not a mention (`bob@example.com`): go on after the `@`; a handle holds
                // none of the bytes looked for.
                let len = if preceded_ok {
                    handle_len(&b[at + 1..])
                } else {
                    0
                };
                if len > 0 {
                    mentions.extend(Some(Mention {
                        range: base + at..base + at + 1 + len,
                        handle: base + at + 1..base + at + 1 + len,
                    }));
                }
                i = at + 1 + len;
            }
            _ => {
                if let Some((end, kind)) = marker_at(b, at) {
                    let kind = match kind {
                        MarkerKind::Next(h) => MarkerKind::Next(base + h.start..base + h.end),
                        MarkerKind::Done => MarkerKind::Done,
                    };
                    markers.push(Marker {
                        range: base + at..base + end,
                        kind,
                    });
                    i = end;
                } else {
                    i = at + 1;
                }
            }
        }
        match bytes::find_inline_start(b, i) {
            Some(found) => at = found,
            None => return,
        }
    }
}

/// The end of the code span opened by `run` backticks before `from`, if it closes on
/// this line with a run of exactly the same length.
pub(super) fn closing_backticks(b: &[u8], from: usize, run: usize) -> Option<usize> {
    let mut i = from;
    while let Some(at) = bytes::find_byte(b, i, b'`') {
        let len = b[at..].iter().take_while(|&&c| c == b'`').count();
        if len == run {
            return Some(at + len);
        }
        i = at + len;
    }
    None
}

/// Parses `[NEXT: handle]` or `[DONE]` starting at `at` (a `[`), returning the end
/// offset and the kind with a line-relative handle range.
fn marker_at(b: &[u8], at: usize) -> Option<(usize, MarkerKind)> {
    let rest = &b[at..];
    if rest.starts_with(b"[DONE]") {
        return Some((at + 6, MarkerKind::Done));
    }
    if !rest.starts_with(b"[NEXT:") {
        return None;
    }
    let mut i = at + 6;
    while i < b.len() && (b[i] == b' ' || b[i] == b'\t') {
        i += 1;
    }
    if b.get(i) == Some(&b'@') {
        i += 1;
    }
    let len = handle_len(&b[i..]);
    if len == 0 {
        return None;
    }
    let handle = i..i + len;
    let mut j = i + len;
    while j < b.len() && (b[j] == b' ' || b[j] == b'\t') {
        j += 1;
    }
    (b.get(j) == Some(&b']')).then_some((j + 1, MarkerKind::Next(handle)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn mentions(line: &str) -> Vec<&str> {
        let (mut m, mut k) = (Vec::new(), Vec::new());
        scan_line(line, 0, &mut m, &mut k);
        m.iter().map(|m| &line[m.handle.clone()]).collect()
    }

    fn markers(line: &str) -> Vec<String> {
        let (mut m, mut k) = (Vec::new(), Vec::new());
        scan_line(line, 0, &mut m, &mut k);
        k.iter()
            .map(|k| match &k.kind {
                MarkerKind::Done => "DONE".to_string(),
                MarkerKind::Next(h) => format!("NEXT {}", &line[h.clone()]),
            })
            .collect()
    }

    #[test]
    fn mentions_follow_the_format_rules() {
        assert_eq!(mentions("@reviewer please"), ["reviewer"]);
        assert_eq!(mentions("ask @tester."), ["tester"]);
        assert_eq!(mentions("ask @tester-."), ["tester"]);
        assert_eq!(mentions("(@a) [@b] \t@c_"), ["a", "b", "c"]);
        assert_eq!(mentions("mail bob@example.com"), Vec::<&str>::new());
        assert_eq!(mentions("x@y @ @-z @@w"), Vec::<&str>::new());
        assert_eq!(mentions("use `@tester` or ``@a ` @b`` but @c"), ["c"]);
        assert_eq!(mentions("unclosed ` @a"), ["a"]);
        assert_eq!(mentions("@dev.ops-2 and @x.y."), ["dev.ops-2", "x.y"]);
    }

    #[test]
    fn markers_are_found_outside_code() {
        assert_eq!(
            markers("ok [NEXT: tester] then [DONE]"),
            ["NEXT tester", "DONE"]
        );
        assert_eq!(markers("[NEXT:@a]"), ["NEXT a"]);
        assert_eq!(
            markers("`[DONE]` [NEXT: ] [NEXT: a b] [done]"),
            Vec::<String>::new()
        );
    }

    #[test]
    fn ranges_are_absolute() {
        let (mut m, mut k) = (Vec::new(), Vec::new());
        scan_line("hi @bob [DONE]", 100, &mut m, &mut k);
        assert_eq!(m[0].range, 103..107);
        assert_eq!(m[0].handle, 104..107);
        assert_eq!(k[0].range, 108..114);
    }
}
