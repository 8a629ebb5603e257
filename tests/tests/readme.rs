//! The README's commands, run exactly as the README spells them, with the output it
//! shows. A new user's first contact is the quick start: when it stops working, this
//! test fails (it once did: `cargo run` could not tell which binary to run).
//!
//! The agent CLIs must be missing for the output the README shows, so every folder of
//! `PATH` that holds a `claude`, `codex` or `gemini` is left out: these tests never
//! start a real agent. The demo's `@checker` runs the demo project's own `cargo test`:
//! the real answer the quick start promises on any machine.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use pretty_assertions::assert_eq;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the tests crate is inside the workspace")
        .to_path_buf()
}

fn readme() -> String {
    std::fs::read_to_string(root().join("README.md")).expect("read README.md")
}

/// The fenced blocks of the README section whose heading is `heading`, in order.
fn blocks(readme: &str, heading: &str) -> Vec<String> {
    let start = readme
        .find(&format!("\n## {heading}\n"))
        .unwrap_or_else(|| panic!("README has no `## {heading}` section"));
    let rest = &readme[start + heading.len() + 5..];
    let section = &rest[..rest.find("\n## ").unwrap_or(rest.len())];
    let mut out = Vec::new();
    let mut inside: Option<String> = None;
    for line in section.lines() {
        match (&mut inside, line.starts_with("```")) {
            (None, true) => inside = Some(String::new()),
            (Some(block), true) => {
                out.push(std::mem::take(block));
                inside = None;
            }
            (Some(block), false) => {
                block.push_str(line);
                block.push('\n');
            }
            (None, false) => {}
        }
    }
    out
}

/// The commands of a shell block: each line without its `# comment`.
fn commands(block: &str) -> Vec<String> {
    block
        .lines()
        .map(|l| l.split(" #").next().unwrap_or("").trim().to_string())
        .filter(|l| !l.is_empty())
        .collect()
}

/// `PATH` without the folders that hold a real agent CLI.
fn path_without_agents() -> String {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let kept: Vec<PathBuf> = std::env::split_paths(&path)
        .filter(|dir| {
            !["claude", "codex", "gemini"]
                .iter()
                .any(|cli| dir.join(cli).exists())
        })
        .collect();
    std::env::join_paths(kept)
        .expect("PATH joins again")
        .to_string_lossy()
        .into_owned()
}

fn run(command: &str, target_dir: Option<&Path>) -> Output {
    let mut c = Command::new("sh");
    c.arg("-c")
        .arg(command)
        .current_dir(root())
        .env("PATH", path_without_agents())
        .env_remove("XDG_CONFIG_HOME")
        .env("HOME", tempfile::tempdir().expect("temp home").keep());
    if let Some(dir) = target_dir {
        c.env("CARGO_TARGET_DIR", dir);
    }
    c.output()
        .unwrap_or_else(|e| panic!("run `{command}`: {e}"))
}

/// Where the README's `cargo run` commands build: not the folder of the cargo running
/// these tests, which it keeps locked.
fn quick_start_target() -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("target"));
    let target = if target.is_absolute() {
        target
    } else {
        root().join(target)
    };
    target.join("readme-quick-start")
}

/// Cargo's own progress lines (`   Compiling x`, `    Finished ...`, `     Running ...`).
fn is_cargo_status(line: &str) -> bool {
    let trimmed = line.trim_start();
    line.starts_with(' ')
        && trimmed
            .split_once(' ')
            .is_some_and(|(verb, _)| verb.chars().all(|c| c.is_ascii_alphabetic()))
        && trimmed.chars().next().is_some_and(char::is_uppercase)
}

#[test]
fn the_quick_start_commands_run_as_written() {
    let readme = readme();
    let blocks = blocks(&readme, "Quick start");
    let quick = commands(&blocks[0]);
    assert_eq!(
        quick.len(),
        2,
        "the quick start is two commands: the main job and the tests: {quick:?}"
    );
    // The second one runs every check: it is what is running this test. It must be
    // there and executable as spelled.
    assert_eq!(quick[1], "./scripts/test");
    let script = root().join("scripts/test");
    let mode = std::os::unix::fs::PermissionsExt::mode(
        &std::fs::metadata(&script)
            .expect("scripts/test exists")
            .permissions(),
    );
    assert!(mode & 0o111 != 0, "scripts/test is executable");

    // The first one, exactly as written, with no agent CLI installed: the README
    // shows what it then prints. Its own target folder: the one running these tests
    // is locked by the cargo that runs them. The chat is put back as it was whatever
    // happens: the run writes @checker's answer into the repository's demo.
    let chat = root().join("examples/demo/release-review.chat.md");
    let before = std::fs::read(&chat).expect("read the demo chat");
    let restore = RestoreOnDrop {
        path: chat.clone(),
        bytes: before.clone(),
    };
    let out = run(&quick[0], Some(&quick_start_target()));
    let stderr = String::from_utf8_lossy(&out.stderr);
    let stdout = String::from_utf8_lossy(&out.stdout);
    // Blank lines aside (stdout and stderr interleave in a terminal), and the test
    // run's own time, which the README shows as `0.00s`.
    let elapsed = regex::Regex::new(r"finished in \d+\.\d+s").unwrap();
    let printed = elapsed.replace_all(&stdout, "finished in 0.00s");
    let mut printed: Vec<&str> = printed
        .lines()
        .chain(stderr.lines().filter(|l| !is_cargo_status(l)))
        .filter(|l| !l.trim().is_empty())
        .collect();
    let mut shown: Vec<&str> = blocks[1].lines().filter(|l| !l.trim().is_empty()).collect();
    printed.sort_unstable();
    shown.sort_unstable();
    assert_eq!(
        printed, shown,
        "`{}` prints what the README shows (stderr: {stderr})",
        quick[0]
    );
    assert_eq!(out.status.code(), Some(1), "a failed turn exits with 1");
    // The file: the chat as it was, then @checker's real answer (the demo's own tests)
    // and a new message for the user; nothing for the members whose CLI is missing.
    let after = std::fs::read_to_string(&chat).expect("read the demo chat");
    let before = String::from_utf8(before).expect("the demo chat is UTF-8");
    let added = after
        .strip_prefix(before.as_str())
        .unwrap_or_else(|| panic!("the chat keeps its text and grows at its end:\n{after}"));
    let status = regex::Regex::new(r" (started|took)=\S+").unwrap();
    let added = status.replace_all(added, "");
    let added = elapsed.replace_all(&added, "finished in 0.00s");
    assert_eq!(
        added,
        "\n## @checker\n<!-- chatmd id=t1 agent=command status=done exit=0 -->\n\n\
         running 5 tests\n\
         test tests::a_full_refund_returns_the_whole_payment ... ok\n\
         test tests::a_refund_beyond_what_is_left_is_refused ... ok\n\
         test tests::a_refund_in_another_currency_is_converted_and_rounded ... ok\n\
         test tests::a_zero_refund_is_refused ... ok\n\
         test tests::partial_refunds_add_up ... ok\n\n\
         test result: ok. 5 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; \
         finished in 0.00s\n\n## @me\n"
    );
    drop(restore);
}

/// Writes a file's bytes back when dropped, even when the test fails before.
struct RestoreOnDrop {
    path: PathBuf,
    bytes: Vec<u8>,
}

impl Drop for RestoreOnDrop {
    fn drop(&mut self) {
        let _ = std::fs::write(&self.path, &self.bytes);
    }
}

#[test]
fn chatmd_members_prints_the_table_the_readme_shows() {
    let readme = readme();
    let blocks = blocks(&readme, "Quick start");
    let shown = blocks
        .iter()
        .find(|b| b.starts_with("HANDLE "))
        .expect("the README shows the `chatmd members` table");
    let command = "cargo run --release -- members examples/demo";
    assert!(
        readme.contains(&format!("`{command}`")),
        "the README names `{command}`"
    );
    let out = run(command, Some(&quick_start_target()));
    // The README shows the table; the command also prints the workspace (a path of
    // this machine) above it and the role files below it.
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains(shown.as_str()),
        "`chatmd members examples/demo` prints the README's table:\n{shown}\nbut printed:\n{stdout}\nstderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(out.status.code(), Some(0));
    assert!(readme.contains("`chatmd members examples/demo`"));
}
