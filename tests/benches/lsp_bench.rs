//! Language-server benchmark: start-up in a large workspace, measured through the real
//! server over in-memory pipes, next to a baseline taken in the same run.
//!
//! Run: `cargo bench -p chatmd-tests --bench lsp_bench`

use std::time::{Duration, Instant};

use chatmd_tests::{TestClient, file_uri};
use serde_json::json;

/// A workspace of `files` files: teams with members, chats, and plenty of other files
/// (sources, node_modules) the scan has to walk past or skip.
fn build_workspace(root: &std::path::Path, files: usize) -> std::path::PathBuf {
    let mut written = 0;
    let mut team = 0;
    while written < files {
        let dir = root.join(format!("team{team}"));
        for (member, role) in [
            ("reviewer", "CLAUDE.md"),
            ("tester", "AGENTS.md"),
            ("writer", "GEMINI.md"),
        ] {
            std::fs::create_dir_all(dir.join(member)).unwrap();
            std::fs::write(dir.join(member).join(role), format!("# {member}\n")).unwrap();
            written += 1;
        }
        for chat in 0..5 {
            std::fs::write(
                dir.join(format!("c{chat}.chat.md")),
                "## @me\n@reviewer hi\n",
            )
            .unwrap();
            written += 1;
        }
        std::fs::create_dir_all(dir.join("src")).unwrap();
        for source in 0..40 {
            std::fs::write(
                dir.join("src").join(format!("f{source}.rs")),
                "fn main() {}\n",
            )
            .unwrap();
            written += 1;
        }
        let modules = dir.join("node_modules").join("pkg");
        std::fs::create_dir_all(&modules).unwrap();
        for module in 0..50 {
            std::fs::write(modules.join(format!("m{module}.js")), "1\n").unwrap();
            written += 1;
        }
        team += 1;
    }
    root.join("team0").join("c0.chat.md")
}

async fn first_diagnostics(root: &std::path::Path, chat: &std::path::Path) -> Duration {
    let mut client = TestClient::spawn(chatmd::lsp::serve);
    let start = Instant::now();
    client
        .request(
            "initialize",
            json!({"processId": null, "rootUri": file_uri(root), "capabilities": {"workspace": {"didChangeWatchedFiles": {"dynamicRegistration": true}}}}),
        )
        .await
        .expect("initialize");
    client.notify("initialized", json!({})).await;
    let uri = file_uri(chat);
    client
        .open(&uri, &std::fs::read_to_string(chat).unwrap())
        .await;
    let diagnostics = client.expect_diagnostics(&uri).await;
    let took = start.elapsed();
    assert!(
        diagnostics.iter().all(|d| d["code"] != "unknown-mention"),
        "the team was found"
    );
    client.shutdown().await;
    took
}

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let big = tempfile::tempdir().unwrap();
    let chat = build_workspace(big.path(), 20_000);
    let small = tempfile::tempdir().unwrap();
    let small_chat = build_workspace(small.path(), 1);
    // Warm the file system cache once, as an editor reopening a project would find it.
    let _ = chatmd::team::scan_chats(big.path());
    let mut big_runs = Vec::new();
    let mut small_runs = Vec::new();
    for _ in 0..5 {
        big_runs.push(runtime.block_on(first_diagnostics(big.path(), &chat)));
        small_runs.push(runtime.block_on(first_diagnostics(small.path(), &small_chat)));
    }
    big_runs.sort();
    small_runs.sort();
    let (big_ms, small_ms) = (
        big_runs[2].as_secs_f64() * 1e3,
        small_runs[2].as_secs_f64() * 1e3,
    );
    println!("chatmd LSP benchmark — median of 5 runs\n");
    println!("| what | chatmd | baseline (same run) | target | ok? |");
    println!("|---|---|---|---|---|");
    println!(
        "| initialize → first publishDiagnostics, 20k-file workspace | {big_ms:.1} ms | {small_ms:.1} ms in a 50-file workspace | <= 300 ms | {} |",
        if big_ms <= 300.0 { "ok" } else { "MISS" }
    );
}
