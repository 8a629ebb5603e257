//! The agents' output, from the pipe to events. The runner's `LineReader`, fed an
//! agent's stdout in any pieces, gives the lines of the whole output: split at `\n`, one
//! `\r` before it dropped, invalid UTF-8 replaced, a line over the cap skipped as
//! `TooLong` with its length, the unterminated last line kept. Each adapter's parser
//! (claude stream-json, codex and gemini JSON lines, a `command` entry's text or JSON
//! pointers) does not panic on those lines, gives the same events for the pieces as for
//! the whole, and its events are sound: answer text is non-empty and clean (no control
//! character but tab and line feed, no escape sequence); a tool summary is one clean
//! line (it goes into the chat, where a line break could start a message); the turn
//! ends (a `Done` or `Failed`) once the process has exited; and no answer text comes
//! after the turn ended.
//!
//! Input: the first byte picks the parser (`% 6`: claude, codex, gemini, command text,
//! command JSON lines, the same with `done_value`) and how the process exited (`>> 3 % 3`:
//! code 0, code 1, a signal); the second byte the line cap (`0`: the runner's 16 MiB,
//! else that many bytes); the third how many cuts (0–15), the next two bytes per cut say
//! where (modulo the output's length); the rest is the output.
#![no_main]

use std::borrow::Cow;
use std::io;
use std::pin::Pin;
use std::sync::OnceLock;
use std::task::{Context, Poll};

use chatmd::agents::claude::ClaudeParser;
use chatmd::agents::codex::CodexParser;
use chatmd::agents::command::CommandParser;
use chatmd::agents::gemini::GeminiParser;
use chatmd::agents::{AgentEvent, CommandOutput, ExitInfo, JsonPointers, OutputParser, sanitize};
use chatmd::runner::lines::{Line, LineReader};
use libfuzzer_sys::fuzz_target;
use tokio::io::{AsyncRead, ReadBuf};

fuzz_target!(|data: &[u8]| {
    let [pick, cap, count, rest @ ..] = data else {
        return;
    };
    let max_line = if *cap == 0 {
        16 << 20
    } else {
        usize::from(*cap)
    };
    let cuts = usize::from(count % 16).min(rest.len() / 2);
    let (places, output) = rest.split_at(cuts * 2);
    let mut at: Vec<usize> = places
        .chunks(2)
        .map(|p| usize::from(u16::from_le_bytes([p[0], p[1]])) % (output.len() + 1))
        .collect();
    at.sort_unstable();

    let whole = read_lines(output, &[], max_line);
    assert_eq!(whole, expected_lines(output, max_line), "one read");
    let cut = read_lines(output, &at, max_line);
    assert_eq!(cut, whole, "cut at {at:?}");

    let exit = ExitInfo {
        code: [Some(0), Some(1), None][usize::from(pick >> 3) % 3],
        stderr_tail: "error: \u{1b}[31mboom\u{1b}[0m\n".to_owned(),
    };
    let events = parse(*pick, &cut, &exit);
    assert_eq!(events, parse(*pick, &whole, &exit));
    check_events(&events);
});

/// A line as the runner gets it, owned.
#[derive(Debug, PartialEq)]
enum Owned {
    Text(String),
    TooLong(u64),
}

/// What the lines of `output` must be, computed the plain way.
fn expected_lines(output: &[u8], max_line: usize) -> Vec<Owned> {
    let mut lines: Vec<&[u8]> = output.split(|&b| b == b'\n').collect();
    if lines.last().is_some_and(|l| l.is_empty()) {
        lines.pop();
    }
    lines
        .into_iter()
        .map(|line| {
            if line.len() > max_line {
                Owned::TooLong(line.len() as u64)
            } else {
                let line = line.strip_suffix(b"\r").unwrap_or(line);
                Owned::Text(String::from_utf8_lossy(line).into_owned())
            }
        })
        .collect()
}

/// The lines the runner's reader gives for `output` arriving in pieces cut at `cuts`.
fn read_lines(output: &[u8], cuts: &[usize], max_line: usize) -> Vec<Owned> {
    static RUNTIME: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    let runtime = RUNTIME.get_or_init(|| {
        tokio::runtime::Builder::new_current_thread()
            .build()
            .expect("a runtime")
    });
    let pipe = Pieces {
        data: output.to_vec(),
        cuts: cuts.to_vec(),
        pos: 0,
    };
    runtime.block_on(async {
        let mut reader = LineReader::new(pipe, max_line);
        let mut lines = Vec::new();
        loop {
            while let Some(line) = reader.next_line() {
                lines.push(match line {
                    Line::Text(text) => Owned::Text(Cow::into_owned(text)),
                    Line::TooLong(n) => Owned::TooLong(n),
                });
            }
            if !reader.fill().await.expect("reading from memory") {
                while let Some(line) = reader.next_line() {
                    lines.push(match line {
                        Line::Text(text) => Owned::Text(Cow::into_owned(text)),
                        Line::TooLong(n) => Owned::TooLong(n),
                    });
                }
                return lines;
            }
        }
    })
}

/// A pipe that gives `data` in pieces ending at `cuts`.
struct Pieces {
    data: Vec<u8>,
    cuts: Vec<usize>,
    pos: usize,
}

impl AsyncRead for Pieces {
    fn poll_read(
        mut self: Pin<&mut Self>,
        _: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let pos = self.pos;
        let end = self
            .cuts
            .iter()
            .copied()
            .find(|&c| c > pos)
            .unwrap_or(self.data.len());
        let n = (end - pos).min(buf.remaining());
        buf.put_slice(&self.data[pos..pos + n]);
        self.pos += n;
        Poll::Ready(Ok(()))
    }
}

/// The events of the parser `pick` selects for `lines`, then for the exit.
fn parse(pick: u8, lines: &[Owned], exit: &ExitInfo) -> Vec<AgentEvent> {
    let pointers = |done_value: Option<&str>| JsonPointers {
        text: "/text".to_owned(),
        session: Some("/session".to_owned()),
        done: Some("/done".to_owned()),
        done_value: done_value.map(str::to_owned),
        error: Some("/error".to_owned()),
    };
    let mut parser: Box<dyn OutputParser> = match pick % 6 {
        0 => Box::new(ClaudeParser::new("claude")),
        1 => Box::new(CodexParser::new("codex")),
        2 => Box::new(GeminiParser::new("gemini")),
        3 => Box::new(CommandParser::new("llm", &CommandOutput::Text)),
        4 => Box::new(CommandParser::new(
            "llm",
            &CommandOutput::Jsonl(pointers(None)),
        )),
        _ => Box::new(CommandParser::new(
            "llm",
            &CommandOutput::Jsonl(pointers(Some("true"))),
        )),
    };
    let mut events = Vec::new();
    for line in lines {
        // The runner gives the parser text lines; a skipped line is only a notice.
        if let Owned::Text(text) = line {
            parser.line(text, &mut events);
        }
    }
    parser.finish(exit, &mut events);
    events
}

fn check_events(events: &[AgentEvent]) {
    let clean = |text: &str| sanitize(text) == text;
    let mut ended = false;
    for event in events {
        match event {
            AgentEvent::Text(text) => {
                assert!(!text.is_empty(), "empty text in {events:?}");
                assert!(clean(text), "{text:?} is not clean");
                assert!(!ended, "text after the end in {events:?}");
            }
            AgentEvent::Tool {
                summary, detail, ..
            } => {
                assert!(
                    clean(summary) && !summary.contains('\n'),
                    "tool summary {summary:?}"
                );
                if let Some(detail) = detail {
                    assert!(clean(detail), "tool detail {detail:?}");
                }
            }
            AgentEvent::Done { .. } | AgentEvent::Failed { .. } => ended = true,
            _ => {}
        }
    }
    assert!(ended, "the turn never ended: {events:?}");
}
