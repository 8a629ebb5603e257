use super::*;

/// How many answers are remembered in `folder`.
fn remembered(folder: &Path) -> usize {
    std::fs::read_dir(folder).unwrap().count()
}

#[test]
fn a_program_that_answers_is_remembered_by_its_file() {
    let answers = tempfile::tempdir().unwrap();
    // `echo -n` prints nothing: it "answers" the protocol "" to the argument "-n".
    let echo = Path::new("/bin/echo");
    let (pinned, _file) =
        pinned_if_answers(echo, "-n", "", Some(answers.path().to_path_buf())).unwrap();
    assert!(pinned.starts_with("/proc/self/fd/"), "{pinned:?}");
    let meta = std::fs::metadata(echo).unwrap();
    assert!(answers.path().join(answer_name(&meta, "")).exists());
    assert_eq!(remembered(answers.path()), 1);
    // Another protocol is not what it answered.
    assert!(pinned_if_answers(echo, "-n", "v2", Some(answers.path().to_path_buf())).is_none());
    assert_eq!(remembered(answers.path()), 1);
}

#[test]
fn a_remembered_answer_is_not_asked_again_until_the_file_changes() {
    let answers = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    // Not a program at all: asking it fails, so only a remembered answer says yes.
    let guard = dir.path().join("chatmd-agent-guard");
    std::fs::write(&guard, "not a program").unwrap();
    let folder = || Some(answers.path().to_path_buf());
    assert!(pinned_if_answers(&guard, "--protocol", "p", folder()).is_none());
    assert_eq!(remembered(answers.path()), 0, "a no is not remembered");

    let meta = std::fs::metadata(&guard).unwrap();
    std::fs::File::create(answers.path().join(answer_name(&meta, "p"))).unwrap();
    assert!(pinned_if_answers(&guard, "--protocol", "p", folder()).is_some());
    assert!(pinned_if_answers(&guard, "--protocol", "other", folder()).is_none());
    // Without a folder to remember in, it is asked every time.
    assert!(pinned_if_answers(&guard, "--protocol", "p", None).is_none());

    // The same file written again (same size, same inode) is another file to ask. (Its
    // time is set apart: two writes within one clock tick of the kernel's can share it.)
    std::fs::write(&guard, "not a program").unwrap();
    let rewritten = std::fs::File::options().write(true).open(&guard).unwrap();
    rewritten
        .set_modified(std::time::SystemTime::now() - std::time::Duration::from_secs(3600))
        .unwrap();
    assert!(pinned_if_answers(&guard, "--protocol", "p", folder()).is_none());
}
