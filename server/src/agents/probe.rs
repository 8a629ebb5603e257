//! Which version is an agent's CLI? The `version` of its npm package when it is one
//! (read, not run), else a guarded `--version` run; never for a program shipped inside
//! the workspace (where the CLI is: `program.rs`).

use std::collections::HashMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use crate::team::resolve_existing;

/// How long `--version` may take before the probe gives up. Generous: gemini's took
/// 4.5 to 5.4 s on a loaded 2-core machine (node starting a large bundle).
pub const PROBE_TIMEOUT: Duration = Duration::from_secs(10);

/// What is shown instead of the version of a CLI that lies inside the workspace (the
/// probe never runs it), so the user knows why there is none.
pub const NOT_PROBED_IN_WORKSPACE: &str =
    "version not checked: chatmd never runs a program inside the workspace on its own";

/// What is shown when [`probe_version`] found none for a CLI outside the workspace, so
/// the user knows what was tried.
pub fn version_unknown(program: &str) -> String {
    format!(
        "version unknown: `{program} --version` failed, or printed nothing within {} s",
        PROBE_TIMEOUT.as_secs()
    )
}

/// Whether `path` lies inside `workspace_root`, as written or once symlinks are
/// resolved: [`probe_version`] never runs such a program.
pub fn inside_workspace(path: &Path, workspace_root: &Path) -> bool {
    path.starts_with(workspace_root)
        || resolve_existing(path).starts_with(resolve_existing(workspace_root))
}

/// Runs `<path> --version` (at most [`PROBE_TIMEOUT`]) and returns the first non-empty
/// line of its output, trimmed (`None` when it fails or prints nothing). Results are
/// cached per program for the life of the process. Returns `None` without running
/// anything when the program lies inside `workspace_root`: opening a workspace must
/// never run a program it ships.
pub fn probe_version(path: &Path, workspace_root: Option<&Path>) -> Option<String> {
    probe_version_within(path, workspace_root, PROBE_TIMEOUT)
}

pub(crate) fn probe_version_within(
    path: &Path,
    workspace_root: Option<&Path>,
    timeout: Duration,
) -> Option<String> {
    if let Some(root) = workspace_root
        && inside_workspace(path, root)
    {
        tracing::info!(program = %path.display(), "not probing a program inside the workspace");
        return None;
    }
    static CACHE: OnceLock<Mutex<HashMap<PathBuf, Option<String>>>> = OnceLock::new();
    let cache = CACHE.get_or_init(Mutex::default);
    // By the path as invoked, not where its links lead: one program installed under
    // several names may answer as the name it was called by.
    let key = path.to_path_buf();
    if let Some(known) = cache.lock().unwrap_or_else(|e| e.into_inner()).get(&key) {
        return known.clone();
    }
    // Not holding the lock while the program runs: probes of other CLIs go on meanwhile.
    let version = npm_package_version(path).or_else(|| run_version(path, timeout));
    cache
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .insert(key, version.clone());
    version
}

/// The `version` of the npm package that holds `path` once symlinks are resolved
/// (`node_modules/.bin/gemini` → `node_modules/@google/gemini-cli/dist/index.js`: the
/// package `@google/gemini-cli`), from its `package.json`. Read rather than run: no
/// start-up to wait for.
fn npm_package_version(path: &Path) -> Option<String> {
    let resolved = std::fs::canonicalize(path).ok()?;
    let parts: Vec<_> = resolved.components().collect();
    let modules = parts
        .iter()
        .rposition(|c| c.as_os_str() == "node_modules")?;
    let mut package: PathBuf = parts[..=modules].iter().collect();
    let name = parts.get(modules + 1)?.as_os_str();
    package.push(name);
    if name.to_string_lossy().starts_with('@') {
        package.push(parts.get(modules + 2)?.as_os_str());
    }
    let manifest = std::fs::read(package.join("package.json")).ok()?;
    let manifest: serde_json::Value = serde_json::from_slice(&manifest).ok()?;
    let version = manifest.get("version")?.as_str()?.trim();
    (!version.is_empty()).then(|| version.to_owned())
}

fn run_version(path: &Path, timeout: Duration) -> Option<String> {
    let deadline = Instant::now() + timeout;
    let mut child = spawn_version(path, deadline)
        .map_err(|error| tracing::debug!(program = %path.display(), %error, "probe failed"))
        .ok()?;
    let mut stdout = child.stdout.take()?;
    let (sender, receiver) = mpsc::channel();
    // The reader thread ends at EOF, which killing the child guarantees.
    std::thread::spawn(move || {
        let mut output = Vec::new();
        let _ = (&mut stdout).take(64 * 1024).read_to_end(&mut output);
        let _ = sender.send(output);
    });
    let output = receiver
        .recv_timeout(deadline.saturating_duration_since(Instant::now()))
        .ok();
    let status = wait_until(&mut child, deadline);
    if status.is_none() {
        tracing::warn!(program = %path.display(), "`--version` took too long; stopped it");
    }
    if !status?.success() {
        return None;
    }
    let output = String::from_utf8_lossy(&output?).into_owned();
    let first = output.lines().map(str::trim).find(|l| !l.is_empty())?;
    Some(first.to_owned())
}

/// Starts `<path> --version`. A program that was just written (an update in progress,
/// or a test's fake) can fail with "text file busy" while another process briefly holds
/// it open for writing; that is retried until the deadline.
fn spawn_version(path: &Path, deadline: Instant) -> std::io::Result<std::process::Child> {
    const TEXT_FILE_BUSY: i32 = 26; // ETXTBSY
    loop {
        let mut command = Command::new(path);
        for own in crate::malloc::own_variables() {
            command.env_remove(own);
        }
        let spawned = command
            .arg("--version")
            // Away from the workspace, so no project config is picked up.
            .current_dir(std::env::temp_dir())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn();
        match spawned {
            Err(error)
                if error.raw_os_error() == Some(TEXT_FILE_BUSY) && Instant::now() < deadline =>
            {
                std::thread::sleep(Duration::from_millis(5));
            }
            other => return other,
        }
    }
}

/// The child's exit status if it ends before `deadline`; otherwise it is killed.
fn wait_until(
    child: &mut std::process::Child,
    deadline: Instant,
) -> Option<std::process::ExitStatus> {
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return Some(status),
            Ok(None) if Instant::now() < deadline => {
                // Output is complete (EOF) at this point; the exit is a matter of moments.
                std::thread::sleep(Duration::from_millis(2));
            }
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return None;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;
    use std::os::unix::fs::PermissionsExt;

    fn script(dir: &Path, name: &str, body: &str, mode: u32) -> PathBuf {
        let path = dir.join(name);
        fs::write(&path, format!("#!/bin/sh\n{body}\n")).expect("write");
        fs::set_permissions(&path, fs::Permissions::from_mode(mode)).expect("chmod");
        path
    }

    #[test]
    fn an_npm_package_s_version_is_read_without_running_it() -> std::io::Result<()> {
        let prefix = tempfile::tempdir()?;
        let package = prefix.path().join("node_modules/@google/gemini-cli");
        fs::create_dir_all(package.join("dist"))?;
        fs::write(
            package.join("package.json"),
            r#"{"name": "@google/gemini-cli", "version": "0.62.1"}"#,
        )?;
        // It would hang if it ran.
        let program = script(&package.join("dist"), "index.js", "exec sleep 30", 0o755);
        let bin = prefix.path().join("node_modules/.bin");
        fs::create_dir_all(&bin)?;
        std::os::unix::fs::symlink(&program, bin.join("gemini"))?;
        let started = Instant::now();
        assert_eq!(
            probe_version_within(&bin.join("gemini"), None, Duration::from_secs(20)),
            Some("0.62.1".to_owned())
        );
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "it ran the program"
        );
        Ok(())
    }

    #[test]
    fn a_hanging_program_is_stopped_at_the_timeout() -> std::io::Result<()> {
        let tools = tempfile::tempdir()?;
        // `exec` so that killing the child kills the sleeper itself.
        let hang = script(tools.path(), "hang", "exec sleep 30", 0o755);
        let started = Instant::now();
        assert_eq!(
            probe_version_within(&hang, None, Duration::from_millis(200)),
            None
        );
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "waited for the program"
        );
        Ok(())
    }
}
