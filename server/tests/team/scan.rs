//! `scan_chats`: every chat, nothing from ignored folders.

use chatmd::team::scan_chats;
use pretty_assertions::assert_eq;

use crate::Workspace;

#[test]
fn scan_finds_chats_and_skips_ignored_folders() {
    let ws = Workspace::create();
    for file in [
        "b.chat.md",
        "Team_A/standup.chat.md",
        "Team_A/bob/notes.chat.md",
        ".git/x.chat.md",
        "node_modules/pkg/y.chat.md",
        "target/debug/z.chat.md",
        "sub/target/t.chat.md",
        ".hidden/h.chat.md",
        "Team_A/.cache/c.chat.md",
        "README.md",
        "chat.md",
        "Team_A/.chat.md",
    ] {
        ws.write(file, "## @me\n");
    }
    ws.mkdir("a.chat.md.d");

    let chats: Vec<String> = scan_chats(ws.root()).iter().map(|p| ws.show(p)).collect();

    assert_eq!(
        chats,
        vec![
            "Team_A/bob/notes.chat.md",
            "Team_A/standup.chat.md",
            "b.chat.md",
        ]
    );
}
