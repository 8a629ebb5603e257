//! Warm members: a member's second turn, Send → its first streamed byte in the
//! document, when the member's agent was kept running after its first turn; against
//! the agent's own time to its first answer bytes for a second prompt on a live
//! process. The cold first turn is reported beside it. Here for an ACP member (the
//! fake claude-agent-acp); `warm_claude.rs` has the same row for a headless claude
//! member in stream-json input mode.

use std::time::Duration;

use serde_json::{Value, json};

use super::acp_alone::AcpAlone;
use super::report::{Report, Row, Samples, ms};
use super::turns::{Bench, RUNS, runtime, send_until, short_answer};

/// A second-turn row: whose turns, with which settings, compared with what.
pub struct SecondTurn {
    pub member: &'static str,
    /// The editor's initialization options beside `agentPath`.
    pub options: Value,
    pub row: &'static str,
    pub baseline: &'static str,
    /// The agent alone on a live process: its first answer bytes for a second prompt.
    pub raw: fn(&Bench, &[(&str, String)]) -> Duration,
}

pub fn rows(report: &mut Report) {
    second_turn_row(
        report,
        SecondTurn {
            member: "erin",
            options: json!({}),
            row: "second turn of an ACP member (warm), Send → first streamed byte, over the agent's own first byte on a live connection",
            baseline: "the fake ACP agent's second prompt on a live connection: its first answer bytes",
            raw: raw_second_prompt,
        },
    );
}

/// Measures `case` [`RUNS`] times (after one run that warms the page cache), each turn
/// beside its agent alone, and reports the medians.
pub fn second_turn_row(report: &mut Report, case: SecondTurn) {
    let runtime = runtime();
    let knobs = short_answer();
    let bench = Bench::new(&knobs);
    let (mut colds, mut warms, mut raws) = (vec![], vec![], vec![]);
    for n in 0..RUNS + 1 {
        let (cold, warm) = runtime.block_on(two_turns(&bench, &case, n));
        let raw = (case.raw)(&bench, &knobs);
        if n > 0 {
            colds.push(cold);
            warms.push(warm);
            raws.push(raw);
        }
    }
    let (cold, warm, raw) = (Samples(colds), Samples(warms), Samples(raws));
    let (warm_ms, raw_ms) = (ms(warm.median()), ms(raw.median()));
    report.add(
        Row::new(case.row, warm_ms - raw_ms, "ms")
            .target("<= +50 ms", warm_ms - raw_ms <= 50.0)
            .baseline(case.baseline, raw_ms, warm_ms / raw_ms)
            .note(format!(
                "warm {warm_ms:.1} ms after Send ({}); the cold first turn: {:.1} ms ({})",
                warm.spread_ms(),
                ms(cold.median()),
                cold.spread_ms()
            )),
    );
}

/// A new chat asking the member twice: Send → the first answer bytes, cold, then warm.
async fn two_turns(bench: &Bench, case: &SecondTurn, n: usize) -> (Duration, Duration) {
    let mut editor = bench.editor_with(&bench.bin, case.options.clone()).await;
    let member = case.member;
    let text = format!("## @me\n@{member} go\n");
    let uri = bench.chat(&format!("warm-{member}{n}.chat.md"), &text);
    editor.open(&uri, &text).await;
    let mut firsts = Vec::new();
    for turn in 1..=2 {
        if turn == 2 {
            let again = format!("@{member} again\n");
            editor
                .type_text(&uri, chatmd_tests::sim_editor::At::End, &again)
                .await;
        }
        let first = send_until(&mut editor, &uri, "the first words", |text| {
            text.matches("-->\nw0").count() == turn
        })
        .await;
        firsts.push(first);
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
    let mut agent = AcpAlone::start(&bench.bin, bench.root(), knobs);
    let session = agent.new_session();
    agent.prompt(&session);
    let second = agent.prompt(&session);
    agent.end();
    second.first
}
