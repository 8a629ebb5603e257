//! Fault knobs: garbage and floods, crash, exit code, hangs, an ignored SIGTERM and a
//! grandchild holding the pipes.

use std::os::unix::process::{CommandExt, ExitStatusExt};

use chatmd::agents::AgentEvent;
use pretty_assertions::assert_eq;

use super::fake_support::{
    Sandbox, assert_closed, kill, kill_group, lines, next_line, process_group, run, wait,
};
use super::{fixture, good_args, parse};

#[test]
fn garbage_and_floods_do_not_change_the_answer() {
    let sandbox = Sandbox::new();
    for cli in ["claude", "codex", "gemini"] {
        let clean = run(sandbox.command(cli, good_args(cli)), None);
        let mut dirty = sandbox.command(cli, good_args(cli));
        dirty.env("FAKE_AGENT_GARBAGE", "1");
        let dirty = run(dirty, None);
        assert!(
            dirty.stdout.windows(2).any(|w| w == b"\xff\xfe"),
            "{cli}: invalid UTF-8"
        );
        assert!(
            dirty.stdout.windows(2).any(|w| w == b"\x1b["),
            "{cli}: ANSI escapes"
        );
        assert_eq!(
            parse(cli, &dirty.stdout, Some(0)),
            parse(cli, &clean.stdout, Some(0)),
            "{cli}"
        );

        let mut flood = sandbox.command(cli, good_args(cli));
        flood.env("FAKE_AGENT_FLOOD_MB", "1");
        let flood = run(flood, None);
        assert!(
            flood.stdout.len() >= 1024 * 1024 + clean.stdout.len(),
            "{cli}: {} bytes",
            flood.stdout.len()
        );
        let (text, outcome) = parse(cli, &flood.stdout, Some(0));
        assert!(text.matches("flood").count() > 1000, "{cli}");
        assert!(matches!(outcome, AgentEvent::Done { .. }), "{cli}");
    }
}

#[test]
fn crash_exit_and_hang_knobs() {
    let sandbox = Sandbox::new();
    let mut crash = sandbox.command("claude", good_args("claude"));
    crash.env("FAKE_AGENT_CRASH_AT", "3");
    let crashed = run(crash, None);
    assert_eq!(crashed.status.signal(), Some(6), "aborted");
    assert_eq!(crashed.stdout.iter().filter(|b| **b == b'\n').count(), 3);

    let mut exit = sandbox.command("gemini", good_args("gemini"));
    exit.env("FAKE_AGENT_EXIT", "7")
        .env("FAKE_AGENT_DELAY_MS", "1");
    let exited = run(exit, None);
    assert_eq!(exited.status.code(), Some(7));
    assert_eq!(
        String::from_utf8_lossy(&exited.stdout),
        fixture("gemini", "tool-use").0
    );

    let mut hang = sandbox.command("codex", good_args("codex"));
    hang.env("FAKE_AGENT_HANG_AFTER", "2");
    let mut child = hang.spawn().expect("spawn");
    let rx = lines(&mut child);
    let first_two = [next_line(&rx), next_line(&rx)];
    assert!(first_two[1].starts_with(b"{\"type\":\"turn.started\""));
    kill(child.id(), "KILL");
    let output = wait(child);
    assert_eq!(output.status.signal(), Some(9), "still hanging when killed");
    assert_closed(&rx, "nothing after the hang point");

    let mut silent = sandbox.command("gemini", good_args("gemini"));
    silent.env("FAKE_AGENT_HANG", "1");
    let mut child = silent.spawn().expect("spawn");
    let rx = lines(&mut child);
    kill(child.id(), "KILL");
    wait(child);
    assert_closed(&rx, "a hung agent prints nothing");
}

#[test]
fn sigterm_is_ignored_on_request() {
    let sandbox = Sandbox::new();
    for (ignore, expected_signal) in [("1", 9), ("0", 15)] {
        let mut command = sandbox.command("claude", good_args("claude"));
        command
            .env("FAKE_AGENT_IGNORE_TERM", ignore)
            .env("FAKE_AGENT_HANG_AFTER", "1");
        let mut child = command.spawn().expect("spawn");
        let rx = lines(&mut child);
        next_line(&rx); // the handler is installed before the first line
        // A default SIGTERM starts the exit as it is sent, so the KILL that follows
        // decides the status only when TERM was ignored.
        kill(child.id(), "TERM");
        kill(child.id(), "KILL");
        let output = wait(child);
        assert_eq!(
            output.status.signal(),
            Some(expected_signal),
            "IGNORE_TERM={ignore}"
        );
    }
}

#[test]
fn the_grandchild_shares_the_process_group_and_the_pipes() {
    let sandbox = Sandbox::new();
    let pid_file = sandbox.path("grandchild.pid");
    let mut command = sandbox.command("codex", good_args("codex"));
    command
        .env("FAKE_AGENT_GRANDCHILD", "1")
        .env("FAKE_AGENT_GRANDCHILD_PID", &pid_file)
        .process_group(0);
    let mut child = command.spawn().expect("spawn");
    let group = child.id();
    let rx = lines(&mut child);
    let expected = fixture("codex", "tool-use").0.lines().count();
    for _ in 0..expected {
        next_line(&rx);
    }
    let status = child.wait().expect("the fake itself exits");
    assert_eq!(status.code(), Some(0));
    let grandchild: u32 = std::fs::read_to_string(&pid_file)
        .expect("pid file")
        .trim()
        .parse()
        .expect("pid");
    assert_eq!(process_group(grandchild), Some(group), "same process group");
    // The grandchild still holds stdout open; killing the group closes it.
    kill_group(group, "KILL");
    assert_closed(&rx, "stdout is closed once the group is killed");
}
