//! Rows per shape of chat (`shapes.rs`): the first outline, and the server's CPU per
//! keystroke with the requests an editor sends after each key (didChange, then
//! documentSymbol, foldingRange, codeLens, and the diagnostics the server publishes
//! for the new version). Real chats are not all the bench's mix: 500k tiny messages,
//! status comments with long `seen=` records, a few huge answers, CJK and emoji with
//! CRLF.

use std::time::Duration;

use serde_json::{Value, json};

use super::lsp::chat_folder;
use super::parse::generate_chat;
use super::report::{Report, Row, Samples, ms};
use super::shapes::shapes;
use super::stdio::Server;

/// The `x` typed at the end of the middle line, the `nth` time.
fn keystroke(uri: &str, text: &str, version: i32, nth: usize) -> Value {
    let middle = text.len() / 2;
    let start = text[..middle].rfind('\n').map_or(0, |i| i + 1);
    let line = text[..start].matches('\n').count();
    let end = text[start..]
        .find(['\r', '\n'])
        .map_or(text.len(), |i| start + i);
    let character = text[start..end].encode_utf16().count() + nth;
    let at = json!({"line": line, "character": character});
    json!({"textDocument": {"uri": uri, "version": version},
           "contentChanges": [{"range": {"start": at, "end": at}, "text": "x"}]})
}

/// CPU time the server's threads have used (`/proc/<pid>/task/*/schedstat`, in ns).
fn cpu(pid: u32) -> Duration {
    let tasks = std::fs::read_dir(format!("/proc/{pid}/task")).expect("/proc lists threads");
    let ns: u64 = tasks
        .filter_map(|t| std::fs::read_to_string(t.ok()?.path().join("schedstat")).ok())
        .filter_map(|s| s.split_whitespace().next()?.parse::<u64>().ok())
        .sum();
    Duration::from_nanos(ns)
}

/// Fresh servers the first outline is measured on: on a shared machine single runs
/// of a 10 MB open spread by 20 ms, and the median of 3 moved by as much between runs.
const FIRST_OUTLINES: usize = 7;

/// The first outline (a fresh server each time) and the CPU per keystroke with the
/// editor's requests, on one chat; `None` when the server does not open it.
fn measure(text: &str, keystrokes: usize) -> Option<(Samples, Samples)> {
    let (dir, uri) = chat_folder(text, true);
    let mut firsts = Vec::new();
    let mut per_key = Vec::new();
    for round in 0..FIRST_OUTLINES {
        let mut server = Server::start();
        server.initialize(dir.path());
        let (_, request) = server.request_frame(
            "textDocument/documentSymbol",
            json!({"textDocument": {"uri": uri}}),
        );
        let open = Server::notification_frame(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri, "languageId": "markdown", "version": 1, "text": text}}),
        );
        let (took, answer) = server.round_trip(&[open, request].concat());
        if !answer.starts_with(br#"{"jsonrpc":"2.0","result":["#) {
            return None;
        }
        firsts.push(took);
        if round > 0 {
            server.shutdown();
            continue;
        }
        let doc = json!({"textDocument": {"uri": uri}});
        let pid = server.pid();
        for nth in 0..keystrokes {
            let version = 2 + nth as i32;
            let before = cpu(pid);
            server.notify(
                "textDocument/didChange",
                keystroke(&uri, text, version, nth),
            );
            for method in [
                "textDocument/documentSymbol",
                "textDocument/foldingRange",
                "textDocument/codeLens",
            ] {
                server.request(method, doc.clone());
            }
            // They may come before the requests' answers (a fast check): read then.
            server.published_at(uri.as_str(), i64::from(version));
            // The first keystroke turns the opened string into a rope, once.
            if nth > 0 {
                per_key.push(cpu(pid) - before);
            }
        }
        server.shutdown();
    }
    Some((Samples(firsts), Samples(per_key)))
}

/// Keys typed (the first is not counted: it turns the opened text into a rope).
const KEYS: usize = 25;

/// Rows for the mix at 100 KB (what a keystroke costs in a small chat), each shape at
/// 10 MB, the mix at 30 MB, and the first outline at 50 MB.
pub fn rows(report: &mut Report) {
    const MB: usize = 10 << 20;
    let text = generate_chat(100 << 10).0;
    let (first, per_key) = measure(&text, KEYS).expect("a 100 KB chat opens");
    let messages = text.matches("\n## @").count() + 1;
    shape_rows(
        report,
        (
            &format!(
                "the bench's mix at {:.1} MB ({messages} messages)",
                text.len() as f64 / 1e6
            ),
            text.len(),
        ),
        &first,
        &per_key,
        5.0,
    );
    let mut mix_10 = None;
    for shape in shapes().into_iter().filter(|s| s.text.len() < 2 * MB) {
        let text = shape.text;
        let messages = text.matches("\n## @").count() + 1;
        let (first, per_key) = measure(&text, KEYS).expect("a 10 MB chat opens");
        let value = ms(per_key.median());
        if mix_10.is_none() {
            mix_10 = Some(value);
        }
        shape_rows(
            report,
            (
                &format!(
                    "{} ({:.1} MB, {messages} messages)",
                    shape.name,
                    text.len() as f64 / 1e6
                ),
                text.len(),
            ),
            &first,
            &per_key,
            5.0,
        );
    }
    let text = generate_chat(3 * MB).0;
    let (first, per_key) = measure(&text, KEYS).expect("a 30 MB chat opens");
    let limit = 2.0 * mix_10.unwrap_or(5.0).min(5.0);
    shape_rows(
        report,
        (
            &format!("the bench's mix at {:.1} MB", text.len() as f64 / 1e6),
            text.len(),
        ),
        &first,
        &per_key,
        limit,
    );
    let text = generate_chat(5 * MB).0;
    let name = format!(
        "the bench's mix at {:.1} MB: didOpen → documentSymbol",
        text.len() as f64 / 1e6
    );
    let allowed = outline_allowed(text.len());
    let target = format!("<= {allowed:.0} ms (50 ms a 10 MB)");
    let row = match measure(&text, 4) {
        Some((first, per_key)) => Row::new(name, ms(first.median()), "ms")
            .target(target, ms(first.median()) <= allowed)
            .note(format!(
                "{}; per keystroke {:.2} ms CPU",
                first.spread_ms(),
                ms(per_key.median())
            )),
        None => Row::new(name, f64::NAN, "ms")
            .target(target, false)
            .note("the outline answered null: the document was not opened"),
    };
    report.add(row);
}

/// The first outline's target: 50 ms a 10 MB chat (the issue's target for every 10 MB
/// shape), as much again a 10 MB for a larger chat.
pub(super) fn outline_allowed(chat_bytes: usize) -> f64 {
    50.0 * (chat_bytes as f64 / 10.5e6).max(1.0)
}

/// The rows of one shape of chat: `chat_bytes` long, its first outline and its CPU per
/// keystroke (`limit`).
fn shape_rows(
    report: &mut Report,
    (shape, chat_bytes): (&str, usize),
    first: &Samples,
    per_key: &Samples,
    limit: f64,
) {
    let value = ms(first.median());
    let outline_allowed = outline_allowed(chat_bytes);
    report.add(
        Row::new(format!("{shape}: didOpen → documentSymbol"), value, "ms")
            .target(
                format!("<= {outline_allowed:.0} ms (50 ms a 10 MB)"),
                value <= outline_allowed,
            )
            .note(first.spread_ms()),
    );
    let value = ms(per_key.median());
    report.add(
        Row::new(
            format!("{shape}: server CPU per keystroke with the editor's requests"),
            value,
            "ms",
        )
        .target(format!("<= {limit:.1} ms"), value <= limit)
        .note(format!(
            "didChange, documentSymbol, foldingRange, codeLens, diagnostics published; {}",
            per_key.spread_ms()
        )),
    );
}
