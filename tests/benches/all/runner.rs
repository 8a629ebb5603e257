//! The runner's cost per turn: a whole turn through `runner::run` against spawning the
//! same program with `std::process::Command::output()`, interleaved, without and with
//! the agent guard; and its throughput on a flood of lines.

use std::process::Command;
use std::time::{Duration, Instant};

use chatmd::agents::{AgentEvent, ExitInfo, Invocation, Limits, OutputParser, Stdin};
use chatmd::runner;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::report::{Report, Row, Samples, ms};
use super::stdio::chatmd_binary;

/// Lines become text; the exit code decides the end (a `command` agent's shape).
struct Plain;

impl OutputParser for Plain {
    fn line(&mut self, line: &str, out: &mut Vec<AgentEvent>) {
        out.push(AgentEvent::Text(line.to_string()));
    }

    fn finish(&mut self, exit: &ExitInfo, out: &mut Vec<AgentEvent>) {
        out.push(match exit.code {
            Some(0) => AgentEvent::Done {
                stop_reason: None,
                usage: None,
            },
            code => AgentEvent::Failed {
                message: format!("exit {code:?}"),
            },
        });
    }
}

fn invocation(program: &str, args: &[&str]) -> Invocation {
    Invocation {
        program: program.to_string(),
        args: args.iter().map(|a| a.to_string()).collect(),
        env: Vec::new(),
        create_dirs: Vec::new(),
        cwd: std::env::temp_dir(),
        stdin: Stdin::Null,
        limits: Limits {
            idle: None,
            total: Duration::from_secs(60),
            has_completion_event: false,
        },
        install_hint: None,
        session: Default::default(),
    }
}

/// One turn through the runner, its events drained like the turn engine would.
async fn turn(invocation: Invocation) -> usize {
    turn_with(invocation, Box::new(Plain)).await
}

async fn turn_with(invocation: Invocation, parser: Box<dyn OutputParser>) -> usize {
    let (events, mut received) = mpsc::channel(64);
    let drain = tokio::spawn(async move {
        let mut n = 0;
        while received.recv().await.is_some() {
            n += 1;
        }
        n
    });
    let outcome = runner::run(invocation, parser, events, CancellationToken::new()).await;
    assert!(outcome.is_success(), "{:?}", outcome.ended);
    drain.await.unwrap()
}

/// Median time of a turn and of a bare `output()` of the same command, alternating
/// so that drift on the machine hits both alike.
fn compare(
    rt: &tokio::runtime::Runtime,
    program: &str,
    args: &[&str],
    runs: usize,
) -> (Duration, Duration) {
    let mut measured = Vec::with_capacity(runs);
    let mut baseline = Vec::with_capacity(runs);
    for i in 0..runs + 10 {
        let start = Instant::now();
        rt.block_on(turn(invocation(program, args)));
        let through_runner = start.elapsed();
        let start = Instant::now();
        let output = Command::new(program).args(args).output().unwrap();
        assert!(output.status.success());
        let direct = start.elapsed();
        if i >= 10 {
            // the first runs warm up the page cache and the runtime
            measured.push(through_runner);
            baseline.push(direct);
        }
    }
    (Samples(measured).median(), Samples(baseline).median())
}

pub fn rows(report: &mut Report) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let runs = 200;
    turn_rows(report, &rt, runs, "");

    // Throughput: 256 MiB of 64-byte lines through the runner and its parser, against
    // `sh` piping the same bytes to /dev/null.
    let bytes = 256 * 1024 * 1024;
    let script = format!("yes '{:-<63}' | head -c {bytes}", "flood line ");
    let start = Instant::now();
    let lines = rt.block_on(turn(invocation("/bin/sh", &["-c", &script])));
    let with_events = start.elapsed();
    assert_eq!(lines, bytes / 64 + 1);
    let start = Instant::now();
    let direct = Command::new("/bin/sh")
        .args(["-c", &format!("{script} > /dev/null")])
        .status()
        .unwrap();
    assert!(direct.success());
    let baseline = start.elapsed();
    let rate = |d: Duration| bytes as f64 / d.as_secs_f64() / 1e6;
    let (ours, theirs) = (rate(with_events), rate(baseline));
    report.add(
        Row::new(
            "256 MiB of 64-byte agent output lines through the runner, one event a line",
            ours,
            "MB/s",
        )
        .target("(information)", true)
        .baseline("the same bytes piped to /dev/null", theirs, ours / theirs),
    );

    // The same turns with every agent started by the agent guard, which kills their
    // groups when this process dies (what the `chatmd` binary does): one guard for
    // all the turns, asked over its socket to start each agent.
    runner::guard_agents_with(chatmd_binary());
    turn_rows(report, &rt, runs, " through the agent guard");
}

/// A row per program: a turn through the runner against `Command::output()`.
fn turn_rows(report: &mut Report, rt: &tokio::runtime::Runtime, runs: usize, how: &str) {
    for (program, args) in [
        ("/bin/echo", &["hello from the agent"][..]),
        ("/bin/true", &[][..]),
    ] {
        let (measured, baseline) = compare(rt, program, args, runs);
        let extra = ms(measured) - ms(baseline);
        report.add(
            Row::new(
                format!("runner overhead per turn{how}, `{program}`"),
                extra,
                "ms",
            )
            .target("<= +5 ms", extra <= 5.0)
            .baseline(
                "Command::output() of the same",
                ms(baseline),
                ms(measured) / ms(baseline),
            )
            .note(format!("{runs} turns each, medians")),
        );
    }
}
