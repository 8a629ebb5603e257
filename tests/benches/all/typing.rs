//! Typing while answers stream: the user types the next message at the end of the chat,
//! key by key, while three members' sections stream above it, and the editor asks for
//! the outline after each key (as VS Code does for its breadcrumbs). Each key is timed
//! from its `didChange` to the outline's answer, without the time the editor itself
//! spends applying the server's edits that arrive meanwhile; the baseline is the same
//! keys in the same chat with nothing streaming, in the same run.

use std::time::{Duration, Instant};

use chatmd_tests::lsp_client::Arrival;
use chatmd_tests::sim_editor::SimEditor;
use serde_json::json;

use super::report::{Report, Row, Samples, ms};
use super::turns::Bench;

const KEYS: usize = 400;
const MEMBERS: [&str; 3] = ["alice", "bob", "carol"];

/// Types one key at the end and asks for the outline: the server-side time of both.
async fn key(editor: &mut SimEditor, uri: &str, c: char) -> Duration {
    let start = Instant::now();
    let end = editor.text(uri).len();
    editor.replace(uri, end..end, &c.to_string()).await;
    let id = editor
        .client
        .send_request(
            "textDocument/documentSymbol",
            json!({"textDocument": {"uri": uri}}),
        )
        .await;
    let mut editing = Duration::ZERO;
    loop {
        match editor
            .client
            .expect_response_or_request(id, "workspace/applyEdit")
            .await
        {
            Arrival::Response(answer) => {
                assert!(answer.is_ok(), "the outline: {answer:?}");
                return start.elapsed().saturating_sub(editing);
            }
            Arrival::Request(edit, params) => {
                let handling = Instant::now();
                editor.handle_edit(edit, params).await;
                editing += handling.elapsed();
            }
        }
    }
}

/// The user's next message, typed a key at a time.
fn next_message() -> Vec<char> {
    "\n## @me\nand now the rounding: is it banker's? "
        .chars()
        .cycle()
        .take(KEYS)
        .collect()
}

/// Keys typed while all three sections stream (only those are kept), and whether the
/// file ended right: every answer whole in its section and every key typed after them.
async fn while_streaming(bench: &Bench, answer: &str) -> (Samples, bool) {
    let mut editor = bench.editor(&bench.bin).await;
    let chat = "## @me\n@alice @bob @carol go\n";
    let uri = bench.chat("typing.chat.md", chat);
    editor.open(&uri, chat).await;
    editor
        .command("chatmd.send", json!({"uri": uri}))
        .await
        .expect("Send");
    editor
        .run_until("three sections streaming", |e| {
            e.text(&uri).matches("status=streaming").count() == 3
        })
        .await;
    let keys = next_message();
    let mut samples = Vec::new();
    for &c in &keys {
        let took = key(&mut editor, &uri, c).await;
        if editor.text(&uri).matches("status=streaming").count() == 3 {
            samples.push(took);
        }
    }
    editor
        .run_until("the three answers", |e| {
            e.text(&uri).matches("status=done").count() == 3
        })
        .await;
    let text = editor.text(&uri);
    let typed: String = keys.iter().collect();
    let mut right = text.contains(&typed) && text.matches(answer).count() == 3;
    for member in MEMBERS {
        let section = &text[text.find(&format!("## @{member}\n")).unwrap_or(0)..];
        let body = section.find("-->\n").map_or(0, |i| i + 4);
        right &= section[body..].starts_with(answer);
        right &= text.find(&format!("## @{member}\n")) < text.find(&typed);
    }
    (Samples(samples), right)
}

/// The same keys in the same chat once its answers are in: nothing streams.
async fn idle(bench: &Bench) -> Samples {
    let mut editor = bench.editor(&bench.bin).await;
    let chat = "## @me\n@alice @bob @carol go\n";
    let uri = bench.chat("idle.chat.md", chat);
    editor.open(&uri, chat).await;
    let mut samples = Vec::new();
    for c in next_message() {
        samples.push(key(&mut editor, &uri, c).await);
    }
    Samples(samples)
}

pub fn rows(report: &mut Report) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let answer = (0..400)
        .map(|i| format!("w{i}"))
        .collect::<Vec<_>>()
        .join(" ");
    // 400 chunks 20 ms apart: each section streams for 8 s, longer than the keys take.
    let knobs = [
        ("FAKE_AGENT_TEXT", answer.clone()),
        ("FAKE_AGENT_CHUNKS", "400".to_string()),
        ("FAKE_AGENT_DELAY_MS", "20".to_string()),
    ];
    let bench = Bench::new(&knobs);
    let quiet = runtime.block_on(idle(&bench));
    let (busy, right) = runtime.block_on(while_streaming(&bench, &answer));
    let (p99, quiet_p99) = (ms(busy.percentile(0.99)), ms(quiet.percentile(0.99)));
    report.add(
        Row::new(
            "a key typed at the end while three sections stream → outline answered, p99",
            p99,
            "ms",
        )
        .target(
            "<= 1 ms p99 over the same key with nothing streaming; every answer whole, every key after them",
            p99 - quiet_p99 <= 1.0 && right && busy.0.len() >= KEYS / 2,
        )
        .baseline("the same keys, nothing streaming, p99", quiet_p99, p99 / quiet_p99)
        .note(format!(
            "p50 {:.2} ms; {} keys while all three streamed; answers whole and keys after them: {right}",
            ms(busy.median()),
            busy.0.len()
        )),
    );
}
