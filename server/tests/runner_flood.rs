//! The runner under output floods: 128 MiB of lines and a single 20 MiB line pass
//! through with every line counted and the runner's memory within its caps.

#[path = "runner/support.rs"]
mod support;

use std::sync::atomic::Ordering;

use chatmd::agents::AgentEvent;
use chatmd::runner::Settings;
use pretty_assertions::assert_eq;
use support::*;

const MIB: u64 = 1024 * 1024;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_128_mib_flood_is_read_whole_in_bounded_memory() {
    // 63 characters and a newline: 2 Mi lines exactly.
    let line = format!("{:-<63}", "flood line ");
    let agent = Agent::new(&format!("yes '{line}' | head -c {}", 128 * MIB));
    let counting = CountingParser {
        expected: line.clone(),
        lines: Default::default(),
        wrong: Default::default(),
    };
    let (lines, wrong) = (counting.lines.clone(), counting.wrong.clone());

    let (outcome, events) =
        run_to_end(agent.invocation(), Box::new(counting), Settings::default()).await;

    assert!(outcome.is_success(), "{:?}", outcome.ended);
    assert!(events.is_empty());
    let expected_lines = 128 * MIB / 64;
    assert_eq!(lines.load(Ordering::Relaxed), expected_lines);
    assert_eq!(wrong.load(Ordering::Relaxed), 0);
    assert_eq!(outcome.stats.lines, expected_lines);
    assert_eq!(outcome.stats.stdout_bytes, 128 * MIB);
    assert_eq!(outcome.stats.longest_line, 63);
    assert_eq!(outcome.stats.skipped_long_lines, 0);
    // Every line fit in one read or two: the line buffer never grew past one line.
    assert!(outcome.stats.peak_line_buffer <= 128, "{:?}", outcome.stats);
    // The whole test process, this test and its neighbour included, stayed far
    // below the flood's size.
    assert!(peak_rss() < 64 * MIB, "peak RSS {} MiB", peak_rss() / MIB);
}

#[tokio::test]
async fn a_20_mib_line_is_skipped_with_a_notice_and_the_rest_delivered() {
    let agent = Agent::new(&format!(
        "echo before\nhead -c {} /dev/zero | tr '\\0' x\necho\necho after",
        20 * MIB
    ));
    let settings = Settings::default();

    let (outcome, events) = run_to_end(agent.invocation(), TestParser::boxed(), settings).await;

    assert!(outcome.is_success(), "{:?}", outcome.ended);
    assert_eq!(
        &events[..3],
        &[
            AgentEvent::Text("before".into()),
            AgentEvent::Notice(format!(
                "skipped an output line of {} bytes (over the {} byte limit)",
                20 * MIB,
                settings.max_line
            )),
            AgentEvent::Text("after".into()),
        ]
    );
    assert_eq!(outcome.stats.skipped_long_lines, 1);
    assert_eq!(outcome.stats.lines, 2);
    assert!(
        outcome.stats.peak_line_buffer <= settings.max_line,
        "{:?}",
        outcome.stats
    );
    assert!(peak_rss() < 64 * MIB, "peak RSS {} MiB", peak_rss() / MIB);
}
