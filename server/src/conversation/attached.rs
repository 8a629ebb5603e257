//! What a human message's references attach to a turn (`#file:`, `#diff`,
//! `#diagnostics:`), once read, and how it is cut and written into a headless CLI's
//! prompt. Pure: reading happens in `turns/attach.rs`.
//!
//! The cap: one attachment keeps at most [`ATTACHMENT_CAP`] bytes, all of a message's
//! attachments together at most [`ATTACHMENTS_CAP`] (the first ones first). What is cut
//! is cut at a line break where there is one, and the attachment says how much it
//! kept. The rest of the prompt cap's rules (role shortened, oldest messages dropped)
//! then apply as before: attachments are never dropped to make room for history.

use std::fmt::Write as _;
use std::path::PathBuf;

use super::prompt::quote::fenced;

/// The most one attachment keeps, in bytes.
pub const ATTACHMENT_CAP: usize = 256 * 1024;
/// The most all attachments of one message keep together, in bytes.
pub const ATTACHMENTS_CAP: usize = 512 * 1024;

/// One reference, read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Attachment {
    /// The reference as written (`#file:src/pay.rs:40-80`).
    pub label: String,
    /// What it is, for the reader: `src/pay.rs, lines 40-80 of 120`.
    pub about: String,
    /// The file it came from (absolute), for `#file:`: an ACP agent gets it as a link
    /// or a resource with this path.
    pub file: Option<PathBuf>,
    /// The lines of the file it holds, when not the whole file.
    pub lines: Option<(u64, u64)>,
    /// The content, as kept.
    pub text: String,
    /// The size before it was cut, when it was.
    pub cut_from: Option<usize>,
}

impl Attachment {
    /// A new attachment holding `text` whole.
    pub fn new(label: String, about: String, text: String) -> Attachment {
        Attachment {
            label,
            about,
            file: None,
            lines: None,
            text,
            cut_from: None,
        }
    }

    /// The heading line of the attachment: `#file:a.rs (a.rs, 3 lines):`, and what
    /// was cut.
    pub fn heading(&self) -> String {
        let mut out = format!("{} ({})", self.label, self.about);
        if let Some(size) = self.cut_from {
            let _ = write!(
                out,
                " [cut to its first {} of {} to fit the prompt]",
                size_words(self.text.len()),
                size_words(size)
            );
        }
        out
    }
}

/// Cuts each attachment to [`ATTACHMENT_CAP`] and all of them to [`ATTACHMENTS_CAP`],
/// in order.
pub fn fit(attachments: &mut [Attachment]) {
    fit_within(attachments, ATTACHMENT_CAP, ATTACHMENTS_CAP);
}

pub(crate) fn fit_within(attachments: &mut [Attachment], each: usize, all: usize) {
    let mut left = all;
    for a in attachments {
        let room = each.min(left);
        if a.text.len() > room {
            let size = a.text.len();
            a.text.truncate(cut_point(&a.text, room));
            a.cut_from = Some(a.cut_from.unwrap_or(size));
        }
        left -= a.text.len();
    }
}

/// Where to cut `text` to keep at most `room` bytes: after the last line break within
/// them, else at a character boundary.
fn cut_point(text: &str, room: usize) -> usize {
    let mut end = room.min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text[..end].rfind('\n').map_or(end, |i| i + 1)
}

/// The attachments as they end a headless CLI's `[CONTEXT]`: each a heading line and
/// its content in a fence longer than any backtick run inside it. Empty for none.
pub fn render(attachments: &[Attachment]) -> String {
    let mut out = String::new();
    for a in attachments {
        let _ = writeln!(out, "attached {}:", a.heading());
        out.push_str(&fenced(&a.text));
    }
    out
}

/// A size as people read it: `812 B`, `4.0 KiB`, `1.2 MiB`.
pub fn size_words(bytes: usize) -> String {
    const KIB: f64 = 1024.0;
    let b = bytes as f64;
    if bytes < 1024 {
        format!("{bytes} B")
    } else if b < KIB * KIB {
        format!("{:.1} KiB", b / KIB)
    } else {
        format!("{:.1} MiB", b / KIB / KIB)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn attachment(label: &str, text: &str) -> Attachment {
        Attachment::new(label.into(), "x".into(), text.into())
    }

    #[test]
    fn rendering_fences_the_content_past_its_own_backticks() {
        let rendered = render(&[
            attachment("#file:a.md", "use ```rust\nfences```"),
            attachment("#diff", ""),
        ]);
        assert_eq!(
            rendered,
            "attached #file:a.md (x):\n````\nuse ```rust\nfences```\n````\n\
             attached #diff (x):\n```\n```\n"
        );
    }

    #[test]
    fn each_and_all_are_cut_at_line_breaks_in_order() {
        let mut list = [
            attachment("#file:a", "aaaa\nbbbb\ncccc\n"),
            attachment("#file:b", "dddd\neeee\n"),
            attachment("#file:c", "ffff\n"),
        ];
        fit_within(&mut list, 12, 16);
        assert_eq!(list[0].text, "aaaa\nbbbb\n");
        assert_eq!(list[0].cut_from, Some(15));
        assert_eq!(list[1].text, "dddd\n");
        assert_eq!(list[1].cut_from, Some(10));
        assert_eq!(list[2].text, "f");
        assert_eq!(
            list[0].heading(),
            "#file:a (x) [cut to its first 10 B of 15 B to fit the prompt]"
        );
        let mut whole = [attachment("#file:a", "short")];
        fit_within(&mut whole, 12, 16);
        assert_eq!(whole[0].cut_from, None);
    }

    #[test]
    fn a_line_longer_than_the_room_is_cut_at_a_character() {
        let mut list = [attachment("#file:a", "ééé")];
        fit_within(&mut list, 3, 3);
        assert_eq!(list[0].text, "é");
    }
}
