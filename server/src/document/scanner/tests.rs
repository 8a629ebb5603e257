use super::*;
use pretty_assertions::assert_eq;
use proptest::prelude::*;
use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};

/// The kinds of the lines of `text`, compactly: one letter per line.
fn kinds(text: &str) -> String {
    Scanner::new(text, 0)
        .map(|l| match l.kind {
            LineKind::Blank => '_',
            LineKind::Text => 't',
            LineKind::Heading { level: 2, .. } => 'H',
            LineKind::Heading { .. } => 'h',
            LineKind::NestedHeading => 'n',
            LineKind::FenceOpen => '[',
            LineKind::FencedCode => 'c',
            LineKind::FenceClose => ']',
            LineKind::IndentedCode => 'i',
            LineKind::Html => '<',
            LineKind::Quote => '>',
        })
        .collect()
}

#[test]
fn fences_follow_commonmark() {
    assert_eq!(kinds("```\n## @a\n```\n## @b"), "[c]H");
    assert_eq!(kinds("~~~~ rust\n~~~\n```\n~~~~~\n## @b"), "[cc]H");
    assert_eq!(kinds("````\n```\n## @x\n````"), "[cc]");
    assert_eq!(kinds("   ```\nx\n   ```  \n"), "[c]");
    assert_eq!(kinds("    ```\n## @a"), "iH");
    assert_eq!(kinds("``` a`b\n## @a"), "tH");
    assert_eq!(kinds("~~~ a`b\n## @a\n"), "[c");
    assert_eq!(kinds("```\n``` x\n## @a"), "[cc");
    assert_eq!(kinds("``\n## @a"), "tH");
}

#[test]
fn unclosed_fence_runs_to_the_end() {
    assert_eq!(kinds("```\n\n## @a\n\ntext"), "[cccc");
}

#[test]
fn indented_code_does_not_interrupt_a_paragraph() {
    assert_eq!(kinds("para\n    more\n\n    code\n## @a"), "tt_iH");
    assert_eq!(kinds("\tcode\n"), "i");
}

#[test]
fn headings_need_a_space_and_at_most_three_spaces_of_indent() {
    assert_eq!(kinds("##@a\n## @a\n   ## @a\n#\n####### x"), "tHHht");
    assert_eq!(kinds("# Title\n### @x"), "hh");
}

#[test]
fn html_blocks_hide_headings() {
    assert_eq!(kinds("<!--\n## @a\n-->\n## @b"), "<<<H");
    assert_eq!(kinds("<!-- chatmd id=1 -->\n## @b"), "<H");
    assert_eq!(kinds("<details>\n## @a\n\n## @b"), "<<_H");
    assert_eq!(kinds("<pre>\n\n## @a\n</pre>\n## @b"), "<<<<H");
    assert_eq!(kinds("text\n<span>\n## @a"), "ttH");
    assert_eq!(kinds("<span>\n## @a\n\n## @b"), "<<_H");
}

#[test]
fn quotes_and_lists_never_hold_messages() {
    assert_eq!(kinds("> ## @a\n> ```\n> ## @x\n## @b"), "n[cH");
    assert_eq!(kinds("> ```\n> x\n> ```\n## @b"), "[c]H");
    assert_eq!(kinds("- ## @a\n## @b"), "nH");
    assert_eq!(kinds("- item\n  ```\n  ## @x\n  ```\n## @b"), "t[c]H");
    assert_eq!(kinds("- ```rust\n  ## @x\n## @b"), "[cH");
    assert_eq!(kinds("- item\ncontinued\n## @b"), "ttH");
    assert_eq!(kinds("1. a\n   - b\n\n         code\n## @b"), "tt_iH");
}

#[test]
fn a_plain_line_that_continues_a_quoted_paragraph_is_quoted() {
    // CommonMark's lazy continuation: the line is part of the quote.
    assert_eq!(kinds("> a\nb\n      c\n<span>\n\nd"), ">>>>_t");
    // A blank line, an empty quote line, a list item, a thematic break, a heading,
    // a fence or an HTML block end the quote's paragraph.
    assert_eq!(kinds(">\nb"), ">t");
    assert_eq!(kinds("> a\n>\nb"), ">>t");
    assert_eq!(kinds("> a\n- b\nc"), ">tt");
    assert_eq!(kinds("> a\n---\nc"), ">tt");
    assert_eq!(kinds("> a\n## @b\nc"), ">Ht");
    assert_eq!(kinds("> a\n```\nc"), ">[c");
    assert_eq!(kinds("> a\n<div>\nc"), "><<");
    // Code in a quote is no paragraph.
    assert_eq!(kinds(">     code\nb"), "it");
}

#[test]
fn line_ranges_cover_crlf_and_lone_cr() {
    let text = "a\r\nb\rc\n\nd";
    let lines: Vec<(usize, usize, usize)> = Scanner::new(text, 0)
        .map(|l| (l.start, l.end, l.next))
        .collect();
    assert_eq!(
        lines,
        vec![(0, 1, 3), (3, 4, 5), (5, 6, 7), (7, 7, 8), (8, 9, 9)]
    );
}

#[test]
fn a_heading_always_leaves_a_clean_state() {
    let mut s = Scanner::new("- a\n  lazy\n## @b\n", 0);
    s.next();
    s.next();
    assert!(!s.state().is_clean());
    assert!(matches!(
        s.next().unwrap().kind,
        LineKind::Heading { level: 2, .. }
    ));
    assert!(s.state().is_clean());
}

/// Line numbers (0-based) of the non-blank lines inside code blocks per pulldown-cmark.
fn oracle_code_lines(text: &str) -> Vec<usize> {
    let line_of = |offset: usize| text[..offset].matches('\n').count();
    let mut lines = std::collections::BTreeSet::new();
    let mut start = None;
    for (event, range) in Parser::new_ext(text, Options::empty()).into_offset_iter() {
        match event {
            Event::Start(Tag::CodeBlock(_)) => start = Some(range),
            Event::End(TagEnd::CodeBlock) => {
                let r = start.take().expect("code block start");
                for l in line_of(r.start)..=line_of(r.end.saturating_sub(1).max(r.start)) {
                    lines.insert(l);
                }
            }
            _ => {}
        }
    }
    let all: Vec<&str> = text.split('\n').collect();
    lines
        .into_iter()
        .filter(|&l| l < all.len() && !all[l].trim().is_empty())
        .collect()
}

fn scanner_code_lines(text: &str) -> Vec<usize> {
    Scanner::new(text, 0)
        .enumerate()
        .filter(|(_, l)| l.kind.is_code() && !text[l.range()].trim().is_empty())
        .map(|(i, _)| i)
        .collect()
}

/// Line numbers of top-level level-2 ATX headings per pulldown-cmark.
fn oracle_h2_lines(text: &str) -> Vec<usize> {
    let line_of = |offset: usize| text[..offset].matches('\n').count();
    let mut depth = 0;
    let mut out = Vec::new();
    for (event, range) in Parser::new_ext(text, Options::empty()).into_offset_iter() {
        match event {
            Event::Start(Tag::BlockQuote(_) | Tag::Item | Tag::HtmlBlock) => depth += 1,
            Event::End(TagEnd::BlockQuote(_) | TagEnd::Item | TagEnd::HtmlBlock) => depth -= 1,
            Event::Start(Tag::Heading { level: pulldown_cmark::HeadingLevel::H2, .. })
                // Setext headings span two lines; only ATX headings can be messages.
                if depth == 0 && !text[range.clone()].trim_end().contains('\n') =>
            {
                out.push(line_of(range.start))
            }
            _ => {}
        }
    }
    out
}

fn scanner_h2_lines(text: &str) -> Vec<usize> {
    Scanner::new(text, 0)
        .enumerate()
        .filter(|(_, l)| matches!(l.kind, LineKind::Heading { level: 2, .. }))
        .map(|(i, _)| i)
        .collect()
}

fn agree_with_oracle(text: &str) {
    assert_eq!(
        scanner_code_lines(text),
        oracle_code_lines(text),
        "code lines differ for {text:?}"
    );
    assert_eq!(
        scanner_h2_lines(text),
        oracle_h2_lines(text),
        "headings differ for {text:?}"
    );
}

#[test]
fn agrees_with_pulldown_cmark_on_the_fixtures() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/chats");
    let mut count = 0;
    for entry in std::fs::read_dir(&dir).expect("fixture folder") {
        let path = entry.expect("entry").path();
        if path.extension().is_some_and(|e| e == "md") {
            let text = std::fs::read_to_string(&path).expect("fixture");
            // Front matter is not CommonMark; compare the rest.
            let body = match crate::document::front_matter::locate(&text) {
                Some(b) => text[b.range.end..].to_string(),
                None => text.clone(),
            };
            agree_with_oracle(&body);
            count += 1;
        }
    }
    assert!(
        count >= 5,
        "expected the chat fixtures in {}",
        dir.display()
    );
}

const LINES: &[&str] = &[
    "",
    "text",
    "more text",
    "## @me",
    "## @reviewer (claude)",
    "# Title",
    "### @x",
    "##@no",
    "```",
    "````",
    "~~~",
    "``` rust",
    "~~~ a`b",
    "   ```",
    "  ~~~~",
    "    code",
    "\tcode",
    "> quote",
    "> ```",
    "> ## @q",
    "- item",
    "- ```",
    "  ```",
    "  text",
    "1. one",
    "<div>",
    "</div>",
    "<!-- comment",
    "-->",
    "<!-- chatmd id=t1 status=done -->",
    "<span>",
    "***",
    "---",
    "   ## @a",
    "`` code ``",
    "@reviewer hi",
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]
    #[test]
    fn agrees_with_pulldown_cmark_on_generated_documents(
        picks in proptest::collection::vec(0..LINES.len(), 0..40)
    ) {
        let text: String = picks.iter().map(|&i| LINES[i]).collect::<Vec<_>>().join("\n");
        agree_with_oracle(&text);
    }

    #[test]
    fn never_panics_and_covers_every_byte(text in "(?s).{0,300}") {
        let mut pos = 0;
        for line in Scanner::new(&text, 0) {
            prop_assert_eq!(line.start, pos);
            prop_assert!(line.start <= line.end && line.end <= line.next);
            pos = line.next;
        }
        prop_assert_eq!(pos, text.len());
    }
}
