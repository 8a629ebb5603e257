//! A council of three ACP members (the fake claude-agent-acp) over its three rounds
//! (answers, reviews, the chair's decision: 7 turns), Send → the last turn done in the
//! document; against the three fake agents driven alone through the same rounds (each
//! started and initialized once, a new session per round, the rounds one after the
//! other and the members of a round side by side, as chatmd runs them). The overhead
//! is chatmd's part of the council's time, per turn.

use std::sync::Barrier;
use std::time::{Duration, Instant};

use super::acp_alone::AcpAlone;
use super::report::{Report, Row, Samples, ms};
use super::turns::{Bench, RUNS, runtime, send_until, short_answer};

const MEMBERS: [&str; 3] = ["erin", "fay", "gus"];
/// Three answers, three reviews, one decision.
const TURNS: usize = 7;

pub fn rows(report: &mut Report) {
    let runtime = runtime();
    let knobs = short_answer();
    let bench = Bench::new(&knobs);
    let (mut councils, mut raws) = (vec![], vec![]);
    for n in 0..RUNS + 1 {
        let council = runtime.block_on(council(&bench, n));
        let raw = raw_council(&bench, &knobs);
        // The first run warms the page cache.
        if n > 0 {
            councils.push(council);
            raws.push(raw);
        }
    }
    let (council, raw) = (Samples(councils), Samples(raws));
    let (council_ms, raw_ms) = (ms(council.median()), ms(raw.median()));
    let per_turn = (council_ms - raw_ms) / TURNS as f64;
    report.add(
        Row::new(
            "a council of three ACP members over 3 rounds (7 turns), Send → the decision done: overhead per turn over the agents' own time",
            per_turn,
            "ms",
        )
        .target("<= +30 ms per turn", per_turn <= 30.0)
        .baseline(
            "the three fake ACP agents driven alone through the same rounds",
            raw_ms / TURNS as f64,
            council_ms / raw_ms,
        )
        .note(format!(
            "council {council_ms:.1} ms ({}), agents alone {raw_ms:.1} ms ({}); the baseline column is per turn too",
            council.spread_ms(),
            raw.spread_ms()
        )),
    );
}

/// One council in a new chat: Send → every round done and the user's heading back.
async fn council(bench: &Bench, n: usize) -> Duration {
    let mut editor = bench.editor(&bench.bin).await;
    let text = "---\nrouting: council\nchair: erin\n---\n## @me\n@erin @fay @gus which cache?\n";
    let uri = bench.chat(&format!("council{n}.chat.md"), text);
    editor.open(&uri, text).await;
    let decided = send_until(&mut editor, &uri, "the council's decision", |text| {
        text.matches("status=done").count() == TURNS && text.ends_with("## @me\n")
    });
    // A council that stalls fails the row with what the chat shows, rather than
    // waiting on it for good.
    let took = match tokio::time::timeout(Duration::from_secs(60), decided).await {
        Ok(took) => took,
        Err(_) => panic!("the council did not end in 60 s:\n{}", editor.text(&uri)),
    };
    let text = editor.text(&uri);
    assert_eq!(text.matches("council=decision").count(), 1, "{text}");
    editor.client.shutdown().await;
    took
}

/// The three fakes alone through the council's rounds: the first starts and
/// initializes each, every round is a new session and one prompt, the chair alone
/// decides. Each round waits for all its members, as a council does.
fn raw_council(bench: &Bench, knobs: &[(&str, String)]) -> Duration {
    let rounds = Barrier::new(MEMBERS.len() + 1);
    let start = Instant::now();
    std::thread::scope(|scope| {
        for (at, _) in MEMBERS.iter().enumerate() {
            let rounds = &rounds;
            scope.spawn(move || {
                let mut agent = AcpAlone::start(&bench.bin, bench.root(), knobs);
                for round in 0..3 {
                    // The chair (the first member) alone decides.
                    if round < 2 || at == 0 {
                        let session = agent.new_session();
                        agent.prompt(&session);
                    }
                    rounds.wait();
                }
                agent.end();
            });
        }
        for _ in 0..3 {
            rounds.wait();
        }
        start.elapsed()
    })
}
