//! Parsing rows: a full parse of a 10 MB chat (one thread and parallel) against
//! pulldown-cmark's bare event pass over the same bytes, a keystroke's incremental
//! re-parse against the full parse, and each CLI's JSONL events against serde_json.

use std::hint::black_box;
use std::time::{Duration, Instant};

use chatmd::agents::{AgentEntry, AgentKind, parser_for};
use chatmd::document::chat::Chat;
use chatmd::document::text::{LineCol, PositionEncoding, Text};

use super::report::{Report, Row, Samples, ms};

/// A chat of about `target` bytes, with the mix real chats have: status comments,
/// mentions, markers, code fences, lists, quotes, and a paragraph of explanation in
/// every answer: 10 MB hold about 20k messages. Sessions are in claude's own shape (a
/// UUID), as chatmd records them: in another shape every answer would carry a warning,
/// and a chat full of problems is a row of its own (every mention unknown).
pub fn generate_chat(target: usize) -> (String, usize) {
    let mut s = String::with_capacity(target + 4096);
    s.push_str("---\ntitle: Benchmark chat\nmembers: [reviewer, tester, writer]\nmax_chain: 3\n---\n\nWe are hardening the payment module before the release.\n\n");
    let handles = ["me", "reviewer", "tester", "writer"];
    let mut n = 0;
    while s.len() < target {
        let h = handles[n % handles.len()];
        s.push_str("## @");
        s.push_str(h);
        s.push('\n');
        if h != "me" {
            s.push_str(&format!("<!-- chatmd id=t{n} agent=claude status=done session=6f1c0e2a-0000-4000-8000-{n:012} took=12.4s tokens=1200/340 -->\n"));
            s.push_str("The change keeps the public API as it was: callers of `refund()` get the same signature, and the rounding now happens once, after the conversion, so three-decimal amounts come out right. I ran the whole suite twice; the one failure left is the flaky network test, which is unrelated to this change and already tracked as its own issue.\n\n");
        }
        match n % 5 {
            0 => s.push_str("@reviewer please look at `src/pay.rs` again, and @tester add a property test for `refund()`.\nThe rounding in refunds is off by one cent when the amount has three decimals.\n\n"),
            1 => s.push_str("Three problems stand out:\n\n1. `refund()` rounds before it converts the currency.\n2. The retry loop never gives up.\n   ```rust\n   loop { retry(); }\n   ```\n3. Errors are swallowed.\n\n[NEXT: tester]\n\n"),
            2 => s.push_str("Here is the test:\n\n```rust\n#[test]\nfn refund_rounds_after_conversion() {\n    // ## @not-a-message\n    assert_eq!(refund(10.005, Eur), 10.01);\n}\n```\n\nIt fails on main, as expected. [DONE]\n\n"),
            3 => s.push_str("> **Permission** `t3-p1` — tester wants to run `cargo test` (execute)\n> - [ ] Allow · - [ ] Always allow · - [ ] Reject\n\nI will wait for the answer before going on. Mail ops@example.com if needed.\n\n"),
            _ => s.push_str("Summary so far, for the release notes:\n\n- the rounding bug is fixed\n- retries stop after five attempts\n- errors are reported to the caller\n\n    indented code line\n\n"),
        }
        n += 1;
    }
    (s, n)
}

/// `runs` timings of `f` after `warm` untimed ones.
fn time<T>(warm: usize, runs: usize, mut f: impl FnMut() -> T) -> Samples {
    for _ in 0..warm {
        black_box(f());
    }
    Samples(
        (0..runs)
            .map(|_| {
                let start = Instant::now();
                black_box(f());
                start.elapsed()
            })
            .collect(),
    )
}

/// `runs` timings each of `ours` and `theirs`, run in turn, after `warm` untimed ones.
fn interleaved<A, B>(
    warm: usize,
    runs: usize,
    mut ours: impl FnMut() -> A,
    mut theirs: impl FnMut() -> B,
) -> (Samples, Samples) {
    for _ in 0..warm {
        black_box(ours());
        black_box(theirs());
    }
    let (mut a, mut b) = (Vec::with_capacity(runs), Vec::with_capacity(runs));
    for _ in 0..runs {
        let start = Instant::now();
        black_box(ours());
        a.push(start.elapsed());
        let start = Instant::now();
        black_box(theirs());
        b.push(start.elapsed());
    }
    (Samples(a), Samples(b))
}

fn gbps(bytes: usize, d: Duration) -> f64 {
    bytes as f64 / d.as_secs_f64() / 1e9
}

pub fn rows(report: &mut Report, text: &str, messages: usize) {
    let bytes = text.len();
    assert_eq!(
        Chat::parse(text).messages.len(),
        messages,
        "the generated chat parses into every message"
    );
    let size = format!(
        "{:.1} MB, {}k messages",
        bytes as f64 / 1e6,
        messages / 1000
    );
    // Interleaved, a run of each in turn: a machine that gets busier or quieter during
    // the measurement moves both sides, not one.
    let (one, oracle) = interleaved(
        2,
        15,
        || Chat::parse_on_threads(text, 1),
        || pulldown_cmark::Parser::new(text).count(),
    );
    let (ours, theirs) = (gbps(bytes, one.median()), gbps(bytes, oracle.median()));
    report.add(
        Row::new(
            "full parse of a 10 MB chat (20k messages), one thread",
            ours,
            "GB/s",
        )
        .target(
            ">= 1 GB/s and >= 5 x pulldown-cmark",
            ours >= 1.0 && ours >= 5.0 * theirs,
        )
        .baseline("pulldown-cmark's bare event pass", theirs, ours / theirs)
        .note(format!(
            "{size}; {}; pulldown-cmark {}",
            one.spread_ms(),
            oracle.spread_ms()
        )),
    );
    let threads = std::thread::available_parallelism().map_or(1, usize::from);
    let parallel = time(2, 15, || Chat::parse(text));
    let all = gbps(bytes, parallel.median());
    report.add(
        Row::new("the same, parallel", all, "GB/s")
            .target(">= 2 GB/s", all >= 2.0)
            .baseline("one thread", ours, all / ours)
            .note(format!("{threads} cores; {}", parallel.spread_ms())),
    );
    keystrokes(report, text, one.median());
    for kind in [AgentKind::Claude, AgentKind::Codex, AgentKind::Gemini] {
        report.add(event_parsing(kind));
    }
}

/// Keystrokes all over the chat: an incremental change and the re-parse it causes, as
/// `didChange` does, against a full parse on one thread.
fn keystrokes(report: &mut Report, text: &str, full: Duration) {
    let mut doc = Text::new(text);
    let mut chat = Chat::parse(text);
    let lines = doc.len_lines() as u64;
    let mut samples = Vec::new();
    let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
    for i in 0..3000 {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let line = 20 + (seed % (lines - 40)) as u32;
        let at = LineCol { line, col: 0 };
        // Type a character, then delete it again: the document stays the same size.
        let (range, insert) = if i % 2 == 0 {
            ((at, at), "x")
        } else {
            ((at, LineCol { line, col: 1 }), "")
        };
        let start = Instant::now();
        let edit = doc.apply_change(Some(range), insert, PositionEncoding::Utf16);
        chat.reparse(&edit, doc.len_bytes(), |r| doc.slice(r));
        samples.push(start.elapsed());
    }
    assert_eq!(
        chat,
        Chat::parse(&doc.to_string()),
        "incremental parsing stayed exact"
    );
    let samples = Samples(samples);
    let (p50, p99) = (samples.percentile(0.5), samples.percentile(0.99));
    for (name, value) in [("p50", p50), ("p99", p99)] {
        let ratio = full.as_secs_f64() / value.as_secs_f64();
        report.add(
            Row::new(
                format!("a keystroke in that chat, server side, {name}"),
                ms(value),
                "ms",
            )
            .target(
                "<= 1 ms p99, >= 50 x faster than a full parse",
                value <= Duration::from_millis(1) && ratio >= 50.0,
            )
            .baseline("a full parse on one thread", ms(full), ratio)
            .note("3000 keystrokes"),
        );
    }
}

/// A long streamed answer in a CLI's real JSONL format (the recorded transcripts'
/// shapes, repeated to ~20 MB), parsed into events as the runner does, against
/// serde_json parsing the same lines into untyped values.
fn event_parsing(kind: AgentKind) -> Row {
    let file = match kind {
        AgentKind::Claude => "claude/streaming.jsonl",
        AgentKind::Codex => "codex/tool-use.jsonl",
        AgentKind::Gemini => "gemini/streaming.jsonl",
    };
    let fixtures = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/agents");
    let transcript = std::fs::read_to_string(fixtures.join(file)).expect("transcript");
    let lines: Vec<&str> = transcript.lines().collect();
    let middle = &lines[1..lines.len() - 1];
    let mut stream: Vec<&str> = vec![lines[0]];
    let mut bytes = 0;
    while bytes < 20 << 20 {
        for l in middle {
            stream.push(l);
            bytes += l.len() + 1;
        }
    }
    stream.push(lines[lines.len() - 1]);
    let entry = AgentEntry::builtin(kind);
    let ours = time(1, 5, || {
        let mut parser = parser_for(&entry);
        let mut events = Vec::new();
        let mut count = 0;
        for line in &stream {
            parser.line(line, &mut events);
            count += events.len();
            events.clear();
        }
        count
    });
    let baseline = time(1, 5, || {
        stream
            .iter()
            .filter(|l| serde_json::from_str::<serde_json::Value>(l).is_ok())
            .count()
    });
    let rate = |d: Duration| bytes as f64 / d.as_secs_f64() / 1e6;
    let (ours, theirs) = (rate(ours.median()), rate(baseline.median()));
    Row::new(format!("event parsing, {kind} JSONL"), ours, "MB/s")
        .target(">= 200 MB/s", ours >= 200.0)
        .baseline("serde_json::Value", theirs, ours / theirs)
}
