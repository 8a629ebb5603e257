//! The fake agent CLI for tests: impersonates claude, codex or gemini (see
//! `chatmd_tests::fake_agent` for what it checks and the knobs that drive it).

fn main() {
    std::process::exit(chatmd_tests::fake_agent::main());
}
