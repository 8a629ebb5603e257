//! The team of a chat: the one place that decides a chat's workspace root and team
//! folder. The editor features, `chatmd members`, `chatmd send` and the turns all ask
//! here; the language server keeps what [`TeamPlace::load`] returns in its cache.

use std::path::{Path, PathBuf};

use super::discover::load_team_with;
use super::error::TeamError;
use super::model::Team;
use super::paths::resolve_team_folder;
use super::trust::UserTrust;
use crate::document::chat::Chat;

/// Where a chat's team is.
#[derive(Debug)]
pub struct TeamPlace {
    /// The workspace root: config files are read up to it, and every path a workspace
    /// file names must stay inside it.
    pub root: PathBuf,
    /// The team folder: the front matter's `team:`, else the chat's own folder.
    pub folder: PathBuf,
    /// Why the front matter's `team:` was refused, when it was; the chat's own folder
    /// is the team folder then.
    pub refused: Option<TeamError>,
}

impl TeamPlace {
    /// A team folder given directly (`chatmd members FOLDER`), in the workspace that
    /// holds it.
    pub fn of_folder(folder: &Path) -> TeamPlace {
        TeamPlace {
            root: workspace_root(None, folder),
            folder: folder.to_path_buf(),
            refused: None,
        }
    }

    /// Reads the team: members, role files and every `chatmd.toml` from the root down,
    /// with what the user trusts.
    pub fn load(&self, trust: &UserTrust) -> Team {
        load_team_with(&self.root, &self.folder, trust)
    }
}

/// The workspace root for something in `folder`, one rule for the editor and the
/// command line: the nearest folder from `folder` upwards that holds `.git`; else the
/// folder the user works in (`working`: the editor's workspace folder, the current
/// folder of `chatmd send`) when it holds `folder`; else `folder` itself.
///
/// The repository comes first because editors pick their workspace folder by their
/// own markers (Neovim's nearest `chatmd.toml` is the team folder, not the project):
/// a chat and the source file it names then still share one root, whichever editor
/// or command reads them.
pub fn workspace_root(working: Option<&Path>, folder: &Path) -> PathBuf {
    if let Some(repository) = folder.ancestors().find(|dir| dir.join(".git").exists()) {
        return repository.to_path_buf();
    }
    match working {
        Some(working) if folder.starts_with(working) => working.to_path_buf(),
        _ => folder.to_path_buf(),
    }
}

/// The folder `chatmd` runs in, as the working folder of [`workspace_root`].
pub fn current_folder() -> Option<PathBuf> {
    std::env::current_dir().ok()
}

/// The front matter's `team:`: the one part of a chat its team's place depends on.
pub fn team_named(chat: &Chat) -> Option<&str> {
    let fm = chat.front_matter.as_ref()?;
    fm.team.as_ref().map(|team| team.value.as_str())
}

/// Where the team of the chat file `chat_path` (parsed as `chat`) is: the workspace
/// root (see [`workspace_root`]; `editor_root` is the editor's workspace folder, `None`
/// on the command line) and the team folder, its front matter's `team:` when that is
/// usable, else the chat's own folder.
pub fn locate(editor_root: Option<&Path>, chat_path: &Path, chat: &Chat) -> TeamPlace {
    let chat_folder = chat_path.parent().unwrap_or(Path::new(""));
    let root = workspace_root(editor_root, chat_folder);
    let (folder, refused) = match resolve_team_folder(&root, chat_path, team_named(chat)) {
        Ok(folder) => (folder, None),
        Err(error) => (chat_folder.to_path_buf(), Some(error)),
    };
    TeamPlace {
        root,
        folder,
        refused,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_root_is_the_repository_else_the_working_folder_else_the_chats_folder() {
        let dir = tempfile::tempdir().unwrap();
        let (repo, team) = (dir.path().join("repo"), dir.path().join("repo/team"));
        for folder in [repo.join(".git"), team.clone()] {
            std::fs::create_dir_all(folder).unwrap();
        }
        // An editor rooted at the team folder (Neovim's `chatmd.toml` marker) or above
        // the repository: the repository either way, as on the command line.
        assert_eq!(workspace_root(Some(&team), &team), repo);
        assert_eq!(workspace_root(None, &team), repo);
        assert_eq!(workspace_root(Some(dir.path()), &team), repo);
        // Without a repository: the working folder when it holds the chat.
        let (plain, plain_team) = (dir.path().join("plain"), dir.path().join("plain/team"));
        std::fs::create_dir_all(&plain_team).unwrap();
        assert_eq!(workspace_root(Some(&plain), &plain_team), plain);
        assert_eq!(workspace_root(None, &plain_team), plain_team);
        let elsewhere = dir.path().join("elsewhere");
        std::fs::create_dir_all(&elsewhere).unwrap();
        assert_eq!(workspace_root(Some(&plain_team), &elsewhere), elsewhere);
    }

    #[test]
    fn the_team_is_the_front_matters_folder_else_the_chats() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("a/team")).unwrap();
        let chat_path = root.join("a/c.chat.md");
        let place = |text: &str| locate(Some(root), &chat_path, &Chat::parse(text));

        let named = place("---\nteam: team\n---\n## @me\n");
        assert_eq!(
            (named.root.as_path(), named.folder),
            (root, root.join("a/team"))
        );
        assert!(named.refused.is_none());

        let own = place("## @me\n");
        assert_eq!(own.folder, root.join("a"));

        let refused = place("---\nteam: ../../..\n---\n");
        assert_eq!(refused.folder, root.join("a"));
        assert!(
            matches!(refused.refused, Some(TeamError::OutsideWorkspace { .. })),
            "{:?}",
            refused.refused
        );
    }
}
