//! Turn benchmark: answers streamed into documents through the real server (in
//! process, over in-memory pipes) and an editor that answers its edits like VS Code,
//! with the fake agent; each row next to the fake agent run on its own in the same run.
//!
//! Run: `cargo bench -p chatmd-tests --bench turns_bench`

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use chatmd_tests::sim_editor::{Behaviour, SimEditor};
use chatmd_tests::{TestClient, file_uri};
use serde_json::json;

const RUNS: usize = 7;

struct Bench {
    dir: tempfile::TempDir,
    bin: PathBuf,
    /// The user's config home: it trusts the bench's chatmd.toml (the knobs are `env`).
    config: tempfile::TempDir,
}

impl Bench {
    /// A team of four members (two claude, a codex, a gemini), each with `knobs`.
    fn new(knobs: &[(&str, String)]) -> Bench {
        Bench::with_knobs(knobs, |_| true)
    }

    /// The same team, `knobs` only for `who`: a large knob five times over would pass
    /// the size limit of a team file (256 KiB), and the file would be refused.
    fn only_with(who: &'static str, knobs: &[(&str, String)]) -> Bench {
        Bench::with_knobs(knobs, move |member| member == who)
    }

    fn with_knobs(knobs: &[(&str, String)], gets: impl Fn(&str) -> bool) -> Bench {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join(".git")).unwrap();
        let fake = PathBuf::from(env!("CARGO_BIN_EXE_fake-agent"));
        let bin = chatmd_tests::fake_agent::install_acp(&fake, &dir.path().join(".bin")).unwrap();
        let mut toml = String::new();
        for (member, role) in [
            ("alice", "CLAUDE.md"),
            ("bob", "CLAUDE.md"),
            ("carol", "AGENTS.md"),
            ("dave", "GEMINI.md"),
            ("erin", "CLAUDE.md"),
        ] {
            std::fs::create_dir_all(dir.path().join(member)).unwrap();
            std::fs::write(dir.path().join(member).join(role), "# role\n").unwrap();
            if member == "erin" {
                // The same CLI as alice's, through ACP (claude-agent-acp).
                toml.push_str("[members.erin]\nagent = \"acp\"\npreset = \"claude\"\n");
            }
            toml.push_str(&format!("[members.{member}.env]\nIS_SANDBOX = \"\"\n"));
            for (k, v) in knobs.iter().filter(|_| gets(member)) {
                toml.push_str(&format!("{k} = {v:?}\n"));
            }
        }
        std::fs::write(dir.path().join("chatmd.toml"), &toml).unwrap();
        let config = tempfile::tempdir().unwrap();
        chatmd::team::UserConfig::with_config_home(config.path())
            .trust_file(&dir.path().join("chatmd.toml"), toml.as_bytes())
            .unwrap();
        Bench { dir, bin, config }
    }

    async fn editor(&self) -> SimEditor {
        let user = chatmd::team::UserConfig::with_config_home(self.config.path());
        let mut client = TestClient::spawn(move |input, output| {
            chatmd::lsp::serve_with_user_config(input, output, user)
        });
        let root = file_uri(self.dir.path());
        client
            .request(
                "initialize",
                json!({"processId": null, "rootUri": root, "clientInfo": {"name": "bench"},
                       "capabilities": {"general": {"positionEncodings": ["utf-8"]}, "window": {"workDoneProgress": true}},
                       "initializationOptions": {"agentPath": self.bin}}),
            )
            .await
            .unwrap();
        client.notify("initialized", json!({})).await;
        client.set_timeout(Duration::from_secs(120));
        SimEditor::new(client, Behaviour::VsCode, true)
    }

    /// An editor with a new chat `name` open, whose message asks `member`.
    async fn ask(&self, member: &str, name: &str) -> (SimEditor, String) {
        let mut editor = self.editor().await;
        let text = format!("## @me\n@{member} go\n");
        let text = text.as_str();
        let uri = self.chat(name, text);
        editor.open(&uri, text).await;
        (editor, uri)
    }

    fn chat(&self, name: &str, text: &str) -> String {
        let path = self.dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        file_uri(&path)
    }

    /// The fake ACP agent alone, driven as chatmd drives it for an ACP claude member
    /// (`initialize`, `session/new`, `session/prompt`, each on the last one's answer):
    /// time to its first answer chunk and to the prompt's result.
    fn raw_acp(&self, knobs: &[(&str, String)]) -> (Duration, Duration) {
        use std::io::{BufRead, Write};
        let start = Instant::now();
        let mut child = Command::new(self.bin.join("claude-agent-acp"))
            .current_dir(self.dir.path())
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
        let (mut first, mut end) = (None, None);
        let out = std::io::BufReader::new(child.stdout.take().unwrap());
        for line in out.lines() {
            let message: serde_json::Value = serde_json::from_str(&line.unwrap()).unwrap();
            let update = &message["params"]["update"];
            if first.is_none()
                && update["sessionUpdate"] == "agent_message_chunk"
                && update["content"]["text"]
                    .as_str()
                    .is_some_and(|t| !t.is_empty())
            {
                first = Some(start.elapsed());
            }
            match message["id"].as_i64() {
                Some(1) if message.get("result").is_some() => {
                    send(json!({"jsonrpc": "2.0", "id": 2,
                    "method": "session/new", "params": {"cwd": self.dir.path(), "mcpServers": []}}))
                }
                Some(2) => send(
                    json!({"jsonrpc": "2.0", "id": 3, "method": "session/prompt",
                    "params": {"sessionId": message["result"]["sessionId"],
                               "prompt": [{"type": "text", "text": "hi"}]}}),
                ),
                Some(3) => {
                    end = Some(start.elapsed());
                    break;
                }
                _ => {}
            }
        }
        drop(stdin);
        child.wait().unwrap();
        (first.unwrap_or_default(), end.expect("the prompt's result"))
    }

    /// The fake agent alone, as chatmd would start it for a claude member: time to its
    /// first answer line and to its end.
    fn raw(&self, knobs: &[(&str, String)]) -> (Duration, Duration) {
        let start = Instant::now();
        let mut child = Command::new(self.bin.join("claude"))
            .args([
                "-p",
                "--output-format",
                "stream-json",
                "--verbose",
                "--include-partial-messages",
                "hi",
            ])
            .current_dir(self.dir.path())
            .env("IS_SANDBOX", "")
            .envs(knobs.iter().map(|(k, v)| (k, v)))
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        use std::io::BufRead;
        let mut first = None;
        let out = std::io::BufReader::new(child.stdout.take().unwrap());
        for line in out.lines() {
            if first.is_none() && line.unwrap().contains("text_delta") {
                first = Some(start.elapsed());
            }
        }
        child.wait().unwrap();
        (first.unwrap_or_default(), start.elapsed())
    }
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn ok(good: bool) -> &'static str {
    if good { "ok" } else { "MISS" }
}

/// Peak resident memory of this process, in MB.
fn peak_rss_mb() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        .map_or(0.0, |kb| kb / 1024.0)
}

/// CPU time this process used (user + system).
fn cpu_time() -> Duration {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let fields: Vec<&str> = stat
        .rsplit(')')
        .next()
        .unwrap_or("")
        .split_whitespace()
        .collect();
    let ticks: u64 = fields.get(11).and_then(|u| u.parse().ok()).unwrap_or(0)
        + fields.get(12).and_then(|s| s.parse().ok()).unwrap_or(0);
    Duration::from_millis(ticks * 10)
}

/// 16 turns into 4 documents at once: every answer in its own section, and the memory.
async fn sixteen_turns() -> (bool, f64) {
    let answer = (0..200)
        .map(|i| format!("w{i}"))
        .collect::<Vec<_>>()
        .join(" ");
    let knobs = [
        ("FAKE_AGENT_TEXT", answer.clone()),
        ("FAKE_AGENT_CHUNKS", "50".to_string()),
        ("FAKE_AGENT_DELAY_MS", "5".to_string()),
    ];
    let bench = Bench::new(&knobs);
    let mut editor = bench.editor().await;
    let mut uris = Vec::new();
    for n in 0..4 {
        let text =
            "---\nmembers: [alice, bob, carol, dave]\n---\n## @me\n@alice @bob @carol @dave go\n";
        let uri = bench.chat(&format!("c{n}.chat.md"), text);
        editor.open(&uri, text).await;
        uris.push(uri);
    }
    for uri in &uris {
        editor
            .command("chatmd.send", json!({"uri": uri}))
            .await
            .unwrap();
    }
    let all_done = |e: &SimEditor| {
        uris.iter().all(|u| {
            let t = e.text(u);
            t.matches("status=done").count() == 4
                && t.ends_with("## @me\n")
                && t.matches("## @me").count() == 2
        })
    };
    editor.run_until("16 answers", all_done).await;
    let mut right = true;
    for uri in &uris {
        let text = editor.text(uri);
        for member in ["alice", "bob", "carol", "dave"] {
            let start = text.find(&format!("## @{member}\n")).unwrap();
            let section = &text[start..];
            let body_start = section.find("-->\n").unwrap() + 4;
            let body_end = section[body_start..]
                .find("\n\n## @")
                .map_or(section.len(), |i| body_start + i + 1);
            right &= section[body_start..body_end] == format!("{answer}\n");
        }
    }
    (right, peak_rss_mb())
}

/// Send → answer complete in the document, and the first answer bytes.
async fn one_turn(bench: &Bench, member: &str, n: usize) -> (Duration, Duration) {
    let (mut editor, uri) = bench.ask(member, &format!("{member}{n}.chat.md")).await;
    let start = Instant::now();
    editor
        .command("chatmd.send", json!({"uri": uri}))
        .await
        .unwrap();
    editor
        .run_until("the first words", |e| e.text(&uri).contains("w0"))
        .await;
    let first = start.elapsed();
    editor
        .run_until("the answer", |e| e.text(&uri).contains("status=done"))
        .await;
    (first, start.elapsed())
}

/// A flood of 100k small chunks spread over 1 s, as quality.md puts it: edits per
/// second while it lasts, everything arrived, CPU. (Unspread, the fake printed them in
/// 0.2 s, and the edits every turn makes anyway, its section and its end, weighed as
/// much as the flood's.)
async fn flood(member: &'static str) -> (f64, bool, f64, Duration) {
    let answer = (0..100_000)
        .map(|i| format!("{}", i % 10))
        .collect::<String>();
    let knobs = [
        ("FAKE_AGENT_TEXT", answer.clone()),
        ("FAKE_AGENT_CHUNKS", "100000".to_string()),
        ("FAKE_AGENT_SPREAD_MS", "1000".to_string()),
    ];
    let bench = Bench::only_with(member, &knobs);
    let (mut editor, uri) = bench.ask(member, "flood.chat.md").await;
    let cpu = cpu_time();
    let start = Instant::now();
    editor
        .command("chatmd.send", json!({"uri": uri}))
        .await
        .unwrap();
    editor
        .run_until("the flood", |e| e.text(&uri).contains("status=done"))
        .await;
    let took = start.elapsed();
    let cores = (cpu_time() - cpu).as_secs_f64() / took.as_secs_f64();
    let complete = editor.text(&uri).contains(&format!("-->\n{answer}\n"));
    (
        editor.edits as f64 / took.as_secs_f64(),
        complete,
        cores,
        took,
    )
}

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    // First, so the peak memory is this row's.
    let (right, rss) = runtime.block_on(sixteen_turns());

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
    let headless = latency(&runtime, &bench, "alice", |b| b.raw(&knobs));
    let acp = latency(&runtime, &bench, "erin", |b| b.raw_acp(&knobs));
    let flood_headless = runtime.block_on(flood("alice"));
    let flood_acp = runtime.block_on(flood("erin"));

    println!("chatmd turn benchmark — medians of {RUNS} runs (flood and 16 turns: one run)\n");
    println!("| what | chatmd | baseline (same run) | target | ok? |");
    println!("|---|---|---|---|---|");
    for (how, fake, l) in [
        ("headless claude", "fake agent alone", headless),
        ("ACP claude-agent-acp", "fake ACP agent driven alone", acp),
    ] {
        let added = ms(l.total) - ms(l.raw_total);
        println!(
            "| {how}: Send → answer complete in the document | {:.1} ms | {fake} {:.1} ms (+{added:.1} ms) | <= fake + 10 ms | {} |",
            ms(l.total),
            ms(l.raw_total),
            ok(added <= 10.0)
        );
        let first_added = ms(l.first) - ms(l.raw_first);
        println!(
            "| {how}: first answer bytes in the editor | {:.1} ms after Send | {fake}: {:.1} ms (+{first_added:.1} ms) | <= +60 ms | {} |",
            ms(l.first),
            ms(l.raw_first),
            ok(first_added <= 60.0)
        );
    }
    for (how, (rate, complete, cores, took)) in [("headless", flood_headless), ("ACP", flood_acp)] {
        println!(
            "| {how} flood: 100k chunks ({:.2} s) | {rate:.1} edits/s, complete: {complete}, {cores:.2} cores | — | <= 25 edits/s, nothing lost, < 1 core | {} |",
            took.as_secs_f64(),
            ok(rate <= 25.0 && complete && cores < 1.0)
        );
    }
    println!(
        "| 16 turns into 4 documents | every byte in its section: {right}; peak RSS {rss:.1} MB (server, editor and bench in one process) | — | right, <= 64 MB | {} |",
        ok(right && rss <= 64.0)
    );
}

/// Medians of one member's turns and of its agent run alone, interleaved.
struct Latency {
    first: Duration,
    total: Duration,
    raw_first: Duration,
    raw_total: Duration,
}

fn latency(
    runtime: &tokio::runtime::Runtime,
    bench: &Bench,
    member: &str,
    raw: impl Fn(&Bench) -> (Duration, Duration),
) -> Latency {
    let (mut firsts, mut totals, mut raw_firsts, mut raw_totals) = (vec![], vec![], vec![], vec![]);
    for n in 0..RUNS {
        let (first, total) = runtime.block_on(one_turn(bench, member, n));
        firsts.push(first);
        totals.push(total);
        let (raw_first, raw_total) = raw(bench);
        raw_firsts.push(raw_first);
        raw_totals.push(raw_total);
    }
    Latency {
        first: median(firsts),
        total: median(totals),
        raw_first: median(raw_firsts),
        raw_total: median(raw_totals),
    }
}
