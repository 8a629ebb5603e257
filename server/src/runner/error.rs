//! Why a turn's process could not be started: each message names the program or the
//! folder at fault and, where there is one, what the user can do about it.

use std::path::PathBuf;

/// A failure before the agent's process ran. Nothing was spawned.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// A bare program name that no `PATH` folder holds.
    #[error("`{program}` is not installed (not found on PATH).{}", install_sentence(.install_hint))]
    NotInstalled {
        program: String,
        install_hint: Option<String>,
    },
    /// A program given as a path that does not exist.
    #[error("the program `{}` does not exist", .path.display())]
    NotFound { path: PathBuf },
    /// A program path that exists but cannot be run.
    #[error("the program `{}` is not an executable file", .path.display())]
    NotExecutable { path: PathBuf },
    /// The turn's working folder is missing.
    #[error("the working folder `{}` does not exist", .cwd.display())]
    MissingCwd { cwd: PathBuf },
    #[error("could not create the folder `{}`: {source}", .path.display())]
    CreateDir {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// The operating system refused to start the program.
    #[error("could not start `{program}`: {source}")]
    Spawn {
        program: String,
        #[source]
        source: std::io::Error,
    },
}

fn install_sentence(hint: &Option<String>) -> String {
    match hint {
        Some(command) => format!(" Install it with `{command}`."),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn not_installed_names_the_cli_and_its_install_command() {
        let error = RunError::NotInstalled {
            program: "codex".into(),
            install_hint: Some("npm install -g @openai/codex".into()),
        };
        assert_eq!(
            error.to_string(),
            "`codex` is not installed (not found on PATH). Install it with `npm install -g @openai/codex`."
        );
        let bare = RunError::NotInstalled {
            program: "my-agent".into(),
            install_hint: None,
        };
        assert_eq!(
            bare.to_string(),
            "`my-agent` is not installed (not found on PATH)."
        );
    }
}
