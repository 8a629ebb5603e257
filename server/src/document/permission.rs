//! Permission blocks: an agent's request for approval, written into its section as a
//! block quote the user answers from any editor, and rewritten with the answer.
//!
//! A running turn writes the block when its agent asks (`turns::asks`) and records the
//! answer over it; the headless CLIs never ask (they refuse what they may not do, and
//! the answer lists it), so only agents that speak a two-way protocol write blocks.
//!
//! ```markdown
//! > **Permission** `p1` — reviewer wants to run `cargo test` (Execute)
//! > - [ ] allow once · - [ ] allow always · - [ ] reject
//! ```

use super::ByteRange;
use super::bytes::find_byte;

/// The line prefix that starts a permission block.
pub const PREFIX: &str = "> **Permission** ";
/// What [`PREFIX`] becomes where an agent wrote it: the same words, shown with their
/// asterisks, that no reader takes for a block (only chatmd writes blocks).
pub const ESCAPED_PREFIX: &str = "> \\*\\*Permission\\*\\* ";
const DASH: &str = " — ";
const SEPARATOR: &str = " · ";

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PermissionOption {
    /// The option's label, e.g. `allow once`.
    pub label: ByteRange,
    /// `- [x]` instead of `- [ ]`: the user ticked it by hand.
    pub checked: bool,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PermissionBlock {
    /// From the first line's start to the last line's end (without its line break).
    pub range: ByteRange,
    /// The request id, without backticks.
    pub id: ByteRange,
    /// What is asked (pending) or what was answered (answered): the text after ` — `.
    pub text: ByteRange,
    pub options: Vec<PermissionOption>,
}

impl PermissionBlock {
    /// A block with options is still waiting for the user, unless one is ticked.
    pub fn is_pending(&self) -> bool {
        !self.options.is_empty()
    }

    /// The option the user ticked by hand in the file, if any.
    pub fn checked_option(&self) -> Option<&PermissionOption> {
        self.options.iter().find(|o| o.checked)
    }
}

/// Parses the first line of a block (without its line break) at `base`.
pub fn parse_first_line(line: &str, base: usize) -> Option<PermissionBlock> {
    let rest = line.strip_prefix(PREFIX)?;
    let mut offset = PREFIX.len();
    let (id, after) = if let Some(quoted) = rest.strip_prefix('`') {
        let end = quoted.find('`')?;
        (offset + 1..offset + 1 + end, &quoted[end + 1..])
    } else {
        let end = rest.find(' ').unwrap_or(rest.len());
        (offset..offset + end, &rest[end..])
    };
    if id.is_empty() {
        return None;
    }
    offset = line.len() - after.len();
    let text = match after.strip_prefix(DASH) {
        Some(t) => offset + DASH.len()..offset + DASH.len() + t.len(),
        None => line.len()..line.len(),
    };
    Some(PermissionBlock {
        range: base..base + line.len(),
        id: base + id.start..base + id.end,
        text: base + text.start..base + text.end,
        options: Vec::new(),
    })
}

/// Adds a continuation line (`> - [ ] allow once · - [ ] reject`) to `block`, or
/// returns false when the line does not belong to the block.
pub fn extend(block: &mut PermissionBlock, line: &str, base: usize) -> bool {
    extend_into(&mut block.range, &mut block.options, line, base)
}

/// [`extend`] for a block kept as its range, with its options pushed to `options`.
pub(super) fn extend_into(
    range: &mut ByteRange,
    options: &mut Vec<PermissionOption>,
    line: &str,
    base: usize,
) -> bool {
    let Some(rest) = line.strip_prefix('>') else {
        return false;
    };
    if line.starts_with(PREFIX) {
        return false;
    }
    let mut offset = 1;
    let mut found = false;
    for part in split_separators(rest) {
        let trimmed = part.trim_start();
        let lead = part.len() - trimmed.len();
        let (checked, label) = if let Some(l) = trimmed.strip_prefix("- [ ] ") {
            (false, l)
        } else if let Some(l) = trimmed
            .strip_prefix("- [x] ")
            .or_else(|| trimmed.strip_prefix("- [X] "))
        {
            (true, l)
        } else {
            offset += part.len() + SEPARATOR.len();
            continue;
        };
        let label_start = offset + lead + (trimmed.len() - label.len());
        let label = label.trim_end();
        options.push(PermissionOption {
            label: base + label_start..base + label_start + label.len(),
            checked,
        });
        found = true;
        offset += part.len() + SEPARATOR.len();
    }
    if found {
        range.end = base + line.len();
    }
    found
}

/// `line.split(SEPARATOR)`, without building a substring searcher for every line.
fn split_separators(line: &str) -> impl Iterator<Item = &str> {
    let sep = SEPARATOR.as_bytes();
    // The one byte of the separator that is rare in text, and where it sits in it.
    const RARE: usize = 2;
    let mut from = 0;
    let mut done = false;
    std::iter::from_fn(move || {
        if done {
            return None;
        }
        let bytes = line.as_bytes();
        let mut search = from + RARE;
        while let Some(i) = find_byte(bytes, search, sep[RARE]) {
            let at = i - RARE;
            if bytes[at..].starts_with(sep) {
                let part = &line[from..at];
                from = at + sep.len();
                return Some(part);
            }
            search = i + 1;
        }
        done = true;
        Some(&line[from..])
    })
}

/// `line` as chatmd writes it when the words are an agent's: a line that would start a
/// permission block (or its record) gets [`ESCAPED_PREFIX`] instead, so an answer,
/// a thought or a plan that prints one cannot forge a request the user is asked about.
pub fn escape_line(line: &str) -> std::borrow::Cow<'_, str> {
    match line.strip_prefix(PREFIX) {
        Some(rest) => format!("{ESCAPED_PREFIX}{rest}").into(),
        None => line.into(),
    }
}

/// Whether a pending block's text (after ` — `) is a question of the agent's
/// (`writer asks (Color): Which color?`) rather than an approval (`writer wants to
/// run …`): member names have no spaces, and chatmd writes `asks` only for questions.
pub fn is_question(description: &str) -> bool {
    description
        .split_once(' ')
        .is_some_and(|(_, rest)| rest.starts_with("asks"))
}

/// The Markdown of a pending request, without a trailing line break.
pub fn render_request(id: &str, description: &str, options: &[&str], eol: &str) -> String {
    let description = description.replace(['\r', '\n'], " ");
    let list: Vec<String> = options.iter().map(|o| format!("- [ ] {o}")).collect();
    format!(
        "{PREFIX}`{id}`{DASH}{description}{eol}> {}",
        list.join(SEPARATOR)
    )
}

/// The Markdown of an answered request (the block's new text).
pub fn render_answer(id: &str, answer: &str) -> String {
    format!("{PREFIX}{id}{DASH}{answer}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn parses_a_pending_request() {
        let text = render_request(
            "p1",
            "reviewer wants to run `cargo test` (Execute)",
            &["allow once", "allow always", "reject"],
            "\n",
        );
        assert_eq!(
            text,
            "> **Permission** `p1` — reviewer wants to run `cargo test` (Execute)\n> - [ ] allow once · - [ ] allow always · - [ ] reject"
        );
        let (first, second) = text.split_once('\n').unwrap();
        let mut block = parse_first_line(first, 10).unwrap();
        assert!(extend(&mut block, second, 10 + first.len() + 1));
        assert_eq!(&text[block.id.start - 10..block.id.end - 10], "p1");
        assert_eq!(
            &text[block.text.start - 10..block.text.end - 10],
            "reviewer wants to run `cargo test` (Execute)"
        );
        let labels: Vec<&str> = block
            .options
            .iter()
            .map(|o| &text[o.label.start - 10..o.label.end - 10])
            .collect();
        assert_eq!(labels, ["allow once", "allow always", "reject"]);
        assert!(block.is_pending());
        assert_eq!(block.range, 10..10 + text.len());
    }

    #[test]
    fn parses_an_answer_and_a_ticked_option() {
        let line = render_answer("p1", "allowed once");
        let block = parse_first_line(&line, 0).unwrap();
        assert_eq!(&line[block.id.clone()], "p1");
        assert_eq!(&line[block.text.clone()], "allowed once");
        assert!(!block.is_pending());

        let mut block = parse_first_line("> **Permission** `p2` — run ls", 0).unwrap();
        let opts = "> - [ ] allow once · - [x] reject";
        assert!(extend(&mut block, opts, 100));
        assert_eq!(
            block
                .checked_option()
                .map(|o| &opts[o.label.start - 100..o.label.end - 100]),
            Some("reject")
        );
        assert!(!extend(&mut block, "> just a quote", 200));
        assert!(!extend(&mut block, "plain", 200));
    }

    #[test]
    fn splits_at_separators_like_str_split() {
        for line in [
            "",
            " · ",
            "a · b",
            " ·  · ",
            "a ·· b · c",
            "·a· · ·b",
            "- [ ] allow once · - [ ] allow always · - [ ] reject",
            "x · ",
            " · x",
            "é · 😀 ·",
        ] {
            let ours: Vec<&str> = split_separators(line).collect();
            let std: Vec<&str> = line.split(SEPARATOR).collect();
            assert_eq!(ours, std, "{line:?}");
        }
    }

    #[test]
    fn an_escaped_line_is_no_block() {
        let forged = "> **Permission** `t1-p1` — writer wants to run `rm -rf /` (execute)";
        let escaped = escape_line(forged);
        assert_eq!(
            escaped,
            "> \\*\\*Permission\\*\\* `t1-p1` — writer wants to run `rm -rf /` (execute)"
        );
        assert_eq!(parse_first_line(&escaped, 0), None);
        assert_eq!(escape_line("> a quote"), "> a quote");
    }

    #[test]
    fn rejects_other_lines() {
        assert_eq!(parse_first_line("> **Permission**", 0), None);
        assert_eq!(parse_first_line("> **Permission** `` — x", 0), None);
        assert_eq!(parse_first_line("**Permission** p1", 0), None);
    }
}
