//! Asking the team about a selection in a source file (`chatmd.askAbout`): the human
//! message that carries it — a mention of the member asked (if one is), a `#file:`
//! reference to the selected lines, and the selection in a fenced block — and the edit
//! that appends it to a chat, filling the chat's empty reply stub when it ends with one.

use crate::document::ByteRange;
use crate::document::chat::Chat;

/// What is asked about: the file (relative to the workspace root, with `/`), the
/// selected lines (1-based) and their text.
pub struct Selection<'a> {
    pub path: &'a str,
    pub first_line: u64,
    pub last_line: u64,
    pub text: &'a str,
}

impl Selection<'_> {
    /// `path:first-last` (`path:line` for one line).
    pub fn reference(&self) -> String {
        if self.first_line == self.last_line {
            format!("{}:{}", self.path, self.first_line)
        } else {
            format!("{}:{}-{}", self.path, self.first_line, self.last_line)
        }
    }

    /// The title of a new chat about it: `About src/pay.rs lines 40-41`.
    pub fn title(&self) -> String {
        if self.first_line == self.last_line {
            format!("About {} line {}", self.path, self.first_line)
        } else {
            format!(
                "About {} lines {}-{}",
                self.path, self.first_line, self.last_line
            )
        }
    }
}

/// The message's body: `@member about #file:path:first-last:`, a blank line, the
/// selection fenced (the fence longer than any backtick run inside, the language from
/// the file's extension).
pub fn message_body(selection: &Selection, member: Option<&str>) -> String {
    let reference = format!("#file:{}", selection.reference());
    let ask = match member {
        Some(member) => format!("@{member} about {reference}"),
        None => format!("About {reference}"),
    };
    let longest = selection
        .text
        .split(|c| c != '`')
        .map(str::len)
        .max()
        .unwrap_or(0);
    let fence = "`".repeat(longest.max(2) + 1);
    let language = selection
        .path
        .rsplit_once('.')
        .map(|(_, ext)| language_of(ext))
        .unwrap_or("");
    let mut code = selection.text.replace("\r\n", "\n");
    if !code.ends_with('\n') {
        code.push('\n');
    }
    format!("{ask}:\n\n{fence}{language}\n{code}{fence}\n")
}

fn language_of(extension: &str) -> &str {
    match extension {
        "rs" => "rust",
        "py" => "python",
        "ts" => "typescript",
        "js" => "javascript",
        "md" => "markdown",
        "sh" => "sh",
        "rb" => "ruby",
        "yml" => "yaml",
        other => other,
    }
}

/// The edit that puts a human message with `body` at the end of the chat: into the
/// last message when it is the human's and empty (a reply stub), else as a new
/// `## @human` section after a blank line.
pub fn append_edit(text: &str, chat: &Chat, human: &str, body: &str) -> (ByteRange, String) {
    let end = text.len();
    if let Some(last) = chat.messages.last()
        && last.handle(text).eq_ignore_ascii_case(human)
        && last.is_empty(text)
    {
        let header_end = last.header().end;
        // Keep the heading's own line break; whatever blank lines follow are replaced.
        let after = text[header_end..]
            .find('\n')
            .map_or(end, |i| header_end + i + 1);
        let lead = if after == end && !text[header_end..].contains('\n') {
            "\n"
        } else {
            ""
        };
        return (after..end, format!("{lead}{body}"));
    }
    let lead = match text {
        "" => "",
        t if t.ends_with("\n\n") => "",
        t if t.ends_with('\n') => "\n",
        _ => "\n\n",
    };
    (end..end, format!("{lead}## @{human}\n{body}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn appended(text: &str, body: &str) -> String {
        let chat = Chat::parse(text);
        let (range, new) = append_edit(text, &chat, "me", body);
        let mut out = text.to_owned();
        out.replace_range(range, &new);
        out
    }

    #[test]
    fn the_message_names_the_lines_and_fences_the_selection() {
        let selection = Selection {
            path: "src/pay.rs",
            first_line: 40,
            last_line: 41,
            text: "let a = \"```\";\nlet b = 2;",
        };
        assert_eq!(
            message_body(&selection, Some("reviewer")),
            "@reviewer about #file:src/pay.rs:40-41:\n\n````rust\nlet a = \"```\";\nlet b = 2;\n````\n"
        );
        let one = Selection {
            path: "notes",
            first_line: 3,
            last_line: 3,
            text: "x\n",
        };
        assert_eq!(
            message_body(&one, None),
            "About #file:notes:3:\n\n```\nx\n```\n"
        );
        assert_eq!(one.title(), "About notes line 3");
        assert_eq!(selection.title(), "About src/pay.rs lines 40-41");
    }

    #[test]
    fn a_reply_stub_is_filled_else_a_section_is_added() {
        let body = "About #file:a.rs:1:\n";
        assert_eq!(
            appended("## @me\nhi\n\n## @rev\nyes\n\n## @me\n", body),
            "## @me\nhi\n\n## @rev\nyes\n\n## @me\nAbout #file:a.rs:1:\n"
        );
        assert_eq!(
            appended("## @me\nhi\n\n## @rev\nyes\n\n## @me", body),
            "## @me\nhi\n\n## @rev\nyes\n\n## @me\nAbout #file:a.rs:1:\n"
        );
        assert_eq!(
            appended("## @me\nhi\n\n## @rev\nyes", body),
            "## @me\nhi\n\n## @rev\nyes\n\n## @me\nAbout #file:a.rs:1:\n"
        );
        assert_eq!(appended("", body), "## @me\nAbout #file:a.rs:1:\n");
    }
}
