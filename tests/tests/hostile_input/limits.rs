//! Caps on what the editor, the workspace or an agent can make the server hold, and
//! URIs that are not local files.

use std::io::Write;
use std::process::{Command, Stdio};

use serde_json::{Value, json};

use crate::stdio::*;

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
