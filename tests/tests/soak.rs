//! Soak, bounded in time: 200 turns over 10 chats in one `chatmd lsp` process (the
//! built binary, so its memory and its processes can be watched from outside). The
//! chats run side by side, each one turn after the other; every turn's member (a
//! claude, codex or gemini fake) and its behaviour come from a seeded generator: a
//! delay of 0–200 ms between lines, and a normal answer, garbage lines in it, a crash
//! mid-stream, an API error, a hang until the idle timeout, or a long answer the user
//! cancels mid-stream, sometimes with a child left in the agent's process group.
//! Meanwhile the user types just before the editor handles the server's edits, so
//! those are stale: at the end of the title, at the end of the message just sent,
//! into the streaming answer, and the next message as a draft at the end.
//!
//! At the end: every piece typed is in the text once, where it was typed; every
//! section has the final status its fault calls for; every answer is whole and once;
//! the server's view of each chat equals the editor's (a fork of the whole chat); each
//! fake ran once and no process the server started is left; the server's memory after
//! the last turns is within a bound of its memory after the first 50.
//!
//! `CHATMD_SOAK_SEED=<n>` replays a seed (printed on failure): the plan is the same,
//! the moments of typing follow the timing too. An even seed plays the editor as VS
//! Code (UTF-16 positions, stale edits refused), an odd one as Neovim (UTF-8, stale
//! edits skipped silently). Every wait is on the server's messages, with a timeout.

#[path = "soak/chat.rs"]
mod chat;
#[path = "soak/check.rs"]
mod check;
#[path = "soak/plan.rs"]
mod plan;
#[path = "soak/procs.rs"]
mod procs;
#[path = "soak/workspace.rs"]
mod workspace;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use chatmd_tests::file_path;
use chatmd_tests::sim_editor::{Behaviour, SimEditor};
use serde_json::{Value, json};

use chat::{Chat, Phase};
use plan::{Fault, Rng, Turn};
use workspace::Workspace;

const CHATS: usize = 10;
const TURNS: usize = 200;
const DEFAULT_SEED: u64 = 20_261_121;
/// The longest any single wait for the server may take.
const WAIT: Duration = Duration::from_secs(30);
/// The whole soak, however slow the machine.
const OVERALL: Duration = Duration::from_secs(300);
/// When the early memory is measured.
const EARLY_TURNS: usize = 50;
/// How much more memory the server may hold after the last turns than after the
/// first [`EARLY_TURNS`] (each chat grows by a few KiB; a leak per turn shows).
const RSS_GROWTH_KIB: u64 = 25 * 1024;
/// How long processes may take to vanish once the turns have ended.
const GONE_WITHIN: Duration = Duration::from_secs(5);

/// Notifications nobody waits for here, dropped as they come.
const NOISE: [&str; 4] = [
    "$/progress",
    "window/showMessage",
    "window/logMessage",
    "textDocument/publishDiagnostics",
];

/// On failure: the seed to replay and the end of the server's log.
struct OnFailure {
    seed: u64,
    log: PathBuf,
}

impl Drop for OnFailure {
    fn drop(&mut self) {
        if std::thread::panicking() {
            let log = std::fs::read_to_string(&self.log).unwrap_or_default();
            let tail: Vec<&str> = log.lines().rev().take(20).collect();
            eprintln!(
                "soak failed with seed {seed}: replay with CHATMD_SOAK_SEED={seed} \
                 (and SOAK_RUST_LOG=chatmd=debug for the server's debug log); \
                 the server's log ends:\n{}",
                tail.into_iter().rev().collect::<Vec<_>>().join("\n"),
                seed = self.seed
            );
        }
    }
}

fn seed() -> u64 {
    match std::env::var("CHATMD_SOAK_SEED") {
        Ok(value) => {
            let value = value.trim();
            let parsed = match value.strip_prefix("0x") {
                Some(hex) => u64::from_str_radix(hex, 16),
                None => value.parse(),
            };
            parsed.unwrap_or_else(|_| panic!("CHATMD_SOAK_SEED={value:?} is not a number"))
        }
        Err(_) => DEFAULT_SEED,
    }
}

/// Whether a list of running turns (`chatmd/turns`) has `member` answering in `uri`.
fn listed(turns: &Value, uri: &str, member: &str) -> bool {
    turns
        .as_array()
        .is_some_and(|t| t.iter().any(|t| t["uri"] == uri && t["member"] == member))
}

/// Observes every chat and sends every turn that is due, until a pass changes
/// nothing (a command handles the server's edits while it waits, which can end turns).
async fn settle(editor: &mut SimEditor, chats: &mut [Chat], records: &std::path::Path) -> usize {
    let mut ended = 0;
    loop {
        let mut changed = false;
        for chat in chats.iter_mut() {
            if chat.observe(editor, records).await {
                ended += 1;
                changed = true;
            }
        }
        for chat in chats.iter_mut().filter(|c| c.phase == Phase::Ready) {
            chat.send(editor, records).await;
            changed = true;
        }
        if !changed {
            return ended;
        }
    }
}

fn state(chats: &[Chat], editor: &SimEditor) -> String {
    chats
        .iter()
        .map(|c| {
            format!(
                "chat {} turn {} ({:?} {:?}):\n{}\n",
                c.index,
                c.current,
                c.phase,
                c.turn().fault,
                editor.text(&c.uri)
            )
        })
        .collect()
}

// The client's reader runs on a thread of its own, so the server's output is taken in
// as it comes however busy the editor is.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn soak_200_turns_over_10_chats_lose_nothing_leave_no_process_and_keep_memory_flat() {
    let seed = seed();
    let ws = Workspace::new();
    let _on_failure = OnFailure {
        seed,
        log: ws.server_log(),
    };
    let mut rng = Rng::new(seed);
    let behaviour = if seed.is_multiple_of(2) {
        Behaviour::VsCode
    } else {
        Behaviour::Neovim
    };
    let mut chats: Vec<Chat> = (0..CHATS)
        .map(|i| {
            let turns = (1..=TURNS / CHATS)
                .map(|n| Turn::draw(&mut rng, i, n))
                .collect();
            Chat::new(i, ws.uri(&format!("team/d{i}.chat.md")), turns)
        })
        .collect();
    let (mut editor, pid) = ws.server(behaviour, WAIT + WAIT).await;
    editor
        .client
        .set_auto_response("window/showDocument", Some(json!({"success": true})));
    let started = Instant::now();
    for chat in &chats {
        let text = chat.initial_text(&ws.records);
        ws.write(&format!("team/d{}.chat.md", chat.index), &text);
        editor.open(&chat.uri, &text).await;
    }

    let mut ended = 0;
    let mut typed = 0;
    let mut rss_early = None;
    loop {
        ended += settle(&mut editor, &mut chats, &ws.records).await;
        if rss_early.is_none() && ended >= EARLY_TURNS {
            rss_early = Some(procs::rss_kib(pid));
        }
        let all_done = chats
            .iter()
            .all(|c| c.phase == Phase::Finished && editor.text(&c.uri).ends_with("\n## @me\n"));
        if all_done {
            break;
        }
        assert!(
            started.elapsed() < OVERALL,
            "the soak did not end within {OVERALL:?}:\n{}",
            state(&chats, &editor)
        );
        let next = editor
            .client
            .expect_message(&["workspace/applyEdit", "chatmd/turnsChanged"]);
        let Ok(message) = tokio::time::timeout(WAIT, next).await else {
            panic!(
                "nothing from the server for {WAIT:?}:\n{}",
                state(&chats, &editor)
            );
        };
        let params = message["params"].clone();
        if message["method"] == "workspace/applyEdit" {
            let uri = params["edit"]["documentChanges"][0]["textDocument"]["uri"].clone();
            if let Some(chat) = chats.iter_mut().find(|c| c.uri == uri) {
                typed += chat.type_some(&mut editor, &mut rng, &ws.records).await;
            }
            editor.handle_edit(message["id"].clone(), params).await;
        } else if chats.iter().any(|c| c.waiting_for_release().is_some()) {
            // A turn started or ended somewhere. Notifications may have waited in the
            // queue while a command took the edits after them, so this one may be
            // older than a section's end: ask which turns run now.
            let running = editor
                .client
                .request("chatmd/turns", json!({}))
                .await
                .expect("chatmd/turns");
            for chat in &mut chats {
                if let Some(member) = chat.waiting_for_release()
                    && !listed(&running["turns"], &chat.uri, member)
                {
                    chat.released();
                }
            }
        }
        for method in NOISE {
            editor.client.drain_notifications(method).await;
        }
    }
    let took = started.elapsed();
    let rss_end = procs::rss_kib(pid);
    let rss_early = rss_early.expect("measured after the early turns");

    for chat in &chats {
        check::chat(chat, editor.text(&chat.uri));
    }
    // The server's view of each chat is the editor's: a fork of the whole chat is it,
    // with the key that says where it came from.
    for chat in &chats {
        let text = editor.text(&chat.uri).to_string();
        let line = text.lines().count() - 1;
        let answer = editor
            .command("chatmd.fork", json!({"uri": chat.uri, "line": line}))
            .await
            .expect("fork");
        let fork = std::fs::read_to_string(file_path(answer["uri"].as_str().expect("uri")))
            .expect("the fork");
        let forked_from = format!("forked_from: d{}.chat.md\n", chat.index);
        assert_eq!(
            fork.replacen(&forked_from, "", 1),
            text,
            "chat {}: the server's text differs from the editor's",
            chat.index
        );
    }

    // Each turn's fake ran once; neither it nor its child outlived the turn, and
    // nothing the server started is left.
    let mut pids = Vec::new();
    for turn in chats.iter().flat_map(|c| &c.turns) {
        let record = std::fs::read_to_string(turn.record(&ws.records)).unwrap_or_default();
        let runs: Vec<Value> = record
            .lines()
            .map(|l| serde_json::from_str(l).expect("a record"))
            .collect();
        assert_eq!(runs.len(), 1, "{} ran once: {record}", turn.tag);
        assert_eq!(runs[0]["as"], turn.cli, "{}", turn.tag);
        pids.push(runs[0]["pid"].as_u64().expect("pid") as u32);
        if turn.grandchild {
            let pid = std::fs::read_to_string(turn.grandchild_pid(&ws.records))
                .unwrap_or_else(|e| panic!("{}: the fake's child ran: {e}", turn.tag));
            pids.push(pid.trim().parse().expect("a pid"));
        }
    }
    let left = procs::until_gone(GONE_WITHIN, || procs::descendants(pid)).await;
    assert!(left.is_empty(), "processes of the server left: {left:?}");
    let alive = procs::until_gone(GONE_WITHIN, || {
        pids.iter().copied().filter(|&p| procs::alive(p)).collect()
    })
    .await;
    assert!(
        alive.is_empty(),
        "fake agents (or their children) left: {alive:?}"
    );

    assert!(
        rss_end <= rss_early + RSS_GROWTH_KIB,
        "the server's memory grew from {rss_early} KiB after {EARLY_TURNS} turns to {rss_end} KiB after {TURNS}"
    );
    editor.client.shutdown().await;

    let mut faults: BTreeMap<Fault, usize> = BTreeMap::new();
    for turn in chats.iter().flat_map(|c| &c.turns) {
        *faults.entry(turn.fault).or_default() += 1;
    }
    let faults: Vec<String> = faults
        .iter()
        .map(|(f, n)| format!("{}={n}", f.name()))
        .collect();
    let grandchildren = chats
        .iter()
        .flat_map(|c| &c.turns)
        .filter(|t| t.grandchild)
        .count();
    let drafts: usize = chats.iter().map(|c| c.drafts).sum();
    println!(
        "soak: seed={seed} editor={behaviour:?} turns={TURNS} chats={CHATS} faults: {} \
         grandchildren={grandchildren} | typed={typed} drafts={drafts} stale-edits={} \
         | {:.1}s | server RSS {rss_early} KiB after {EARLY_TURNS} turns, \
         {rss_end} KiB after {TURNS} ({:+} KiB)",
        faults.join(" "),
        editor.stale,
        took.as_secs_f64(),
        rss_end as i64 - rss_early as i64
    );
}
