//! The built `chatmd lsp` against hostile input over its stdio: every malformed frame or
//! message is answered (or dropped, without an id) and the server keeps answering; it
//! exits at once on `exit`, with 0 after `shutdown` and 1 without; it does not grow
//! without bound.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::Duration;

use serde_json::{Value, json};

/// Long enough for a loaded machine; a server that went deaf never answers at all.
const TIMEOUT: Duration = Duration::from_secs(20);

/// `chatmd lsp` over its stdio, initialized; frames read on a thread of their own.
struct Server {
    /// Taken by [`Server::exit_status`].
    child: Option<Child>,
    pid: u32,
    stdin: Option<ChildStdin>,
    frames: Receiver<Value>,
    next_id: i64,
}

impl Server {
    fn start() -> Server {
        Server::start_in(None)
    }

    fn start_in(root: Option<&std::path::Path>) -> Server {
        let mut command = Command::new(assert_cmd::cargo::cargo_bin("chatmd"));
        if let Some(root) = root {
            command.current_dir(root);
        }
        let mut child = command
            .arg("lsp")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start chatmd lsp");
        let stdin = child.stdin.take();
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
            pid: child.id(),
            child: Some(child),
            stdin,
            frames,
            next_id: 1,
        };
        let mut params = json!({"capabilities": {}});
        if let Some(root) = root {
            params["rootUri"] = format!("file://{}", root.display()).into();
        }
        let init = server.request("initialize", params);
        assert_eq!(init["result"]["serverInfo"]["name"], "chatmd");
        server.send(&json!({"jsonrpc": "2.0", "method": "initialized", "params": {}}));
        server
    }

    fn send_raw(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(bytes).expect("write to the server");
        stdin.flush().expect("flush");
    }

    fn send(&mut self, message: &Value) {
        self.send_raw(&frame(&message.to_string()));
    }

    /// The next frame from the server; `None` once it closed stdout.
    fn next(&mut self) -> Option<Value> {
        match self.frames.recv_timeout(TIMEOUT) {
            Ok(frame) => Some(frame),
            Err(RecvTimeoutError::Disconnected) => None,
            Err(RecvTimeoutError::Timeout) => panic!("the server said nothing for {TIMEOUT:?}"),
        }
    }

    /// The next answer (a frame without a method), skipping notifications.
    fn answer(&mut self) -> Value {
        loop {
            let frame = self.next().expect("the server answers");
            if frame.get("method").is_none() {
                return frame;
            }
        }
    }

    fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        let answer = self.answer();
        assert_eq!(answer["id"], id, "answers come in order here: {answer}");
        answer
    }

    /// A valid request after hostile input: the server must still answer it.
    fn still_answers(&mut self) {
        let answer = self.request("chatmd/turns", json!({}));
        assert!(answer.get("result").is_some(), "{answer}");
    }

    /// Waits for the process to end, at most `TIMEOUT` (then kills it and fails).
    fn exit_status(&mut self) -> ExitStatus {
        let mut child = self.child.take().expect("not waited for yet");
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let _ = tx.send(child.wait().expect("wait"));
        });
        match rx.recv_timeout(TIMEOUT) {
            Ok(status) => status,
            Err(_) => {
                let pid = nix::unistd::Pid::from_raw(self.pid as i32);
                let _ = nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGKILL);
                panic!("the server did not exit within {TIMEOUT:?}");
            }
        }
    }

    /// Fails when the server's peak resident memory passed `mb` MB.
    fn assert_peak_below(&self, mb: u64) {
        let status =
            std::fs::read_to_string(format!("/proc/{}/status", self.pid)).expect("/proc status");
        let kb: u64 = status
            .lines()
            .find_map(|l| l.strip_prefix("VmHWM:"))
            .and_then(|v| v.trim().trim_end_matches(" kB").parse().ok())
            .expect("VmHWM");
        assert!(
            kb / 1024 < mb,
            "the server's memory peaked at {} MB",
            kb / 1024
        );
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

fn read_frame(reader: &mut impl BufRead) -> Option<Value> {
    let mut length = None;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).ok()? == 0 {
            return None;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        let (name, value) = line.split_once(": ")?;
        assert_eq!(name, "Content-Length", "only protocol on stdout");
        length = value.parse::<usize>().ok();
    }
    let mut body = vec![0; length?];
    reader.read_exact(&mut body).ok()?;
    Some(serde_json::from_slice(&body).expect("the server writes JSON"))
}

fn frame(body: &str) -> Vec<u8> {
    format!("Content-Length: {}\r\n\r\n{body}", body.len()).into_bytes()
}

/// The error of an answer: (id, code).
fn error_of(answer: &Value) -> (Value, i64) {
    let code = answer["error"]["code"]
        .as_i64()
        .unwrap_or_else(|| panic!("an error answer: {answer}"));
    (answer["id"].clone(), code)
}

const INVALID_REQUEST: i64 = -32600;
const PARSE_ERROR: i64 = -32700;
const METHOD_NOT_FOUND: i64 = -32601;

#[test]
fn a_fractional_request_id_gets_an_error_and_the_server_keeps_answering() {
    let mut server = Server::start();
    server.send_raw(&frame(r#"{"jsonrpc":"2.0","id":1.5,"method":"shutdown"}"#));
    assert_eq!(error_of(&server.answer()), (Value::Null, INVALID_REQUEST));
    server.still_answers();
}

#[test]
fn an_id_that_is_an_object_a_bool_or_too_large_gets_an_error_and_the_server_keeps_answering() {
    let mut server = Server::start();
    for id in [
        "{}",
        "true",
        "[1]",
        "18446744073709551616",
        "9223372036854775808",
    ] {
        let body = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"shutdown"}}"#);
        server.send_raw(&frame(&body));
        assert_eq!(
            error_of(&server.answer()),
            (Value::Null, INVALID_REQUEST),
            "{id}"
        );
        server.still_answers();
    }
}

#[test]
fn a_duplicated_key_gets_an_error_and_the_server_keeps_answering() {
    let mut server = Server::start();
    server.send_raw(&frame(
        r#"{"jsonrpc":"2.0","id":70,"method":"chatmd/turns","method":"shutdown"}"#,
    ));
    assert_eq!(error_of(&server.answer()), (json!(70), INVALID_REQUEST));
    server.send_raw(&frame(r#"{"jsonrpc":"2.0","id":71,"id":72,"method":"x"}"#));
    assert_eq!(error_of(&server.answer()), (Value::Null, INVALID_REQUEST));
    server.still_answers();
}

#[test]
fn a_bad_content_length_is_skipped() {
    let mut server = Server::start();
    for header in [
        "Content-Length: abc",
        "Content-Length: -5",
        "Content-Type: application/vscode-jsonrpc",
    ] {
        // The body that header should have delimited is skipped with it.
        let body = r#"{"jsonrpc":"2.0","id":80,"method":"shutdown"}"#;
        server.send_raw(format!("{header}\r\n\r\n{body}").as_bytes());
        assert_eq!(
            error_of(&server.answer()),
            (Value::Null, PARSE_ERROR),
            "{header}"
        );
        server.still_answers();
    }
}

#[test]
fn garbage_between_frames_and_a_wrong_content_length_are_skipped() {
    let mut server = Server::start();
    server.send_raw(b"garbage\r\nno header at all\r\n\r\n");
    server.still_answers();
    // A Content-Length 10 bytes too long: the next frame's header is inside the body.
    let body = r#"{"jsonrpc":"2.0","method":"initialized","params":{}}"#;
    server.send_raw(format!("Content-Length: {}\r\n\r\n{body}", body.len() + 10).as_bytes());
    server.send(&json!({"jsonrpc": "2.0", "id": 90, "method": "chatmd/turns", "params": {}}));
    assert_eq!(error_of(&server.answer()), (Value::Null, PARSE_ERROR));
    assert_eq!(server.answer()["id"], 90);
    // A Content-Length too short: the rest of the body is garbage before the next header.
    server.send_raw(format!("Content-Length: 10\r\n\r\n{body}").as_bytes());
    assert_eq!(error_of(&server.answer()), (Value::Null, PARSE_ERROR));
    server.still_answers();
}

#[test]
fn what_is_not_json_rpc_gets_an_error_and_the_server_keeps_answering() {
    let mut server = Server::start();
    server.send_raw(&frame("not json"));
    assert_eq!(error_of(&server.answer()), (Value::Null, PARSE_ERROR));
    server.send_raw(&frame("[1, 2]"));
    assert_eq!(error_of(&server.answer()), (Value::Null, INVALID_REQUEST));
    server.send_raw(&frame(r#"{"jsonrpc":"1.0","id":5,"method":"x"}"#));
    assert_eq!(error_of(&server.answer()), (json!(5), INVALID_REQUEST));
    server.send_raw(b"Content-Length: 4\r\n\r\n\xff\xfe{}");
    assert_eq!(error_of(&server.answer()), (Value::Null, PARSE_ERROR));
    // A malformed notification has no id to answer: dropped.
    server.send_raw(&frame(r#"{"jsonrpc":"2.0","method":7}"#));
    server.still_answers();
}

#[test]
fn an_unknown_request_is_answered_even_a_dollar_one() {
    let mut server = Server::start();
    for method in ["$/unknown", "chatmd/unknown", "$/cancelRequest"] {
        let answer = server.request(method, json!({}));
        let (_, code) = error_of(&answer);
        assert!(
            [METHOD_NOT_FOUND, INVALID_REQUEST].contains(&code),
            "{method}: {answer}"
        );
    }
    server.still_answers();
}

#[test]
fn a_malformed_answer_from_the_editor_does_not_stop_the_server() {
    let mut server = Server::start();
    server.send_raw(&frame(r#"{"jsonrpc":"2.0","id":7,"error":"no"}"#));
    server.send_raw(&frame(r#"{"jsonrpc":"2.0","id":{},"result":1}"#));
    server.still_answers();
}

#[test]
fn a_body_over_the_limit_is_refused_unread_and_the_server_keeps_answering() {
    let mut server = Server::start();
    let huge = format!(
        r#"{{"jsonrpc":"2.0","id":3,"method":"x","params":"{}"}}"#,
        "a".repeat(40 << 20)
    );
    // Written from a thread: the server reads while the pipe fills.
    let mut stdin = server.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        stdin.write_all(&frame(&huge)).unwrap();
        stdin
    });
    assert_eq!(error_of(&server.answer()), (Value::Null, INVALID_REQUEST));
    server.stdin = Some(writer.join().unwrap());
    server.still_answers();
    server.assert_peak_below(150);
}

#[test]
fn a_body_of_millions_of_numbers_is_refused_before_it_is_built() {
    let mut server = Server::start();
    // 24 MB: under the byte limit; 12 million values built would take over 400 MB.
    let numbers = vec!["1"; 12_000_000].join(",");
    let body = format!(r#"{{"jsonrpc":"2.0","id":4,"method":"x","params":[{numbers}]}}"#);
    let mut stdin = server.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        stdin.write_all(&frame(&body)).unwrap();
        stdin
    });
    assert_eq!(error_of(&server.answer()), (json!(4), INVALID_REQUEST));
    server.stdin = Some(writer.join().unwrap());
    server.still_answers();
    server.assert_peak_below(150);
}

#[test]
fn exit_after_shutdown_exits_with_0() {
    let mut server = Server::start();
    assert_eq!(
        server.request("shutdown", Value::Null)["result"],
        Value::Null
    );
    // The input stays open, as some editors keep it: `exit` alone must end the server.
    server.send(&json!({"jsonrpc": "2.0", "method": "exit"}));
    assert_eq!(server.exit_status().code(), Some(0));
}

#[test]
fn exit_without_shutdown_exits_with_1() {
    let mut server = Server::start();
    server.send(&json!({"jsonrpc": "2.0", "method": "exit"}));
    assert_eq!(server.exit_status().code(), Some(1));
}

#[test]
fn the_input_closing_without_shutdown_exits_with_1() {
    let mut server = Server::start();
    server.stdin = None;
    assert_eq!(server.exit_status().code(), Some(1));
}

#[test]
fn one_hundred_thousand_unknown_mentions_give_a_capped_list() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("tester")).unwrap();
    std::fs::write(dir.path().join("tester/AGENTS.md"), "# Tests\n").unwrap();
    let mut server = Server::start_in(Some(dir.path()));
    let uri = format!("file://{}/a.chat.md", dir.path().display());
    let text = format!("## @me\n{}\n", vec!["@tster"; 100_000].join(" "));
    server.send(
        &json!({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {
        "textDocument": {"uri": uri, "languageId": "chatmd", "version": 1, "text": text}}}),
    );
    let published = loop {
        let frame = server.next().expect("diagnostics");
        if frame["method"] == "textDocument/publishDiagnostics" && frame["params"]["uri"] == uri {
            break frame;
        }
    };
    let diagnostics = published["params"]["diagnostics"].as_array().unwrap();
    assert_eq!(diagnostics.len(), 1001);
    assert_eq!(diagnostics[0]["code"], "unknown-mention");
    assert_eq!(
        diagnostics[0]["message"],
        "@tster is not a member of this team; nobody will answer this mention. Did you mean @tester?"
    );
    // The summary sits on the first problem not shown: the 1001st mention.
    assert_eq!(
        diagnostics[1000],
        json!({
            "range": {"start": {"line": 1, "character": 7001}, "end": {"line": 1, "character": 7006}},
            "severity": 2,
            "code": "too-many-problems",
            "source": "chatmd",
            "message": "99000 more problems from here on are not shown: chatmd shows the first 1000 of a document. Fix these, and the next ones appear."
        })
    );
    // A code action over the whole line offers the fixes of the problems shown only.
    let actions = server.request(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": uri},
            "range": {"start": {"line": 0, "character": 0}, "end": {"line": 2, "character": 0}},
            "context": {"diagnostics": []}}),
    );
    let fixes: Vec<&Value> = actions["result"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|a| a["kind"] == "quickfix")
        .collect();
    assert_eq!(fixes.len(), 1000);
    assert_eq!(fixes[0]["title"], "Change to @tester");
    server.assert_peak_below(100);
}

#[test]
fn a_one_gib_role_file_is_refused_with_a_diagnostic_not_read() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("tester")).unwrap();
    let role = dir.path().join("tester/AGENTS.md");
    // 1 GiB of zeros, sparse (a git pack holds it in 1 MB).
    std::fs::File::create(&role)
        .unwrap()
        .set_len(1 << 30)
        .unwrap();
    let mut server = Server::start_in(Some(dir.path()));
    let uri = format!("file://{}/a.chat.md", dir.path().display());
    let role_uri = format!("file://{}", role.display());
    server.send(
        &json!({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {
        "textDocument": {"uri": uri, "languageId": "chatmd", "version": 1,
            "text": "## @me\n@tester hello\n"}}}),
    );
    let published = loop {
        let frame = server.next().expect("diagnostics");
        if frame["method"] == "textDocument/publishDiagnostics"
            && frame["params"]["uri"] == role_uri
        {
            break frame;
        }
    };
    assert_eq!(
        published["params"]["diagnostics"],
        json!([{
            "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}},
            "severity": 1,
            "source": "chatmd",
            "message": "cannot read role file AGENTS.md: it is larger than 256 KiB, the most chatmd reads; shorten it; tester has no role until then"
        }])
    );
    server.still_answers();
    server.assert_peak_below(100);
}

#[test]
fn an_answer_over_the_limit_is_cut_with_a_note() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join(".git")).unwrap();
    std::fs::create_dir_all(root.join("team/reviewer")).unwrap();
    std::fs::write(root.join("team/reviewer/CLAUDE.md"), "# Reviews\n").unwrap();
    let chat = "## @me\n@reviewer hi\n";
    std::fs::write(root.join("team/a.chat.md"), chat).unwrap();
    let fake = std::path::PathBuf::from(env!("CARGO_BIN_EXE_fake-agent"));
    let bin = chatmd_tests::fake_agent::install(&fake, &root.join("bin")).unwrap();
    let out = Command::new(assert_cmd::cargo::cargo_bin("chatmd"))
        .args(["send", "team/a.chat.md"])
        .current_dir(root)
        .env("PATH", format!("{}:/usr/bin:/bin", bin.display()))
        .env("HOME", root)
        .env("XDG_CONFIG_HOME", root.join("config"))
        .env("IS_SANDBOX", "")
        // 3 MiB of answer text, in about 1 KiB pieces.
        .env("FAKE_AGENT_FLOOD_MB", "3")
        .stdin(Stdio::null())
        .output()
        .expect("run chatmd send");
    assert_eq!(String::from_utf8_lossy(&out.stderr), "@reviewer: done\n");
    let text = std::fs::read_to_string(root.join("team/a.chat.md")).unwrap();
    let status_end = text.find("-->\n").expect("a status comment") + 4;
    let section = &text[status_end..];
    let note_at = section.find("\n\n> **Cut** — ").expect("the note");
    // Exactly 1 MiB of the answer, then a line break (it was cut mid-line) and the
    // note's blank line.
    assert_eq!(note_at, 1 << 20);
    assert!(!section[..note_at].ends_with('\n'));
    assert!(section[..note_at].starts_with("flood flood "));
    let note = &section[note_at + 2..];
    let cut: usize = note
        .strip_prefix(
            "> **Cut** — the answer passed 1 MiB, the most chatmd writes into a chat; its last ",
        )
        .and_then(|rest| rest.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("the note: {}", &note[..note.len().min(200)]));
    assert!(cut > 1 << 20, "{cut} bytes cut of 3 MiB");
    assert!(note.starts_with(&format!(
        "> **Cut** — the answer passed 1 MiB, the most chatmd writes into a chat; its last {cut} bytes are left out.\n"
    )));
    // The terminal showed what the chat holds (after the member's name), no more.
    let shown = String::from_utf8(out.stdout).unwrap();
    assert_eq!(
        shown,
        format!("\n── @reviewer ──\n{}\n", &section[..note_at])
    );
}

#[test]
fn a_non_file_uri_is_refused_for_turns_and_never_read_from_disk() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("reviewer")).unwrap();
    std::fs::write(dir.path().join("reviewer/CLAUDE.md"), "# Reviews\n").unwrap();
    // A chat in the server's working folder, and one at an absolute path: read as
    // local paths, `untitled:a.chat.md` and `http://host/<path>` would find them.
    std::fs::write(dir.path().join("a.chat.md"), "## @me\n@reviewer hi\n").unwrap();
    let mut server = Server::start_in(Some(dir.path()));
    let absolute = format!("http://example.com{}/a.chat.md", dir.path().display());
    for uri in ["untitled:a.chat.md", absolute.as_str()] {
        let answer = server.request(
            "workspace/executeCommand",
            json!({"command": "chatmd.send", "arguments": [{"uri": uri}]}),
        );
        assert_eq!(
            answer["error"]["message"],
            format!(
                "chatmd runs turns in files on this computer, and {uri} is not one: save the chat as a .chat.md file first"
            ),
            "{answer}"
        );
    }
    // An open untitled buffer still gets the features that work on its text.
    let uri = "untitled:Untitled-1";
    server.send(
        &json!({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {
        "textDocument": {"uri": uri, "languageId": "chatmd", "version": 1,
            "text": "## @me\nhello\n\n## @reviewer\nhi\n"}}}),
    );
    let symbols = server.request(
        "textDocument/documentSymbol",
        json!({"textDocument": {"uri": uri}}),
    );
    let names: Vec<&str> = symbols["result"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(names.len(), 2, "{symbols}");
    let answer = server.request(
        "workspace/executeCommand",
        json!({"command": "chatmd.send", "arguments": [{"uri": uri}]}),
    );
    assert!(
        answer["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("save the chat as a .chat.md file first")),
        "{answer}"
    );
}
