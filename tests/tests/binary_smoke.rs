//! The built `chatmd` binary serves LSP over stdio: initialize, a diagnostic, shutdown,
//! exit — and nothing but protocol on stdout.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

use serde_json::{Value, json};

fn frame(v: &Value) -> Vec<u8> {
    let body = v.to_string();
    format!("Content-Length: {}\r\n\r\n{body}", body.len()).into_bytes()
}

fn read_frame(reader: &mut impl BufRead) -> Value {
    let mut length = None;
    loop {
        let mut line = String::new();
        assert!(
            reader.read_line(&mut line).expect("read header") > 0,
            "stdout closed"
        );
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        let (name, value) = line.split_once(": ").expect("header line");
        assert_eq!(name, "Content-Length", "only protocol on stdout");
        length = Some(value.parse::<usize>().expect("length"));
    }
    let mut body = vec![0; length.expect("Content-Length")];
    reader.read_exact(&mut body).expect("body");
    serde_json::from_slice(&body).expect("JSON body")
}

#[test]
fn the_binary_serves_lsp_on_stdio() {
    let dir = tempfile::tempdir().unwrap();
    let uri = format!("file://{}/a.chat.md", dir.path().display());
    let mut child = Command::new(assert_cmd::cargo::cargo_bin("chatmd"))
        .arg("lsp")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start chatmd lsp");
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());

    stdin.write_all(&frame(&json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}}))).unwrap();
    let init = read_frame(&mut stdout);
    assert_eq!(init["id"], 1);
    assert_eq!(init["result"]["serverInfo"]["name"], "chatmd");
    stdin
        .write_all(&frame(
            &json!({"jsonrpc": "2.0", "method": "initialized", "params": {}}),
        ))
        .unwrap();
    let open = json!({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {"uri": uri, "languageId": "chatmd", "version": 1, "text": "## @me\nhello @nobody\n"}}});
    stdin.write_all(&frame(&open)).unwrap();
    let published = loop {
        let message = read_frame(&mut stdout);
        if message["method"] == "textDocument/publishDiagnostics" {
            break message;
        }
    };
    assert_eq!(
        published["params"]["diagnostics"][0]["code"],
        "unknown-mention"
    );
    stdin
        .write_all(&frame(
            &json!({"jsonrpc": "2.0", "id": 2, "method": "shutdown"}),
        ))
        .unwrap();
    loop {
        let message = read_frame(&mut stdout);
        if message["id"] == 2 {
            assert_eq!(message["result"], Value::Null);
            break;
        }
    }
    stdin
        .write_all(&frame(&json!({"jsonrpc": "2.0", "method": "exit"})))
        .unwrap();
    drop(stdin);
    let status = child.wait().expect("exit");
    assert!(status.success(), "exit status {status}");
}

/// The environment `chatmd lsp` runs with once it answered `initialize`, started with
/// `env` added: its allocator's variables (jemalloc's, as built by default) and
/// chatmd's marker of them.
fn server_malloc_env(env: &[(&str, &str)]) -> Vec<String> {
    let mut child = Command::new(assert_cmd::cargo::cargo_bin("chatmd"))
        .arg("lsp")
        .env_remove("MALLOC_ARENA_MAX")
        .env_remove("MALLOC_MMAP_THRESHOLD_")
        .env_remove("MALLOC_TRIM_THRESHOLD_")
        .env_remove("CHATMD_MALLOC_TUNED")
        .env_remove("_RJEM_MALLOC_CONF")
        .envs(env.iter().copied())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start chatmd lsp");
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    stdin.write_all(&frame(&json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}}))).unwrap();
    assert_eq!(read_frame(&mut stdout)["id"], 1);
    let environ = std::fs::read(format!("/proc/{}/environ", child.id())).expect("environ");
    drop(stdin);
    child.wait().unwrap();
    let mut found: Vec<String> = environ
        .split(|b| *b == 0)
        .map(|v| String::from_utf8_lossy(v).into_owned())
        .filter(|v| {
            ["MALLOC_", "_RJEM_MALLOC_", "CHATMD_MALLOC"]
                .iter()
                .any(|prefix| v.starts_with(prefix))
        })
        .collect();
    found.sort();
    found
}

#[test]
fn the_server_runs_with_jemalloc_giving_memory_back_unless_the_user_set_it() {
    assert_eq!(
        server_malloc_env(&[]),
        [
            "CHATMD_MALLOC_TUNED=1",
            "_RJEM_MALLOC_CONF=dirty_decay_ms:0,muzzy_decay_ms:0",
        ]
    );
    assert_eq!(
        server_malloc_env(&[("_RJEM_MALLOC_CONF", "narenas:1")]),
        ["_RJEM_MALLOC_CONF=narenas:1"]
    );
}
