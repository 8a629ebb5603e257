//! Warm headless claude members (`warmHeadless`): the second turn of a claude member
//! (the fake claude in `--input-format stream-json` mode), Send → its first streamed
//! byte in the document, when the member's process was kept after its first turn;
//! against the fake claude's own time to its first answer line for a second message on
//! a live process. The cold first turn is reported beside it.

use std::io::{BufRead, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::json;

use super::report::{Report, Row, Samples, ms};
use super::turns::{Bench, RUNS};

pub fn rows(report: &mut Report) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let answer = (0..40)
        .map(|i| format!("w{i}"))
        .collect::<Vec<_>>()
        .join(" ");
    let knobs = [
        ("FAKE_AGENT_TEXT", answer),
        ("FAKE_AGENT_CHUNKS", "10".to_string()),
        ("FAKE_AGENT_DELAY_MS", "20".to_string()),
    ];
    let bench = Bench::new(&knobs);
    let (mut colds, mut warms, mut raws) = (vec![], vec![], vec![]);
    for n in 0..RUNS + 1 {
        let (cold, warm) = runtime.block_on(two_turns(&bench, n));
        let raw = raw_second_message(&bench, &knobs);
        // The first run warms the page cache.
        if n > 0 {
            colds.push(cold);
            warms.push(warm);
            raws.push(raw);
        }
    }
    let (cold, warm, raw) = (Samples(colds), Samples(warms), Samples(raws));
    let (warm_ms, raw_ms) = (ms(warm.median()), ms(raw.median()));
    report.add(
        Row::new(
            "second turn of a headless claude member (warm, stream-json input), Send → first streamed byte, over the CLI's own first byte on a live process",
            warm_ms - raw_ms,
            "ms",
        )
        .target("<= +50 ms", warm_ms - raw_ms <= 50.0)
        .baseline(
            "the fake claude's second message on a live process: its first answer line",
            raw_ms,
            warm_ms / raw_ms,
        )
        .note(format!(
            "warm {warm_ms:.1} ms after Send ({}); the cold first turn: {:.1} ms ({})",
            warm.spread_ms(),
            ms(cold.median()),
            cold.spread_ms()
        )),
    );
}

/// A new chat asking alice (headless claude) twice: Send → the first answer bytes,
/// cold, then warm.
async fn two_turns(bench: &Bench, n: usize) -> (Duration, Duration) {
    let mut editor = bench
        .editor_with(&bench.bin, json!({"warmHeadless": true}))
        .await;
    let text = "## @me\n@alice go\n";
    let uri = bench.chat(&format!("warm-claude{n}.chat.md"), text);
    editor.open(&uri, text).await;
    let mut firsts = Vec::new();
    for turn in 1..=2 {
        if turn == 2 {
            editor
                .type_text(&uri, chatmd_tests::sim_editor::At::End, "@alice again\n")
                .await;
        }
        let start = Instant::now();
        editor
            .command("chatmd.send", json!({"uri": uri}))
            .await
            .unwrap();
        editor
            .run_until("the first words", |e| {
                e.text(&uri).matches("-->\nw0").count() == turn
            })
            .await;
        firsts.push(start.elapsed());
        editor
            .run_until("the answer", |e| {
                let text = e.text(&uri);
                text.matches("status=done").count() == turn && text.ends_with("## @me\n")
            })
            .await;
    }
    editor.client.shutdown().await;
    (firsts[0], firsts[1])
}

/// The fake claude alone reading messages on stdin, driven as chatmd drives a warm
/// member: after the first message's `result`, the time from writing the second
/// message to its first answer line (a `text_delta`).
fn raw_second_message(bench: &Bench, knobs: &[(&str, String)]) -> Duration {
    let mut child = Command::new(bench.bin.join("claude"))
        .args([
            "-p",
            "--input-format",
            "stream-json",
            "--output-format",
            "stream-json",
            "--verbose",
            "--include-partial-messages",
        ])
        .current_dir(bench.root())
        .env("IS_SANDBOX", "")
        .envs(knobs.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut send = |text: &str| {
        let line = json!({"type": "user", "message": {"role": "user", "content": text}});
        writeln!(stdin, "{line}").unwrap();
    };
    send("hi");
    let (mut asked, mut first) = (None::<Instant>, None);
    let out = std::io::BufReader::new(child.stdout.take().unwrap());
    for line in out.lines() {
        let line = line.unwrap();
        if let Some(asked) = asked
            && first.is_none()
            && line.contains(r#""type":"text_delta""#)
        {
            first = Some(asked.elapsed());
        }
        if line.starts_with(r#"{"type":"result""#) {
            if asked.is_some() {
                break;
            }
            asked = Some(Instant::now());
            send("again");
        }
    }
    drop(stdin);
    child.wait().unwrap();
    first.expect("the second message's first answer line")
}
