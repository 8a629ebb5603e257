//! The baseline of the outline rows: VS Code's own Markdown outline of the same file,
//! computed in process by the language service VS Code's Markdown support runs
//! (`vscode/outline.mjs`), installed by the bench with npm from `vscode/package-lock.json`.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Where the baseline's node packages are installed (outside the source tree).
fn install_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/bench-vscode-outline")
}

/// VS Code's outline of one file, in ms.
#[derive(Clone, Copy)]
pub struct Outline {
    /// The first call.
    pub first: f64,
    /// A call for the same version again (answered from the service's cache).
    pub warm: f64,
    /// A call after a one-character edit (a new version).
    pub edited: f64,
}

/// VS Code's outline of `file`; `None` (with the reason on stderr) when node or npm is
/// missing or the install failed.
pub fn outline(file: &Path) -> Option<Outline> {
    let dir = install_dir();
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/all/vscode");
    std::fs::create_dir_all(&dir).ok()?;
    for name in ["package.json", "package-lock.json", "outline.mjs"] {
        std::fs::copy(source.join(name), dir.join(name)).ok()?;
    }
    if !dir
        .join("node_modules/vscode-markdown-languageservice")
        .exists()
    {
        let installed = Command::new("npm")
            .args(["ci", "--no-audit", "--no-fund", "--silent"])
            .current_dir(&dir)
            .stdout(Stdio::null())
            .status();
        if !installed.is_ok_and(|s| s.success()) {
            eprintln!(
                "VS Code's outline not measured: `npm ci` in {} failed",
                dir.display()
            );
            return None;
        }
    }
    let output = Command::new("node")
        .arg(dir.join("outline.mjs"))
        .arg(file)
        .output();
    let output = match output {
        Ok(output) if output.status.success() => output,
        other => {
            eprintln!("VS Code's outline not measured: node failed: {other:?}");
            return None;
        }
    };
    let result: serde_json::Value = serde_json::from_slice(&output.stdout).ok()?;
    Some(Outline {
        first: result["first_ms"].as_f64()?,
        warm: result["warm_ms"].as_f64()?,
        edited: result["edited_ms"].as_f64()?,
    })
}
