//! The server's memory on chats of several shapes, as an editor uses it: RSS with the
//! chat open, after 200 keystrokes each followed by the requests an editor sends after
//! a key (outline, folding, code lenses, pull diagnostics), and after the chat is
//! closed; the same session under each allocator chatmd could use; and 200 chats
//! opened at once, every answer real.

use std::collections::HashSet;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::lsp::chat_folder;
use super::parse::generate_chat;
use super::report::{Report, Row, ms};
use super::stdio::{Server, build_chatmd};

const EDITS: usize = 200;

/// A chat of `target` bytes of one shape.
pub struct Shape {
    pub name: &'static str,
    pub text: String,
}

/// The shapes users' chats take: the bench's mix; many tiny messages; long `seen=`
/// records in every status comment; a few huge messages; CJK with emoji, CRLF line
/// ends and code fences; and a chat three times as large.
pub fn shapes() -> Vec<Shape> {
    vec![
        Shape {
            name: "the bench's mix, 20k messages",
            text: generate_chat(10 << 20).0,
        },
        Shape {
            name: "500k tiny messages",
            text: tiny(10 << 20),
        },
        Shape {
            name: "status comments with seen= records",
            text: seen(10 << 20),
        },
        Shape {
            name: "10 huge messages",
            text: huge(10 << 20),
        },
        Shape {
            name: "CJK + emoji, CRLF, fences",
            text: cjk_crlf(10 << 20),
        },
        Shape {
            name: "the bench's mix at 30 MB",
            text: generate_chat(30 << 20).0,
        },
        Shape {
            name: "the bench's mix at 50 MB",
            text: generate_chat(50 << 20).0,
        },
    ]
}

fn tiny(target: usize) -> String {
    let mut s = String::with_capacity(target + 64);
    let mut n = 0usize;
    while s.len() < target {
        let who = ["me", "reviewer"][n % 2];
        s.push_str(&format!("## @{who}\nok {n}\n\n"));
        n += 1;
    }
    s
}

/// Sessions in claude's own shape (a UUID), as in [`generate_chat`](super::parse::generate_chat).
fn seen(target: usize) -> String {
    let mut s = String::with_capacity(target + 4096);
    let mut n = 0usize;
    while s.len() < target {
        if n.is_multiple_of(2) {
            s.push_str(&format!("## @me\n@reviewer look at step {n}, please.\n\n"));
        } else {
            let first = n.saturating_sub(40);
            let hashes: Vec<String> = (first..=n)
                .map(|m| format!("{:06x}", (m * 2_654_435_761) & 0xff_ffff))
                .collect();
            s.push_str(&format!(
                "## @reviewer\n<!-- chatmd id=t{n} agent=claude status=done session=5e55a000-0000-4000-8000-{n:012} \
                 seen=+{first}:{} took=3.0s tokens=1200/340 -->\nStep {n} looks right.\n\n",
                hashes.join(".")
            ));
        }
        n += 1;
    }
    s
}

fn huge(target: usize) -> String {
    let per = target / 10;
    let mut s = String::with_capacity(target + 4096);
    for n in 0..10 {
        let who = ["me", "reviewer"][n % 2];
        s.push_str(&format!("## @{who}\n"));
        let start = s.len();
        while s.len() - start < per {
            s.push_str("A long paragraph of an answer that goes on, line after line, as a large log or a pasted file does.\n");
        }
        s.push('\n');
    }
    s
}

fn cjk_crlf(target: usize) -> String {
    let mut s = String::with_capacity(target + 4096);
    let mut n = 0usize;
    while s.len() < target {
        let who = ["me", "reviewer", "tester"][n % 3];
        s.push_str(&format!("## @{who}\r\n"));
        s.push_str("返金の丸め処理が一セントずれています 🙂🚀 @reviewer 見てください。\r\n\r\n");
        s.push_str("```rust\r\nfn 返金() -> u32 { 42 } // 😀\r\n```\r\n\r\n");
        s.push_str("- 項目一 ✅\r\n- 項目二 ❌\r\n\r\n");
        n += 1;
    }
    s
}

/// How the server's allocator is set for one session: the binary (built with one
/// allocator) and the environment it starts with.
pub struct Allocator {
    pub name: &'static str,
    /// `None`: the usual build.
    pub binary: Option<PathBuf>,
    pub env: Vec<(&'static str, String)>,
}

/// The allocators chatmd could use, each as it comes and as chatmd sets it for the
/// server (`server/src/malloc.rs`: the binary restarts itself with its allocator's
/// variables unless chatmd's marker or any of them is set, so the marker keeps an
/// allocator as it comes): glibc (built without the default allocator), mimalloc and
/// jemalloc (the default) built in.
pub fn allocators() -> Vec<Allocator> {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let glibc = build_chatmd(Some("glibc"));
    let mimalloc = build_chatmd(Some("mimalloc"));
    // Back to the usual binary (jemalloc) at the usual place, for the rows after these.
    build_chatmd(None);
    let with = |binary: &PathBuf| Some(binary.clone());
    let as_it_comes = ("CHATMD_MALLOC_TUNED", "1".to_string());
    vec![
        Allocator {
            name: "glibc as it comes",
            binary: with(&glibc),
            env: vec![("MALLOC_ARENA_MAX", (8 * cores).to_string())],
        },
        Allocator {
            name: "glibc tuned (2 arenas, mmap and trim from 128 KiB)",
            binary: with(&glibc),
            env: Vec::new(),
        },
        Allocator {
            name: "mimalloc 3 as it comes",
            binary: with(&mimalloc),
            env: vec![as_it_comes.clone()],
        },
        Allocator {
            name: "mimalloc 3, MIMALLOC_PURGE_DELAY=0",
            binary: with(&mimalloc),
            env: vec![as_it_comes.clone(), ("MIMALLOC_PURGE_DELAY", "0".into())],
        },
        Allocator {
            name: "mimalloc 3 as chatmd sets it (purge at once, arenas committed as used)",
            binary: with(&mimalloc),
            env: Vec::new(),
        },
        Allocator {
            name: "jemalloc 5 as it comes",
            binary: None,
            env: vec![as_it_comes],
        },
        Allocator {
            name: "jemalloc 5 as chatmd sets it (dirty and muzzy decay 0): the default",
            binary: None,
            env: Vec::new(),
        },
    ]
}

/// What one session on one chat measured.
pub struct Session {
    pub idle: f64,
    pub open: f64,
    pub edited: f64,
    pub peak: f64,
    pub closed: f64,
    /// Median of a key and its four requests answered.
    pub per_key: Duration,
    /// `didOpen` → the first outline answered.
    pub first_outline: Duration,
}

/// Opens `text`, types [`EDITS`] keys in its middle with an editor's requests after
/// each, closes it; the server's RSS at each step.
pub fn session(text: &str, allocator: &Allocator) -> Session {
    let (dir, uri) = chat_folder(text, true);
    let mut server = match &allocator.binary {
        Some(binary) => Server::start_binary(binary, &allocator.env),
        None => Server::start_with(&allocator.env),
    };
    server.initialize(dir.path());
    let idle = server.memory("VmRSS");
    let open = Server::notification_frame(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": uri, "languageId": "chatmd", "version": 1, "text": text}}),
    );
    let mut first_outline = Duration::ZERO;
    for (i, request) in requests(&mut server, &uri).into_iter().enumerate() {
        let frames = if i == 0 {
            [open.as_slice(), &request].concat()
        } else {
            request
        };
        let (took, body) = server.round_trip(&frames);
        assert_real(&body);
        if i == 0 {
            first_outline = took;
        }
    }
    drop(open);
    let open = server.memory("VmRSS");
    let line = text.split('\n').count() / 2;
    let mut keys = Vec::with_capacity(EDITS);
    for version in 2..(2 + EDITS as i32) {
        let key = Server::notification_frame(
            "textDocument/didChange",
            json!({"textDocument": {"uri": uri, "version": version},
                   "contentChanges": [{"range": {"start": {"line": line, "character": 0},
                                                 "end": {"line": line, "character": 0}},
                                       "text": "x"}]}),
        );
        let mut spent = Duration::ZERO;
        for (i, request) in requests(&mut server, &uri).into_iter().enumerate() {
            let frames = if i == 0 {
                [key.as_slice(), &request].concat()
            } else {
                request
            };
            let (took, body) = server.round_trip(&frames);
            assert_real(&body);
            spent += took;
        }
        keys.push(spent);
    }
    let (edited, peak) = (server.memory("VmRSS"), server.memory("VmHWM"));
    server.notify(
        "textDocument/didClose",
        json!({"textDocument": {"uri": uri}}),
    );
    // Closing clears the chat's diagnostics: the close was handled by then.
    server.until(|m| {
        m["method"] == "textDocument/publishDiagnostics"
            && m["params"]["uri"] == uri
            && m["params"]["diagnostics"] == json!([])
    });
    // The allocator gives memory back as it frees, or not at all: what is kept a
    // moment after the close is what stays.
    std::thread::sleep(Duration::from_millis(200));
    let closed = server.memory("VmRSS");
    server.shutdown();
    keys.sort();
    Session {
        idle,
        open,
        edited,
        peak,
        closed,
        per_key: keys[keys.len() / 2],
        first_outline,
    }
}

/// The requests an editor sends after each key, encoded.
fn requests(server: &mut Server, uri: &str) -> Vec<Vec<u8>> {
    let doc = json!({"textDocument": {"uri": uri}});
    [
        "textDocument/documentSymbol",
        "textDocument/foldingRange",
        "textDocument/codeLens",
        "textDocument/diagnostic",
    ]
    .into_iter()
    .map(|method| server.request_frame(method, doc.clone()).1)
    .collect()
}

/// Fails on an error answer or on the server's internal stand-in for a result.
fn assert_real(body: &[u8]) {
    assert!(
        body.starts_with(br#"{"jsonrpc":"2.0","result":"#),
        "not a result: {}",
        String::from_utf8_lossy(&body[..body.len().min(300)])
    );
    // The server swaps the stand-in only in frames this small; a larger answer is
    // the real one.
    assert!(
        body.len() >= 1024 || !body.windows(9).any(|w| w == b"chatmdRaw"),
        "a stand-in reached the editor: {}",
        String::from_utf8_lossy(body)
    );
}

/// RSS rows for every shape, under the allocator the binary uses.
pub fn rows(report: &mut Report) {
    for shape in shapes() {
        let mb = shape.text.len() as f64 / 1e6;
        let allowed = 2.0 * mb + 20.0;
        let as_built = Allocator {
            name: "as built",
            binary: None,
            env: Vec::new(),
        };
        let s = session(&shape.text, &as_built);
        let note = |what: &str| {
            format!(
                "{what}; {mb:.1} MB chat; first outline {:.1} ms (one open; the shapes rows take the median of 7); open {:.1}, after edits {:.1} (peak {:.1}), closed {:.1} MB; a key and its 4 requests: {:.1} ms",
                ms(s.first_outline),
                s.open,
                s.edited,
                s.peak,
                s.closed,
                ms(s.per_key)
            )
        };
        report.add(
            Row::new(
                format!("RSS with the chat open, {}", shape.name),
                s.open,
                "MB",
            )
            .target(
                format!("<= 2 x chat + 20 MB = {allowed:.0} MB"),
                s.open <= allowed,
            )
            .baseline("the server idle", s.idle, s.open / s.idle)
            .note(note("after open and the editor's requests")),
        );
        report.add(
            Row::new(
                format!(
                    "RSS after {EDITS} keys with an editor's requests, {}",
                    shape.name
                ),
                s.edited,
                "MB",
            )
            .target(
                format!("<= 2 x chat + 20 MB = {allowed:.0} MB"),
                s.edited <= allowed,
            )
            .baseline("the server idle", s.idle, s.edited / s.idle)
            .note(note(
                "didChange, documentSymbol, foldingRange, codeLens, diagnostic",
            )),
        );
        report.add(
            Row::new(format!("RSS after close, {}", shape.name), s.closed, "MB")
                .target(
                    format!("<= idle + 5 MB = {:.1} MB", s.idle + 5.0),
                    s.closed <= s.idle + 5.0,
                )
                .baseline("the server idle", s.idle, s.closed / s.idle)
                .note(note("didClose, cleared diagnostics, 200 ms")),
        );
    }
}

/// The same session on the bench's mix under each allocator: RSS and speed.
pub fn allocator_rows(report: &mut Report) {
    let text = generate_chat(10 << 20).0;
    let mb = text.len() as f64 / 1e6;
    let allowed = 2.0 * mb + 20.0;
    let mut base: Option<Session> = None;
    for allocator in allocators() {
        let s = session(&text, &allocator);
        let (base_name, base_value) = match &base {
            Some(b) => ("glibc as it comes, the same session", b.edited),
            None => ("the server idle", s.idle),
        };
        report.add(
            Row::new(
                format!("allocator {}: RSS after {EDITS} keys, 10 MB mix", allocator.name),
                s.edited,
                "MB",
            )
            .target(
                format!("<= 2 x chat + 20 MB = {allowed:.0} MB; after close <= idle + 5 MB"),
                s.edited <= allowed && s.closed <= s.idle + 5.0,
            )
            .baseline(base_name, base_value, s.edited / base_value)
            .note(format!(
                "idle {:.1}, open {:.1}, after edits {:.1} (peak {:.1}), closed {:.1} MB; first outline {:.1} ms; a key and its 4 requests: {:.1} ms",
                s.idle,
                s.open,
                s.edited,
                s.peak,
                s.closed,
                ms(s.first_outline),
                ms(s.per_key)
            )),
        );
        if base.is_none() {
            base = Some(s);
        }
    }
}

/// 200 chats opened at once, then each one's outline, folding and code lenses asked
/// before any answer is read: every answer and every diagnostics notification real.
pub fn many_chats(report: &mut Report) {
    const CHATS: usize = 200;
    let dir = tempfile::tempdir().expect("temporary folder");
    let mut server = Server::start();
    server.initialize(dir.path());
    let uris: Vec<String> = (0..CHATS)
        .map(|i| format!("file://{}/c{i}.chat.md", dir.path().display()))
        .collect();
    let mut frames = Vec::new();
    for (i, uri) in uris.iter().enumerate() {
        let text = format!(
            "## @me\n@reviewer question {i} for @ghost{i}?\n\n## @reviewer\n\
             <!-- chatmd id=t1 agent=claude status=done -->\nanswer {i}\n\n## @me\nnext {i}\n"
        );
        frames.extend(Server::notification_frame(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri, "languageId": "chatmd", "version": 1, "text": text}}),
        ));
    }
    let mut ids = HashSet::new();
    for uri in &uris {
        let doc = json!({"textDocument": {"uri": uri}});
        for method in [
            "textDocument/documentSymbol",
            "textDocument/foldingRange",
            "textDocument/codeLens",
        ] {
            let (id, frame) = server.request_frame(method, doc.clone());
            ids.insert(id);
            frames.extend(frame);
        }
    }
    let start = Instant::now();
    server.write(&frames);
    let (mut answered, mut published) = (0, HashSet::new());
    let mut bad = Vec::new();
    while answered < ids.len() || published.len() < CHATS {
        let message: Value = server.next_message();
        let text = message.to_string();
        if text.contains("chatmdRaw") {
            bad.push(text.chars().take(120).collect::<String>());
        }
        if message["method"] == "textDocument/publishDiagnostics" {
            let diagnostics = message["params"]["diagnostics"].as_array();
            if diagnostics.is_none() {
                bad.push(text.chars().take(120).collect());
            } else if let Some(uri) = message["params"]["uri"].as_str() {
                published.insert(uri.to_string());
            }
        } else if message.get("method").is_none() {
            let id = message["id"].as_i64().unwrap_or_default();
            if ids.contains(&id) {
                answered += 1;
                if message.get("result").is_none() {
                    bad.push(text.chars().take(120).collect());
                }
            }
        }
    }
    let took = start.elapsed();
    server.shutdown();
    report.add(
        Row::new(
            "200 chats opened at once, then outline, folding and lenses of each: every answer real",
            ms(took),
            "ms",
        )
        .target(
            "every answer and publishDiagnostics real (no chatmdRaw)",
            bad.is_empty(),
        )
        .note(format!(
            "{answered} answers, diagnostics of {} chats, {} not real{}",
            published.len(),
            bad.len(),
            bad.first().map_or(String::new(), |b| format!(": {b}"))
        )),
    );
}
