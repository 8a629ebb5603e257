//! The trust store: recording, hashing, revoking, listing, links, and a damaged store.

use super::*;
use pretty_assertions::assert_eq;

/// The store's tests work in a temporary tree.
type Fixture = crate::team::temp_tree::TempTree;

#[test]
fn a_trusted_file_stays_trusted_only_with_the_same_content() -> Result<(), TrustError> {
    let f = Fixture::new();
    let file = f.write(
        "ws/team/chatmd.toml",
        "[members.bob]\nenv = { A = \"1\" }\n",
    );
    let user = f.user();
    assert!(
        !user
            .load_trust()
            .trusts_file(&file, b"[members.bob]\nenv = { A = \"1\" }\n")
    );

    let entry = user.trust_file(&file, b"[members.bob]\nenv = { A = \"1\" }\n")?;
    assert_eq!(entry.path, file.canonicalize().expect("canonical"));
    let trust = user.load_trust();
    assert!(trust.trusts_file(&file, b"[members.bob]\nenv = { A = \"1\" }\n"));
    assert!(!trust.trusts_file(&file, b"[members.bob]\nenv = { A = \"2\" }\n"));
    // Another file with the same content is not trusted.
    let other = f.write(
        "ws/other/chatmd.toml",
        "[members.bob]\nenv = { A = \"1\" }\n",
    );
    assert!(!trust.trusts_file(&other, b"[members.bob]\nenv = { A = \"1\" }\n"));
    // Nor a link to this one: its relative paths would resolve from another folder.
    let link = f.path("ws/linked/chatmd.toml");
    std::fs::create_dir_all(f.path("ws/linked")).expect("mkdir");
    std::os::unix::fs::symlink(&file, &link).expect("symlink");
    assert!(!trust.trusts_file(&link, b"[members.bob]\nenv = { A = \"1\" }\n"));

    // Trusting again replaces the record: one entry per file.
    user.trust_file(&file, b"new")?;
    let (files, links) = user.list()?;
    assert_eq!(files.len(), 1);
    assert_eq!(files[0].sha256, content_hash(b"new"));
    assert_eq!(links, vec![]);
    assert!(
        !user
            .load_trust()
            .trusts_file(&file, b"[members.bob]\nenv = { A = \"1\" }\n")
    );
    Ok(())
}

#[test]
fn revoking_forgets_the_file_and_says_whether_there_was_anything() -> Result<(), TrustError> {
    let f = Fixture::new();
    let file = f.write("ws/chatmd.toml", "x");
    let user = f.user();
    user.trust_file(&file, b"x")?;
    assert!(user.revoke(&file)?);
    assert!(!user.load_trust().trusts_file(&file, b"x"));
    assert!(!user.revoke(&file)?, "nothing left to revoke");
    assert_eq!(user.list()?, (vec![], vec![]));
    Ok(())
}

#[test]
fn the_store_is_plain_toml_with_a_header() -> Result<(), TrustError> {
    let f = Fixture::new();
    let file = f.write("ws/chatmd.toml", "");
    let user = f.user();
    user.trust_file(&file, b"")?;
    let store = std::fs::read_to_string(f.path("config/chatmd/trusted.toml")).expect("store");
    let real = file.canonicalize().expect("canonical");
    assert_eq!(
        store,
        format!(
            "# Workspace files and links you trust, written by `chatmd trust`.\n\
             # A file is trusted while its content has this sha256; a link while it leads to this\n\
             # target. `chatmd trust --list` shows them, `chatmd trust --revoke PATH` removes one.\n\
             \n[[file]]\npath = \"{}\"\n\
             sha256 = \"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855\"\n",
            real.display()
        )
    );
    Ok(())
}

#[test]
fn a_link_is_accepted_while_it_leads_where_it_led() -> Result<(), TrustError> {
    let f = Fixture::new();
    std::fs::create_dir_all(f.path("srv/billing")).expect("mkdir");
    std::fs::create_dir_all(f.path("srv/other")).expect("mkdir");
    std::fs::create_dir_all(f.path("ws/team/bob")).expect("mkdir");
    let link = f.path("ws/team/bob/work");
    std::os::unix::fs::symlink(f.path("srv/billing"), &link).expect("symlink");
    let user = f.user();
    let entry = user.trust_link(&link)?;
    let billing = f.path("srv/billing").canonicalize().expect("canonical");
    assert_eq!(entry.target, billing);
    assert!(user.load_trust().allows_link(&link, &billing));

    std::fs::remove_file(&link).expect("rm");
    std::os::unix::fs::symlink(f.path("srv/other"), &link).expect("symlink");
    let other = f.path("srv/other").canonicalize().expect("canonical");
    assert!(
        !user.load_trust().allows_link(&link, &other),
        "a link pointed elsewhere needs trust again"
    );
    assert!(user.revoke(&link)?);
    assert_eq!(user.list()?, (vec![], vec![]));
    Ok(())
}

#[test]
fn files_in_the_users_own_config_folder_need_no_trust() {
    let f = Fixture::new();
    let own = f.write(
        "config/chatmd/team/chatmd.toml",
        "[members.a]\nargs = [\"-x\"]\n",
    );
    assert!(f.user().load_trust().trusts_file(&own, b"anything"));
    let elsewhere = f.write("ws/chatmd.toml", "");
    assert!(!f.user().load_trust().trusts_file(&elsewhere, b""));
}

#[test]
fn a_damaged_store_trusts_nothing_and_is_not_overwritten() -> Result<(), TrustError> {
    let f = Fixture::new();
    let file = f.write("ws/chatmd.toml", "x");
    let user = f.user();
    user.trust_file(&file, b"x")?;
    let store = f.path("config/chatmd/trusted.toml");
    let damaged = format!(
        "{}\n[[file]\n",
        std::fs::read_to_string(&store).expect("read")
    );
    std::fs::write(&store, &damaged).expect("write");
    let trust = user.load_trust();
    assert!(!trust.trusts_file(&file, b"x"));
    let (path, why) = trust.problem.clone().expect("a problem");
    assert_eq!(path, store);
    assert!(
        why.ends_with("; chatmd trusts nothing until it is fixed or removed"),
        "{why}"
    );
    assert!(matches!(
        user.trust_file(&file, b"x"),
        Err(TrustError::Malformed { .. })
    ));
    assert_eq!(std::fs::read_to_string(&store).expect("read"), damaged);
    Ok(())
}

#[test]
fn the_config_folder_follows_xdg_then_home() {
    let dir = |xdg: Option<&str>, home: Option<&str>| {
        UserConfig::from_vars(
            xdg.map(std::ffi::OsStr::new),
            home.map(std::ffi::OsStr::new),
        )
        .trust_store()
    };
    assert_eq!(
        dir(Some("/x"), Some("/h")),
        Some(PathBuf::from("/x/chatmd/trusted.toml"))
    );
    assert_eq!(
        dir(Some("relative"), Some("/h")),
        Some(PathBuf::from("/h/.config/chatmd/trusted.toml"))
    );
    assert_eq!(dir(None, Some("")), None);
    assert!(matches!(
        UserConfig::default().trust_file(Path::new("/x"), b""),
        Err(TrustError::NoConfigFolder)
    ));
}

#[test]
fn link_out_names_the_first_link_that_leaves() {
    let f = Fixture::new();
    std::fs::create_dir_all(f.path("out/deep")).expect("mkdir");
    std::fs::create_dir_all(f.path("ws/team/bob")).expect("mkdir");
    std::fs::create_dir_all(f.path("ws/inside")).expect("mkdir");
    std::os::unix::fs::symlink(f.path("out"), f.path("ws/team/bob/work")).expect("symlink");
    std::os::unix::fs::symlink(f.path("ws/inside"), f.path("ws/team/in")).expect("symlink");
    let root = f.path("ws");
    // Where the link itself leads, whatever lies below it.
    let out = f.path("out").canonicalize().expect("canonical");
    assert_eq!(
        link_out(&root, &f.path("ws/team/bob/work/deep")),
        Some((f.path("ws/team/bob/work"), out))
    );
    assert_eq!(link_out(&root, &f.path("ws/team/in")), None);
    assert_eq!(link_out(&root, &f.path("elsewhere")), None);
}

#[test]
fn messages_name_keys_and_quote_paths_for_the_shell() {
    assert_eq!(key_list(&[TrustKey::Env]), "`env`");
    assert_eq!(
        key_list(&[TrustKey::Command, TrustKey::Args, TrustKey::Env]),
        "`command`, `args` and `env`"
    );
    assert_eq!(
        trust_command(Path::new("/ws/team/chatmd.toml")),
        "chatmd trust /ws/team/chatmd.toml"
    );
    assert_eq!(
        trust_command(Path::new("/my ws/it's/chatmd.toml")),
        "chatmd trust '/my ws/it'\\''s/chatmd.toml'"
    );
}
