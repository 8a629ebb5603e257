//! Turn rows: answers streamed into documents through the real server (in process,
//! over in-memory pipes) and an editor that answers its edits like VS Code, with the
//! fake agent; each next to the fake agent run on its own in the same run: a headless
//! claude member, the same behind a node script that starts as slowly as the real
//! CLIs, and an ACP member (the fake claude-agent-acp).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use chatmd_tests::sim_editor::{Behaviour, SimEditor};
use chatmd_tests::{TestClient, file_uri};
use serde_json::json;

use super::acp_alone::AcpAlone;
use super::report::{Report, Row, Samples, ms};

pub const RUNS: usize = 9;

/// The fake agents' knobs of the latency rows: a short answer of 40 words in 10 chunks,
/// 20 ms apart, as a model streams it.
pub fn short_answer() -> [(&'static str, String); 3] {
    let answer = (0..40)
        .map(|i| format!("w{i}"))
        .collect::<Vec<_>>()
        .join(" ");
    [
        ("FAKE_AGENT_TEXT", answer),
        ("FAKE_AGENT_CHUNKS", "10".to_string()),
        ("FAKE_AGENT_DELAY_MS", "20".to_string()),
    ]
}

pub struct Bench {
    dir: tempfile::TempDir,
    pub bin: PathBuf,
    /// Where `claude` is a node script that starts the fake (node starts as the real
    /// CLIs, which are node programs, do).
    slow_bin: PathBuf,
    /// The user's config home: it trusts the bench's chatmd.toml (the knobs are `env`).
    config: tempfile::TempDir,
}

impl Bench {
    /// A team of seven members (two claude, a codex, a gemini, three claude-agent-acp),
    /// each with `knobs`.
    pub fn new(knobs: &[(&str, String)]) -> Bench {
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
        let slow_bin = slow_start(&fake, &dir.path().join(".slow-bin"));
        let mut toml = String::new();
        for (member, role) in [
            ("alice", "CLAUDE.md"),
            ("bob", "CLAUDE.md"),
            ("carol", "AGENTS.md"),
            ("dave", "GEMINI.md"),
            ("erin", "CLAUDE.md"),
            ("fay", "CLAUDE.md"),
            ("gus", "CLAUDE.md"),
        ] {
            std::fs::create_dir_all(dir.path().join(member)).unwrap();
            std::fs::write(dir.path().join(member).join(role), "# role\n").unwrap();
            if ["erin", "fay", "gus"].contains(&member) {
                // The same CLI as alice's, through ACP (claude-agent-acp).
                toml.push_str(&format!(
                    "[members.{member}]\nagent = \"acp\"\npreset = \"claude\"\n"
                ));
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
        Bench {
            dir,
            bin,
            slow_bin,
            config,
        }
    }

    pub async fn editor(&self, bin: &Path) -> SimEditor {
        self.editor_with(bin, json!({})).await
    }

    /// [`Bench::editor`] with these initialization options beside `agentPath`.
    pub async fn editor_with(&self, bin: &Path, options: serde_json::Value) -> SimEditor {
        let user = chatmd::team::UserConfig::with_config_home(self.config.path());
        let client = TestClient::spawn(move |input, output| {
            chatmd::lsp::serve_with_user_config(input, output, user)
        });
        self.initialized(client, bin, options).await
    }

    /// [`Bench::editor_with`] around the built `chatmd lsp` as a process of its own, as
    /// an editor runs it (agents started through the agent guard); also its pid.
    pub async fn process_editor(&self, options: serde_json::Value) -> (SimEditor, u32) {
        let mut command = tokio::process::Command::new(assert_cmd::cargo::cargo_bin("chatmd"));
        command
            .arg("lsp")
            .env("XDG_CONFIG_HOME", self.config.path())
            .stderr(Stdio::null());
        let (client, pid) = TestClient::spawn_process(command).expect("start chatmd lsp");
        (self.initialized(client, &self.bin, options).await, pid)
    }

    async fn initialized(
        &self,
        mut client: TestClient,
        bin: &Path,
        options: serde_json::Value,
    ) -> SimEditor {
        let mut options = options;
        options["agentPath"] = json!(bin);
        let root = file_uri(self.dir.path());
        client
            .request(
                "initialize",
                json!({"processId": null, "rootUri": root, "clientInfo": {"name": "bench"},
                       "capabilities": {"general": {"positionEncodings": ["utf-8"]}, "window": {"workDoneProgress": true}},
                       "initializationOptions": options}),
            )
            .await
            .unwrap();
        client.notify("initialized", json!({})).await;
        client.set_timeout(Duration::from_secs(120));
        SimEditor::new(client, Behaviour::VsCode, true)
    }

    /// An editor with a new chat `name` open, whose message asks `member`.
    async fn ask(&self, bin: &Path, member: &str, name: &str) -> (SimEditor, String) {
        let mut editor = self.editor(bin).await;
        let text = format!("## @me\n@{member} go\n");
        let text = text.as_str();
        let uri = self.chat(name, text);
        editor.open(&uri, text).await;
        (editor, uri)
    }

    /// The bench's workspace.
    pub fn root(&self) -> &Path {
        self.dir.path()
    }

    pub fn chat(&self, name: &str, text: &str) -> String {
        let path = self.dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        file_uri(&path)
    }

    /// The fake ACP agent alone, driven as chatmd drives it for an ACP claude member
    /// (`initialize`, `session/new`, `session/prompt`): time to its first answer chunk
    /// and to the prompt's result.
    fn raw_acp(&self, knobs: &[(&str, String)]) -> (Duration, Duration) {
        let start = Instant::now();
        let mut agent = AcpAlone::start(&self.bin, self.root(), knobs);
        let session = agent.new_session();
        let asked = start.elapsed();
        let prompted = agent.prompt(&session);
        agent.end();
        (asked + prompted.first, asked + prompted.end)
    }

    /// The fake agent alone, as chatmd would start it for a claude member: time to its
    /// first answer line and to its end.
    fn raw(&self, bin: &Path, knobs: &[(&str, String)]) -> (Duration, Duration) {
        let start = Instant::now();
        let mut child = fake(bin, "claude", self.root(), knobs)
            .args([
                "-p",
                "--output-format",
                "stream-json",
                "--verbose",
                "--include-partial-messages",
                "hi",
            ])
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
    let mut editor = bench.editor(&bench.bin).await;
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
async fn one_turn(bench: &Bench, bin: &Path, member: &str, n: usize) -> (Duration, Duration) {
    let (mut editor, uri) = bench
        .ask(bin, member, &format!("{member}{n}.chat.md"))
        .await;
    let start = Instant::now();
    let first = send_until(&mut editor, &uri, "the first words", |t| t.contains("w0")).await;
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
    let (mut editor, uri) = bench.ask(&bench.bin, member, "flood.chat.md").await;
    let cpu = cpu_time();
    let took = send_until(&mut editor, &uri, "the flood", |t| {
        t.contains("status=done")
    })
    .await;
    let cores = (cpu_time() - cpu).as_secs_f64() / took.as_secs_f64();
    let complete = editor.text(&uri).contains(&format!("-->\n{answer}\n"));
    (
        editor.edits as f64 / took.as_secs_f64(),
        complete,
        cores,
        took,
    )
}

/// A folder where `claude` is a node script that runs the fake as claude: an agent that
/// starts as slowly as node does (the real CLIs are node programs).
fn slow_start(fake: &Path, dir: &Path) -> PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    let script = format!(
        "#!/usr/bin/env node\n\
         const {{ spawnSync }} = require('child_process');\n\
         const run = spawnSync({fake:?}, process.argv.slice(2), \
         {{ stdio: 'inherit', env: {{ ...process.env, FAKE_AGENT_AS: 'claude' }} }});\n\
         process.exit(run.status === null ? 1 : run.status);\n",
        fake = fake.display().to_string()
    );
    let path = dir.join("claude");
    std::fs::write(&path, script).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    dir.to_path_buf()
}

/// Medians of one member's turns and of its agent run alone, interleaved.
struct Latency {
    first: Samples,
    total: Samples,
    raw_first: Samples,
    raw_total: Samples,
}

fn latency(
    runtime: &tokio::runtime::Runtime,
    bench: &Bench,
    bin: &Path,
    member: &str,
    raw: impl Fn(&Bench) -> (Duration, Duration),
) -> Latency {
    let (mut firsts, mut totals, mut raw_firsts, mut raw_totals) = (vec![], vec![], vec![], vec![]);
    for n in 0..RUNS + 1 {
        let (first, total) = runtime.block_on(one_turn(bench, bin, member, n));
        let (raw_first, raw_total) = raw(bench);
        // The first run of each warms the page cache.
        if n > 0 {
            firsts.push(first);
            totals.push(total);
            raw_firsts.push(raw_first);
            raw_totals.push(raw_total);
        }
    }
    Latency {
        first: Samples(firsts),
        total: Samples(totals),
        raw_first: Samples(raw_firsts),
        raw_total: Samples(raw_totals),
    }
}

/// A fake agent `program` of `bin` as the rows start it alone: in `cwd`, with `knobs`,
/// its stdout piped (the caller adds arguments and stdin).
pub fn fake(bin: &Path, program: &str, cwd: &Path, knobs: &[(&str, String)]) -> Command {
    let mut command = Command::new(bin.join(program));
    command
        .current_dir(cwd)
        .env("IS_SANDBOX", "")
        .envs(knobs.iter().map(|(k, v)| (k, v)))
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    command
}

/// Sends the chat `uri` and waits until its text is `done` (`what`, for a timeout's
/// message): how long after the Send.
pub async fn send_until(
    editor: &mut SimEditor,
    uri: &str,
    what: &str,
    done: impl Fn(&str) -> bool,
) -> Duration {
    let start = Instant::now();
    editor
        .command("chatmd.send", json!({"uri": uri}))
        .await
        .unwrap();
    editor.run_until(what, |e| done(e.text(uri))).await;
    start.elapsed()
}

/// The runtime the rows' editors and servers run on.
pub fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap()
}

fn node_on_path() -> bool {
    Command::new("node")
        .arg("--version")
        .stdout(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// 16 turns at once into 4 documents. Run it first of all the rows: the peak memory of
/// the process is this row's only then.
pub fn sixteen(report: &mut Report) {
    let runtime = runtime();
    let (right, rss) = runtime.block_on(sixteen_turns());
    report.add(
        Row::new("16 turns at once into 4 documents: peak RSS", rss, "MB")
            .target("every byte in its section, <= 64 MB", right && rss <= 64.0)
            .note(format!(
                "every byte in its section: {right}; server, editor and bench in one process"
            )),
    );
}

pub fn rows(report: &mut Report) {
    let runtime = runtime();
    let knobs = short_answer();
    let bench = Bench::new(&knobs);
    let mut kinds = vec![(
        "headless claude member",
        "the fake agent alone",
        latency(&runtime, &bench, &bench.bin, "alice", |b| {
            b.raw(&b.bin, &knobs)
        }),
    )];
    if node_on_path() {
        kinds.push((
            "headless claude member whose CLI starts in node",
            "the same node script alone",
            latency(&runtime, &bench, &bench.slow_bin, "alice", |b| {
                b.raw(&b.slow_bin, &knobs)
            }),
        ));
    }
    kinds.push((
        "ACP member (claude-agent-acp)",
        "the fake ACP agent driven alone",
        latency(&runtime, &bench, &bench.bin, "erin", |b| b.raw_acp(&knobs)),
    ));
    for (how, alone, l) in kinds {
        let (total, raw) = (ms(l.total.median()), ms(l.raw_total.median()));
        report.add(
            Row::new(
                format!("turn overhead, {how}: Send → answer complete, over the agent alone"),
                total - raw,
                "ms",
            )
            .target("<= +10 ms", total - raw <= 10.0)
            .baseline(format!("{alone}, start to end"), raw, total / raw)
            .note(format!("turn {total:.1} ms; {}", l.total.spread_ms())),
        );
        let (first, raw_first) = (ms(l.first.median()), ms(l.raw_first.median()));
        report.add(
            Row::new(
                format!("first streamed byte visible to the client, {how}"),
                first - raw_first,
                "ms",
            )
            .target(
                "<= +60 ms after the agent prints it",
                first - raw_first <= 60.0,
            )
            .baseline(
                format!("{alone}: its first answer bytes"),
                raw_first,
                first / raw_first,
            )
            .note(format!("{first:.1} ms after Send; {}", l.first.spread_ms())),
        );
    }
    for (how, member) in [("headless", "alice"), ("ACP", "erin")] {
        let (rate, complete, cores, took) = runtime.block_on(flood(member));
        report.add(
            Row::new(
                format!("a flood of 100k chunks in 1 s, {how}: edits per second"),
                rate,
                "edits/s",
            )
            .target(
                "<= 25 edits/s per document, nothing lost, < 1 core",
                rate <= 25.0 && complete && cores < 1.0,
            )
            .note(format!(
                "{:.2} s, complete: {complete}, {cores:.2} cores",
                took.as_secs_f64()
            )),
        );
    }
}
