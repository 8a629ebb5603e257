//! Tests of reading and replacing a chat file on disk.

use super::*;
use pretty_assertions::assert_eq;

fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn a_write_replaces_the_file_only_while_it_holds_the_base_text() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("a.chat.md");
    std::fs::write(&path, "one\n").unwrap();
    assert!(matches!(
        write(&path, "one\n", "one\ntwo\n"),
        Ok(Written::Done(_))
    ));
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "one\ntwo\n");
    assert!(matches!(
        write(&path, "one\n", "one\nthree\n"),
        Ok(Written::Changed)
    ));
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "one\ntwo\n");
    assert_eq!(names(dir.path()), ["a.chat.md"], "no temporary file left");
}

#[test]
fn not_a_regular_file_is_refused_without_blocking() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("f.chat.md");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    let error = read_settled(&fifo, None).unwrap_err();
    assert_eq!(
        error.to_string(),
        format!("{} is not a regular file but a FIFO", fifo.display())
    );
    let error = read_settled(Path::new("/dev/zero"), None).unwrap_err();
    assert_eq!(
        error.to_string(),
        "/dev/zero is not a regular file but a character device"
    );
}

#[test]
fn a_file_that_became_empty_is_read_again_until_it_is_whole() {
    // The settling waits a second for an emptied file; the writer writes long before.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("b.chat.md");
    std::fs::write(&path, "").unwrap();
    let writer = {
        let path = path.clone();
        std::thread::spawn(move || {
            // Another program between its truncate and its write.
            std::thread::sleep(Duration::from_millis(100));
            std::fs::write(&path, "## @me\nhello\n").unwrap();
        })
    };
    let (text, _) = read_settled(&path, Some("## @me\nhello\n")).unwrap();
    writer.join().unwrap();
    assert_eq!(text, "## @me\nhello\n");
}

#[test]
fn an_empty_file_is_read_again_before_it_is_believed() {
    // Nothing known yet (the chat is being opened): an empty file is waited for.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("c.chat.md");
    std::fs::write(&path, "").unwrap();
    let writer = {
        let path = path.clone();
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(100));
            std::fs::write(&path, "## @me\nhi\n").unwrap();
        })
    };
    let (text, _) = read_settled(&path, None).unwrap();
    writer.join().unwrap();
    assert_eq!(text, "## @me\nhi\n");
    // One that stays empty is empty.
    std::fs::write(&path, "").unwrap();
    assert_eq!(read_settled(&path, None).unwrap().0, "");
}

/// A read that counts its calls and always finds `text` with `stamp`.
fn counted(
    calls: &std::cell::Cell<usize>,
    text: &str,
    stamp: Option<Stamp>,
) -> impl FnMut() -> Result<(Vec<u8>, Option<Stamp>), PortError> {
    move || {
        calls.set(calls.get() + 1);
        Ok((text.as_bytes().to_vec(), stamp))
    }
}

#[test]
fn a_file_nobody_wrote_lately_is_taken_at_the_first_read() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("a.chat.md");
    std::fs::write(&path, "## @me\nhi\n").unwrap();
    let fresh = Stamp::of(&path);
    let old = fresh.map(|s| Stamp {
        modified: s.modified - Duration::from_secs(5),
        ..s
    });
    let calls = std::cell::Cell::new(0);
    let (text, _) = settle(None, &path, counted(&calls, "## @me\nhi\n", old)).unwrap();
    assert_eq!((text.as_str(), calls.get()), ("## @me\nhi\n", 1));
    // Written just now: read again, to see it stays the same.
    calls.set(0);
    settle(None, &path, counted(&calls, "## @me\nhi\n", fresh)).unwrap();
    assert_eq!(calls.get(), 2);
}

#[test]
fn a_file_quiet_for_the_settle_time_is_taken_at_the_first_read() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("a.chat.md");
    std::fs::write(&path, "## @me\nhi\n").unwrap();
    let aged = |age: Duration| {
        Stamp::of(&path).map(|s| Stamp {
            modified: SystemTime::now() - age,
            ..s
        })
    };
    let calls = std::cell::Cell::new(0);
    // Written 40 ms ago: a SETTLE and a clock tick have passed without a write.
    settle(
        None,
        &path,
        counted(&calls, "## @me\nhi\n", aged(Duration::from_millis(40))),
    )
    .unwrap();
    assert_eq!(calls.get(), 1);
    // Written 2 ms ago: the rest of the quiet time is waited, then read again.
    calls.set(0);
    settle(
        None,
        &path,
        counted(&calls, "## @me\nhi\n", aged(Duration::from_millis(2))),
    )
    .unwrap();
    assert_eq!(calls.get(), 2);
}

#[test]
fn the_wait_is_only_what_is_left_of_the_settle_time() {
    let now = SystemTime::now();
    let stamp = |age: Duration| Stamp {
        inode: 1,
        len: 1,
        modified: now - age,
    };
    assert_eq!(
        stamp(Duration::from_millis(40)).unsettled_for(),
        Duration::ZERO
    );
    let left = stamp(Duration::from_millis(25)).unsettled_for();
    assert!(left <= Duration::from_millis(5), "{left:?}");
    assert_eq!(stamp(Duration::ZERO).unsettled_for(), SETTLE);
    let future = Stamp {
        inode: 1,
        len: 1,
        modified: now + Duration::from_secs(60),
    };
    assert_eq!(future.unsettled_for(), SETTLE);
}

#[test]
fn a_file_no_program_writes_is_read_at_once_and_one_held_for_writing_is_not() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("d.chat.md");
    // Written just now, by a program that is done with it (a script before `chatmd send`).
    std::fs::write(&path, "## @me\nhi\n").unwrap();
    let Some((bytes, stamp)) = read_unwritten(&open_regular(&path).unwrap(), &path).unwrap() else {
        // A file system without leases: every read settles as before.
        assert!(
            chatmd_os::read_lease(&std::fs::File::open(&path).unwrap()).is_err(),
            "a lease could be taken, yet the file was not read under one"
        );
        return;
    };
    assert_eq!(
        (bytes.as_slice(), stamp),
        (&b"## @me\nhi\n"[..], Stamp::of(&path))
    );
    // A program between its truncate and its last write still holds the file open.
    let mut writer = std::fs::File::create(&path).unwrap();
    writer.write_all(b"## @me\n").unwrap();
    assert!(
        read_unwritten(&open_regular(&path).unwrap(), &path)
            .unwrap()
            .is_none(),
        "read mid-save"
    );
    writer.write_all(b"hello\n").unwrap();
    drop(writer);
    let (text, _) = read_settled(&path, None).unwrap();
    assert_eq!(text, "## @me\nhello\n");
    // The same text chatmd knows, or a new one, is taken as it is; a cut one is not.
    assert_eq!(
        read_settled(&path, Some("## @me\nhello\n")).unwrap().0,
        "## @me\nhello\n"
    );
    assert!(looks_cut(Some("## @me\nhello\nmore\n"), b"## @me\nhello\n"));
    assert!(!looks_cut(Some("## @me\nhi\n"), b"## @me\nhello\n"));
    assert!(looks_cut(None, b"") && !looks_cut(None, b"x"));
}
