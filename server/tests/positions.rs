//! `document::text`: byte offsets ↔ LSP positions in both encodings, incremental changes and
//! `Edit`s, checked by tables and by properties against a naive model of LSP lines.

mod text {
    use chatmd::document::text::{LineCol, PositionEncoding, Text};

    pub use PositionEncoding::{Utf8, Utf16};

    pub fn p(line: u32, col: u32) -> LineCol {
        LineCol { line, col }
    }

    /// A deliberately simple model of LSP lines, independent of ropey: `(start, content_end)`
    /// of every line, where the breaks are `\r\n`, `\n` and `\r` only.
    pub fn model_lines(s: &str) -> Vec<(usize, usize)> {
        let b = s.as_bytes();
        let (mut lines, mut start, mut i) = (Vec::new(), 0, 0);
        while i < b.len() {
            let width = match (b[i], b.get(i + 1)) {
                (b'\r', Some(b'\n')) => 2,
                (b'\r' | b'\n', _) => 1,
                _ => 0,
            };
            if width == 0 {
                i += 1;
            } else {
                lines.push((start, i));
                i += width;
                start = i;
            }
        }
        lines.push((start, b.len()));
        lines
    }

    pub fn is_mid_crlf(s: &str, b: usize) -> bool {
        b > 0 && s.as_bytes()[b - 1] == b'\r' && s.as_bytes().get(b) == Some(&b'\n')
    }

    fn units(s: &str, enc: PositionEncoding) -> usize {
        match enc {
            Utf8 => s.len(),
            Utf16 => s.encode_utf16().count(),
        }
    }

    fn model_byte_to_position_in(
        s: &str,
        lines: &[(usize, usize)],
        byte: usize,
        enc: PositionEncoding,
    ) -> LineCol {
        let mut byte = byte.min(s.len());
        while !s.is_char_boundary(byte) {
            byte -= 1;
        }
        if is_mid_crlf(s, byte) {
            byte -= 1;
        }
        let line = lines.partition_point(|&(start, _)| start <= byte) - 1;
        let col = units(&s[lines[line].0..byte], enc);
        p(line as u32, col as u32)
    }

    pub fn model_position_to_byte(s: &str, pos: LineCol, enc: PositionEncoding) -> usize {
        model_position_to_byte_in(s, &model_lines(s), pos, enc)
    }

    fn model_position_to_byte_in(
        s: &str,
        lines: &[(usize, usize)],
        pos: LineCol,
        enc: PositionEncoding,
    ) -> usize {
        let Some(&(start, end)) = lines.get(pos.line as usize) else {
            return s.len();
        };
        // The last char boundary whose column does not exceed `col`.
        let mut best = start;
        for (i, _) in s[start..end].char_indices().chain([(end - start, ' ')]) {
            if units(&s[start..start + i], enc) <= pos.col as usize {
                best = start + i;
            }
        }
        best
    }

    /// Every byte offset of `s` (and a few past its end) and every position (a few columns past
    /// each line's end, and a line past the last) against the model, in both encodings; the
    /// byte → position → byte round trip; the line table.
    pub fn check_against_model(text: &Text, s: &str) {
        assert_eq!(text.to_string(), s);
        let lines = model_lines(s);
        assert_eq!(text.len_lines(), lines.len(), "len_lines of {s:?}");
        for (i, &(start, end)) in lines.iter().enumerate() {
            assert_eq!(text.line_start(i), start, "line_start({i}) of {s:?}");
            assert_eq!(text.line_end(i), end, "line_end({i}) of {s:?}");
        }
        for enc in [Utf8, Utf16] {
            for byte in 0..=s.len() + 2 {
                let pos = text.byte_to_position(byte, enc);
                assert_eq!(
                    pos,
                    model_byte_to_position_in(s, &lines, byte, enc),
                    "byte_to_position({byte}, {enc:?}) of {s:?}"
                );
                assert_eq!(text.line_of_byte(byte), pos.line as usize);
                if byte <= s.len() && s.is_char_boundary(byte) {
                    // The round trip: exact, except inside a CRLF, which has no position.
                    let expected = if is_mid_crlf(s, byte) { byte - 1 } else { byte };
                    assert_eq!(
                        text.position_to_byte(pos, enc),
                        expected,
                        "round trip of byte {byte}, {enc:?}, in {s:?}"
                    );
                }
            }
            for (line, &(start, end)) in lines.iter().enumerate().chain([(lines.len(), &(0, 0))]) {
                let width = units(s.get(start..end).unwrap_or(""), enc) as u32;
                for col in (0..=width + 2).chain([u32::MAX]) {
                    let pos = p(line as u32, col);
                    assert_eq!(
                        text.position_to_byte(pos, enc),
                        model_position_to_byte_in(s, &lines, pos, enc),
                        "position_to_byte({pos:?}, {enc:?}) of {s:?}"
                    );
                }
            }
        }
    }

    mod model {
        use super::*;
        use pretty_assertions::assert_eq;

        #[test]
        fn lines_of_the_model() {
            assert_eq!(model_lines(""), vec![(0, 0)]);
            assert_eq!(
                model_lines("a\r\nb\rc\n"),
                vec![(0, 1), (3, 4), (5, 6), (7, 7)]
            );
            assert_eq!(model_lines("\n\r"), vec![(0, 0), (1, 1), (2, 2)]);
        }
    }

    mod positions {
        use super::*;
        use pretty_assertions::assert_eq;

        /// `(byte, position in UTF-8, position in UTF-16)`.
        type ByteCase = (usize, LineCol, LineCol);
        /// `(position, byte with UTF-8 columns, byte with UTF-16 columns)`.
        type PosCase = (LineCol, usize, usize);

        fn check(s: &str, lines: usize, bytes: &[ByteCase], positions: &[PosCase]) {
            let text = Text::new(s);
            assert_eq!(text.len_lines(), lines, "len_lines of {s:?}");
            let got: Vec<ByteCase> = bytes
                .iter()
                .map(|&(b, _, _)| {
                    (
                        b,
                        text.byte_to_position(b, Utf8),
                        text.byte_to_position(b, Utf16),
                    )
                })
                .collect();
            assert_eq!(got, bytes, "byte_to_position in {s:?}");
            let got: Vec<PosCase> = positions
                .iter()
                .map(|&(pos, _, _)| {
                    (
                        pos,
                        text.position_to_byte(pos, Utf8),
                        text.position_to_byte(pos, Utf16),
                    )
                })
                .collect();
            assert_eq!(got, positions, "position_to_byte in {s:?}");
            check_against_model(&text, s);
            // The text as opened, before its first edit: one string and its line starts.
            check_against_model(&Text::from_string(s.to_owned()), s);
        }

        #[test]
        fn ascii() {
            check(
                "abc\ndef",
                2,
                &[
                    (0, p(0, 0), p(0, 0)),
                    (3, p(0, 3), p(0, 3)),
                    (4, p(1, 0), p(1, 0)),
                    (7, p(1, 3), p(1, 3)),
                    (100, p(1, 3), p(1, 3)),
                ],
                &[
                    (p(0, 3), 3, 3),
                    (p(0, 10), 3, 3),
                    (p(1, 0), 4, 4),
                    (p(1, 3), 7, 7),
                    (p(1, 99), 7, 7),
                    (p(2, 0), 7, 7),
                    (p(9, 9), 7, 7),
                ],
            );
        }

        #[test]
        fn cjk_is_three_bytes_and_one_utf16_unit() {
            // 中 0..3, 文 3..6, \n 6, x 7
            check(
                "中文\nx",
                2,
                &[
                    (0, p(0, 0), p(0, 0)),
                    (1, p(0, 0), p(0, 0)),
                    (3, p(0, 3), p(0, 1)),
                    (5, p(0, 3), p(0, 1)),
                    (6, p(0, 6), p(0, 2)),
                    (7, p(1, 0), p(1, 0)),
                    (8, p(1, 1), p(1, 1)),
                ],
                &[
                    (p(0, 1), 0, 3),
                    (p(0, 2), 0, 6),
                    (p(0, 3), 3, 6),
                    (p(0, 4), 3, 6),
                    (p(0, 5), 3, 6),
                    (p(0, 6), 6, 6),
                    (p(0, 7), 6, 6),
                    (p(1, 1), 8, 8),
                ],
            );
        }

        #[test]
        fn emoji_is_four_bytes_and_a_surrogate_pair() {
            // a 0, 😀 1..5, b 5, \n 6, 😀 7..11
            check(
                "a😀b\n😀",
                2,
                &[
                    (1, p(0, 1), p(0, 1)),
                    (2, p(0, 1), p(0, 1)),
                    (4, p(0, 1), p(0, 1)),
                    (5, p(0, 5), p(0, 3)),
                    (6, p(0, 6), p(0, 4)),
                    (7, p(1, 0), p(1, 0)),
                    (9, p(1, 0), p(1, 0)),
                    (11, p(1, 4), p(1, 2)),
                ],
                &[
                    // UTF-16 col 2 is between the halves of the pair: rounds down.
                    (p(0, 2), 1, 1),
                    (p(0, 3), 1, 5),
                    (p(0, 4), 1, 6),
                    (p(0, 5), 5, 6),
                    (p(0, 6), 6, 6),
                    (p(1, 1), 7, 7),
                    (p(1, 2), 7, 11),
                    (p(1, 3), 7, 11),
                    (p(1, 4), 11, 11),
                    (p(1, 5), 11, 11),
                ],
            );
        }

        #[test]
        fn crlf_is_one_break_and_the_byte_inside_it_has_no_position() {
            // a0 b1 \r2 \n3 c4 d5 \r6 \n7
            check(
                "ab\r\ncd\r\n",
                3,
                &[
                    (2, p(0, 2), p(0, 2)),
                    (3, p(0, 2), p(0, 2)),
                    (4, p(1, 0), p(1, 0)),
                    (6, p(1, 2), p(1, 2)),
                    (7, p(1, 2), p(1, 2)),
                    (8, p(2, 0), p(2, 0)),
                ],
                &[
                    (p(0, 2), 2, 2),
                    (p(0, 3), 2, 2),
                    (p(0, 99), 2, 2),
                    (p(1, 0), 4, 4),
                    (p(1, 5), 6, 6),
                    (p(2, 0), 8, 8),
                    (p(2, 5), 8, 8),
                    (p(3, 0), 8, 8),
                ],
            );
        }

        #[test]
        fn lone_cr_is_a_break() {
            // a0 \r1 b2 \r3
            check(
                "a\rb\r",
                3,
                &[
                    (1, p(0, 1), p(0, 1)),
                    (2, p(1, 0), p(1, 0)),
                    (3, p(1, 1), p(1, 1)),
                    (4, p(2, 0), p(2, 0)),
                ],
                &[
                    (p(0, 5), 1, 1),
                    (p(1, 0), 2, 2),
                    (p(1, 9), 3, 3),
                    (p(2, 0), 4, 4),
                    (p(2, 1), 4, 4),
                ],
            );
        }

        #[test]
        fn mixed_endings() {
            // a0 \n1 b2 \r3 \n4 é5..7 \r7 \n8 \r9 d10
            check(
                "a\nb\r\né\r\n\rd",
                5,
                &[
                    (1, p(0, 1), p(0, 1)),
                    (2, p(1, 0), p(1, 0)),
                    (3, p(1, 1), p(1, 1)),
                    (4, p(1, 1), p(1, 1)),
                    (5, p(2, 0), p(2, 0)),
                    (6, p(2, 0), p(2, 0)),
                    (7, p(2, 2), p(2, 1)),
                    (8, p(2, 2), p(2, 1)),
                    (9, p(3, 0), p(3, 0)),
                    (10, p(4, 0), p(4, 0)),
                    (11, p(4, 1), p(4, 1)),
                ],
                &[
                    (p(1, 9), 3, 3),
                    (p(2, 1), 5, 7),
                    (p(2, 2), 7, 7),
                    (p(3, 0), 9, 9),
                    (p(3, 4), 9, 9),
                    (p(4, 0), 10, 10),
                    (p(4, 4), 11, 11),
                ],
            );
        }

        #[test]
        fn lf_then_cr_is_two_breaks() {
            check(
                "x\n\ry",
                3,
                &[(2, p(1, 0), p(1, 0)), (3, p(2, 0), p(2, 0))],
                &[(p(1, 3), 2, 2), (p(2, 0), 3, 3)],
            );
        }

        #[test]
        fn empty_last_line() {
            check(
                "abc\n",
                2,
                &[
                    (3, p(0, 3), p(0, 3)),
                    (4, p(1, 0), p(1, 0)),
                    (9, p(1, 0), p(1, 0)),
                ],
                &[
                    (p(0, 9), 3, 3),
                    (p(1, 0), 4, 4),
                    (p(1, 5), 4, 4),
                    (p(2, 0), 4, 4),
                ],
            );
        }

        #[test]
        fn empty_document() {
            check(
                "",
                1,
                &[(0, p(0, 0), p(0, 0)), (5, p(0, 0), p(0, 0))],
                &[
                    (p(0, 0), 0, 0),
                    (p(0, 3), 0, 0),
                    (p(1, 0), 0, 0),
                    (p(7, 7), 0, 0),
                ],
            );
        }

        #[test]
        fn past_the_end_saturates() {
            let text = Text::new("ab\ncd");
            for enc in [Utf8, Utf16] {
                assert_eq!(text.position_to_byte(p(0, u32::MAX), enc), 2);
                assert_eq!(text.position_to_byte(p(u32::MAX, 0), enc), 5);
                assert_eq!(text.position_to_byte(p(u32::MAX, u32::MAX), enc), 5);
                assert_eq!(text.byte_to_position(usize::MAX, enc), p(1, 2));
            }
            assert_eq!(text.line_start(usize::MAX), 5);
            assert_eq!(text.line_end(usize::MAX), 5);
            assert_eq!(text.line_of_byte(usize::MAX), 1);
        }

        #[test]
        fn only_lsp_line_breaks_count() {
            // VT, FF, NEL, LINE SEPARATOR, PARAGRAPH SEPARATOR are not LSP line breaks.
            let s = "a\u{0B}\u{0C}\u{85}\u{2028}\u{2029}b";
            check(
                s,
                1,
                &[(s.len(), p(0, 12), p(0, 7))],
                &[(p(0, 99), 12, 12), (p(1, 0), 12, 12)],
            );
        }

        #[test]
        fn line_of_byte_and_line_start() {
            let text = Text::new("ab\r\ncd\re\n");
            let lines: Vec<usize> = (0..=text.len_bytes())
                .map(|b| text.line_of_byte(b))
                .collect();
            assert_eq!(lines, vec![0, 0, 0, 0, 1, 1, 1, 2, 2, 3]);
            let starts: Vec<usize> = (0..=text.len_lines()).map(|l| text.line_start(l)).collect();
            assert_eq!(starts, vec![0, 4, 7, 9, 9]);
        }

        #[test]
        #[expect(
            clippy::reversed_empty_ranges,
            reason = "reversed ranges are part of the API"
        )]
        fn slices_and_chunks() {
            let text = Text::new("a😀b\r\nc");
            assert_eq!(text.slice(1..5), "😀");
            assert_eq!(text.slice(2..6), "😀b", "ends snap down to char boundaries");
            assert_eq!(text.slice(6..1), "😀b", "a reversed range is swapped");
            assert_eq!(text.slice(7..100), "\nc");
            assert_eq!(text.chunks().collect::<String>(), "a😀b\r\nc");
            assert_eq!(text.to_string(), "a😀b\r\nc");
            assert_eq!(format!("{text}"), "a😀b\r\nc");
            assert_eq!(text.len_bytes(), 9);
            assert!(text == "a😀b\r\nc");
        }

        /// Lines much longer than a rope chunk take the O(log n) path for columns.
        #[test]
        fn lines_longer_than_a_chunk() {
            // Each unit is 8 bytes and 4 UTF-16 units: 😀 (4 bytes, 2 units), a, 中 (3 bytes).
            let unit = "😀a中";
            let long = unit.repeat(20_000);
            let s = format!("{long}\r\n{long}\nend");
            let text = Text::new(&s);
            assert_eq!(text.len_lines(), 3);
            let second = long.len() + 2;
            for (line, start) in [(0u32, 0), (1, second)] {
                for k in (0..20_000).step_by(997).chain([19_999]) {
                    let byte = start + 8 * k as usize;
                    let (c8, c16) = (8 * k, 4 * k);
                    assert_eq!(text.byte_to_position(byte, Utf8), p(line, c8));
                    assert_eq!(text.byte_to_position(byte, Utf16), p(line, c16));
                    assert_eq!(
                        text.byte_to_position(byte + 2, Utf16),
                        p(line, c16),
                        "in 😀"
                    );
                    assert_eq!(text.byte_to_position(byte + 5, Utf16), p(line, c16 + 3));
                    assert_eq!(
                        text.byte_to_position(byte + 6, Utf8),
                        p(line, c8 + 5),
                        "in 中"
                    );
                    assert_eq!(text.position_to_byte(p(line, c16), Utf16), byte);
                    assert_eq!(
                        text.position_to_byte(p(line, c16 + 1), Utf16),
                        byte,
                        "in 😀"
                    );
                    assert_eq!(text.position_to_byte(p(line, c16 + 2), Utf16), byte + 4);
                    assert_eq!(text.position_to_byte(p(line, c16 + 3), Utf16), byte + 5);
                    assert_eq!(
                        text.position_to_byte(p(line, c8 + 7), Utf8),
                        byte + 5,
                        "in 中"
                    );
                }
                let end = start + long.len();
                assert_eq!(text.byte_to_position(end, Utf16), p(line, 80_000));
                assert_eq!(text.position_to_byte(p(line, 80_000), Utf16), end);
                assert_eq!(text.position_to_byte(p(line, 80_001), Utf16), end);
                assert_eq!(text.position_to_byte(p(line, u32::MAX), Utf8), end);
            }
            assert_eq!(
                text.byte_to_position(long.len() + 1, Utf16),
                p(0, 80_000),
                "in CRLF"
            );
            assert_eq!(text.position_to_byte(p(2, 3), Utf16), s.len());
        }

        /// A 10 MB document: many rope chunks, CRLFs on chunk seams, sampled against the model.
        #[test]
        fn ten_megabyte_document() {
            let unit = "ab中😀\r\nx\ry\n\r\n— é\n";
            let s = unit.repeat(10 * 1024 * 1024 / unit.len());
            let text = Text::new(&s);
            let lines = model_lines(&s);
            assert_eq!(text.len_lines(), lines.len());
            let step = 104_729; // a prime, so samples land everywhere in the unit
            for byte in (0..s.len()).step_by(step).chain([s.len() - 1, s.len()]) {
                for enc in [Utf8, Utf16] {
                    for b in byte..byte + 8 {
                        let pos = text.byte_to_position(b, enc);
                        let line = pos.line as usize;
                        let (start, end) = lines[line];
                        assert!(start <= b.min(s.len()) && b.min(s.len()) <= end + 2);
                        let mut expected = b.min(s.len());
                        while !s.is_char_boundary(expected) {
                            expected -= 1;
                        }
                        expected = expected.min(end);
                        assert_eq!(
                            text.position_to_byte(pos, enc),
                            expected,
                            "byte {b}, {enc:?}"
                        );
                    }
                }
            }
            let last = text.len_lines() as u32 - 1;
            assert_eq!(text.position_to_byte(p(last, 0), Utf16), s.len());
            assert_eq!(text.byte_to_position(s.len(), Utf16), p(last, 0));
        }
    }

    mod lines {
        use super::*;
        use chatmd::document::text::{byte_in_line, col_in_line, utf16_len};
        use pretty_assertions::assert_eq;

        #[test]
        fn utf16_lengths() {
            assert_eq!(utf16_len(""), 0);
            assert_eq!(utf16_len("abc"), 3);
            assert_eq!(utf16_len("é中"), 2);
            assert_eq!(utf16_len("😀"), 2);
            assert_eq!(utf16_len("a😀\u{10FFFF}\u{FFFF}"), 6);
        }

        #[test]
        fn columns_within_one_line() {
            // a0 😀1..5 中5..8 \r8 \n9
            let line = "a😀中\r\n";
            let cols: Vec<(u32, u32)> = (0..=11)
                .map(|b| (col_in_line(line, b, Utf8), col_in_line(line, b, Utf16)))
                .collect();
            #[rustfmt::skip]
            let expected = vec![(0, 0), (1, 1), (1, 1), (1, 1), (1, 1), (5, 3), (5, 3), (5, 3),
                                (8, 4), (8, 4), (8, 4), (8, 4)];
            assert_eq!(cols, expected);
            let bytes: Vec<(usize, usize)> = (0..=6)
                .map(|c| (byte_in_line(line, c, Utf8), byte_in_line(line, c, Utf16)))
                .collect();
            assert_eq!(
                bytes,
                vec![(0, 0), (1, 1), (1, 1), (1, 5), (1, 8), (5, 8), (5, 8)]
            );
            assert_eq!(byte_in_line(line, u32::MAX, Utf16), 8);
            assert_eq!(byte_in_line("ab\n", 9, Utf8), 2);
            assert_eq!(byte_in_line("ab\r", 9, Utf8), 2);
            assert_eq!(byte_in_line("ab", 9, Utf8), 2);
        }

        #[test]
        fn agree_with_text_on_every_line() {
            let s = "a😀中\r\nxé\rz\n\n😀😀";
            let text = Text::new(s);
            for enc in [Utf8, Utf16] {
                for (line, &(start, end)) in model_lines(s).iter().enumerate() {
                    let line_text = text.slice(start..text.line_start(line + 1));
                    for b in start..=end {
                        let col = col_in_line(&line_text, b - start, enc);
                        assert_eq!(text.byte_to_position(b, enc), p(line as u32, col));
                        let back = byte_in_line(&line_text, col, enc);
                        assert_eq!(
                            text.position_to_byte(p(line as u32, col), enc),
                            start + back
                        );
                    }
                }
            }
        }
    }

    mod changes {
        use super::*;
        use chatmd::document::text::Edit;
        use pretty_assertions::assert_eq;

        fn change(
            s: &str,
            range: Option<(LineCol, LineCol)>,
            new: &str,
            enc: PositionEncoding,
        ) -> (String, Edit) {
            let mut text = Text::new(s);
            let edit = text.apply_change(range, new, enc);
            let out = text.to_string();
            check_against_model(&text, &out);
            // The first edit of a text as opened makes the same text.
            let mut opened = Text::from_string(s.to_owned());
            assert_eq!(opened.apply_change(range, new, enc), edit);
            check_against_model(&opened, &out);
            (out, edit)
        }

        fn edit(start: usize, old_end: usize, new_end: usize) -> Edit {
            Edit {
                start,
                old_end,
                new_end,
            }
        }

        #[test]
        fn insert() {
            for enc in [Utf8, Utf16] {
                assert_eq!(
                    change("hello world", Some((p(0, 5), p(0, 5))), ", big", enc),
                    ("hello, big world".into(), edit(5, 5, 10))
                );
            }
            // A column past the end of a CRLF line inserts before the `\r`.
            assert_eq!(
                change("a\r\nb", Some((p(0, 9), p(0, 9))), "x", Utf16),
                ("ax\r\nb".into(), edit(1, 1, 2))
            );
            assert_eq!(
                change("a", Some((p(5, 0), p(5, 0))), "\nend", Utf8),
                ("a\nend".into(), edit(1, 1, 5))
            );
        }

        #[test]
        fn delete() {
            assert_eq!(
                change("hello world", Some((p(0, 5), p(0, 11))), "", Utf16),
                ("hello".into(), edit(5, 11, 5))
            );
            assert_eq!(
                change("a😀b", Some((p(0, 1), p(0, 3))), "", Utf16),
                ("ab".into(), edit(1, 5, 1))
            );
            assert_eq!(
                change("a😀b", Some((p(0, 1), p(0, 5))), "", Utf8),
                ("ab".into(), edit(1, 5, 1))
            );
            // A reversed range is swapped.
            assert_eq!(
                change("hello world", Some((p(0, 11), p(0, 5))), "", Utf8),
                ("hello".into(), edit(5, 11, 5))
            );
        }

        #[test]
        fn replace_across_lines() {
            // one\n 0..4, two\n 4..8, three 8..13
            assert_eq!(
                change("one\ntwo\nthree", Some((p(0, 1), p(2, 2))), "X", Utf16),
                ("oXree".into(), edit(1, 10, 2))
            );
            assert_eq!(
                change("中\r\n文\r\n", Some((p(0, 1), p(1, 1))), "\n", Utf16),
                ("中\n\r\n".into(), edit(3, 8, 4))
            );
            assert_eq!(
                change("中\r\n文\r\n", Some((p(0, 3), p(1, 3))), "\n", Utf8),
                ("中\n\r\n".into(), edit(3, 8, 4))
            );
        }

        #[test]
        fn crlf_join_and_split() {
            // Inserting `\n` after a lone `\r` joins them into one break: still 2 lines.
            let mut text = Text::new("a\rb");
            assert_eq!(
                text.apply_change(Some((p(1, 0), p(1, 0))), "\n", Utf16),
                edit(2, 2, 3)
            );
            assert_eq!(text.to_string(), "a\r\nb");
            assert_eq!(text.len_lines(), 2);
            assert_eq!(text.position_to_byte(p(1, 0), Utf16), 3);
            assert_eq!(text.position_to_byte(p(0, 5), Utf16), 1);

            // Same at the very end of the text.
            let mut text = Text::new("a\r");
            text.apply_change(Some((p(1, 0), p(1, 0))), "\n", Utf8);
            assert_eq!((text.to_string().as_str(), text.len_lines()), ("a\r\n", 2));

            // Replacing the whole `\r\n` (the only way positions can reach it) by `\r` or `\n`.
            assert_eq!(
                change("a\r\nb", Some((p(0, 1), p(1, 0))), "\r", Utf16),
                ("a\rb".into(), edit(1, 3, 2))
            );
            assert_eq!(
                change("a\r\nb", Some((p(0, 1), p(1, 0))), "\n", Utf16),
                ("a\nb".into(), edit(1, 3, 2))
            );

            // Byte-level edits can split a CRLF: deleting its `\n` leaves a lone `\r` break...
            let mut text = Text::new("a\r\nb");
            assert_eq!(text.replace(2..3, ""), edit(2, 3, 2));
            check_against_model(&text, "a\rb");
            // ...and inserting between `\r` and `\n` makes two breaks.
            let mut text = Text::new("a\r\nb");
            assert_eq!(text.replace(2..2, "x"), edit(2, 2, 3));
            check_against_model(&text, "a\rx\nb");
            assert_eq!(text.len_lines(), 3);
            // Deleting its `\r` leaves a `\n` break.
            let mut text = Text::new("a\r\nb");
            text.replace(1..2, "");
            check_against_model(&text, "a\nb");
        }

        #[test]
        fn whole_document() {
            for enc in [Utf8, Utf16] {
                assert_eq!(
                    change("old\ntext", None, "new", enc),
                    ("new".into(), edit(0, 8, 3))
                );
                assert_eq!(change("", None, "", enc), ("".into(), edit(0, 0, 0)));
            }
        }

        #[test]
        fn a_sequence_like_an_editor_sends() {
            let mut text = Text::new("# Chat\n\nhi");
            let edits: Vec<Edit> = [
                (Some((p(2, 2), p(2, 2))), " there"),
                (Some((p(2, 0), p(2, 0))), "😀 "),
                (Some((p(2, 3), p(2, 5))), "bye"),
                (Some((p(0, 2), p(0, 6))), "Talk\r\n"),
            ]
            .into_iter()
            .map(|(range, new)| text.apply_change(range, new, Utf16))
            .collect();
            assert_eq!(text.to_string(), "# Talk\r\n\n\n😀 bye there");
            assert_eq!(
                edits,
                vec![
                    edit(10, 10, 16),
                    edit(8, 8, 13),
                    edit(13, 15, 16),
                    edit(2, 6, 8)
                ]
            );
        }

        #[test]
        #[expect(
            clippy::reversed_empty_ranges,
            reason = "reversed ranges are part of the API"
        )]
        fn byte_replace_clamps_and_snaps() {
            let mut text = Text::new("a😀b");
            assert_eq!(text.replace(3..100, "X"), edit(1, 6, 2));
            assert_eq!(text.to_string(), "aX");
            let mut text = Text::new("a😀b");
            assert_eq!(text.replace(5..2, ""), edit(1, 5, 1));
            assert_eq!(text.to_string(), "ab");
        }

        #[test]
        fn edit_delta_and_map_offset() {
            let replace = edit(5, 8, 6);
            assert_eq!(replace.delta(), -2);
            let mapped: Vec<usize> = (3..=10).map(|o| replace.map_offset(o)).collect();
            assert_eq!(mapped, vec![3, 4, 6, 6, 6, 6, 7, 8]);

            let insert = edit(5, 5, 8);
            assert_eq!(insert.delta(), 3);
            let mapped: Vec<usize> = (4..=6).map(|o| insert.map_offset(o)).collect();
            assert_eq!(
                mapped,
                vec![4, 8, 9],
                "an insertion at an offset lands before it"
            );

            let delete = edit(2, 6, 2);
            assert_eq!(delete.delta(), -4);
            let mapped: Vec<usize> = (1..=7).map(|o| delete.map_offset(o)).collect();
            assert_eq!(mapped, vec![1, 2, 2, 2, 2, 2, 3]);
        }
    }

    mod properties {
        use super::*;
        use proptest::collection::vec;
        use proptest::prelude::*;

        /// 256 cases unless `PROPTEST_CASES` says otherwise: a few seconds on 2 cores.
        fn config() -> ProptestConfig {
            let mut config = ProptestConfig::default();
            if std::env::var_os("PROPTEST_CASES").is_none() {
                config.cases = 256;
            }
            config
        }

        fn piece() -> impl Strategy<Value = String> {
            // `select` rather than a regex strategy: generation stays cheap in debug builds.
            const WORDS: &[&str] = &["a", "bc", "def ", " ", "# x", "```"];
            prop_oneof![
                6 => prop::sample::select(WORDS).prop_map(String::from),
                2 => Just("\n".to_string()),
                2 => Just("\r\n".to_string()),
                2 => Just("\r".to_string()),
                1 => Just("é".to_string()),
                1 => Just("中".to_string()),
                1 => Just("😀".to_string()),
                2 => any::<char>().prop_map(String::from),
            ]
        }

        /// Mostly short texts (one rope chunk); one in 32 spans two or more chunks (ropey 1.6
        /// chunks hold up to ~1 KB), so chunk seams are crossed too. Unoptimised ropey scans a
        /// chunk slowly, which is what bounds these sizes and weights.
        fn text() -> impl Strategy<Value = String> {
            prop_oneof![
                31 => vec(piece(), 0..40),
                1 => vec(piece(), 400..700),
            ]
            .prop_map(|pieces| pieces.concat())
        }

        fn small_text() -> impl Strategy<Value = String> {
            vec(piece(), 0..6).prop_map(|pieces| pieces.concat())
        }

        fn encoding() -> impl Strategy<Value = PositionEncoding> {
            prop_oneof![Just(Utf8), Just(Utf16)]
        }

        /// A change whose positions are picked relative to the current text: lines up to two
        /// past the last, columns up to three past the line's end (and sometimes huge).
        #[derive(Clone, Debug)]
        struct RawChange {
            whole: bool,
            ends: [(u32, u32); 2],
            new_text: String,
            enc: PositionEncoding,
        }

        fn raw_change() -> impl Strategy<Value = RawChange> {
            (
                prop::bool::weighted(0.05),
                [(any::<u32>(), any::<u32>()), (any::<u32>(), any::<u32>())],
                small_text(),
                encoding(),
            )
                .prop_map(|(whole, ends, new_text, enc)| RawChange {
                    whole,
                    ends,
                    new_text,
                    enc,
                })
        }

        fn pick_position(s: &str, (line, col): (u32, u32), enc: PositionEncoding) -> LineCol {
            let lines = model_lines(s);
            let line = line as usize % (lines.len() + 2);
            let width = lines.get(line).map_or(0, |&(a, b)| match enc {
                Utf8 => b - a,
                Utf16 => s[a..b].encode_utf16().count(),
            });
            let col = if col % 16 == 0 {
                col
            } else {
                col % (width as u32 + 4)
            };
            p(line as u32, col)
        }

        proptest! {
            #![proptest_config(config())]

            /// (a) Every char boundary survives byte → position → byte in both encodings, except
            /// the byte between the `\r` and `\n` of a CRLF, which is not an LSP position: it
            /// maps to the `\r`. (The round trip is asserted inside `check_against_model`, which
            /// also holds both directions, every line start/end and `line_of_byte` to the model.)
            #[test]
            fn positions_round_trip(s in text()) {
                check_against_model(&Text::new(&s), &s);
                check_against_model(&Text::from_string(s.clone()), &s);
            }

            /// (b) LSP changes applied to `Text` give the same string (and `Edit`s) as the same
            /// byte edits applied to a `String`; the rope's lines stay right afterwards.
            #[test]
            fn changes_match_a_string(
                s in text(),
                changes in vec(raw_change(), 1..12),
                opened in any::<bool>(),
            ) {
                let mut text = if opened { Text::from_string(s.clone()) } else { Text::new(&s) };
                let mut model = s;
                for change in changes {
                    let enc = change.enc;
                    let range = (!change.whole).then(|| {
                        let [a, b] = change.ends;
                        (pick_position(&model, a, enc), pick_position(&model, b, enc))
                    });
                    let (start, end) = match range {
                        None => (0, model.len()),
                        Some((a, b)) => {
                            let a = model_position_to_byte(&model, a, enc);
                            let b = model_position_to_byte(&model, b, enc);
                            (a.min(b), a.max(b))
                        }
                    };
                    let edit = text.apply_change(range, &change.new_text, enc);
                    model.replace_range(start..end, &change.new_text);
                    prop_assert_eq!(
                        (edit.start, edit.old_end, edit.new_end),
                        (start, end, start + change.new_text.len())
                    );
                    prop_assert_eq!(text.len_bytes(), model.len());
                }
                check_against_model(&text, &model);
            }

            /// Byte-level replacements (which may split a CRLF) match a `String` too.
            #[test]
            fn byte_replacements_match_a_string(
                s in text(),
                edits in vec((any::<usize>(), any::<usize>(), small_text()), 1..12),
                opened in any::<bool>(),
            ) {
                let mut text = if opened { Text::from_string(s.clone()) } else { Text::new(&s) };
                let mut model = s;
                for (a, b, new) in edits {
                    let snap = |x: usize| {
                        let mut x = x % (model.len() + 3);
                        x = x.min(model.len());
                        while !model.is_char_boundary(x) {
                            x -= 1;
                        }
                        x
                    };
                    let (a, b) = (snap(a), snap(b));
                    let (start, end) = (a.min(b), a.max(b));
                    let edit = text.replace(a..b, &new);
                    model.replace_range(start..end, &new);
                    prop_assert_eq!(
                        (edit.start, edit.old_end, edit.new_end),
                        (start, end, start + new.len())
                    );
                }
                check_against_model(&text, &model);
            }

            /// (c) Outside the edited span, `map_offset` is the identity before it and a shift
            /// by `delta` after it, and the text next to the offset is unchanged.
            #[test]
            fn map_offset_outside_the_edit_shifts(
                s in text(),
                a in any::<usize>(),
                b in any::<usize>(),
                new in small_text(),
            ) {
                let mut text = Text::new(&s);
                let len = s.len() + 1;
                let edit = text.replace(a % len..b % len, &new);
                let after = text.to_string();
                for old in (0..=s.len()).filter(|&o| s.is_char_boundary(o)) {
                    let mapped = edit.map_offset(old);
                    if old < edit.start {
                        prop_assert_eq!(mapped, old);
                        prop_assert_eq!(&after[..mapped], &s[..old]);
                    } else if old >= edit.old_end {
                        prop_assert_eq!(mapped as isize, old as isize + edit.delta());
                        prop_assert_eq!(&after[mapped..], &s[old..]);
                    } else {
                        prop_assert_eq!(mapped, edit.new_end);
                    }
                }
            }
        }
    }
}
