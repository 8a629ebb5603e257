//! The chatmd benchmark: every performance target in one table, each row next to a
//! baseline measured in the same run (so machine noise cancels out of the ratios).
//!
//! Run: `cargo bench -p chatmd-tests --bench all` (add `-- --json` for the rows as JSON).
//! It builds its own inputs: a 10 MB chat of 20k messages, a 20k-file workspace, fake
//! agents; the outline baseline installs VS Code's Markdown language service with npm.

mod acp_alone;
mod council;
mod keystroke;
mod lsp;
mod parse;
mod report;
mod runner;
mod send;
mod shapes;
mod stdio;
mod turns;
mod typing;
mod vscode;
mod warm;
mod warm_claude;
mod warm_memory;

use report::Report;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let mut report = Report {
        json: args.iter().any(|a| a == "--json"),
        ..Report::default()
    };
    // `--only parse,lsp`: some groups of rows (parse, lsp, shapes, memory, allocators,
    // many, send, turns, warm, warm-claude, council, warm-memory, typing, runner), while
    // working on them; the table of record is the whole run.
    let only: Option<Vec<&str>> = args
        .iter()
        .position(|a| a == "--only")
        .and_then(|at| args.get(at + 1))
        .map(|groups| groups.split(',').collect());
    let runs = |group: &str| only.as_ref().is_none_or(|only| only.contains(&group));
    if runs("turns") {
        turns::sixteen(&mut report);
    }
    let (chat, messages) = parse::generate_chat(10 << 20);
    // `CHATMD_BENCH_CHAT=FILE`: only write the bench's chat there, to profile the
    // server on the same input by hand (docs/performance.md says how).
    if let Some(path) = std::env::var_os("CHATMD_BENCH_CHAT") {
        std::fs::write(&path, &chat).expect("write the chat");
        return;
    }
    if runs("parse") {
        parse::rows(&mut report, &chat, messages);
    }
    if runs("lsp") {
        let file = tempfile::NamedTempFile::new().expect("a temporary file");
        std::fs::write(file.path(), &chat).expect("write the chat");
        let vscode = vscode::outline(file.path());
        lsp::start_up(&mut report);
        lsp::outline(&mut report, &chat, vscode);
        lsp::memory(&mut report, &chat);
        lsp::workspace(&mut report);
    }
    drop(chat);
    if runs("shapes") {
        keystroke::rows(&mut report);
    }

    if runs("memory") {
        shapes::rows(&mut report);
    }
    if runs("allocators") {
        shapes::allocator_rows(&mut report);
    }
    if runs("many") {
        shapes::many_chats(&mut report);
    }
    if runs("send") {
        send::rows(&mut report);
    }
    if runs("turns") {
        turns::rows(&mut report);
    }
    if runs("warm") {
        warm::rows(&mut report);
    }
    if runs("warm-claude") {
        warm_claude::rows(&mut report);
    }
    if runs("council") {
        council::rows(&mut report);
    }
    if runs("warm-memory") {
        warm_memory::rows(&mut report);
    }
    if runs("typing") {
        typing::rows(&mut report);
    }
    if runs("runner") {
        runner::rows(&mut report);
    }
    println!("{}", report.render());
}
