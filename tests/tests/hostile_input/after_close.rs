//! What a large chat leaves in the server once it is closed: the server's resident
//! memory, read from outside (`/proc/<pid>/status`), comes back to near what it was
//! before the chat was opened, after the chat was opened, edited and asked for
//! everything an editor asks after a key.
//!
//! The bound is 8 MB over idle: what this catches is an allocator keeping a closed
//! chat's freed memory (glibc's kept 56-76 MB of this 10 MB chat). The debug server
//! keeps 3.5-4.5 MB here, steadily (seen in repeated runs, and for 14 s after the
//! close), and once 5.2 MB in a loaded CI run, so the issue's target of 5 MB is the
//! benchmark's row (`memory`, after the close), measured on the release build.

use serde_json::{Value, json};

use crate::large_chats::PATIENCE;
use crate::stdio::*;

/// Keys typed into the chat, each followed by the editor's usual requests.
const KEYS: i32 = 5;

/// About `size` bytes as real chats are made: a team's answers with status comments,
/// mentions, lists and code fences, messages of about 500 bytes (10 MB: 20k messages,
/// each a few small pieces kept by the server: its outline, folds, checks).
fn chat_of(size: usize) -> String {
    let mut chat = String::with_capacity(size + 4096);
    chat.push_str("---\ntitle: A long project\n---\n\n");
    let mut n = 0usize;
    while chat.len() < size {
        if n.is_multiple_of(2) {
            chat.push_str(&format!(
                "## @me\n@reviewer look at step {n}, and @tester run the suite.\n\n- [ ] the rounding\n- [x] the retries\n\n"
            ));
        } else {
            chat.push_str(&format!(
                "## @reviewer\n<!-- chatmd id=t{n} agent=claude status=done session=6f1c0e2a-{n:08} took=3.0s tokens=1200/340 -->\n\
                 Step {n} keeps the API as it was; the rounding happens once, after the conversion.\n\n\
                 ```rust\nfn refund() -> u32 {{ {n} }}\n```\n\n"
            ));
        }
        n += 1;
    }
    chat
}

/// The requests an editor sends after a key, each answered with a result.
fn ask_as_an_editor(server: &mut Server, uri: &str) {
    for method in [
        "textDocument/documentSymbol",
        "textDocument/foldingRange",
        "textDocument/codeLens",
        "textDocument/diagnostic",
    ] {
        let id = server.next_id();
        server.send(&json!({"jsonrpc": "2.0", "id": id, "method": method,
            "params": {"textDocument": {"uri": uri}}}));
        let answer = server.answer_within(PATIENCE);
        assert_eq!(answer["id"], id, "{method}");
        assert!(answer.get("result").is_some(), "{method}: an error");
    }
}

#[test]
fn closing_a_large_edited_chat_gives_its_memory_back() {
    let chat = chat_of(10 << 20);
    let middle = chat.split('\n').count() / 2;
    let dir = tempfile::tempdir().unwrap();
    let uri = format!("file://{}/large.chat.md", dir.path().display());
    let mut server = Server::start();
    // The server's threads have started and answered once.
    server.still_answers();
    let idle_kb = server.memory_kb("VmRSS");

    server.send(
        &json!({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {
        "textDocument": {"uri": uri, "languageId": "chatmd", "version": 1, "text": chat}}}),
    );
    drop(chat);
    ask_as_an_editor(&mut server, &uri);
    for version in 2..2 + KEYS {
        server.send(
            &json!({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {
            "textDocument": {"uri": uri, "version": version},
            "contentChanges": [{"range": {"start": {"line": middle, "character": 0},
                                          "end": {"line": middle, "character": 0}},
                                "text": "x"}]}}),
        );
        ask_as_an_editor(&mut server, &uri);
    }
    let open_kb = server.memory_kb("VmRSS");

    server.send(&json!({"jsonrpc": "2.0", "method": "textDocument/didClose",
        "params": {"textDocument": {"uri": uri}}}));
    // Notifications are handled in order: a request after the close is answered once
    // the close was. The chat's diagnostics are cleared by then or soon after.
    let asked = server.next_id();
    server.send(&json!({"jsonrpc": "2.0", "id": asked, "method": "chatmd/turns", "params": {}}));
    let (mut answered, mut cleared) = (false, false);
    while !(answered && cleared) {
        let frame = server.next().expect("the server goes on");
        answered |= frame["id"] == asked && frame.get("method").is_none();
        cleared |= frame["method"] == "textDocument/publishDiagnostics"
            && frame["params"]["uri"] == uri
            && frame["params"]["diagnostics"] == Value::Array(Vec::new());
    }
    let closed_kb = server.memory_kb("VmRSS");
    assert!(
        open_kb > idle_kb + 20 * 1024,
        "the chat was held: idle {idle_kb} kB, open {open_kb} kB"
    );
    assert!(
        closed_kb <= idle_kb + 8 * 1024,
        "after the close the server holds {} kB over its idle {idle_kb} kB (open and edited: {open_kb} kB)",
        closed_kb - idle_kb
    );
    server.still_answers();
}
