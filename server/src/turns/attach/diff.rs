//! `#diff`: the working tree's changes against `HEAD`, from `git diff HEAD` run in the
//! workspace root when a message that asks for it is sent (never on open or hover).
//!
//! A repository's own configuration (`.git/config`, which an archive carries) and its
//! attributes never make this run another program: the fsmonitor hook, hooks, the
//! pager, external diff drivers, text conversions and the clean filters of drivers the
//! repository defines are all switched off, and submodules are not looked into (their
//! status would run git on their configuration). The user's own (global) filters, such
//! as git-lfs, still apply.

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

/// How long `git diff` may take.
const DIFF_WAIT: Duration = Duration::from_secs(20);

/// Settings that would run a program during `git diff`, switched off whatever the
/// repository's configuration says (given through `GIT_CONFIG_COUNT`, which outranks
/// every configuration file and is passed on to the git processes git starts).
const SWITCHED_OFF: [(&str, &str); 3] = [
    ("core.fsmonitor", "false"),
    ("core.hooksPath", "/dev/null"),
    ("core.pager", "cat"),
];

/// The diff's text, or why there is none (git missing, not a repository, ...).
pub(super) async fn working_tree(root: &Path) -> Result<String, String> {
    let mut settings: Vec<(String, String)> = SWITCHED_OFF
        .iter()
        .map(|(key, value)| (key.to_string(), value.to_string()))
        .collect();
    settings.extend(repository_filters_off(root).await?);
    let mut command = git(root, &settings);
    command.args([
        "--no-pager",
        "diff",
        "--no-color",
        "--no-ext-diff",
        "--no-textconv",
        "--ignore-submodules=dirty",
        "HEAD",
        "--",
    ]);
    let output = run(command, "git diff").await?;
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

/// `git` in `root` with `settings` given on top of every configuration file.
fn git(root: &Path, settings: &[(String, String)]) -> tokio::process::Command {
    let mut command = tokio::process::Command::new("git");
    command
        .current_dir(root)
        .env("GIT_OPTIONAL_LOCKS", "0")
        .env("GIT_CONFIG_COUNT", settings.len().to_string())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    for (i, (key, value)) in settings.iter().enumerate() {
        command
            .env(format!("GIT_CONFIG_KEY_{i}"), key)
            .env(format!("GIT_CONFIG_VALUE_{i}"), value);
    }
    command
}

async fn run(
    mut command: tokio::process::Command,
    what: &str,
) -> Result<std::process::Output, String> {
    let child = command.spawn().map_err(|error| {
        if error.kind() == std::io::ErrorKind::NotFound {
            "`git` is not installed (not found on PATH); install git or remove the reference"
                .to_owned()
        } else {
            format!("`{what}` could not start: {error}")
        }
    })?;
    tokio::time::timeout(DIFF_WAIT, child.wait_with_output())
        .await
        .map_err(|_| format!("`{what}` took more than {}s", DIFF_WAIT.as_secs()))?
        .map_err(|error| format!("`{what}` failed: {error}"))
}

/// The settings that switch off each filter driver the repository's own configuration
/// defines (`filter.<name>.clean` and the like run on every changed file a `.gitattributes`
/// line gives to them). Reading the configuration runs nothing.
async fn repository_filters_off(root: &Path) -> Result<Vec<(String, String)>, String> {
    let mut command = git(root, &[]);
    command.args([
        "config",
        "--show-scope",
        "--null",
        "--get-regexp",
        r"^filter\.",
    ]);
    let output = run(command, "git config").await?;
    // Exit 1: no such key; outside a repository `git diff` says what is wrong.
    Ok(filters_off(&String::from_utf8_lossy(&output.stdout)))
}

/// [`repository_filters_off`] from `git config --show-scope --null --get-regexp` output:
/// `scope\0key\nvalue\0` records.
fn filters_off(listing: &str) -> Vec<(String, String)> {
    let mut names: Vec<&str> = Vec::new();
    let mut fields = listing.split('\0');
    while let (Some(scope), Some(entry)) = (fields.next(), fields.next()) {
        if !matches!(scope, "local" | "worktree") {
            continue;
        }
        let key = entry.split_once('\n').map_or(entry, |(key, _)| key);
        let Some(name) = key
            .strip_prefix("filter.")
            .and_then(|rest| rest.rsplit_once('.'))
            .map(|(name, _)| name)
        else {
            continue;
        };
        if !names.contains(&name) {
            names.push(name);
        }
    }
    let mut settings = Vec::new();
    for name in names {
        for (var, value) in [
            ("clean", ""),
            ("smudge", ""),
            ("process", ""),
            ("required", "false"),
        ] {
            settings.push((format!("filter.{name}.{var}"), value.to_owned()));
        }
    }
    settings
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn only_the_repositorys_own_filter_drivers_are_switched_off() {
        let listing = "global\0filter.lfs.clean\ngit-lfs clean -- %f\0\
                       local\0filter.evil.clean\ntouch x\0\
                       local\0filter.evil.required\ntrue\0\
                       worktree\0filter.a.b.process\nrun\0";
        let names: Vec<String> = filters_off(listing)
            .into_iter()
            .map(|(key, value)| format!("{key}={value}"))
            .collect();
        assert_eq!(
            names,
            [
                "filter.evil.clean=",
                "filter.evil.smudge=",
                "filter.evil.process=",
                "filter.evil.required=false",
                "filter.a.b.clean=",
                "filter.a.b.smudge=",
                "filter.a.b.process=",
                "filter.a.b.required=false",
            ]
        );
    }
}
