//! Signals to the built `chatmd` binary mid-turn. SIGINT, SIGTERM and SIGHUP end
//! `chatmd send` and `chatmd lsp` the same way: the running turn is cancelled (partial
//! answer kept, open fence closed, `status=cancelled`), its whole process group is
//! gone, and the exit code is 128 + the signal. SIGKILL gives chatmd no chance to
//! clean up: the agent guard (one per chatmd, the parent of every agent) still takes
//! the agent and its child with it, and ends too.
//!
//! The agent is the fake `claude`: three lines of preamble, then the answer in three
//! deltas 200 ms apart, then it hangs with a child process of its own in its group.
//! Every wait is on an event (the answer in the file, a frame from the server, a
//! process gone), bounded by a timeout.

mod send_support;

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

/// Long enough for a loaded machine; every wait ends as soon as its event happens.
const TIMEOUT: Duration = Duration::from_secs(30);

const CHAT: &str = "## @me\n@reviewer show me\n";

/// The answer so far when the agent hangs: the fence it opened is still open.
const PARTIAL: &str = "Here:\n```rust\nfn refund() {";

/// The chat after a cancelled turn, `started=` and `took=` redacted.
const CANCELLED: &str = "## @me\n@reviewer show me\n\n## @reviewer\n\
     <!-- chatmd id=t1 agent=claude status=cancelled seen=0:fca556 started=<time> model=claude-opus-4-8 session=5e55a000-0000-4000-8000-00000000000c took=<took> -->\n\
     Here:\n```rust\nfn refund() {\n```\n\n## @me\n";

send_support::setup_around_workspace! {
    /// The chat-send workspace with the chat.
}

impl Setup {
    /// A workspace (a git repository) with a claude reviewer, the fake agent installed
    /// as `claude`, and the chat.
    fn new() -> Setup {
        let s = Setup(send_support::Workspace::new());
        s.write("team/c.chat.md", CHAT);
        s
    }

    /// `chatmd <args>` in the workspace, the slow hanging agent configured.
    fn chatmd(&self, args: &[&str]) -> Command {
        let mut c = self.0.chatmd(args);
        c.env("FAKE_AGENT_SESSION", "5e55a000-0000-4000-8000-00000000000c")
            .env("FAKE_AGENT_TEXT", PARTIAL)
            .env("FAKE_AGENT_CHUNKS", "3")
            .env("FAKE_AGENT_DELAY_MS", "200")
            .env("FAKE_AGENT_HANG_AFTER", "6")
            .env("FAKE_AGENT_GRANDCHILD", "1")
            .env("FAKE_AGENT_GRANDCHILD_PID", self.path("grandchild.pid"));
        c
    }

    /// Waits until the file holds the whole partial answer.
    fn wait_for_partial_answer(&self) {
        wait_until("the partial answer in the file", || {
            self.read("team/c.chat.md").contains(PARTIAL)
        });
    }

    /// `chatmd send` of the chat, once the agent's partial answer is in the file: the
    /// running chatmd and the agent's processes.
    fn send_mid_answer(&self) -> (Child, Processes) {
        let child = self.chatmd(&["send", "team/c.chat.md"]).spawn().unwrap();
        self.wait_for_partial_answer();
        (child, self.agent_processes())
    }

    /// Every process of the agent's group (the agent and its child), found from the
    /// child's pid file, and the agent guard that started the agent (last).
    fn agent_processes(&self) -> Processes {
        let pid_file = self.path("grandchild.pid");
        let mut grandchild = None;
        wait_until("the agent's child", || {
            grandchild = std::fs::read_to_string(&pid_file)
                .ok()
                .and_then(|p| p.trim().parse::<i32>().ok());
            grandchild.is_some()
        });
        let grandchild = grandchild.unwrap();
        let group = stat(grandchild).expect("the agent's child runs").2;
        let mut members = live_in_group(group);
        assert!(
            members.contains(&grandchild) && members.len() >= 2,
            "the agent and its child: {members:?}"
        );
        // The guard that started the agent ends with chatmd too.
        members.push(parent(group).expect("the agent runs"));
        Processes(members)
    }
}

/// Processes a test started; those still running when it ends (a failed test) are
/// killed, so a failure leaves nothing behind either.
struct Processes(Vec<i32>);

impl Processes {
    /// Waits until every one is gone; fails after [`TIMEOUT`].
    fn assert_all_gone(&self) {
        let deadline = Instant::now() + TIMEOUT;
        while let Some(pid) = self.0.iter().find(|&&pid| alive(pid)) {
            assert!(
                Instant::now() < deadline,
                "process {pid} of the agent outlived chatmd"
            );
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

impl Drop for Processes {
    fn drop(&mut self) {
        for &pid in &self.0 {
            if alive(pid) {
                let _ = kill(Pid::from_raw(pid), Signal::SIGKILL);
            }
        }
    }
}

/// Polls `done` until it holds; fails the test after [`TIMEOUT`].
fn wait_until(what: &str, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + TIMEOUT;
    while !done() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// The state, parent and process group of a process, `None` when it is gone.
fn stat(pid: i32) -> Option<(char, i32, i32)> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let mut fields = stat[stat.rfind(')')? + 1..].split_ascii_whitespace();
    let state = fields.next()?.chars().next()?;
    let parent = fields.next()?.parse().ok()?;
    let group = fields.next()?.parse().ok()?;
    Some((state, parent, group))
}

/// Whether a process runs (a zombie does not: it only waits for its reaper).
fn alive(pid: i32) -> bool {
    stat(pid).is_some_and(|(state, _, _)| !matches!(state, 'Z' | 'X'))
}

/// The running processes of a process group.
fn live_in_group(group: i32) -> Vec<i32> {
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
        .filter(|&pid| stat(pid).is_some_and(|(s, _, g)| g == group && !matches!(s, 'Z' | 'X')))
        .collect()
}

fn signal(child: &Child, signal: Signal) {
    kill(Pid::from_raw(child.id() as i32), signal).unwrap();
}

/// Waits for the process to end, within [`TIMEOUT`].
fn wait_exit(child: &mut Child) -> ExitStatus {
    let deadline = Instant::now() + TIMEOUT;
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        if Instant::now() >= deadline {
            let _ = child.kill();
            panic!("chatmd did not exit within {TIMEOUT:?} after the signal");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

fn read_all(pipe: Option<impl Read>) -> String {
    let mut text = String::new();
    pipe.unwrap().read_to_string(&mut text).unwrap();
    text
}

/// The chat with `started=` and `took=` values replaced (they differ every run).
fn redacted(text: &str) -> String {
    text.split(' ')
        .map(|word| {
            if word.starts_with("started=") {
                "started=<time>"
            } else if word.starts_with("took=") {
                "took=<took>"
            } else {
                word
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

// ----- chatmd send --------------------------------------------------------------

fn send_ends_cleanly_on(sig: Signal, code: i32) {
    let s = Setup::new();
    let (mut child, agent) = s.send_mid_answer();
    signal(&child, sig);
    let status = wait_exit(&mut child);
    let stderr = read_all(child.stderr.take());
    let stdout = read_all(child.stdout.take());
    assert_eq!(
        stderr,
        format!("chatmd send: {sig}: the turns were cancelled\n@reviewer: cancelled\n")
    );
    assert_eq!(status.code(), Some(code), "{status}");
    assert_eq!(redacted(&s.read("team/c.chat.md")), CANCELLED);
    assert_eq!(stdout, format!("\n── @reviewer ──\n{PARTIAL}\n"));
    agent.assert_all_gone();
}

#[test]
fn sigterm_cancels_send_writes_cancelled_and_leaves_no_process() {
    send_ends_cleanly_on(Signal::SIGTERM, 143);
}

#[test]
fn sighup_cancels_send_writes_cancelled_and_leaves_no_process() {
    send_ends_cleanly_on(Signal::SIGHUP, 129);
}

#[test]
fn sigkill_of_send_leaves_no_agent_running() {
    let s = Setup::new();
    let (mut child, agent) = s.send_mid_answer();
    // The small guard built beside chatmd started the agent (not a second chatmd),
    // and is chatmd's child.
    let guard = *agent.0.last().unwrap();
    assert_eq!(program_of(guard), "chatmd-agent-guard");
    assert_eq!(parent(guard), Some(child.id() as i32));
    signal(&child, Signal::SIGKILL);
    let status = wait_exit(&mut child);
    assert_eq!(
        std::os::unix::process::ExitStatusExt::signal(&status),
        Some(9)
    );
    agent.assert_all_gone();
    // Nothing could write the end: the next open marks the turn interrupted.
    assert!(s.read("team/c.chat.md").contains("status=streaming"));
}

/// A `chatmd-agent-guard` beside chatmd that is not of its build (left by another
/// install: here a program that takes no guard arguments) is not started for the
/// agents: chatmd guards them itself, and a SIGKILL still leaves nothing running.
#[test]
fn a_guard_of_another_build_beside_chatmd_is_not_used() {
    let s = Setup::new();
    let installed = s.path("install");
    std::fs::create_dir(&installed).unwrap();
    let chatmd = installed.join("chatmd");
    std::fs::copy(assert_cmd::cargo::cargo_bin("chatmd"), &chatmd).unwrap();
    std::fs::copy("/bin/true", installed.join("chatmd-agent-guard")).unwrap();
    let send = s.chatmd(&["send", "team/c.chat.md"]);
    let mut command = Command::new(&chatmd);
    command.args(send.get_args());
    for (key, value) in send.get_envs() {
        match value {
            Some(value) => command.env(key, value),
            None => command.env_remove(key),
        };
    }
    command
        .current_dir(send.get_current_dir().unwrap())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = command.spawn().unwrap();
    s.wait_for_partial_answer();
    let agent = s.agent_processes();
    assert_eq!(program_of(*agent.0.last().unwrap()), "chatmd");
    signal(&child, Signal::SIGKILL);
    wait_exit(&mut child);
    agent.assert_all_gone();
}

/// The file name of a process's program.
fn program_of(pid: i32) -> String {
    let exe = std::fs::read_link(format!("/proc/{pid}/exe")).expect("the process runs");
    exe.file_name().unwrap().to_string_lossy().into_owned()
}

/// A process's parent, `None` when it is gone.
fn parent(pid: i32) -> Option<i32> {
    stat(pid).map(|(_, parent, _)| parent)
}

// ----- chatmd lsp ---------------------------------------------------------------

/// `chatmd lsp` over its stdio: frames read on a thread of their own, so the server
/// never blocks on a full pipe.
struct Server {
    child: Child,
    stdin: ChildStdin,
    frames: Receiver<Value>,
    next_id: i64,
}

impl Server {
    fn start(s: &Setup) -> Server {
        let mut child = s.chatmd(&["lsp"]).stdin(Stdio::piped()).spawn().unwrap();
        let stdin = child.stdin.take().unwrap();
        let mut stdout = BufReader::new(child.stdout.take().unwrap());
        let (tx, frames) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            while let Some(frame) = read_frame(&mut stdout) {
                if tx.send(frame).is_err() {
                    break;
                }
            }
        });
        let mut server = Server {
            child,
            stdin,
            frames,
            next_id: 1,
        };
        let root = format!("file://{}", s.dir.path().display());
        let init = server.request(
            "initialize",
            json!({"rootUri": root, "capabilities": {"workspace": {"applyEdit": true}}}),
            |_, _| {},
        );
        assert_eq!(init["result"]["serverInfo"]["name"], "chatmd");
        server.notify("initialized", json!({}));
        server
    }

    fn send(&mut self, message: &Value) {
        let body = message.to_string();
        write!(self.stdin, "Content-Length: {}\r\n\r\n{body}", body.len()).unwrap();
        self.stdin.flush().unwrap();
    }

    fn notify(&mut self, method: &str, params: Value) {
        self.send(&json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    /// The next frame from the server, `None` once it closed stdout.
    fn next(&mut self) -> Option<Value> {
        match self.frames.recv_timeout(TIMEOUT) {
            Ok(frame) => Some(frame),
            Err(RecvTimeoutError::Disconnected) => None,
            Err(RecvTimeoutError::Timeout) => panic!("the server said nothing for {TIMEOUT:?}"),
        }
    }

    /// Sends a request and returns its answer; every other frame meanwhile goes to
    /// `other` (with this server, to answer the server's own requests).
    fn request(
        &mut self,
        method: &str,
        params: Value,
        mut other: impl FnMut(&mut Server, Value),
    ) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let frame = self.next().expect("the server answers");
            if frame["id"] == id && frame.get("method").is_none() {
                return frame;
            }
            other(self, frame);
        }
    }
}

fn read_frame(reader: &mut impl BufRead) -> Option<Value> {
    let body = chatmd_tests::lsp_client::read_body(reader)?;
    serde_json::from_slice(&body).ok()
}

/// A minimal editor for one open document: applies the server's edits (ASCII text,
/// so LSP characters are bytes) and reports them back as a whole-text change.
struct Editor {
    uri: String,
    text: String,
    version: i64,
    /// The status comments of the edits the server sent, in order.
    statuses: Vec<String>,
}

impl Editor {
    fn offset(&self, position: &Value) -> usize {
        let line = position["line"].as_u64().unwrap() as usize;
        let character = position["character"].as_u64().unwrap() as usize;
        let start: usize = self
            .text
            .split_inclusive('\n')
            .take(line)
            .map(str::len)
            .sum();
        start + character
    }

    /// Answers one frame from the server.
    fn handle(&mut self, server: &mut Server, frame: Value) {
        let Some(id) = frame.get("id").cloned() else {
            return; // a notification
        };
        if frame["method"] != "workspace/applyEdit" {
            server.send(&json!({"jsonrpc": "2.0", "id": id, "result": null}));
            return;
        }
        let change = &frame["params"]["edit"]["documentChanges"][0];
        assert_eq!(change["textDocument"]["uri"], self.uri.as_str());
        let mut edits: Vec<(usize, usize, String)> = change["edits"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| {
                (
                    self.offset(&e["range"]["start"]),
                    self.offset(&e["range"]["end"]),
                    e["newText"].as_str().unwrap().to_string(),
                )
            })
            .collect();
        edits.sort_by_key(|e| std::cmp::Reverse(e.0));
        for (start, end, text) in edits {
            if let Some(at) = text.find("<!-- chatmd ") {
                self.statuses
                    .push(text[at..].lines().next().unwrap().to_string());
            }
            self.text.replace_range(start..end, &text);
        }
        server.send(&json!({"jsonrpc": "2.0", "id": id, "result": {"applied": true}}));
        self.version += 1;
        let (uri, version, text) = (self.uri.clone(), self.version, self.text.clone());
        server.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": uri, "version": version}, "contentChanges": [{"text": text}]}),
        );
    }
}

fn start_turn(server: &mut Server, uri: &str, mut other: impl FnMut(&mut Server, Value)) {
    let started = server.request(
        "workspace/executeCommand",
        json!({"command": "chatmd.send", "arguments": [{"uri": uri}]}),
        &mut other,
    );
    assert_eq!(started["result"], json!({"members": ["reviewer"]}));
}

/// With the chat not open, the turn writes into the file; SIGTERM ends the server,
/// and the file says `cancelled` before it exits.
#[test]
fn sigterm_ends_the_server_and_the_file_says_cancelled() {
    let s = Setup::new();
    let mut server = Server::start(&s);
    let uri = format!("file://{}", s.path("team/c.chat.md").display());
    start_turn(&mut server, &uri, |_, _| {});
    s.wait_for_partial_answer();
    let agent = s.agent_processes();
    signal(&server.child, Signal::SIGTERM);
    while server.next().is_some() {}
    let status = wait_exit(&mut server.child);
    assert_eq!(status.code(), Some(143), "{status}");
    assert_eq!(redacted(&s.read("team/c.chat.md")), CANCELLED);
    agent.assert_all_gone();
}

/// With the chat open, the end of the turn goes to the editor: SIGHUP ends the
/// server, which first sends the edit that says `cancelled`.
#[test]
fn sighup_ends_the_server_after_the_editor_got_cancelled() {
    let s = Setup::new();
    let mut server = Server::start(&s);
    let uri = format!("file://{}", s.path("team/c.chat.md").display());
    let mut editor = Editor {
        uri: uri.clone(),
        text: CHAT.to_string(),
        version: 1,
        statuses: Vec::new(),
    };
    server.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": uri, "languageId": "chatmd", "version": 1, "text": CHAT}}),
    );
    start_turn(&mut server, &uri, |server, frame| {
        editor.handle(server, frame)
    });
    while !editor.text.contains(PARTIAL) {
        let frame = server.next().expect("the server streams the answer");
        editor.handle(&mut server, frame);
    }
    let agent = s.agent_processes();
    signal(&server.child, Signal::SIGHUP);
    while let Some(frame) = server.next() {
        editor.handle(&mut server, frame);
    }
    let status = wait_exit(&mut server.child);
    assert_eq!(status.code(), Some(129), "{status}");
    assert_eq!(redacted(&editor.text), CANCELLED);
    let last = editor.statuses.last().expect("status comments were sent");
    assert!(last.contains("status=cancelled"), "{last}");
    // The file on disk is the editor's to save: the server did not write it.
    assert_eq!(s.read("team/c.chat.md"), CHAT);
    agent.assert_all_gone();
}

#[test]
fn the_agent_guard_passes_the_agent_s_end_on() {
    // The agent crashes (SIGABRT): through the guard, chatmd sees a process killed by
    // a signal, as without it (not the guard's own exit code).
    let s = Setup::new();
    let out = s
        .chatmd(&["send", "team/c.chat.md"])
        .env_remove("FAKE_AGENT_HANG_AFTER")
        .env_remove("FAKE_AGENT_GRANDCHILD")
        .env("FAKE_AGENT_DELAY_MS", "0")
        .env("FAKE_AGENT_CRASH_AT", "2")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "chatmd send: error: @reviewer: claude was killed by a signal\n@reviewer: error\n"
    );
    let text = redacted(&s.read("team/c.chat.md"));
    assert!(
        text.contains("status=error seen=0:fca556 started=<time> model=claude-opus-4-8 session=5e55a000-0000-4000-8000-00000000000c took=<took> error=\"claude was killed by a signal\" -->"),
        "{text}"
    );
}

#[test]
fn sigkill_after_the_agent_ended_leaves_no_process_it_started() {
    // The agent crashes after its answer, and the child it started still holds
    // stdout, so chatmd gives the pipe a moment to close. chatmd is killed outright in
    // that moment: the agent's child must not be left running for ever (the guard
    // waited only for the agent).
    let s = Setup::new();
    let record = s.path("run.json");
    let mut child = s
        .chatmd(&["send", "team/c.chat.md"])
        .env_remove("FAKE_AGENT_HANG_AFTER")
        .env("FAKE_AGENT_CRASH_AT", "6")
        .env("FAKE_AGENT_RECORD", &record)
        .spawn()
        .unwrap();
    let mut grandchild = None;
    wait_until("the agent's child", || {
        grandchild = std::fs::read_to_string(s.path("grandchild.pid"))
            .ok()
            .and_then(|p| p.trim().parse::<i32>().ok());
        grandchild.is_some()
    });
    let agent: Value = serde_json::from_str(&std::fs::read_to_string(&record).unwrap()).unwrap();
    // The guard blocks the signals it watches; the agent it started must not inherit
    // that (it would ignore the SIGTERM of a cancel), nor a signal the guard ignores:
    // it ignores what chatmd was started ignoring, no more. chatmd and the fake are
    // Rust programs, whose runtime ignores SIGPIPE itself.
    assert_eq!(agent["signals"]["blocked"], "0000000000000000");
    let mask = |text: &str| u64::from_str_radix(text, 16).unwrap();
    let chatmd = std::fs::read_to_string(format!("/proc/{}/status", child.id())).unwrap();
    let chatmd = mask(
        chatmd
            .lines()
            .find_map(|line| line.strip_prefix("SigIgn:"))
            .unwrap()
            .trim(),
    );
    let ignored = mask(agent["signals"]["ignored"].as_str().unwrap());
    // glibc's own signals (32, 33) are glibc's to set up as each program needs them.
    let glibc = 0b11 << 31;
    assert_eq!(
        ignored & !glibc,
        chatmd & !glibc,
        "ignored: {ignored:x}, by chatmd: {chatmd:x}"
    );
    let agent = agent["pid"].as_i64().unwrap() as i32;
    let left = Processes(vec![grandchild.unwrap()]);
    wait_until("the agent's crash", || !alive(agent));
    signal(&child, Signal::SIGKILL);
    wait_exit(&mut child);
    left.assert_all_gone();
}

/// The children of a process.
fn children(pid: i32) -> Vec<i32> {
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
        .filter(|&p| alive(p) && parent(p) == Some(pid))
        .collect()
}

#[test]
fn one_guard_starts_every_agent_and_a_sigkill_ends_them_all() {
    // Two members answer at once: one guard (chatmd's only child) started both, each
    // leading a group of its own; chatmd killed outright takes the guard, both agents
    // and what they started with it.
    let s = Setup::new();
    s.write("team/c.chat.md", "## @me\n@reviewer @tester show me\n");
    let mut child = s.chatmd(&["send", "team/c.chat.md"]).spawn().unwrap();
    let chatmd = child.id() as i32;
    let mut guard = Vec::new();
    let mut agents = Vec::new();
    wait_until("both agents", || {
        guard = children(chatmd);
        agents = guard.iter().flat_map(|&g| children(g)).collect();
        agents.len() == 2
    });
    assert_eq!(guard.len(), 1, "one guard: {guard:?}");
    assert_eq!(program_of(guard[0]), "chatmd-agent-guard");
    let mut every = guard.clone();
    for &agent in &agents {
        assert_eq!(stat(agent).unwrap().2, agent, "each agent leads its group");
        every.extend(live_in_group(agent));
    }
    let every = Processes(every);
    signal(&child, Signal::SIGKILL);
    wait_exit(&mut child);
    every.assert_all_gone();
}

#[test]
fn a_killed_guard_takes_its_agents_and_the_turn_says_so() {
    // Something kills the agent guard mid-turn: its agents would run on unguarded, so
    // chatmd ends them, the turn fails saying why, and chatmd itself goes on to exit.
    let s = Setup::new();
    let (mut child, agent) = s.send_mid_answer();
    let guard = *agent.0.last().unwrap();
    kill(Pid::from_raw(guard), Signal::SIGKILL).unwrap();
    let status = wait_exit(&mut child);
    let stderr = read_all(child.stderr.take());
    assert_eq!(status.code(), Some(1), "{status} {stderr}");
    assert!(
        stderr.contains("the agent guard ended before chatmd (was it killed?); its running agents were ended with it")
            && stderr.ends_with("chatmd send: error: @reviewer: claude was killed by a signal\n@reviewer: error\n"),
        "{stderr}"
    );
    assert!(s.read("team/c.chat.md").contains("status=error"));
    agent.assert_all_gone();
}
