use super::*;
use crate::document::chat::Chat;
use crate::team::temp_tree::TempTree;
use crate::turns::testing::RecordingPort;
use pretty_assertions::assert_eq;

/// A workspace with `src/pay.rs` (four lines) and a secret beside it.
fn workspace() -> TempTree {
    let ws = TempTree::new();
    ws.write(
        "ws/src/pay.rs",
        "fn a() {}\nfn b() {}\nfn c() {}\nfn d() {}\n",
    );
    ws.write("outside.txt", "secret\n");
    ws
}

/// Each reference of the message's check, as text.
fn checked(root: &Path, message: &str) -> Vec<String> {
    let text = format!("## @me\n{message}\n");
    let chat = Chat::parse(&text);
    references::in_message(&text, &chat.messages[0])
        .iter()
        .map(|r| match check(&mut Files::default(), root, &text, r) {
            Ok(Preview::File {
                size, lines, span, ..
            }) => format!("file {size} B {lines} lines {span:?}"),
            Ok(other) => format!("{other:?}").replace(&root.display().to_string(), "WS"),
            Err(error) => error.to_string().replace(&root.display().to_string(), "WS"),
        })
        .collect()
}

#[test]
fn checks_say_what_is_attached_and_what_is_wrong() {
    let ws = workspace();
    let root = ws.path("ws");
    assert_eq!(
        checked(
            &root,
            "#file:src/pay.rs #file:src/pay.rs:2-3 #file:src/pay.rs:3-9 #file:src/pay.rs:0-1 \
             #file:nope.rs #file:../outside.txt #file:src #diff"
        ),
        [
            "file 40 B 4 lines None",
            "file 40 B 4 lines Some((LineSpan { first: 2, last: 3 }, 20))",
            "`src/pay.rs` has 4 lines; the range 3-9 goes past its end",
            "the range 0-1 of `src/pay.rs` is empty; lines count from 1, the first number no larger than the second",
            "`nope.rs` does not exist in the workspace WS; fix the path or remove the reference",
            "`../outside.txt` is outside the workspace WS; a reference may only name files inside it",
            "`src` is a folder, not a file; name a file in it",
            "Diff",
        ]
    );
}

#[cfg(unix)]
#[test]
fn a_symlink_out_of_the_workspace_is_refused() {
    let ws = workspace();
    std::os::unix::fs::symlink(ws.path("outside.txt"), ws.path("ws/link.txt")).expect("link");
    assert_eq!(
        checked(&ws.path("ws"), "#file:link.txt"),
        ["`link.txt` is outside the workspace WS; a reference may only name files inside it"]
    );
}

fn gathered(root: &Path, message: &str) -> Result<Vec<Attachment>, AttachError> {
    let text = format!("## @me\n{message}\n");
    let chat = Chat::parse(&text);
    let mut port = RecordingPort::new(&text);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    runtime.block_on(gather(&mut port, root, &text, &chat.messages[0]))
}

#[test]
fn gathering_reads_files_and_lines_in_order() {
    let ws = workspace();
    let root = ws.path("ws");
    let list = gathered(&root, "#file:src/pay.rs:2-3 then #file:./src/pay.rs").expect("read");
    assert_eq!(list.len(), 2);
    assert_eq!(list[0].text, "fn b() {}\nfn c() {}\n");
    assert_eq!(list[0].about, "src/pay.rs, lines 2-3 of 4");
    assert_eq!(list[0].lines, Some((2, 3)));
    assert_eq!(list[0].file, Some(root.join("src/pay.rs")));
    assert_eq!(list[1].text.lines().count(), 4);
    assert_eq!(list[1].about, "./src/pay.rs, 4 lines");
}

#[test]
fn a_bad_reference_refuses_the_whole_message() {
    let ws = workspace();
    let root = ws.path("ws");
    let error = gathered(&root, "#file:src/pay.rs #file:../outside.txt").unwrap_err();
    assert!(matches!(error, AttachError::Outside { .. }), "{error}");
    let error = gathered(&root, "#diagnostics:src/pay.rs").unwrap_err();
    assert!(
        matches!(error, AttachError::NoDiagnostics { .. }),
        "{error}"
    );
    let error = gathered(Path::new(""), "#diff").unwrap_err();
    assert!(matches!(error, AttachError::NoWorkspace { .. }), "{error}");
}

#[test]
fn binary_files_are_refused() {
    let ws = workspace();
    std::fs::write(ws.path("ws/blob.bin"), [0xff, 0xfe, 0x00]).expect("write");
    let error = gathered(&ws.path("ws"), "#file:blob.bin").unwrap_err();
    assert_eq!(
        error.to_string(),
        "`blob.bin` is not UTF-8 text; only text files can be attached"
    );
}

/// Runs git in `dir` (tests only; `#diff` itself runs `git diff` alone).
fn git(dir: &Path, args: &[&str]) {
    let status = std::process::Command::new("git")
        .args([
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "-c",
            "commit.gpgsign=false",
        ])
        .args(args)
        .current_dir(dir)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .expect("git runs");
    assert!(status.success(), "git {args:?}");
}

#[test]
fn diff_is_the_working_tree_against_head() {
    let ws = workspace();
    let root = ws.path("ws");
    git(&root, &["init", "-q"]);
    git(&root, &["add", "."]);
    git(&root, &["commit", "-q", "-m", "start"]);
    let list = gathered(&root, "#diff").expect("diff");
    assert_eq!(list[0].text, "");
    assert_eq!(
        list[0].about,
        "the working tree has no changes against HEAD"
    );
    std::fs::write(root.join("src/pay.rs"), "fn a() {}\n").expect("write");
    let list = gathered(&root, "what about #diff?").expect("diff");
    assert!(
        list[0].text.contains("-fn b() {}\n") && list[0].text.contains("+++ b/src/pay.rs"),
        "{}",
        list[0].text
    );
    // Outside a repository, the error says what #diff needs.
    let error = gathered(&ws.path(""), "#diff").unwrap_err().to_string();
    assert!(
        error.contains("#diff needs a git repository with a commit"),
        "{error}"
    );
}

#[cfg(unix)]
#[test]
fn a_pipe_is_refused_as_no_regular_file_without_being_opened() {
    // Found by fuzzing: a FIFO was called "a folder"; opening it to read would wait
    // for a writer forever.
    let ws = workspace();
    let root = ws.path("ws");
    nix::unistd::mkfifo(&root.join("src/pipe"), nix::sys::stat::Mode::S_IRWXU).unwrap();
    assert_eq!(
        checked(&root, "#file:src/pipe"),
        ["`src/pipe` is not a regular file (a pipe, socket or device); name a regular file"]
    );
    // Read directly (as if it had become a pipe after it was located): refused at once.
    let error = Files::default()
        .read(&root.join("src/pipe"), "src/pipe")
        .unwrap_err();
    assert_eq!(
        error,
        AttachError::NotRegular {
            raw: "src/pipe".into()
        }
    );
}

#[test]
fn a_file_named_by_many_references_is_read_once_per_pass() {
    // Found by fuzzing: 300 references to one 15 MiB file read it 300 times (4.5 GB)
    // on each diagnostics pass.
    let ws = workspace();
    let root = ws.path("ws");
    let message = "#file:src/pay.rs ".repeat(300);
    let text = format!("## @me\n{message}\n");
    let chat = Chat::parse(&text);
    let mut files = Files::default();
    let mut checked = Vec::new();
    for (i, reference) in references::in_message(&text, &chat.messages[0])
        .iter()
        .enumerate()
    {
        if i == 1 {
            // Read once: what the file says later in the pass is not read again.
            std::fs::write(root.join("src/pay.rs"), "changed\n").unwrap();
        }
        match check(&mut files, &root, &text, reference) {
            Ok(Preview::File { size, lines, .. }) => checked.push((size, lines)),
            other => panic!("{other:?}"),
        }
    }
    assert_eq!(checked, vec![(40, 4); 300]);
}
