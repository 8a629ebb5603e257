//! Writes chatmd text: message bodies with `## @x` escaped and open fences closed,
//! verbatim fenced blocks, one-line labels and YAML scalars.

use super::heading_at;
use crate::document::fence::{FenceStep, TopLevelFences};
use crate::document::quoted::{control_as_u4, quoted};

/// Marker-line text for a heading or summary: control characters (a lone `\r` would end
/// the line) become spaces.
pub(super) fn one_line(label: &str) -> String {
    label.replace(|c: char| c.is_control(), " ")
}

/// The output, with `\n` line endings.
#[derive(Default)]
pub(super) struct Out {
    pub(super) buf: String,
}

impl Out {
    pub(super) fn line(&mut self, line: &str) {
        self.buf.push_str(line);
        self.buf.push('\n');
    }

    pub(super) fn blank(&mut self) {
        self.buf.push('\n');
    }

    /// Message or preamble text: `## @x` lines outside fenced code are escaped as
    /// `## \@x`, and a fence still open at the end is closed.
    pub(super) fn body(&mut self, lines: &[&str]) {
        let mut fence = TopLevelFences::default();
        for &line in lines {
            // A heading line is never a fence line, so it can be stepped like any other.
            let step = fence.step(line);
            match heading_at(line) {
                Some(at) if step == FenceStep::Outside => {
                    self.buf.push_str(&line[..at]);
                    self.buf.push('\\');
                    self.line(&line[at..]);
                }
                _ => self.line(line),
            }
        }
        if let Some(open) = fence.open {
            self.line(&open.closing_line());
        }
    }

    /// Lines kept verbatim in a fenced block that none of them can close.
    pub(super) fn fenced(&mut self, info: &str, lines: &[&str]) {
        let longest = lines
            .iter()
            .map(|l| longest_run(l, b'`'))
            .max()
            .unwrap_or(0);
        let fence = "`".repeat(longest.max(2) + 1);
        self.line(&format!("{fence}{info}"));
        for line in lines {
            self.line(line);
        }
        self.line(&fence);
    }
}

fn longest_run(line: &str, c: u8) -> usize {
    let mut best = 0;
    let mut run = 0;
    for &b in line.as_bytes() {
        if b == c {
            run += 1;
            best = best.max(run);
        } else {
            run = 0;
        }
    }
    best
}

/// A YAML scalar for a converted chat's front matter: plain only when any YAML reader
/// (1.1's `yes` and `no` included) takes it for this very string, double-quoted
/// otherwise. Stricter than the front matter editor's `yaml_scalar`, which must keep
/// what a user wrote plain: a converted file is new text, and other tools read it.
pub(super) fn yaml_scalar(s: &str) -> String {
    let plain = s.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
        && !s.ends_with(' ')
        && s.chars().all(|c| {
            c.is_alphanumeric() || matches!(c, ' ' | '_' | '.' | ',' | '(' | ')' | '/' | '+' | '-')
        })
        && !matches!(
            s.to_ascii_lowercase().as_str(),
            "true" | "false" | "null" | "yes" | "no" | "on" | "off" | "y" | "n"
        );
    if plain {
        return s.to_owned();
    }
    quoted(s, control_as_u4)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn yaml_scalars() {
        // Plain where every YAML reader takes it for that string, quoted otherwise.
        let plain = ["gp.nvim", "Fix the parser (again)"];
        assert_eq!(plain.map(yaml_scalar), plain);
        let ambiguous = ["yes", "2024", "a: b # c", ""];
        assert_eq!(
            ambiguous.map(yaml_scalar),
            ambiguous.map(|s| format!("\"{s}\""))
        );
        assert_eq!(yaml_scalar("tab\there \u{7}"), "\"tab\\there \\u0007\"");
    }
}
