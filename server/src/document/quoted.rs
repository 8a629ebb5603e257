//! Double-quoted strings for the formats chatmd writes: YAML in front matter and in
//! converted chats, the values of status comments, TOML for codex's `-c key=value`.
//! The backslash escapes they share are written here once; each format says how it
//! writes the other characters it cannot leave as they are.

use std::fmt::Write as _;

/// `text` in double quotes (see [`push_quoted`]).
pub fn quoted(text: &str, other: impl FnMut(&mut String, char) -> bool) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    push_quoted(&mut out, text, other);
    out
}

/// Appends `text` in double quotes to `out`: `"` and `\` get a backslash; line feed,
/// carriage return and tab become `\n`, `\r` and `\t`; any other character goes to
/// `other`, which writes its escape and returns true, or returns false to have it
/// written as it is.
pub fn push_quoted(out: &mut String, text: &str, mut other: impl FnMut(&mut String, char) -> bool) {
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c => {
                if !other(out, c) {
                    out.push(c);
                }
            }
        }
    }
    out.push('"');
}

/// `text` as a TOML basic string: how chatmd.toml's values are written, and how codex's
/// `-c key=value` reads its value (an unquoted value that is not valid TOML would be
/// taken raw, but multi-line text or quotes must not depend on that fallback).
pub fn toml_string(text: &str) -> String {
    quoted(text, control_as_u4)
}

/// For [`quoted`]: a control character as `\u` and four hex digits (`\u0007`), which
/// TOML, JSON and YAML all read.
pub fn control_as_u4(out: &mut String, c: char) -> bool {
    if !c.is_control() {
        return false;
    }
    let _ = write!(out, "\\u{:04X}", u32::from(c));
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shared_escapes_and_the_formats_own() {
        let text = "say \"hi\"\\\n\r\t\u{7}é";
        assert_eq!(
            quoted(text, control_as_u4),
            r#""say \"hi\"\\\n\r\t\u0007é""#
        );
        let bell_only = |out: &mut String, c| {
            c == '\u{7}' && {
                out.push_str("BEL");
                true
            }
        };
        assert_eq!(quoted("a\u{7}\u{8}", bell_only), "\"aBEL\u{8}\"");
        let mut out = String::from("key=");
        push_quoted(&mut out, "", |_, _| false);
        assert_eq!(out, "key=\"\"");
    }
}
