//! Warm headless claude members (`warmHeadless`): the second turn of a claude member
//! (the fake claude in `--input-format stream-json` mode), Send → its first streamed
//! byte in the document, when the member's process was kept after its first turn;
//! against the fake claude's own time to its first answer line for a second message on
//! a live process. The cold first turn is reported beside it. Measured as the ACP
//! member's row is (`warm.rs`).

use std::io::{BufRead, Write};
use std::process::Stdio;
use std::time::{Duration, Instant};

use serde_json::json;

use super::report::Report;
use super::turns::{Bench, fake};
use super::warm::{SecondTurn, second_turn_row};

pub fn rows(report: &mut Report) {
    second_turn_row(
        report,
        SecondTurn {
            member: "alice",
            options: json!({"warmHeadless": true}),
            row: "second turn of a headless claude member (warm, stream-json input), Send → first streamed byte, over the CLI's own first byte on a live process",
            baseline: "the fake claude's second message on a live process: its first answer line",
            raw: raw_second_message,
        },
    );
}

/// The fake claude alone reading messages on stdin, driven as chatmd drives a warm
/// member: after the first message's `result`, the time from writing the second
/// message to its first answer line (a `text_delta`).
fn raw_second_message(bench: &Bench, knobs: &[(&str, String)]) -> Duration {
    let mut child = fake(&bench.bin, "claude", bench.root(), knobs)
        .args([
            "-p",
            "--input-format",
            "stream-json",
            "--output-format",
            "stream-json",
            "--verbose",
            "--include-partial-messages",
        ])
        .stdin(Stdio::piped())
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
