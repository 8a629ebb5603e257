//! The chatmd benchmark: every performance target in one table, each row next to a
//! baseline measured in the same run (so machine noise cancels out of the ratios).
//!
//! Run: `cargo bench -p chatmd-tests --bench all` (add `-- --json` for the rows as JSON).
//! It builds its own inputs: a 10 MB chat of 20k messages, a 20k-file workspace, fake
//! agents; the outline baseline installs VS Code's Markdown language service with npm.

mod lsp;
mod parse;
mod report;
mod runner;
mod stdio;
mod turns;
mod vscode;

use report::Report;

fn main() {
    let mut report = Report {
        json: std::env::args().any(|a| a == "--json"),
        ..Report::default()
    };
    turns::sixteen(&mut report);
    let (chat, messages) = parse::generate_chat(10 << 20);
    parse::rows(&mut report, &chat, messages);

    let file = tempfile::NamedTempFile::new().expect("a temporary file");
    std::fs::write(file.path(), &chat).expect("write the chat");
    let vscode = vscode::outline(file.path());
    lsp::start_up(&mut report);
    lsp::outline(&mut report, &chat, vscode);
    lsp::memory(&mut report, &chat);
    lsp::workspace(&mut report);
    drop(chat);

    turns::rows(&mut report);
    runner::rows(&mut report);
    println!("{}", report.render());
}
