//! Warm ACP members: the second turn of an ACP member (the fake claude-agent-acp), Send
//! → its first streamed byte in the document, when the member's agent was kept running
//! after its first turn; against the fake ACP agent's own time to its first answer
//! chunk for a second prompt on a live connection. The cold first turn is reported
//! beside it.

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
        let raw = raw_second_prompt(&bench, &knobs);
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
            "second turn of an ACP member (warm), Send → first streamed byte, over the agent's own first byte on a live connection",
            warm_ms - raw_ms,
            "ms",
        )
        .target("<= +50 ms", warm_ms - raw_ms <= 50.0)
        .baseline(
            "the fake ACP agent's second prompt on a live connection: its first answer bytes",
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

/// A new chat asking erin twice: Send → the first answer bytes, cold, then warm.
async fn two_turns(bench: &Bench, n: usize) -> (Duration, Duration) {
    let mut editor = bench.editor(&bench.bin).await;
    let text = "## @me\n@erin go\n";
    let uri = bench.chat(&format!("warm{n}.chat.md"), text);
    editor.open(&uri, text).await;
    let mut firsts = Vec::new();
    for turn in 1..=2 {
        if turn == 2 {
            editor
                .type_text(&uri, chatmd_tests::sim_editor::At::End, "@erin again\n")
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

/// The fake ACP agent alone on a live connection, driven as chatmd drives a warm
/// member: after a first prompt's result, the time from the second `session/prompt`
/// to its first answer chunk.
fn raw_second_prompt(bench: &Bench, knobs: &[(&str, String)]) -> Duration {
    use std::io::{BufRead, Write};
    let mut child = Command::new(bench.bin.join("claude-agent-acp"))
        .current_dir(bench.root())
        .env("IS_SANDBOX", "")
        .envs(knobs.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut send = |line: serde_json::Value| writeln!(stdin, "{line}").unwrap();
    send(
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": 1, "clientCapabilities": {}, "clientInfo": {"name": "bench", "version": "0"}}}),
    );
    let prompt = |id: i64, session: &serde_json::Value| {
        json!({"jsonrpc": "2.0", "id": id, "method": "session/prompt",
               "params": {"sessionId": session, "prompt": [{"type": "text", "text": "hi"}]}})
    };
    let (mut session, mut asked, mut first) = (json!(null), None::<Instant>, None);
    let out = std::io::BufReader::new(child.stdout.take().unwrap());
    for line in out.lines() {
        let message: serde_json::Value = serde_json::from_str(&line.unwrap()).unwrap();
        let update = &message["params"]["update"];
        if let Some(asked) = asked
            && first.is_none()
            && update["sessionUpdate"] == "agent_message_chunk"
            && update["content"]["text"]
                .as_str()
                .is_some_and(|t| !t.is_empty())
        {
            first = Some(asked.elapsed());
        }
        match message["id"].as_i64() {
            Some(1) if message.get("result").is_some() => send(json!({"jsonrpc": "2.0",
                "id": 2, "method": "session/new",
                "params": {"cwd": bench.root(), "mcpServers": []}})),
            Some(2) => {
                session = message["result"]["sessionId"].clone();
                send(prompt(3, &session));
            }
            Some(3) => {
                asked = Some(Instant::now());
                send(prompt(4, &session));
            }
            Some(4) => break,
            _ => {}
        }
    }
    drop(stdin);
    child.wait().unwrap();
    first.expect("the second prompt's first chunk")
}
