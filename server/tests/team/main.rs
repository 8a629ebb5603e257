//! Integration tests of the team layer on real folder trees in temp directories:
//! discovery, chatmd.toml, containment, auto-loaded files, the CLI probe and the scan.

mod autoload;
mod config;
mod discovery;
mod paths;
mod probe;
mod scan;

use std::fs;
use std::path::{Path, PathBuf};

use chatmd::team::{ConfigProblem, Member, Team, UserConfig};

/// A workspace in a temp folder (with `.git`, like a real repository), and the user's
/// own config folder (what they trust), empty at first.
pub struct Workspace {
    dir: tempfile::TempDir,
    config: tempfile::TempDir,
}

impl Workspace {
    pub fn create() -> Workspace {
        let workspace = Workspace {
            dir: tempfile::tempdir().expect("temp dir"),
            config: tempfile::tempdir().expect("temp dir"),
        };
        workspace.mkdir(".git");
        workspace
    }

    pub fn root(&self) -> &Path {
        self.dir.path()
    }

    pub fn path(&self, relative: &str) -> PathBuf {
        self.root().join(relative)
    }

    /// Writes a file, creating its folders.
    pub fn write(&self, relative: &str, contents: impl AsRef<[u8]>) -> PathBuf {
        let path = self.path(relative);
        fs::create_dir_all(path.parent().expect("parent")).expect("create dirs");
        fs::write(&path, contents).expect("write");
        path
    }

    /// Writes each `(path, contents)`: a folder tree in one table.
    pub fn files(&self, files: &[(&str, &str)]) {
        for (relative, contents) in files {
            self.write(relative, contents);
        }
    }

    pub fn mkdir(&self, relative: &str) -> PathBuf {
        let path = self.path(relative);
        fs::create_dir_all(&path).expect("mkdir");
        path
    }

    pub fn symlink(&self, target: impl AsRef<Path>, relative: &str) -> PathBuf {
        let link = self.path(relative);
        fs::create_dir_all(link.parent().expect("parent")).expect("create dirs");
        std::os::unix::fs::symlink(target, &link).expect("symlink");
        link
    }

    pub fn user(&self) -> UserConfig {
        UserConfig::with_config_home(self.config.path())
    }

    /// The team as the user sees it, with what they trust.
    pub fn load(&self, team: &str) -> Team {
        let trust = self.user().load_trust();
        chatmd::team::load_team_with(self.root(), &self.path(team), &trust)
    }

    /// The user trusts a `chatmd.toml` as it is now.
    pub fn trust(&self, relative: &str) {
        let file = self.path(relative);
        let text = fs::read(&file).expect("read");
        self.user().trust_file(&file, &text).expect("trust");
    }

    /// The user accepts a symlink out of the workspace.
    pub fn accept(&self, relative: &str) {
        self.user()
            .trust_link(&self.path(relative))
            .expect("accept");
    }

    /// A path as the tests show it: relative to the workspace, `<ws>` for its root.
    pub fn show(&self, path: &Path) -> String {
        match path.strip_prefix(self.root()) {
            Ok(rel) if rel.as_os_str().is_empty() => "<ws>".to_owned(),
            Ok(rel) => rel.display().to_string(),
            Err(_) => path.display().to_string(),
        }
    }

    /// Problems as a user reads them: severity, file, the text at the range, message.
    pub fn problems(&self, team: &Team) -> Vec<String> {
        team.problems.iter().map(|p| self.problem(p)).collect()
    }

    fn problem(&self, problem: &ConfigProblem) -> String {
        let at = match &problem.range {
            Some(range) => {
                let text = fs::read(&problem.file).unwrap_or_default();
                let slice = text.get(range.clone()).unwrap_or_default();
                format!("[{}]", String::from_utf8_lossy(slice))
            }
            None => String::new(),
        };
        let root = self.root().display().to_string();
        format!(
            "{} {}{at}: {}",
            problem.severity.name(),
            self.show(&problem.file),
            problem.message.replace(&root, "<ws>")
        )
    }

    /// One line per member: handle, agent, role file, workdir.
    pub fn members(&self, team: &Team) -> Vec<String> {
        team.members.iter().map(|m| self.member(m)).collect()
    }

    fn member(&self, m: &Member) -> String {
        let role = m
            .role_file
            .as_deref()
            .map_or("-".to_owned(), |f| self.show(f));
        format!(
            "{} {} role={} folder={} workdir={}",
            m.handle,
            m.agent,
            role,
            self.show(&m.folder),
            self.show(&m.workdir)
        )
    }
}

/// A folder outside every workspace of these tests.
pub fn outside() -> tempfile::TempDir {
    tempfile::tempdir().expect("temp dir")
}
