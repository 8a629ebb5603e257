//! The chatmd benchmark: prints a table of measurements next to their baselines,
//! measured in the same run so machine noise cancels out of the ratios.
//!
//! Run: `cargo bench -p chatmd --bench chatmd_bench`

use std::hint::black_box;
use std::time::{Duration, Instant};

use chatmd::agents::AgentKind;
use chatmd::agents::{AgentEntry, parser_for};
use chatmd::document::chat::Chat;
use chatmd::document::text::{LineCol, PositionEncoding, Text};

#[path = "support/server_memory.rs"]
mod server_memory;

/// A chat of about `target` bytes, with the mix real chats have: status comments,
/// mentions, markers, code fences, lists, quotes. With `prose`, every answer also
/// has a paragraph of explanation, as agents' answers do: 10 MB then hold about 20k
/// messages, the chat the issue's target names; without, messages are half as long.
fn generate_chat(target: usize, prose: bool) -> (String, usize) {
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
            s.push_str(&format!("<!-- chatmd id=t{n} agent=claude status=done session=6f1c0e2a-{n:08} took=12.4s tokens=1200/340 -->\n"));
            if prose {
                s.push_str("The change keeps the public API as it was: callers of `refund()` get the same signature, and the rounding now happens once, after the conversion, so three-decimal amounts come out right. I ran the whole suite twice; the one failure left is the flaky network test, which is unrelated to this change and already tracked as its own issue.\n\n");
            }
        }
        match n % 5 {
            0 => s.push_str("@reviewer please look at `src/pay.rs` again, and @tester add a property test for `refund()`.\nThe rounding in refunds is off by one cent when the amount has three decimals.\n\n"),
            1 => s.push_str("Three problems stand out:\n\n1. `refund()` rounds before it converts the currency.\n2. The retry loop never gives up.\n   ```rust\n   loop { retry(); }\n   ```\n3. Errors are swallowed.\n\n[NEXT: tester]\n\n"),
            2 => s.push_str("Here is the test:\n\n```rust\n#[test]\nfn refund_rounds_after_conversion() {\n    // ## @not-a-message\n    assert_eq!(refund(10.005, Eur), 10.01);\n}\n```\n\nIt fails on main, as expected. [DONE]\n\n"),
            3 => s.push_str("> **Permission** `p1` — tester wants to run `cargo test` (Execute)\n> - [ ] allow once · - [ ] allow always · - [ ] reject\n\nI will wait for the answer before going on. Mail ops@example.com if needed.\n\n"),
            _ => s.push_str("Summary so far, for the release notes:\n\n- the rounding bug is fixed\n- retries stop after five attempts\n- errors are reported to the caller\n\n    indented code line\n\n"),
        }
        n += 1;
    }
    (s, n)
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn percentile(v: &mut [Duration], p: f64) -> Duration {
    v.sort();
    v[((v.len() as f64 - 1.0) * p).round() as usize]
}

fn time<T>(runs: usize, mut f: impl FnMut() -> T) -> Duration {
    let mut samples = Vec::with_capacity(runs);
    for _ in 0..runs {
        let start = Instant::now();
        black_box(f());
        samples.push(start.elapsed());
    }
    median(samples)
}

fn gbps(bytes: usize, d: Duration) -> f64 {
    bytes as f64 / d.as_secs_f64() / 1e9
}

fn rate(bytes: usize, d: Duration) -> String {
    format!(
        "{:.2} GB/s ({:.1} ms)",
        gbps(bytes, d),
        d.as_secs_f64() * 1e3
    )
}

fn row(what: &str, measured: String, baseline: String, target: &str, ok: bool) {
    println!(
        "| {what:<44} | {measured:>22} | {baseline:>26} | {target:<30} | {} |",
        if ok { "ok  " } else { "MISS" }
    );
}

fn main() {
    let (text, messages) = generate_chat(10 << 20, true);
    let bytes = text.len();
    println!(
        "chatmd benchmark — {:.1} MB chat, {messages} messages, median of repeated runs\n",
        bytes as f64 / 1e6
    );
    println!(
        "| {:<44} | {:>22} | {:>26} | {:<30} | ok?  |",
        "what", "chatmd", "baseline (same run)", "target"
    );
    println!(
        "|{}|{}|{}|{}|------|",
        "-".repeat(46),
        "-".repeat(24),
        "-".repeat(28),
        "-".repeat(32)
    );

    // Full parse against pulldown-cmark's bare event pass over the same bytes.
    let parsed = Chat::parse(&text);
    assert_eq!(
        parsed.messages.len(),
        messages,
        "the generated chat parses into every message"
    );
    let ours = time(15, || Chat::parse(&text));
    let oracle = time(5, || pulldown_cmark::Parser::new(&text).count());
    row(
        "full parse of the chat",
        rate(bytes, ours),
        format!("pulldown-cmark {:.2} GB/s", gbps(bytes, oracle)),
        ">= 1 GB/s and >= pulldown-cmark",
        gbps(bytes, ours) >= 1.0 && ours <= oracle,
    );
    // The same on one thread: what each part's scan does.
    let one_thread = time(15, || Chat::parse_on_threads(&text, 1));
    row(
        "  the same on one thread",
        rate(bytes, one_thread),
        format!(
            "{} threads above",
            std::thread::available_parallelism()
                .map_or(1, usize::from)
                .min(8)
        ),
        "(information)",
        true,
    );
    // A chat of short messages: twice as many lines and headings per byte.
    let (short, short_messages) = generate_chat(10 << 20, false);
    assert_eq!(Chat::parse(&short).messages.len(), short_messages);
    let short_time = time(15, || Chat::parse(&short));
    row(
        &format!("  a chat of {}k short messages", short_messages / 1000),
        rate(short.len(), short_time),
        format!(
            "one thread {}",
            rate(short.len(), time(15, || Chat::parse_on_threads(&short, 1)))
        ),
        "(information)",
        true,
    );

    // Where the parse time goes: the line pass alone, and a bare memchr line count.
    let lines_only = time(15, || {
        chatmd::document::scanner::Scanner::new(&text, 0).count()
    });
    let newlines = time(15, || memchr::memchr_iter(b'\n', text.as_bytes()).count());
    row(
        "  line classification alone, one thread",
        rate(bytes, lines_only),
        format!("memchr line count {:.2} GB/s", gbps(bytes, newlines)),
        "(information)",
        true,
    );

    // Keystrokes: an incremental change and the re-parse it causes, as `didChange` does.
    let mut doc = Text::new(&text);
    let mut chat = Chat::parse(&text);
    let lines = doc.len_lines() as u32;
    let mut samples = Vec::new();
    let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
    for i in 0..3000 {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let line = 20 + (seed % (lines as u64 - 40)) as u32;
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
    let p50 = percentile(&mut samples, 0.5);
    let p99 = percentile(&mut samples, 0.99);
    let ratio = ours.as_secs_f64() / p99.as_secs_f64();
    row(
        "keystroke: didChange + incremental re-parse",
        format!(
            "p50 {:.0} µs, p99 {:.0} µs",
            p50.as_secs_f64() * 1e6,
            p99.as_secs_f64() * 1e6
        ),
        format!(
            "full re-parse {:.1} ms ({ratio:.0}x)",
            ours.as_secs_f64() * 1e3
        ),
        "p99 <= 1 ms and >= 50x faster",
        p99 <= Duration::from_millis(1) && ratio >= 50.0,
    );
    assert_eq!(
        chat,
        Chat::parse(&doc.to_string()),
        "incremental parsing stayed exact"
    );

    event_parsing();

    // The server as an editor runs it, with the chat open.
    let mb = bytes as f64 / 1e6;
    let allowed = 3.0 * mb + 20.0;
    match server_memory::with_chat_open(&text) {
        Some(memory) => row(
            "server memory with the chat open",
            format!("RSS {:.0} MB (peak {:.0})", memory.open, memory.peak),
            format!("idle {:.0} MB; chat {mb:.1} MB", memory.idle),
            &format!("<= 3 x chat + 20 MB = {allowed:.0} MB"),
            memory.peak <= allowed,
        ),
        None => println!("(server memory not measured: no /proc on this system)"),
    }

    // 100k pasted `@word`s nobody in the team answers to: 100k problems, of which the
    // first 1000 are shown and one more diagnostic says how many are not.
    let words: Vec<String> = (0..100_000).map(|i| format!("@nobody{i}")).collect();
    let problems = format!("## @me\n{}\n", words.join(" "));
    let mb = problems.len() as f64 / 1e6;
    let allowed = 2.0 * mb + 20.0;
    if let Some(memory) = server_memory::with_chat_open(&problems) {
        row(
            "a chat with 100k problems",
            format!("RSS {:.0} MB (peak {:.0})", memory.open, memory.peak),
            format!("{} diagnostics; chat {mb:.1} MB", memory.diagnostics),
            &format!("1001 diags, RSS <= {allowed:.0} MB"),
            memory.diagnostics == 1001 && memory.open <= allowed,
        );
    }
}

/// A long streamed answer in each CLI's real JSONL format (the recorded transcripts'
/// shapes, repeated), parsed into events, against serde_json parsing the same lines
/// into untyped values — the least any JSONL reader must do.
fn event_parsing() {
    let fixtures =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/agents");
    for (kind, file) in [
        (AgentKind::Claude, "claude/streaming.jsonl"),
        (AgentKind::Codex, "codex/tool-use.jsonl"),
        (AgentKind::Gemini, "gemini/streaming.jsonl"),
    ] {
        let transcript = std::fs::read_to_string(fixtures.join(file)).expect("transcript");
        let lines: Vec<&str> = transcript.lines().collect();
        // The middle of a transcript (its streamed events) repeated to ~20 MB, framed by
        // its first and last lines so the parser sees a whole turn.
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
        // As the runner does: one vector of events, emptied after each line.
        let ours = time(5, || {
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
        let baseline = time(5, || {
            stream
                .iter()
                .filter(|l| serde_json::from_str::<serde_json::Value>(l).is_ok())
                .count()
        });
        let mbps = bytes as f64 / ours.as_secs_f64() / 1e6;
        row(
            &format!("event parsing, {kind} JSONL"),
            format!("{mbps:.0} MB/s"),
            format!(
                "serde_json::Value {:.0} MB/s",
                bytes as f64 / baseline.as_secs_f64() / 1e6
            ),
            ">= 200 MB/s",
            mbps >= 200.0,
        );
    }
}
