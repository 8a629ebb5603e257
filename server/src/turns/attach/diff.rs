//! `#diff`: the working tree's changes against `HEAD`, from `git diff HEAD` run in the
//! workspace root when a message that asks for it is sent (never on open or hover).
//! External diff drivers and text conversions are switched off: a repository's
//! attributes never make this run another program.

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

/// How long `git diff` may take.
const DIFF_WAIT: Duration = Duration::from_secs(20);

/// The diff's text, or why there is none (git missing, not a repository, ...).
pub(super) async fn working_tree(root: &Path) -> Result<String, String> {
    let mut command = tokio::process::Command::new("git");
    command
        .args([
            "--no-pager",
            "diff",
            "--no-color",
            "--no-ext-diff",
            "--no-textconv",
            "HEAD",
            "--",
        ])
        .current_dir(root)
        .env("GIT_OPTIONAL_LOCKS", "0")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    let child = command.spawn().map_err(|error| {
        if error.kind() == std::io::ErrorKind::NotFound {
            "`git` is not installed (not found on PATH); install git or remove the reference"
                .to_owned()
        } else {
            format!("`git diff` could not start: {error}")
        }
    })?;
    let output = tokio::time::timeout(DIFF_WAIT, child.wait_with_output())
        .await
        .map_err(|_| format!("`git diff` took more than {}s", DIFF_WAIT.as_secs()))?
        .map_err(|error| format!("`git diff` failed: {error}"))?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        let first = stderr.lines().next().unwrap_or("").trim();
        return Err(format!(
            "`git diff HEAD` in {} failed ({first}); #diff needs a git repository with a commit",
            root.display()
        ));
    }
    Ok(String::from_utf8_lossy(&output.stdout).into_owned())
}
