//! The memory of 8 warm members: `chatmd lsp` (the built binary, as an editor runs it,
//! its agents started by its one agent guard) after an ACP member answered in 8
//! chats, its 8 agents kept; against the same 8 fake agents alone after one prompt
//! each. What keeping them costs beyond the agents' own memory: the server's growth
//! over a server that answered the same 8 chats with nothing kept
//! (`warmIdleSeconds: 0`), plus the agent guard (counted whole, though the server
//! with nothing kept runs one too), plus every process in the agents' process groups,
//! minus the agents alone.
//! Read as RSS (shared pages count in each process) and as PSS (shared pages split
//! between the processes sharing them: what the machine pays).

use std::time::Duration;

use serde_json::{Value, json};

use super::acp_alone::AcpAlone;
use super::report::{Report, Row};
use super::turns::{Bench, runtime, send_until, short_answer};

const MEMBERS: usize = 8;
/// Measurements are made this many times, and the medians reported.
const SAMPLES: usize = 3;

/// Resident memory, in MB.
#[derive(Clone, Copy, Default, Debug)]
struct Memory {
    rss: f64,
    pss: f64,
}

impl std::ops::Add for Memory {
    type Output = Memory;
    fn add(self, other: Memory) -> Memory {
        Memory {
            rss: self.rss + other.rss,
            pss: self.pss + other.pss,
        }
    }
}

impl std::ops::Sub for Memory {
    type Output = Memory;
    fn sub(self, other: Memory) -> Memory {
        Memory {
            rss: self.rss - other.rss,
            pss: self.pss - other.pss,
        }
    }
}

pub fn rows(report: &mut Report) {
    let runtime = runtime();
    let knobs = short_answer();
    let bench = Bench::new(&knobs);
    let (mut costs, mut aloners, mut parts) = (vec![], vec![], vec![]);
    for n in 0..SAMPLES {
        let warm = runtime.block_on(answered(&bench, n, json!({})));
        let cold = runtime.block_on(answered(&bench, n, json!({"warmIdleSeconds": 0})));
        assert_eq!(cold.agents.rss, 0.0, "nothing kept with warmIdleSeconds 0");
        let alone = agents_alone(&bench, &knobs);
        let part = [warm.server - cold.server, warm.guards, warm.agents - alone];
        costs.push(part[0] + part[1] + part[2]);
        parts.push(part);
        aloners.push(alone);
    }
    for (unit, read) in [
        ("RSS", (|m: &Memory| m.rss) as fn(&Memory) -> f64),
        ("PSS", |m: &Memory| m.pss),
    ] {
        let cost = median(costs.iter().map(read).collect());
        let alone = median(aloners.iter().map(read).collect());
        let part = |at: usize| median(parts.iter().map(|p| read(&p[at])).collect());
        report.add(
            Row::new(
                format!("8 warm ACP members, {unit}: the server's growth and the agents' process groups, over the agents alone"),
                cost,
                "MB",
            )
            .target("<= the agents' own + 5 MB", cost <= 5.0)
            .baseline(
                format!("8 fake ACP agents alone after a prompt each, {unit}"),
                alone,
                (alone + cost) / alone,
            )
            .note(format!(
                "the server's growth {:.1} MB, the agent guard {:.1} MB, the agents under chatmd over alone {:.1} MB; median of {SAMPLES}, each: {}",
                part(0),
                part(1),
                part(2),
                costs
                    .iter()
                    .map(|m| format!("{:.1}", read(m)))
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
        );
    }
}

/// What a server's processes use.
struct Measured {
    server: Memory,
    /// The agent guard: the server's child that starts its agents.
    guards: Memory,
    /// The rest of those groups: the agents.
    agents: Memory,
}

/// A `chatmd lsp` with `options` where erin answered in 8 chats: the memory of the
/// server and of every process group it started that still runs (the kept agents).
async fn answered(bench: &Bench, n: usize, options: Value) -> Measured {
    let (mut editor, server) = bench.process_editor(options.clone()).await;
    for chat in 0..MEMBERS {
        let text = "## @me\n@erin go\n";
        let uri = bench.chat(&format!("kept{n}-{chat}.chat.md"), text);
        editor.open(&uri, text).await;
        send_until(&mut editor, &uri, "the answer", |text| {
            text.contains("status=done") && text.ends_with("## @me\n")
        })
        .await;
    }
    // The kept agents idle, or with nothing kept every agent gone.
    let kept = options_keep(&options);
    settle(server, kept).await;
    let guards = children(server);
    let agents = group_members(server);
    let measured = Measured {
        server: memory_of(&[server]),
        guards: memory_of(&guards),
        agents: memory_of(&agents),
    };
    editor.client.shutdown().await;
    measured
}

fn options_keep(options: &Value) -> bool {
    options["warmIdleSeconds"] != json!(0)
}

/// Waits (bounded) until the groups of [`MEMBERS`] kept agents run for `server`, or
/// with nothing `kept`, until every agent it started has ended.
async fn settle(server: u32, kept: bool) {
    for _ in 0..200 {
        let members = group_members(server);
        let leaders = leaders(server).len();
        assert!(children(server).len() <= 1, "one agent guard per server");
        if (kept && leaders == MEMBERS) || (!kept && members.is_empty()) {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("the server's agents did not settle (kept: {kept})");
}

/// 8 fake ACP agents alone, each after a prompt on a session of its own, still running.
fn agents_alone(bench: &Bench, knobs: &[(&str, String)]) -> Memory {
    let mut agents: Vec<AcpAlone> = (0..MEMBERS)
        .map(|_| AcpAlone::start(&bench.bin, bench.root(), knobs))
        .collect();
    for agent in &mut agents {
        let session = agent.new_session();
        agent.prompt(&session);
    }
    let pids: Vec<u32> = agents.iter().map(AcpAlone::pid).collect();
    let memory = memory_of(&pids);
    for agent in agents {
        agent.end();
    }
    memory
}

/// Every live process as (pid, parent, process group).
fn processes() -> Vec<(u32, u32, u32)> {
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|entry| entry.file_name().to_str()?.parse::<u32>().ok())
        .filter_map(|pid| {
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
            let after = &stat[stat.rfind(')')? + 1..];
            let fields: Vec<&str> = after.split_ascii_whitespace().collect();
            let live = !matches!(fields.first(), Some(&"Z" | &"X"));
            live.then_some((
                pid,
                fields.get(1)?.parse().ok()?,
                fields.get(2)?.parse().ok()?,
            ))
        })
        .collect()
}

/// The children of `server`: its agent guard.
fn children(server: u32) -> Vec<u32> {
    processes()
        .into_iter()
        .filter(|&(_, parent, _)| parent == server)
        .map(|(pid, _, _)| pid)
        .collect()
}

/// The agents `server`'s guard started: its children that lead a process group.
fn leaders(server: u32) -> Vec<u32> {
    let guards = children(server);
    processes()
        .into_iter()
        .filter(|&(pid, parent, group)| guards.contains(&parent) && group == pid)
        .map(|(pid, _, _)| pid)
        .collect()
}

/// Every process in the agents' process groups (the agent, what the agent started).
fn group_members(server: u32) -> Vec<u32> {
    let groups = leaders(server);
    processes()
        .into_iter()
        .filter(|&(_, _, group)| groups.contains(&group))
        .map(|(pid, _, _)| pid)
        .collect()
}

/// The summed RSS and PSS of `pids`, in MB (`/proc/<pid>/smaps_rollup`).
fn memory_of(pids: &[u32]) -> Memory {
    let field = |rollup: &str, name: &str| {
        rollup
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
            .map_or(0.0, |kb| kb / 1024.0)
    };
    pids.iter()
        .map(|pid| {
            let rollup =
                std::fs::read_to_string(format!("/proc/{pid}/smaps_rollup")).unwrap_or_default();
            Memory {
                rss: field(&rollup, "Rss:"),
                pss: field(&rollup, "Pss:"),
            }
        })
        .fold(Memory::default(), |a, b| a + b)
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}
