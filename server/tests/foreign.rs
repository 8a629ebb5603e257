//! Chat files of other tools: detection, parsing and conversion into chatmd
//! (`chatmd::document::foreign`).
//!
//! Fixtures live in `tests/fixtures/foreign/`: each input `NAME` has its exact expected
//! conversion in `NAME.expected.chat.md`. Run with `CHATMD_BLESS=1` to rewrite the expected
//! files after an intended change, then review the diff.

mod foreign {
    use std::path::PathBuf;

    use chatmd::document::foreign::{
        Detection, ForeignFormat, ForeignMessage, Role, convert, detect, parse,
    };
    use pretty_assertions::assert_eq;
    use proptest::prelude::*;

    fn fixture_path(name: &str) -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/foreign")
            .join(name)
    }

    fn fixture(name: &str) -> String {
        let path = fixture_path(name);
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    }

    /// Compares `actual` with the expected file, or writes it under `CHATMD_BLESS=1`.
    fn assert_expected(name: &str, actual: &str) {
        let path = fixture_path(&format!("{name}.expected.chat.md"));
        if std::env::var_os("CHATMD_BLESS").is_some() {
            std::fs::write(&path, actual).unwrap();
            return;
        }
        let expected = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("{}: {e} (run with CHATMD_BLESS=1)", path.display()));
        assert_eq!(actual, expected, "conversion of {name}");
    }

    /// Checks the detection of a fixture (format, exact marker range and its text) and its
    /// conversion, and that the converted file is not taken for a foreign one again.
    fn check_fixture(
        name: &str,
        format: ForeignFormat,
        marker: std::ops::Range<usize>,
        line: &str,
    ) {
        let text = fixture(name);
        let detection = detect(&text).unwrap_or_else(|| panic!("{name} not detected"));
        assert_eq!(
            detection,
            Detection {
                format,
                marker: marker.clone()
            },
            "{name}"
        );
        assert_eq!(&text[marker], line, "{name}: marker text");
        let converted = convert(&text, format, "me", "assistant");
        assert_expected(name, &converted);
        assert_eq!(
            detect(&converted),
            None,
            "{name}: converted file detected again"
        );
    }

    // --- fixtures ---------------------------------------------------------------------

    #[test]
    fn fixture_percent_cells() {
        check_fixture(
            "percent-cells.chat.md",
            ForeignFormat::PercentCells,
            75..86,
            "# %% system",
        );
    }

    #[test]
    fn fixture_percent_cells_crlf() {
        // Same file with CRLF line endings: four more bytes before the marker, the range
        // stops before the `\r`, and the output keeps CRLF.
        check_fixture(
            "percent-cells.crlf.chat.md",
            ForeignFormat::PercentCells,
            79..90,
            "# %% system",
        );
        let lf = convert(
            &fixture("percent-cells.chat.md"),
            ForeignFormat::PercentCells,
            "me",
            "assistant",
        );
        let crlf = convert(
            &fixture("percent-cells.crlf.chat.md"),
            ForeignFormat::PercentCells,
            "me",
            "assistant",
        );
        assert_eq!(crlf, lf.replace('\n', "\r\n"));
        assert!(
            !crlf.replace("\r\n", "").contains('\n'),
            "a bare LF in CRLF output"
        );
    }

    #[test]
    fn fixture_gp_nvim() {
        check_fixture(
            "gp-nvim.md",
            ForeignFormat::GpNvim,
            542..610,
            "💬: Our watcher fires three events per save. How do I debounce it?",
        );
    }

    #[test]
    fn fixture_vim_ai() {
        check_fixture("vim-ai.aichat", ForeignFormat::VimAi, 75..85, ">>> system");
    }

    #[test]
    fn fixture_lsp_ai() {
        check_fixture("lsp-ai.md", ForeignFormat::LspAi, 93..106, "<|assistant|>");
    }

    #[test]
    fn parse_gp_nvim_fixture() {
        let (preamble, messages) = parse(&fixture("gp-nvim.md"), ForeignFormat::GpNvim);
        let preamble = preamble.expect("header kept");
        assert!(preamble.starts_with("# topic: Debounce the file watcher\n\n- file: "));
        assert!(preamble.ends_with("Start a fresh chat by using `<C-g>c` or :GpChatNew.\n\n---"));
        let roles: Vec<&Role> = messages.iter().map(|m| &m.role).collect();
        assert_eq!(
            roles,
            [
                &Role::User,
                &Role::Assistant,
                &Role::User,
                &Role::Assistant,
                &Role::User
            ]
        );
        assert_eq!(
            messages[2],
            ForeignMessage {
                role: Role::User,
                text: "And on macOS?".into()
            }
        );
        assert_eq!(
            messages[3].text,
            "FSEvents already batches events,\nso a shorter window is enough there."
        );
        assert_eq!(messages[4].text, "");
    }

    #[test]
    fn parse_vim_ai_fixture() {
        let (preamble, messages) = parse(&fixture("vim-ai.aichat"), ForeignFormat::VimAi);
        assert_eq!(
            preamble.as_deref(),
            Some("[chat]\noptions.model=gpt-4o-mini\noptions.temperature=0.2\noptions.stream=1")
        );
        let roles: Vec<Role> = messages.into_iter().map(|m| m.role).collect();
        let other = |s: &str| Role::Other(s.to_owned());
        assert_eq!(
            roles,
            [
                Role::System,
                Role::User,
                other("include"),
                other("thinking"),
                Role::Assistant,
                other("tool_call"),
                other("tool_response"),
                other("info"),
                Role::User,
                Role::Assistant,
                Role::User,
            ]
        );
    }

    #[test]
    fn parse_lsp_ai_text_before_first_marker_is_user() {
        let (preamble, messages) = parse("!C\nhello\n<|assistant|>\nhi\n", ForeignFormat::LspAi);
        assert_eq!(preamble, None);
        assert_eq!(
            messages,
            [
                ForeignMessage {
                    role: Role::User,
                    text: "!C\nhello".into()
                },
                ForeignMessage {
                    role: Role::Assistant,
                    text: "hi".into()
                },
            ]
        );
    }

    #[test]
    fn parse_percent_cells_roles() {
        let text =
            "# %% user\nq\n# %% ASSISTANT  \na\n# %% tool_execute\nr\n# %% settings\nk = 1\n";
        let (preamble, messages) = parse(text, ForeignFormat::PercentCells);
        assert_eq!(preamble, None);
        let got: Vec<(Role, &str)> = messages
            .iter()
            .map(|m| (m.role.clone(), m.text.as_str()))
            .collect();
        assert_eq!(
            got,
            [
                (Role::User, "q"),
                (Role::Assistant, "a"),
                (Role::Other("tool_execute".into()), "r"),
                (Role::Other("settings".into()), "k = 1"),
            ]
        );
    }

    // --- detection: negative cases ----------------------------------------------------

    #[test]
    fn chatmd_file_with_percent_marker_in_fence_is_not_foreign() {
        let text = "---\ntitle: Import notes\n---\n\n## @me\nThe other tool writes:\n\n```markdown\n# %% user\nhello\n# %% assistant\n```\n\n## @reviewer\nNoted.\n";
        assert_eq!(detect(text), None);
    }

    #[test]
    fn chatmd_file_with_lsp_ai_marker_is_not_foreign() {
        let text = "## @me\nWhat does this line mean?\n<|user|>\n\n## @reviewer\nIt is an lsp-ai marker.\n";
        assert_eq!(detect(text), None);
        // Wherever the heading is, before or after the marker.
        let text = "<|user|>\nhello\n\n## @me\nhi\n";
        assert_eq!(detect(text), None);
        // Indented by up to three spaces, or with a tab, it is still a heading.
        assert_eq!(detect("<|user|>\n   ## @me\n"), None);
        assert_eq!(detect("<|user|>\n##\t@me\n"), None);
    }

    #[test]
    fn plain_markdown_is_not_foreign() {
        let text = "# Release notes\n\n## Summary\n\nWe moved `# %% user` parsing out.\n\n> quoted\n>> nested\n\n<div>html</div>\n\n```\n>>> user\n<|user|>\n💬: hi\n```\n\n- list\n- `<|assistant|>`\n\n## @ not a handle\n";
        assert_eq!(detect(text), None);
        assert_eq!(detect(""), None);
        assert_eq!(detect("\n\n\r\n"), None);
    }

    #[test]
    fn markers_only_inside_fences_do_not_count() {
        assert_eq!(detect("```\n# %% user\nhi\n```\n"), None);
        assert_eq!(detect("~~~~\n>>> user\n~~~\nstill inside\n~~~~~\n"), None);
        // A closing fence needs nothing after it; ```` ```x ```` does not close.
        assert_eq!(detect("```\n```x\n<|user|>\n```\n"), None);
        // Backticks in the info string: not a fence, so the marker counts.
        assert_eq!(
            detect("``` a`b\n<|user|>\n").map(|d| d.format),
            Some(ForeignFormat::LspAi)
        );
        // Four spaces: indented code, not a fence.
        assert_eq!(
            detect("    ```\n<|user|>\n").map(|d| d.format),
            Some(ForeignFormat::LspAi)
        );
    }

    #[test]
    fn chatmd_heading_inside_fence_does_not_count() {
        let text = "```\n## @me\n```\n# %% user\nhi\n";
        assert_eq!(
            detect(text),
            Some(Detection {
                format: ForeignFormat::PercentCells,
                marker: 15..24
            })
        );
        // Four spaces of indent is code, not a heading.
        assert!(detect("    ## @me\n# %% user\n").is_some());
        // `###` is level three.
        assert!(detect("### @me\n# %% user\n").is_some());
    }

    #[test]
    fn markers_count_only_at_line_start() {
        assert_eq!(detect(" # %% user\n"), None);
        assert_eq!(detect("  >>> user\n"), None);
        assert_eq!(detect("say <|user|>\n"), None);
        assert_eq!(detect(" 💬: hi\n"), None);
    }

    #[test]
    fn a_user_marker_is_required() {
        assert_eq!(detect("# %% assistant\nhi\n# %% system\nx\n"), None);
        assert_eq!(detect("🤖:[ChatGPT] hi\n"), None);
        assert_eq!(detect("<<< assistant\nhi\n>>> system\n"), None);
        // lsp-ai: either marker is enough.
        assert_eq!(
            detect("text\n<|assistant|>\nreply\n"),
            Some(Detection {
                format: ForeignFormat::LspAi,
                marker: 5..18
            })
        );
    }

    #[test]
    fn marker_words_are_exact() {
        assert_eq!(detect(">>> username\n"), None);
        assert_eq!(detect(">>>user\n"), None);
        assert_eq!(detect("# %% user please\n"), None);
        assert_eq!(detect("# %% users\n"), None);
        assert_eq!(detect("# %%user\n"), None);
        assert_eq!(detect("<|users|>\n"), None);
        // rusiaaman/chat.md's own rule: exactly `# %% role`, then only whitespace.
        assert_eq!(detect("#%% user\n"), None);
        assert_eq!(detect("#  %% user\n"), None);
        assert_eq!(detect("# %%  user\n"), None);
        assert!(detect("# %% User \n").is_some());
        assert!(detect(">>> user\t(note)\n").is_some());
        assert!(detect("🗨:\n").is_some());
        assert!(detect("💬:hi\n").is_some());
    }

    #[test]
    fn detection_range_is_the_first_marker_of_the_format() {
        // The first marker of the format, even when it is not a user marker.
        let text = "[chat]\noptions.model=x\n\n<<< info\nhello\n>>> user\nhi\n";
        assert_eq!(
            detect(text),
            Some(Detection {
                format: ForeignFormat::VimAi,
                marker: 24..32
            })
        );
        // Byte offsets, after multi-byte text; no line ending in the range.
        let text = "é日本\r\n💬: question\r\n";
        let d = detect(text).unwrap();
        assert_eq!(d.format, ForeignFormat::GpNvim);
        assert_eq!(&text[d.marker.clone()], "💬: question");
        assert_eq!(d.marker, 10..24);
        // No trailing newline.
        assert_eq!(detect("x\n<|user|>").unwrap().marker, 2..10);
    }

    #[test]
    fn earliest_format_wins() {
        let text = ">>> user\nhi\n<|user|>\nhey\n";
        assert_eq!(detect(text).unwrap().format, ForeignFormat::VimAi);
        let text = "<|user|>\nhey\n>>> user\nhi\n";
        assert_eq!(detect(text).unwrap().format, ForeignFormat::LspAi);
        // A format without a user marker never wins.
        let text = "# %% assistant\nx\n💬: hi\n";
        assert_eq!(detect(text).unwrap().format, ForeignFormat::GpNvim);
    }

    #[test]
    fn format_names() {
        let names: Vec<&str> = ForeignFormat::ALL.iter().map(|f| f.name()).collect();
        assert_eq!(
            names,
            ["chat.md (`# %% user`)", "gp.nvim", "vim-ai", "lsp-ai"]
        );
    }

    // --- conversion details -----------------------------------------------------------

    #[test]
    fn message_headings_in_text_are_escaped_outside_fences() {
        let text = ">>> system\n## @me is my handle\n>>> user\n## @reviewer please look\n   ## \t@x.y\n## @\n### @deep\n```md\n## @inside a fence\n```\n<<< assistant\n## @me: done\n";
        let expected = "---\nimported_from: vim-ai\n---\n\nSystem prompt:\n\n## \\@me is my handle\n\n## @me\n## \\@reviewer please look\n   ## \t\\@x.y\n## @\n### @deep\n```md\n## @inside a fence\n```\n\n## @assistant\n## \\@me: done\n";
        assert_eq!(
            convert(text, ForeignFormat::VimAi, "me", "assistant"),
            expected
        );
    }

    #[test]
    fn a_lone_carriage_return_ends_a_line() {
        let text = ">>> user note\r## @x\nfirst\r## @y\r```\r## @z\n";
        // A lone `\r` ends a line: the first line ending is not CRLF, so the output is LF.
        let expected = "---\nimported_from: vim-ai\n---\n\n## @me note\n## \\@x\nfirst\n## \\@y\n```\n## @z\n```\n";
        assert_eq!(
            convert(text, ForeignFormat::VimAi, "me", "assistant"),
            expected
        );
    }

    #[test]
    fn truncated_fence_ends_at_next_marker() {
        // The answer was cut off inside a code block: its fence is closed in the output,
        // and the next turn is still a turn.
        let text = "💬: write a loop\n\n🤖:[Claude]\n```rust\nfor i in 0..10 {\n\n💬: you stopped\n\n🤖:[Claude] Sorry:\n```rust\n}\n```\n";
        let (_, messages) = parse(text, ForeignFormat::GpNvim);
        assert_eq!(messages.len(), 4);
        let expected = "---\nimported_from: gp.nvim\n---\n\n## @me\nwrite a loop\n\n## @assistant [Claude]\n```rust\nfor i in 0..10 {\n```\n\n## @me\nyou stopped\n\n## @assistant [Claude]\nSorry:\n```rust\n}\n```\n";
        assert_eq!(
            convert(text, ForeignFormat::GpNvim, "me", "assistant"),
            expected
        );
    }

    #[test]
    fn fence_still_open_at_the_end_is_closed() {
        let text = "<|user|>\n~~~~\ncode\n```\n";
        let expected = "---\nimported_from: lsp-ai\n---\n\n## @me\n~~~~\ncode\n```\n~~~~\n";
        assert_eq!(
            convert(text, ForeignFormat::LspAi, "me", "assistant"),
            expected
        );
    }

    #[test]
    fn other_roles_join_the_message_of_their_side() {
        // `<<<` roles before the answer open the assistant message; `>>>` roles after a
        // user message join it; a lone one becomes its own message.
        let text = "<<< info\nstarted\n>>> user\nq\n>>> exec\nls\n<<< thinking\nhmm\n<<< assistant\na\n<<< tool_call\n{}\n";
        let expected = "---\nimported_from: vim-ai\n---\n\n## @bot\n<details><summary>info</summary>\n\nstarted\n\n</details>\n\n## @me\nq\n\n<details><summary>exec</summary>\n\nls\n\n</details>\n\n## @bot\n<details><summary>thinking</summary>\n\nhmm\n\n</details>\n\na\n\n<details><summary>tool_call</summary>\n\n{}\n\n</details>\n";
        assert_eq!(convert(text, ForeignFormat::VimAi, "me", "bot"), expected);
    }

    #[test]
    fn marker_labels_stay_on_the_heading_or_summary() {
        let text = ">>> user  from <vim>\nq\n<<< tool_call read & write\n\n<<< assistant  (gpt)\n";
        let expected = "---\nimported_from: vim-ai\n---\n\n## @me from <vim>\nq\n\n## @assistant (gpt)\n<details><summary>tool_call read &amp; write</summary>\n\n</details>\n";
        assert_eq!(
            convert(text, ForeignFormat::VimAi, "me", "assistant"),
            expected
        );
    }

    #[test]
    fn handles_are_checked() {
        let text = "<|user|>\nq\n<|assistant|>\na\n";
        let out = convert(text, ForeignFormat::LspAi, "@alice", "not a handle");
        assert!(out.contains("\n## @alice\nq\n"));
        assert!(out.contains("\n## @assistant\na\n"));
        let out = convert(text, ForeignFormat::LspAi, "", "claude.v2");
        assert!(out.contains("\n## @me\nq\n"));
        assert!(out.contains("\n## @claude.v2\na\n"));
    }

    #[test]
    fn gp_title_is_quoted_when_needed() {
        let text = "# topic: Fix: the \"quoted\" \\ bug\n- file: x.md\n---\n\n💬: hi\n";
        let out = convert(text, ForeignFormat::GpNvim, "me", "assistant");
        assert!(
            out.starts_with(
                "---\ntitle: \"Fix: the \\\"quoted\\\" \\\\ bug\"\nimported_from: gp.nvim\n---\n\n```text\n# topic: Fix: the \"quoted\" \\ bug\n- file: x.md\n---\n```\n"
            ),
            "{out}"
        );
        // `# topic: ?` is the placeholder gp.nvim writes before it names the chat.
        let out = convert(
            "# topic: ?\n---\n💬: hi\n",
            ForeignFormat::GpNvim,
            "me",
            "a",
        );
        assert!(
            out.starts_with("---\nimported_from: gp.nvim\n---\n"),
            "{out}"
        );
    }

    #[test]
    fn fenced_header_cannot_be_closed_by_its_content() {
        let text = "notes ```` inline\n```\n# %% user\nhi\n";
        let expected = "---\nimported_from: \"chat.md (`# %% user`)\"\n---\n\n`````text\nnotes ```` inline\n```\n`````\n\n## @me\nhi\n";
        assert_eq!(
            convert(text, ForeignFormat::PercentCells, "me", "assistant"),
            expected
        );
    }

    #[test]
    fn system_prompts_go_to_the_preamble_in_order() {
        let text = "# %% system\none\n# %% user\nq\n# %% system\ntwo\n```\nopen\n";
        let expected = "---\nimported_from: \"chat.md (`# %% user`)\"\n---\n\nSystem prompt:\n\none\n\nSystem prompt:\n\ntwo\n```\nopen\n```\n\n## @me\nq\n";
        assert_eq!(
            convert(text, ForeignFormat::PercentCells, "me", "assistant"),
            expected
        );
    }

    #[test]
    fn settings_and_front_text_are_kept_in_the_preamble() {
        let text = "# %% settings\nmodel = \"x\"\n# %% user\nq\n";
        let expected = "---\nimported_from: \"chat.md (`# %% user`)\"\n---\n\n```toml\nmodel = \"x\"\n```\n\n## @me\nq\n";
        assert_eq!(
            convert(text, ForeignFormat::PercentCells, "me", "assistant"),
            expected
        );
        // vim-ai text before the first marker that is not a `[chat]` header stays text.
        let text = "Notes for later.\n## @me is not a turn here\n\n>>> user\nq\n";
        let expected = "---\nimported_from: vim-ai\n---\n\nNotes for later.\n## \\@me is not a turn here\n\n## @me\nq\n";
        assert_eq!(
            convert(text, ForeignFormat::VimAi, "me", "assistant"),
            expected
        );
        // gp.nvim without the `---` line: no fenced header, the topic is still the title.
        let text = "# topic: Short chat\n💬: q\n";
        let expected = "---\ntitle: Short chat\nimported_from: gp.nvim\n---\n\n# topic: Short chat\n\n## @me\nq\n";
        assert_eq!(
            convert(text, ForeignFormat::GpNvim, "me", "assistant"),
            expected
        );
    }

    // --- issue 15: what real files showed ---------------------------------------------

    /// A model opened a fence at the end of a text line (```` Let me start.```tool_call ````):
    /// no fence to Markdown, so its closing ```` ``` ```` opened one, which swallowed the
    /// next cells. chat.md splits at every marker line, and so does the conversion.
    #[test]
    fn regression_a_fence_opened_at_the_end_of_a_line_does_not_swallow_cells() {
        let text = "# %% user\nFix it.\n# %% assistant\nLet me start.```tool_call\n{\"name\": \"read\"}\n```\n# %% tool_execute\nfile text\n# %% assistant\nDone.\n# %% user\nThanks\n";
        let (_, messages) = parse(text, ForeignFormat::PercentCells);
        let roles: Vec<Role> = messages.into_iter().map(|m| m.role).collect();
        assert_eq!(
            roles,
            [
                Role::User,
                Role::Assistant,
                Role::Other("tool_execute".into()),
                Role::Assistant,
                Role::User
            ]
        );
        check_converted(
            text,
            ForeignFormat::PercentCells,
            "---\nimported_from: \"chat.md (`# %% user`)\"\n---\n\n## @me\nFix it.\n\n## @assistant\nLet me start.```tool_call\n{\"name\": \"read\"}\n```\n```\n\n<details><summary>tool_execute</summary>\n\nfile text\n\n</details>\n\n## @assistant\nDone.\n\n## @me\nThanks\n",
            &["## @me", "## @assistant", "## @assistant", "## @me"],
        );
        // The stray closing fence opened a block that the next marker cut: a warning there.
        let unclosed =
            chatmd::document::foreign::unclosed_blocks(text, ForeignFormat::PercentCells);
        assert_eq!(unclosed.len(), 1);
        assert_eq!(&text[unclosed[0].clone()], "```");
        assert!(text[..unclosed[0].start].ends_with("\"read\"}\n"));
    }

    /// An answer quoted a whole example chat in a fence, with `#%% user` lines and an
    /// inner fence. chat.md's parser takes only `# %% role` (one space each side of `%%`)
    /// as a marker, so the quote stayed in the answer; the conversion split it.
    #[test]
    fn regression_a_quoted_example_chat_stays_in_its_answer() {
        let text = "# %% user\nShow an example chat.\n# %% assistant\nHere:\n````markdown\n#%% user\nhello\n#%% assistant\n```python\nprint(1)\n```\n````\nThat is all.\n# %% user\nNext question\n# %% assistant\nNext answer\n";
        check_converted(
            text,
            ForeignFormat::PercentCells,
            "---\nimported_from: \"chat.md (`# %% user`)\"\n---\n\n## @me\nShow an example chat.\n\n## @assistant\nHere:\n````markdown\n#%% user\nhello\n#%% assistant\n```python\nprint(1)\n```\n````\nThat is all.\n\n## @me\nNext question\n\n## @assistant\nNext answer\n",
            &["## @me", "## @assistant", "## @me", "## @assistant"],
        );
    }

    /// A `## @media basics` heading in an answer stopped detection entirely.
    #[test]
    fn regression_a_chatmd_like_heading_in_an_answer_does_not_stop_detection() {
        let text = "💬: explain CSS\n🤖: Sure.\n## @media basics\nRules.\n💬: thanks\n";
        assert_eq!(
            detect(text),
            Some(Detection {
                format: ForeignFormat::GpNvim,
                marker: 0..17
            })
        );
        check_converted(
            text,
            ForeignFormat::GpNvim,
            "---\nimported_from: gp.nvim\n---\n\n## @me\nexplain CSS\n\n## @assistant\nSure.\n## \\@media basics\nRules.\n\n## @me\nthanks\n",
            &["## @me", "## @assistant", "## @me"],
        );
        // Before any answer, the heading is chatmd's: the file is a chat.
        assert_eq!(detect("💬: q\n## @me\nhi\n🤖: a\n"), None);
    }

    /// An unclosed `<!--` at a line start hid the following messages (half of them).
    #[test]
    fn regression_an_unclosed_comment_ends_at_the_next_marker() {
        let text =
            ">>> user\nq\n<<< assistant\n<!-- note\n>>> user\nsecond\n<<< assistant\nend -->\n";
        check_converted(
            text,
            ForeignFormat::VimAi,
            "---\nimported_from: vim-ai\n---\n\n## @me\nq\n\n## @assistant\n<!-- note\n-->\n\n## @me\nsecond\n\n## @assistant\nend -->\n",
            &["## @me", "## @assistant", "## @me", "## @assistant"],
        );
        let unclosed = chatmd::document::foreign::unclosed_blocks(text, ForeignFormat::VimAi);
        assert_eq!(unclosed, vec![25..34]);
        assert_eq!(&text[25..34], "<!-- note");
    }

    /// The file's own front matter was demoted to text (its `---` became a heading).
    #[test]
    fn regression_a_front_matter_is_merged() {
        let text = "---\ntitle: Old\ntags: [a]\n---\n# topic: New\n---\n💬: hi\n";
        check_converted(
            text,
            ForeignFormat::GpNvim,
            "---\ntitle: Old\ntags: [a]\nimported_from: gp.nvim\n---\n\n```text\n# topic: New\n---\n```\n\n## @me\nhi\n",
            &["## @me"],
        );
        // Front matter chatmd cannot read (here a list, not a mapping) stays verbatim in
        // a fenced block, so the converted front matter has no problem.
        let text = "---\n- a\n- b\n---\n<|user|>\nhi\n";
        check_converted(
            text,
            ForeignFormat::LspAi,
            "---\nimported_from: lsp-ai\n---\n\n```yaml\n---\n- a\n- b\n---\n```\n\n## @me\nhi\n",
            &["## @me"],
        );
        let out = convert(text, ForeignFormat::LspAi, "me", "assistant");
        let chat = chatmd::document::chat::Chat::parse(&out);
        assert_eq!(chat.front_matter.unwrap().problems, []);
    }

    // --- the chat's view of fences, HTML blocks and front matter ------------------------

    /// Converts `text` as `format` and checks what a chat makes of the result: exactly
    /// `expected`, only the converter's own message headings (`want`), and no longer
    /// detected as a foreign file.
    fn check_converted(text: &str, format: ForeignFormat, expected: &str, want: &[&str]) {
        let out = convert(text, format, "me", "assistant");
        assert_eq!(out, expected, "{format:?} conversion of {text:?}");
        assert_eq!(headings(&out), want, "headings of\n{out}");
        assert_eq!(detect(&out), None, "converted file detected again:\n{out}");
    }

    /// Found by the property tests with random seeds: detection followed fences on its
    /// own and opened one on the ```` ``` ```` inside a `<details>` block, where the chat
    /// reads only HTML; that fence hid the converted file's `## @me` from detection, so
    /// the converted file was taken for an lsp-ai chat (by the `<|user|>` in the block).
    #[test]
    fn regression_a_fence_inside_an_html_block_does_not_hide_the_converted_heading() {
        let text = "# %% user\n```\n```\n# %% system\n```\n```\n<details>\n<|user|>\n```";
        assert_eq!(
            detect(text),
            Some(Detection {
                format: ForeignFormat::PercentCells,
                marker: 0..9
            })
        );
        check_converted(
            text,
            ForeignFormat::PercentCells,
            "---\nimported_from: \"chat.md (`# %% user`)\"\n---\n\nSystem prompt:\n\n```\n```\n<details>\n<|user|>\n```\n\n## @me\n```\n```\n",
            &["## @me"],
        );
    }

    /// Found by the property tests with random seeds: after a `<details>` block, a
    /// blank line and an empty fence, the chat reads `## @me` (after a lone `\r`) as a
    /// message heading; detection and the importer took the fences the other way round
    /// and read `💬:` as a gp.nvim marker, and an earlier fix that closed fences for both
    /// views let a `## @me` through as a stray heading. Now the file is a chat (not
    /// foreign), and imported anyway as any format it keeps `## @me` escaped.
    #[test]
    fn regression_a_heading_after_an_html_block_and_a_fence_is_the_chats() {
        let text = "<details>\n```\n\n```\n💬:\n```\r## @me\r```";
        assert_eq!(detect(text), None);
        let body = "<details>\n```\n\n```\n💬:\n```\n## \\@me\n```\n```\n";
        check_converted(
            text,
            ForeignFormat::GpNvim,
            &format!("---\nimported_from: gp.nvim\n---\n\n{body}"),
            &[],
        );
        check_converted(
            text,
            ForeignFormat::VimAi,
            &format!("---\nimported_from: vim-ai\n---\n\n{body}"),
            &[],
        );
        check_converted(
            text,
            ForeignFormat::LspAi,
            &format!("---\nimported_from: lsp-ai\n---\n\n## @me\n{body}"),
            &["## @me"],
        );
    }

    #[test]
    fn markers_are_read_where_the_chat_reads_lines() {
        // An HTML block does not hide a marker (the foreign tools know no HTML), fenced
        // code does.
        assert_eq!(
            detect("<details>\n<|user|>\n"),
            Some(Detection {
                format: ForeignFormat::LspAi,
                marker: 10..18
            })
        );
        assert_eq!(
            detect("<details>\n\n<|user|>\n"),
            Some(Detection {
                format: ForeignFormat::LspAi,
                marker: 11..19
            })
        );
        // A fence in a list item ends with the item, at a line that starts further left.
        assert_eq!(
            detect("- item\n  ```\n<|user|>\n"),
            Some(Detection {
                format: ForeignFormat::LspAi,
                marker: 13..21
            })
        );
        // A heading in a list item is no message heading, to the chat or to detection.
        assert!(detect("- item\n\n  ## @me\n<|user|>\n").is_some());
    }

    #[test]
    fn front_matter_is_read_as_the_chat_reads_it() {
        // The chat reads `## @me` as a message (the `<pre>` is YAML), so the file is no
        // foreign one, and the marker inside the front matter counts for nothing.
        let text = "---\n<|user|>\nnote: |\n  <pre>\n---\n## @me\nhi\n";
        let chat = chatmd::document::chat::Chat::parse(text);
        assert_eq!(chat.messages.len(), 1);
        assert_eq!(detect(text), None);
        assert_eq!(detect("---\n<|user|>\n---\nhi\n"), None);
        // After the front matter, markers count; the front matter is kept as front
        // matter, with `imported_from` added.
        let text = "---\ntitle: x\n---\n<|user|>\nhi\n";
        assert_eq!(
            detect(text),
            Some(Detection {
                format: ForeignFormat::LspAi,
                marker: 17..25
            })
        );
        check_converted(
            text,
            ForeignFormat::LspAi,
            "---\ntitle: x\nimported_from: lsp-ai\n---\n\n## @me\nhi\n",
            &["## @me"],
        );
    }

    #[test]
    fn truncated_html_comment_ends_at_next_marker() {
        // An answer cut off inside an HTML comment would hide every later message: the
        // comment is closed where the next marker starts, as a truncated fence is.
        let text = "💬: q\n🤖:\n<!-- cut off\n\n💬: again\n🤖: ok\n";
        let (_, messages) = parse(text, ForeignFormat::GpNvim);
        let roles: Vec<Role> = messages.into_iter().map(|m| m.role).collect();
        assert_eq!(
            roles,
            [Role::User, Role::Assistant, Role::User, Role::Assistant]
        );
        check_converted(
            text,
            ForeignFormat::GpNvim,
            "---\nimported_from: gp.nvim\n---\n\n## @me\nq\n\n## @assistant\n<!-- cut off\n-->\n\n## @me\nagain\n\n## @assistant\nok\n",
            &["## @me", "## @assistant", "## @me", "## @assistant"],
        );
    }

    #[test]
    fn detect_scales_to_ten_megabytes() {
        let mut text = String::from(">>> user\n\n");
        let paragraph = "Some text with `code`, **bold** and a <|user|> in the middle.\n```\n# %% user\n```\n\n";
        while text.len() < 10 << 20 {
            text.push_str(paragraph);
        }
        assert_eq!(
            detect(&text),
            Some(Detection {
                format: ForeignFormat::VimAi,
                marker: 0..8
            })
        );
        text.push_str("## @me\n");
        assert_eq!(detect(&text), None);
    }

    /// Timing of `detect` on 10 MB; run with
    /// `cargo test --release -p chatmd --test foreign -- --ignored --nocapture`.
    #[test]
    #[ignore = "timing; run in release by hand"]
    fn detect_timing_ten_megabytes() {
        let mut text = String::from("<|user|>\n");
        let paragraph = "Some prose that goes on for a while, then a line break.\n```rust\nfn main() {}\n```\n\n";
        while text.len() < 10 << 20 {
            text.push_str(paragraph);
        }
        let start = std::time::Instant::now();
        let mut found = None;
        for _ in 0..10 {
            found = detect(std::hint::black_box(&text));
        }
        let each = start.elapsed() / 10;
        println!("detect on {} bytes: {each:?}", text.len());
        assert!(found.is_some());
    }

    // --- properties -------------------------------------------------------------------

    /// Lines that look like markers of `format`: the one kind of line whose text may be
    /// dropped or moved onto a heading. (Such lines inside fences are kept too, but this
    /// independent check does not track fences; markers of other formats must all be kept.)
    fn looks_like_marker(line: &str, format: ForeignFormat) -> bool {
        let prefixes: &[&str] = match format {
            ForeignFormat::PercentCells => {
                let rest = line.trim_start_matches('#').trim_start();
                return line.starts_with('#') && rest.starts_with("%%");
            }
            ForeignFormat::GpNvim => &["💬:", "🗨:", "🤖:"],
            ForeignFormat::VimAi => &[">>> ", "<<< "],
            ForeignFormat::LspAi => &["<|user|>", "<|assistant|>"],
        };
        prefixes.iter().any(|p| line.starts_with(p))
    }

    /// Whether `line` could be an answer's marker line of any format (an over-estimate).
    fn is_answer_marker(line: &str) -> bool {
        [
            "# %% assistant",
            "# %% tool_execute",
            "🤖:",
            "<<< ",
            "<|assistant|>",
        ]
        .iter()
        .any(|p| {
            line.to_ascii_lowercase()
                .starts_with(&p.to_ascii_lowercase())
        })
    }

    /// Where the first message heading the chat parser reads in `text` starts.
    fn first_heading(text: &str) -> Option<usize> {
        let chat = chatmd::document::chat::Chat::parse(text);
        chat.messages.first().map(|m| m.header().start)
    }

    /// Lines as chatmd sees them: ending at `\r\n`, `\n` or a lone `\r`.
    fn lines(text: &str) -> Vec<&str> {
        let mut out: Vec<&str> = text
            .split("\r\n")
            .flat_map(|l| l.split(['\n', '\r']))
            .collect();
        if out.last() == Some(&"") {
            out.pop();
        }
        out
    }

    /// The message headings the chat parser reads in a chatmd text: what starts a
    /// message once the converted file is opened (code, HTML and quotes included).
    fn headings(text: &str) -> Vec<String> {
        let chat = chatmd::document::chat::Chat::parse(text);
        chat.messages
            .iter()
            .map(|m| text[m.header()].to_owned())
            .collect()
    }

    fn marker_line() -> impl Strategy<Value = String> {
        prop::sample::select(vec![
            "# %% user",
            "# %% assistant",
            "#%% system",
            "# %% tool_execute",
            "# %% settings",
            "# %% User  ",
            "💬:",
            "💬: question",
            "🗨: old",
            "🤖:",
            "🤖:[Agent] answer",
            "🤖:[unclosed",
            ">>> user",
            ">>> system",
            ">>> include",
            ">>> exec",
            "<<< assistant",
            "<<< thinking",
            "<<< tool_call label",
            "<<< tool_response",
            "<<< info",
            "<|user|>",
            "<|assistant|> text",
        ])
        .prop_map(str::to_owned)
    }

    fn other_line() -> impl Strategy<Value = String> {
        prop_oneof![
            prop::sample::select(vec![
                "",
                "   ",
                "```",
                "````",
                "```rust",
                "``` a`b",
                "~~~",
                "~~~~~",
                "   ```",
                "    ```",
                "## @me",
                "## @bot hi",
                "  ##\t@a.b",
                "## @",
                "## \\@x",
                "### @x",
                "---",
                "title: T",
                "- item: x",
                "imported_from: [x]",
                "key: |",
                "[chat]",
                "# topic: T",
                "# topic: ?",
                "<details>",
                "<!-- c",
                "-->",
                "<pre>",
                "- item",
                "  ```",
                "> ```",
                "é日本",
                "x\r## @me",
                "```\r## @me\r```",
                "## @a\r```\r## @b",
            ])
            .prop_map(str::to_owned),
            "[ -~]{0,12}",
            "\\PC{0,8}",
        ]
    }

    fn document() -> impl Strategy<Value = String> {
        (
            prop::collection::vec(prop_oneof![1 => marker_line(), 3 => other_line()], 0..40),
            any::<bool>(),
            any::<bool>(),
        )
            .prop_map(|(lines, crlf, final_newline)| {
                let eol = if crlf { "\r\n" } else { "\n" };
                let mut text = lines.join(eol);
                if final_newline {
                    text.push_str(eol);
                }
                text
            })
    }

    fn check_lossless(text: &str) -> Result<(), TestCaseError> {
        if let Some(d) = detect(text) {
            let marker = text.get(d.marker.clone());
            prop_assert!(marker.is_some_and(|m| !m.contains('\n') && !m.ends_with('\r')));
            // Never a file in which the chat reads a message, except after an answer's
            // marker (a heading the model wrote, such as `## @media basics`).
            if let Some(first) = first_heading(text) {
                prop_assert!(
                    lines(&text[..first]).iter().any(|l| is_answer_marker(l)),
                    "detected as {:?} with a heading before any answer",
                    d
                );
            }
        }
        for format in ForeignFormat::ALL {
            let _ = parse(text, format);
            let out = convert(text, format, "human1", "bot");
            let unescaped = out.replace("\\@", "@");
            for line in lines(text) {
                if line.trim().is_empty() || looks_like_marker(line, format) {
                    continue;
                }
                // Allowing for `## \\@x` escapes of message headings.
                prop_assert!(
                    out.contains(line) || unescaped.contains(&line.replace("\\@", "@")),
                    "{format:?}: line {line:?} lost in\n{out}"
                );
            }
            // Only the converter's own headings start messages.
            for heading in headings(&out) {
                prop_assert!(
                    heading.starts_with("## @human1") || heading.starts_with("## @bot"),
                    "{format:?}: stray heading {heading:?} in\n{out}"
                );
            }
            prop_assert!(out.starts_with("---"));
            // Its front matter (the file's own, merged, or a new one) has no problem.
            let chat = chatmd::document::chat::Chat::parse(&out);
            let problems = chat.front_matter.map(|fm| fm.problems).unwrap_or_default();
            prop_assert!(problems.is_empty(), "{format:?}: {problems:?} in\n{out}");
        }
        if let Some(d) = detect(text) {
            let out = convert(text, d.format, "me", "assistant");
            prop_assert_eq!(
                detect(&out),
                None,
                "converted file detected again:\n{}",
                out
            );
        }
        Ok(())
    }

    proptest! {
        // Random seeds (proptest's default), so that every run looks somewhere new; the
        // inputs earlier runs found are the named regression tests above.
        #![proptest_config(ProptestConfig {
            cases: ProptestConfig::default().cases.max(1024),
            failure_persistence: None,
            ..ProptestConfig::default()
        })]

        #[test]
        fn prop_arbitrary_text_never_panics_and_loses_nothing(text in any::<String>()) {
            check_lossless(&text)?;
        }

        #[test]
        fn prop_chat_like_text_never_panics_and_loses_nothing(text in document()) {
            check_lossless(&text)?;
        }
    }
}
