//! `chatmd send` and the chat file: never lost when another program saves it during a
//! turn, refused when it is not a regular file, line endings kept (CR-only too), no
//! temporary file left by a full disk, one process at a time per chat (the chat lock),
//! and a turn left by a killed `chatmd send` marked `interrupted`, never built on.
//! Each test checks the file byte for byte (times redacted) and the exit code.

use std::io::{Read, Seek, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use pretty_assertions::assert_eq;

mod fake_support;

struct Setup {
    dir: tempfile::TempDir,
    bin: PathBuf,
}

impl Setup {
    /// A workspace (a git repository) with a claude reviewer and a codex tester, and the
    /// fake agent installed as `claude`, `codex` and `gemini`.
    fn new() -> Setup {
        let dir = tempfile::tempdir().unwrap();
        let fake = PathBuf::from(env!("CARGO_BIN_EXE_fake-agent"));
        let bin = chatmd_tests::fake_agent::install(&fake, &dir.path().join("bin")).unwrap();
        let s = Setup { dir, bin };
        s.team(s.dir.path());
        s
    }

    fn team(&self, root: &Path) {
        std::fs::create_dir_all(root.join(".git")).unwrap();
        for (rel, text) in [
            ("team/reviewer/CLAUDE.md", "# Reviews Rust code\n"),
            ("team/tester/AGENTS.md", "# Writes tests\n"),
        ] {
            let p = root.join(rel);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        }
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    fn write(&self, rel: &str, text: &str) {
        std::fs::write(self.path(rel), text).unwrap();
    }

    fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.path(rel)).unwrap()
    }

    fn command(&self, root: &Path, args: &[&str], knobs: &[(&str, &str)]) -> Command {
        let mut c = Command::new(assert_cmd::cargo::cargo_bin("chatmd"));
        c.arg("send")
            .args(args)
            .current_dir(root)
            .env("PATH", format!("{}:/usr/bin:/bin", self.bin.display()))
            .env("HOME", root)
            .env("XDG_CONFIG_HOME", root.join("config"))
            .env("IS_SANDBOX", "")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        for (k, v) in knobs {
            c.env(k, v);
        }
        c
    }

    /// Runs `chatmd send` to its end, within a deadline (a send that blocks fails).
    fn send(&self, args: &[&str], knobs: &[(&str, &str)]) -> Output {
        fake_support::wait(self.spawn(args, knobs))
    }

    fn spawn(&self, args: &[&str], knobs: &[(&str, &str)]) -> Child {
        self.command(self.dir.path(), args, knobs)
            .spawn()
            .expect("start chatmd send")
    }

    /// Waits (bounded) until the chat at `rel` satisfies `done`; returns its text.
    fn wait_for(&self, rel: &str, what: &str, done: impl Fn(&str) -> bool) -> String {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let text = std::fs::read_to_string(self.path(rel)).unwrap_or_default();
            if done(&text) {
                return text;
            }
            assert!(
                Instant::now() < deadline,
                "still waiting for {what}: {text:?}"
            );
            std::thread::sleep(Duration::from_millis(5));
        }
    }
}

/// The chat with `started=`, `took=` and `pid=` values replaced (they differ every run).
fn redacted(text: &str) -> String {
    let times = regex::Regex::new(r"(started|took|pid)=[^ ]+").unwrap();
    times.replace_all(text, "$1=…").into_owned()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

const SESSION: &str = "5e55a000-0000-4000-8000-000000000001";
const ANSWER: &str = "one two three four five six seven eight nine ten eleven twelve";

/// What `chatmd send` leaves after the reviewer answered [`ANSWER`] to `chat`; `seen`
/// is the status comment's record of the messages the turn was given.
fn answered(chat: &str, seen: &str) -> String {
    format!(
        "{chat}\n## @reviewer\n<!-- chatmd id=t1 agent=claude status=done seen={seen} started=… model=claude-opus-4-8 session={SESSION} took=… stop=end_turn exit=0 tokens=10/12 -->\n\
         {ANSWER}\n\n## @me\n"
    )
}

/// Another program saving the chat in place, again and again: it opens the file,
/// reads it, truncates it, and writes it back in two pieces, pausing between the steps
/// as a slow program would. Returns how many saves it made.
fn save_in_place_until(path: PathBuf, stop: Arc<AtomicBool>) -> std::thread::JoinHandle<usize> {
    std::thread::spawn(move || {
        let mut saves = 0;
        while !stop.load(Ordering::Relaxed) {
            let Ok(mut file) = std::fs::OpenOptions::new()
                .read(true)
                .write(true)
                .open(&path)
            else {
                continue;
            };
            let mut content = Vec::new();
            file.read_to_end(&mut content).unwrap();
            file.set_len(0).unwrap();
            std::thread::sleep(Duration::from_millis(2));
            file.rewind().unwrap();
            let half = content.len() / 2;
            file.write_all(&content[..half]).unwrap();
            std::thread::sleep(Duration::from_millis(1));
            file.write_all(&content[half..]).unwrap();
            drop(file);
            saves += 1;
            std::thread::sleep(Duration::from_millis(3));
        }
        saves
    })
}

#[test]
fn a_chat_saved_by_another_program_during_send_is_not_lost() {
    let s = Setup::new();
    let chat =
        "---\ntitle: Long conversation\n---\n\n## @me\n@reviewer please look at `refund()`.\n";
    s.write("team/s.chat.md", chat);
    let send = s.spawn(
        &["team/s.chat.md"],
        &[
            ("FAKE_AGENT_TEXT", ANSWER),
            ("FAKE_AGENT_DELAY_MS", "40"),
            ("FAKE_AGENT_SESSION", SESSION),
        ],
    );
    // While chatmd writes the answer. (Before chatmd has read the chat, a half-saved
    // file looks like any other; an empty one is waited for: see the unit tests of
    // `turns/file_port/disk.rs`.)
    s.wait_for("team/s.chat.md", "the turn", |t| {
        t.contains("status=streaming")
    });
    let stop = Arc::new(AtomicBool::new(false));
    let saver = save_in_place_until(s.path("team/s.chat.md"), stop.clone());
    let out = fake_support::wait(send);
    stop.store(true, Ordering::Relaxed);
    let saves = saver.join().unwrap();
    assert!(saves >= 10, "the other program saved only {saves} times");
    assert_eq!(stderr(&out), "@reviewer: done\n");
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        redacted(&s.read("team/s.chat.md")),
        answered(chat, "0:b03852")
    );
}

#[test]
fn send_refuses_what_is_not_a_regular_file() {
    let s = Setup::new();
    std::os::unix::fs::symlink("/dev/zero", s.path("team/zero.chat.md")).unwrap();
    let out = s.send(&["team/zero.chat.md"], &[]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        stderr(&out),
        "chatmd send: team/zero.chat.md is not a regular file but a character device (it leads to /dev/zero); a chat is a text file\n"
    );
    let fifo = s.path("team/fifo.chat.md");
    assert!(
        Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    // Opening a FIFO for reading would wait for a writer for ever.
    let out = s.send(&["team/fifo.chat.md"], &[]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        stderr(&out),
        "chatmd send: team/fifo.chat.md is not a regular file but a FIFO; a chat is a text file\n"
    );
    let out = s.send(&["team"], &[]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        stderr(&out),
        "chatmd send: team is not a regular file but a folder; a chat is a text file\n"
    );
}

#[test]
fn a_cr_only_chat_gets_cr_line_breaks() {
    let s = Setup::new();
    s.write("team/m.chat.md", "## @me\r@reviewer hi\r");
    let out = s.send(
        &["team/m.chat.md"],
        &[
            ("FAKE_AGENT_TEXT", "Line one.\nLine two."),
            ("FAKE_AGENT_SESSION", SESSION),
        ],
    );
    assert_eq!(stderr(&out), "@reviewer: done\n");
    assert_eq!(
        redacted(&s.read("team/m.chat.md")),
        format!(
            "## @me\r@reviewer hi\r\r## @reviewer\r<!-- chatmd id=t1 agent=claude status=done seen=0:35d52f started=… model=claude-opus-4-8 session={SESSION} took=… stop=end_turn exit=0 tokens=10/3 -->\r\
             Line one.\rLine two.\r\r## @me\r"
        )
    );
}

/// A small tmpfs mounted for the test's life (needs root, or a user namespace).
struct SmallDisk {
    dir: PathBuf,
}

impl SmallDisk {
    fn mount(dir: &Path, size: &str) -> Option<SmallDisk> {
        std::fs::create_dir_all(dir).unwrap();
        let mounted = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(dir)
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        mounted.then(|| SmallDisk {
            dir: dir.to_path_buf(),
        })
    }
}

impl Drop for SmallDisk {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.dir).status();
    }
}

#[test]
fn a_full_disk_leaves_the_chat_as_it_was_and_no_temporary_file() {
    let s = Setup::new();
    let root = s.path("small");
    let Some(_disk) = SmallDisk::mount(&root, "256k") else {
        eprintln!("skipped: cannot mount a small tmpfs here (needs root)");
        return;
    };
    s.team(&root);
    let chat = format!("## @me\n@reviewer {}\n", "words ".repeat(3000));
    std::fs::write(root.join("team/f.chat.md"), &chat).unwrap();
    // Fill the disk to the last byte.
    let mut filler = std::fs::File::create(root.join("filler")).unwrap();
    let block = vec![b'x'; 4096];
    while filler.write_all(&block).is_ok() {}
    while filler.write_all(b"x").is_ok() {}
    drop(filler);
    let before = listing(&root.join("team"));
    let out = fake_support::wait(
        s.command(&root, &["team/f.chat.md"], &[("FAKE_AGENT_TEXT", ANSWER)])
            .spawn()
            .unwrap(),
    );
    assert_eq!(out.status.code(), Some(1));
    let path = std::fs::canonicalize(root.join("team/f.chat.md")).unwrap();
    assert_eq!(
        stderr(&out),
        format!(
            "chatmd send: cannot write {}: No space left on device (os error 28)\n",
            path.display()
        )
    );
    assert_eq!(std::fs::read_to_string(&path).unwrap(), chat);
    assert_eq!(
        listing(&root.join("team")),
        before,
        "no temporary file left"
    );
}

fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn a_second_send_while_the_first_answers_says_who_and_runs_nothing() {
    let s = Setup::new();
    let chat = "## @me\n@reviewer go\n";
    s.write("team/b.chat.md", chat);
    let record = s.path("runs.jsonl");
    let record = record.to_str().unwrap();
    let first = s.spawn(
        &["team/b.chat.md"],
        &[
            ("FAKE_AGENT_TEXT", ANSWER),
            ("FAKE_AGENT_DELAY_MS", "60"),
            ("FAKE_AGENT_SESSION", SESSION),
            ("FAKE_AGENT_RECORD", record),
        ],
    );
    let pid = first.id();
    s.wait_for("team/b.chat.md", "the first words", |t| {
        t.contains("one two")
    });
    let second = s.send(
        &["team/b.chat.md"],
        &[("FAKE_AGENT_TEXT", "again"), ("FAKE_AGENT_RECORD", record)],
    );
    assert_eq!(second.status.code(), Some(75));
    assert_eq!(
        stderr(&second),
        format!(
            "chatmd send: nothing was sent: @reviewer is answering in this chat, run by `chatmd send` (pid {pid}). \
             Wait until it ends (or cancel it there) and send again.\n"
        )
    );
    let out = fake_support::wait(first);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        redacted(&s.read("team/b.chat.md")),
        answered(chat, "0:35df51")
    );
    let runs = std::fs::read_to_string(record).unwrap();
    assert_eq!(runs.lines().count(), 1, "the member ran once: {runs}");
}

#[test]
fn a_turn_left_by_a_killed_send_is_marked_interrupted_and_not_built_on() {
    let s = Setup::new();
    let chat = "## @me\n@reviewer go\n";
    s.write("team/k.chat.md", chat);
    let record = s.path("runs.jsonl");
    let record = record.to_str().unwrap();
    let mut first = s.spawn(
        &["team/k.chat.md"],
        &[
            ("FAKE_AGENT_TEXT", "I hand this to @tester now, and then"),
            ("FAKE_AGENT_DELAY_MS", "100"),
            ("FAKE_AGENT_SESSION", SESSION),
            ("FAKE_AGENT_RECORD", record),
        ],
    );
    let pid = first.id();
    s.wait_for("team/k.chat.md", "the mention", |t| {
        t.contains("@tester now")
    });
    first.kill().unwrap(); // SIGKILL: no cleanup at all
    first.wait().unwrap();
    let left = s.read("team/k.chat.md");
    // The turn says it is streaming, in a process that is gone.
    let host = nix::unistd::gethostname().unwrap().into_string().unwrap();
    // What the turn was given (the member resumes by default): kept when it is marked.
    let seen = "seen=0:35df51 ";
    let streaming = format!("status=streaming host={host} pid={pid} {seen}started=");
    assert!(left.contains(&streaming), "{left}");
    let out = s.send(&["team/k.chat.md"], &[("FAKE_AGENT_RECORD", record)]);
    assert_eq!(
        stderr(&out),
        format!(
            "chatmd send: note: @reviewer's turn t1 was left streaming by a process that is gone (pid {pid}): marked interrupted\n\
             chatmd send: warning: nobody to ask: the last answer (@reviewer, t1) was interrupted before it ended, and a partial answer hands the word to nobody: ask @reviewer again or write your next message\n"
        )
    );
    assert_eq!(out.status.code(), Some(1));
    // Every byte the killed turn wrote stays; only its status changed.
    let started = &left[left.find(&streaming).unwrap() + streaming.len() - "started=".len()..];
    assert_eq!(
        s.read("team/k.chat.md"),
        format!(
            "{}status=interrupted {seen}{started}",
            &left[..left.find(&streaming).unwrap()]
        )
    );
    // @tester, whom the partial answer names, never ran.
    let runs = std::fs::read_to_string(record).unwrap();
    assert_eq!(runs.lines().count(), 1, "only the killed turn ran: {runs}");
}

#[test]
fn a_turn_streaming_on_another_host_is_neither_marked_nor_answered_over() {
    let s = Setup::new();
    let chat = "## @me\n@reviewer go\n\n## @reviewer\n<!-- chatmd id=t1 agent=claude status=streaming host=elsewhere pid=77 started=2026-11-20T10:00:00Z -->\nHalf an ans\n\n## @me\n@reviewer and?\n";
    s.write("team/h.chat.md", chat);
    let out = s.send(&["team/h.chat.md"], &[("FAKE_AGENT_TEXT", ANSWER)]);
    assert_eq!(
        stderr(&out),
        "chatmd send: nothing was sent: @reviewer's turn t1 is streaming in process 77 on elsewhere, and chatmd cannot tell from here whether it still runs; \
         if it does not, set its status to `interrupted` and send again\n"
    );
    assert_eq!(out.status.code(), Some(75));
    assert_eq!(s.read("team/h.chat.md"), chat);
}

/// Another program that keeps writing back what it read a moment before with an edit
/// of its own at the top (an editor saving an older buffer the user typed in, a sync
/// tool), 40 times while the answer streams: chatmd's
/// records stay where chatmd writes them. The status comment ends `done` on its own
/// section's first line, no record lands inside the answer's words, and what is left
/// of the answer is its text in order.
#[test]
fn records_never_land_inside_an_answer_while_another_program_writes_back_older_texts() {
    for round in 0..4 {
        let s = Setup::new();
        let chat = "## @me\n@reviewer is the rounding right? CW2\n";
        s.write("team/w.chat.md", chat);
        let send = s.spawn(
            &["team/w.chat.md"],
            &[
                ("FAKE_AGENT_TEXT", ANSWER),
                ("FAKE_AGENT_CHUNKS", "24"),
                ("FAKE_AGENT_DELAY_MS", "60"),
                ("FAKE_AGENT_SESSION", SESSION),
            ],
        );
        s.wait_for("team/w.chat.md", "the turn", |t| {
            t.contains("status=streaming")
        });
        let path = s.path("team/w.chat.md");
        let writer = std::thread::spawn(move || {
            for n in 0..40 {
                let Ok(read) = std::fs::read(&path) else {
                    continue;
                };
                std::thread::sleep(Duration::from_millis(7 + n % 5));
                // Its own edit at the top too (a word of the question), so that what
                // it writes differs both above the answer and inside it.
                let mut text = String::from_utf8(read).unwrap();
                text = if text.contains("CW2") {
                    text.replacen("CW2", "CW3", 1)
                } else {
                    text.replacen("CW3", "CW2", 1)
                };
                if n % 2 == 0 {
                    let temp = path.with_extension(format!("tmp{n}"));
                    std::fs::write(&temp, &text).unwrap();
                    std::fs::rename(&temp, &path).unwrap();
                } else {
                    // In place, in two pieces with a pause between: a reader may see
                    // only the first half for a moment.
                    let mut file = std::fs::OpenOptions::new()
                        .write(true)
                        .truncate(true)
                        .open(&path)
                        .unwrap();
                    let half = text.len() / 2;
                    file.write_all(&text.as_bytes()[..half]).unwrap();
                    std::thread::sleep(Duration::from_millis(15));
                    file.write_all(&text.as_bytes()[half..]).unwrap();
                }
            }
        });
        writer.join().unwrap();
        let out = fake_support::wait(send);
        assert_eq!(stderr(&out), "@reviewer: done\n", "round {round}");
        let text = s.read("team/w.chat.md").replace("CW3", "CW2");
        let section = format!("{chat}\n## @reviewer\n<!-- chatmd id=t1 agent=claude status=done ");
        assert!(text.starts_with(&section), "round {round}: {text}");
        assert_eq!(text.matches("<!--").count(), 1, "round {round}: {text}");
        assert!(text.ends_with("\n\n## @me\n"), "round {round}: {text}");
        // What the other program's writes left of the answer (maybe nothing).
        let body = text
            .get(text.find("-->\n").unwrap() + 4..text.len() - "\n\n## @me\n".len())
            .unwrap_or("");
        let mut rest = ANSWER.chars();
        assert!(
            body.chars().all(|c| rest.any(|a| a == c)),
            "round {round}: the answer's text in order: {body:?}"
        );
    }
}
