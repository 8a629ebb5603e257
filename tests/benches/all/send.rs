//! `chatmd send` with a member that is a plain program (`cat`, the prompt on its
//! stdin): the whole command, start to exit, against the same program run directly
//! with the same prompt, interleaved; once on a chat nobody wrote for a while, once on
//! a chat written just before (as a script that appends a question and sends does).

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant, SystemTime};

use super::report::{Report, Row, Samples, ms};
use super::stdio::chatmd_binary;

const ROUNDS: usize = 30;
const CHAT: &str = "## @me\n@quick how are you?\n";

fn send(binary: &Path, root: &Path, chat: &Path) -> Duration {
    let start = Instant::now();
    let out = Command::new(binary)
        .arg("send")
        .arg(chat)
        .current_dir(root)
        .env("HOME", root)
        .env("XDG_CONFIG_HOME", root.join("config"))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .expect("run chatmd send");
    let took = start.elapsed();
    assert!(
        out.status.success(),
        "chatmd send failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    took
}

/// The program alone, given a prompt of the same size on its stdin.
fn program_alone(prompt: &[u8]) -> Duration {
    let start = Instant::now();
    let mut child = Command::new("cat")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start cat");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(prompt)
        .expect("write the prompt");
    let out = child.wait_with_output().expect("cat ends");
    assert!(out.status.success());
    start.elapsed()
}

pub fn rows(report: &mut Report) {
    let binary = chatmd_binary();
    let dir = tempfile::tempdir().expect("temporary folder");
    let root = dir.path();
    std::fs::create_dir_all(root.join("config/chatmd")).unwrap();
    std::fs::write(
        root.join("config/chatmd/agents.toml"),
        "[agents.quick]\ntype = \"command\"\ncommand = \"cat\"\n",
    )
    .unwrap();
    std::fs::create_dir_all(root.join("team")).unwrap();
    std::fs::write(
        root.join("team/chatmd.toml"),
        "[members.quick]\nagent = \"quick\"\n",
    )
    .unwrap();
    let chat = root.join("team/c.chat.md");
    // The prompt a command member gets is about this long: the role line, the chat.
    let prompt = vec![b'x'; 200];
    for just_written in [false, true] {
        let (mut ours, mut theirs) = (Vec::new(), Vec::new());
        for round in 0..ROUNDS + 3 {
            std::fs::write(&chat, CHAT).unwrap();
            if !just_written {
                let file = std::fs::File::options().write(true).open(&chat).unwrap();
                file.set_modified(SystemTime::now() - Duration::from_secs(5))
                    .unwrap();
            }
            let took = send(&binary, root, &chat);
            let alone = program_alone(&prompt);
            if round >= 3 {
                ours.push(took);
                theirs.push(alone);
            }
        }
        let answered = std::fs::read_to_string(&chat).unwrap();
        assert!(
            answered.contains("## @quick\n") && answered.ends_with("## @me\n"),
            "the answer is in the chat: {answered}"
        );
        let (ours, theirs) = (Samples(ours), Samples(theirs));
        let over = ms(ours.median()) - ms(theirs.median());
        let name = if just_written {
            "`chatmd send` overhead, command member, chat written just before"
        } else {
            "`chatmd send` overhead, command member, chat not written for 5 s"
        };
        report.add(
            Row::new(name, over, "ms")
                .target("<= +5 ms over the program", over <= 5.0)
                .baseline(
                    "`cat` run directly with a prompt on stdin",
                    ms(theirs.median()),
                    ms(ours.median()) / ms(theirs.median()),
                )
                .note(format!(
                    "send {:.1} ms ({:.1}–{:.1} over {ROUNDS})",
                    ms(ours.median()),
                    ms(ours.percentile(0.0)),
                    ms(ours.percentile(1.0))
                )),
        );
    }
}
