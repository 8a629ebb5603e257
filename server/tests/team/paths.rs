//! `resolve_team_folder`: the chat's folder by default, `team:` relative to it, and
//! nothing outside the workspace.

use chatmd::team::{TeamError, resolve_team_folder};
use pretty_assertions::assert_eq;

use crate::{Workspace, outside};

#[test]
fn the_team_folder_is_the_chats_folder_or_front_matter_team() {
    let ws = Workspace::create();
    let chat = ws.write("chats/standup.chat.md", "");
    ws.mkdir("Team_A");
    let root = ws.root();

    assert_eq!(
        resolve_team_folder(root, &chat, None).ok(),
        Some(ws.path("chats"))
    );
    assert_eq!(
        resolve_team_folder(root, &chat, Some("../Team_A")).ok(),
        Some(ws.path("Team_A"))
    );
    assert_eq!(
        resolve_team_folder(root, &chat, Some(" ./../Team_A/ ")).ok(),
        Some(ws.path("Team_A"))
    );
    let absolute = ws.path("Team_A").display().to_string();
    assert_eq!(
        resolve_team_folder(root, &chat, Some(&absolute)).ok(),
        Some(ws.path("Team_A"))
    );
}

#[test]
fn team_paths_leaving_the_workspace_are_refused() {
    let ws = Workspace::create();
    let chat = ws.write("chats/standup.chat.md", "");
    let elsewhere = outside();
    ws.symlink(elsewhere.path(), "chats/linked");
    ws.write("chats/file", "");
    let root = ws.root();
    let error = |team: &str| match resolve_team_folder(root, &chat, Some(team)) {
        Ok(path) => format!("accepted {}", path.display()),
        Err(error) => error
            .to_string()
            .replace(&root.display().to_string(), "<ws>"),
    };

    assert_eq!(
        error("../../.."),
        format!(
            "`{}` is outside the workspace <ws>; use a path inside the workspace",
            root.ancestors().nth(2).expect("ancestor").display()
        )
    );
    assert_eq!(
        error(&elsewhere.path().display().to_string()),
        format!(
            "`{}` is outside the workspace <ws>; use a path inside the workspace",
            elsewhere.path().display()
        )
    );
    assert_eq!(
        error("linked"),
        format!(
            "`<ws>/chats/linked` goes through a symlink that leads outside the workspace (to \
             {}); point it at a folder inside the workspace",
            elsewhere
                .path()
                .canonicalize()
                .expect("canonical")
                .display()
        )
    );
    assert_eq!(
        error("missing"),
        "team folder <ws>/chats/missing cannot be opened (No such file or directory (os error \
         2)); create it or fix `team:` in the front matter"
    );
    assert_eq!(
        error("file"),
        "team folder <ws>/chats/file is a file, not a folder; point `team:` at a folder"
    );
    assert!(matches!(
        resolve_team_folder(root, &chat, Some("  ")),
        Err(TeamError::EmptyPath)
    ));
}
