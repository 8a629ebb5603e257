use super::*;
use crate::document::text::Edit;
use pretty_assertions::assert_eq;
use proptest::prelude::*;
use std::fmt::Write;

/// A readable outline of everything the model found, for snapshots.
fn outline(text: &str) -> String {
    let chat = Chat::parse(text);
    let line = |offset: usize| text[..offset].matches('\n').count() + 1;
    let mut out = String::new();
    if let Some(fm) = &chat.front_matter {
        writeln!(
            out,
            "front matter: lines {}-{}",
            line(fm.block.range.start),
            line(fm.block.range.end.saturating_sub(1))
        )
        .unwrap();
        writeln!(
            out,
            "  title={:?} members={:?} routing={:?} max_chain={} ended={} reply_stub={} unknown={:?} problems={}",
            fm.title.as_ref().map(|t| &t.value),
            fm.members.as_ref().map(|m| m.iter().map(|h| h.value.as_str()).collect::<Vec<_>>()),
            fm.routing(),
            fm.max_chain(),
            fm.is_ended(),
            fm.reply_stub(),
            fm.unknown_keys.iter().map(|k| k.value.as_str()).collect::<Vec<_>>(),
            fm.problems.len(),
        )
        .unwrap();
    }
    writeln!(out, "preamble: {:?}", &text[chat.preamble.clone()]).unwrap();
    let code = |block: &CodeBlock| {
        let (start, end) = (line(block.range.start), line(block.range.end));
        format!("  code: lines {start}-{end} closed={}\n", block.closed)
    };
    for block in &chat.preamble_code_blocks {
        out.push_str(&code(block));
    }
    for m in &chat.messages {
        writeln!(
            out,
            "message @{} (line {})",
            m.handle(text),
            line(m.header().start)
        )
        .unwrap();
        if let Some(status) = m.status(text) {
            match status {
                Ok(c) => writeln!(out, "  status: {}", c.render()).unwrap(),
                Err(e) => writeln!(out, "  status error: {e}").unwrap(),
            }
        }
        writeln!(out, "  body: {:?}", m.body(text)).unwrap();
        for mention in m.mentions() {
            writeln!(
                out,
                "  mention: {} at line {}",
                &text[mention.range.clone()],
                line(mention.range.start)
            )
            .unwrap();
        }
        for marker in m.markers() {
            writeln!(out, "  marker: {}", &text[marker.range.clone()]).unwrap();
        }
        for p in m.permissions() {
            let options: Vec<&str> = p.options.iter().map(|o| &text[o.label.clone()]).collect();
            writeln!(
                out,
                "  permission {}: {:?} options={:?}",
                &text[p.id.clone()],
                &text[p.text.clone()],
                options
            )
            .unwrap();
        }
        for block in m.code_blocks() {
            out.push_str(&code(&block));
        }
        let flags = [
            (m.is_empty(text), "empty"),
            (m.is_end_command(text), "/end"),
            (m.is_skip(text), "SKIP"),
            (m.has_done_marker(), "[DONE]"),
        ];
        let flags: Vec<&str> = flags
            .iter()
            .filter(|(on, _)| *on)
            .map(|(_, n)| *n)
            .collect();
        if !flags.is_empty() {
            writeln!(out, "  flags: {}", flags.join(" ")).unwrap();
        }
        if let Some(next) = m.next_marker(text) {
            writeln!(out, "  next: {next}").unwrap();
        }
    }
    out
}

#[test]
fn fixtures() {
    insta::glob!("../../../tests/fixtures/chats", "*.chat.md", |path| {
        let text = std::fs::read_to_string(path).unwrap();
        let chat = Chat::parse(&text);
        assert_eq!(chat.render(&text), text, "render is the identity");
        insta::assert_snapshot!(outline(&text));
    });
}

#[test]
fn message_ranges_tile_the_document() {
    let text = "---\ntitle: x\n---\npre\n## @a\nA\n## @b\n<!-- chatmd id=1 -->\nB";
    let chat = Chat::parse(text);
    assert_eq!(&text[chat.preamble.clone()], "pre\n");
    let ranges: Vec<&str> = chat.messages.iter().map(|m| &text[m.range()]).collect();
    assert_eq!(ranges, ["## @a\nA\n", "## @b\n<!-- chatmd id=1 -->\nB"]);
    assert_eq!(chat.messages[1].body(text), "B");
    assert_eq!(chat.message_at(text.len()), Some(1));
    assert_eq!(chat.message_at(17), None);
    assert_eq!(chat.message_at(21), Some(0));
}

#[test]
fn summary_takes_the_first_words() {
    let text = "## @me\n\n```\ncode\n```\nPlease review the payment module before Friday\n";
    let chat = Chat::parse(text);
    assert_eq!(chat.messages[0].summary(text, 20), "code");
    let text = "## @me\n<!-- c -->\n\nPlease review the payment module before Friday\n";
    let chat = Chat::parse(text);
    assert_eq!(chat.messages[0].summary(text, 20), "Please review the pa…");
}

/// The handles mentioned and the markers set in each message, as the parser finds them.
fn mentions_and_markers(text: &str) -> Vec<(Vec<&str>, Vec<String>)> {
    Chat::parse(text)
        .messages
        .iter()
        .map(|m| {
            let mentions = m.mentions().map(|x| &text[x.handle]).collect();
            let markers = m
                .markers()
                .map(|x| match x.kind {
                    MarkerKind::Next(h) => format!("NEXT {}", &text[h]),
                    MarkerKind::Done => "DONE".to_string(),
                })
                .collect();
            (mentions, markers)
        })
        .collect()
}

#[test]
fn only_prose_mentions_and_markers_count() {
    // What chatmd writes after an answer: the tools it ran, what it was not allowed.
    let answer = "## @me\n@a look\n\n## @a\n<!-- chatmd id=t1 status=done -->\nFound them.\n\
                  \n<details><summary>Tools (2)</summary>\n\n\
                  - Bash: grep -rn TODO src @b\n\
                  - Bash: echo [NEXT: c] — failed: @c\n\
                  \n</details>\n\
                  \n> **Not allowed** — @a's `claude` refused 1 action that needs approval:\n\
                  > - `Bash`: `rm -rf @b`\n";
    assert_eq!(
        mentions_and_markers(answer),
        [(vec!["a"], vec![]), (vec![], vec![])]
    );
    // Quotes of other messages, lazy lines of a quote, nested quotes, a heading in a
    // quote; code spans and fences; and the prose around them, which counts.
    let quoting = "## @me\n\
                   > @b wrote: ask @c [NEXT: c] [DONE]\n\
                   and this line continues the quote, @c\n\
                   \n\
                   > > @c\n\
                   >\n\
                   > ## @c heading\n\
                   \n   > @c indented\n\
                   \nSo @a, what do you think? `@b` [NEXT: a]\n\
                   ```\n@c\n```\n\
                   - a list @b after the quote\n";
    assert_eq!(
        mentions_and_markers(quoting),
        [(vec!["a", "b"], vec!["NEXT a".to_string()])]
    );
    // A quote's paragraph ends at a blank line, a list item or another block.
    let after = "## @me\n> quoted @b\n- item @a\n> quoted @b\n\n@c\n> q @b\n---\n@a\n";
    assert_eq!(mentions_and_markers(after), [(vec!["a", "c", "a"], vec![])]);
    // A `<details>` block hides mentions until it closes (here, with its message).
    let details = "## @me\n<DETAILS open>\n\n@a\n\n</Details>\n\n@b\n<details>\n\n@c\n## @x\n@a\n";
    assert_eq!(
        mentions_and_markers(details),
        [(vec!["b"], vec![]), (vec!["a"], vec![])]
    );
    // A one-line `<details>` element closes on its line.
    let inline = "## @me\n<details><summary>x</summary>y</details>\n\n@a\n";
    assert_eq!(mentions_and_markers(inline), [(vec!["a"], vec![])]);
}

fn apply(text: &str, start: usize, old_end: usize, insert: &str) -> (String, Edit) {
    let mut new = String::with_capacity(text.len() + insert.len());
    new.push_str(&text[..start]);
    new.push_str(insert);
    new.push_str(&text[old_end..]);
    let edit = Edit {
        start,
        old_end,
        new_end: start + insert.len(),
    };
    (new, edit)
}

fn assert_incremental(text: &str, start: usize, old_end: usize, insert: &str) {
    let mut chat = Chat::parse(text);
    let (new, edit) = apply(text, start, old_end, insert);
    chat.reparse(&edit, new.len(), |r| new[r].to_string());
    assert_eq!(
        chat,
        Chat::parse(&new),
        "edit {start}..{old_end} -> {insert:?} of {text:?}"
    );
}

#[test]
fn incremental_reparse_matches_a_full_parse() {
    let text = "---\nt: 1\n---\npre\n## @a\nhi @b\n\n## @b\n<!-- chatmd id=1 status=done -->\nok\n## @c\nend\n";
    let at = |s: &str| text.find(s).unwrap();
    assert_incremental(text, at("hi"), at("hi"), "x");
    assert_incremental(text, at("hi"), at("hi"), "```\n");
    assert_incremental(text, at("ok"), at("ok") + 2, "```\n## @d\n```\n## @e\n");
    assert_incremental(text, at("## @b"), at("## @b") + 1, "");
    assert_incremental(text, at("pre"), at("pre"), "## @z\n");
    assert_incremental(text, 1, 2, "");
    assert_incremental(text, text.len(), text.len(), "\n## @me\n");
    assert_incremental(
        text,
        at("status=done"),
        at("status=done") + 11,
        "status=error",
    );
}

const PIECES: &[&str] = &[
    "\n",
    "text ",
    "@a ",
    "@b.",
    "[NEXT: b]",
    "[DONE]",
    "## @a\n",
    "## @b (x)\n",
    "## @me\n",
    "```\n",
    "~~~\n",
    "    code\n",
    "> **Permission** `p1` — run\n> - [ ] allow · - [ ] reject\n",
    "<!-- chatmd id=t1 status=done -->\n",
    "<!-- chatmd id=\"x\n",
    "- item\n",
    "> quote\n",
    "<div>\n",
    "\r\n",
    "\r",
    "---\n",
    "title: x\n",
    "SKIP",
    "/end",
    "é😀",
    "`@a`",
    "<details><summary>Tools (1)</summary>\n\n",
    "- Bash: grep @a\n",
    "</details>\n",
    "> @b said\n",
    "lazily @a\n",
];

#[test]
fn a_cut_inside_code_leaves_the_parse_whole() {
    // Every second `## @b` is inside a code block; cuts land on both kinds.
    let text = "## @a\nsee:\n```\n## @b\n```\n## @b\n[DONE]\n".repeat(50);
    let whole = Chat::parse_in_parts(&text, |_| 1);
    assert_eq!(whole.messages.len(), 100);
    for parts in 2..12 {
        assert_eq!(
            Chat::parse_in_parts(&text, |_| parts),
            whole,
            "{parts} parts"
        );
    }
}

fn document() -> impl Strategy<Value = String> {
    proptest::collection::vec(0..PIECES.len(), 0..30)
        .prop_map(|v| v.iter().map(|&i| PIECES[i]).collect())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn render_is_the_identity(text in document()) {
        prop_assert_eq!(Chat::parse(&text).render(&text), text);
    }

    #[test]
    fn a_parse_in_parts_equals_one_in_one(text in document(), parts in 2usize..6) {
        // Documents made of the pieces, long enough to be cut at their headings.
        let text = text.repeat(4);
        prop_assert_eq!(Chat::parse_in_parts(&text, |_| parts), Chat::parse_in_parts(&text, |_| 1));
    }

    #[test]
    fn arbitrary_text_parses_and_renders(text in "(?s).{0,400}") {
        let chat = Chat::parse(&text);
        prop_assert_eq!(chat.render(&text), text);
    }

    #[test]
    fn incremental_equals_full(text in document(), a in 0usize..2000, b in 0usize..2000, insert in 0..PIECES.len()) {
        let mut start = a.min(text.len());
        let mut end = (a + b % 40).min(text.len());
        while !text.is_char_boundary(start) { start -= 1; }
        while !text.is_char_boundary(end) { end -= 1; }
        let end = end.max(start);
        assert_incremental(&text, start, end, PIECES[insert]);
    }
}
