//! The context files each CLI loads by itself from its working folder and the folders
//! above it, so the prompt builder gives every agent its role exactly once.

use std::path::{Path, PathBuf};

use super::{Member, normalize, resolve_existing};
use crate::agent_config::{ACP, AgentKind, preset_named};

/// The files `member`'s CLI will load on its own (reference: agent-clis.md §0), parent
/// folders first, the order in which the CLIs concatenate them:
///
/// - claude: `CLAUDE.md` (and `CLAUDE.local.md`) in the workdir and every parent;
/// - codex: `AGENTS.md` from the project root down to the workdir, where a folder's
///   `AGENTS.override.md` replaces its `AGENTS.md`;
/// - gemini: `GEMINI.md` in the workdir and its parents.
///
/// For a workdir inside the workspace the walk stops at the workspace root. **Parent
/// files leak into every member**: a root `AGENTS.md` written for the project is read
/// by every codex member of every team below it, on top of its own role. A workdir
/// outside the workspace (a `work` symlink) is walked where it really is: up to `/` for
/// claude, up to the nearest `.git` folder (else the workdir alone) for codex and gemini.
/// Members whose agent is not a built-in kind (nor an ACP preset of one) load nothing
/// chatmd knows of.
pub fn role_files_loaded(member: &Member, workspace_root: &Path) -> Vec<PathBuf> {
    let Some(kind) = cli_kind(member) else {
        return Vec::new();
    };
    let root = normalize(workspace_root);
    let real_root = resolve_existing(&root);
    // The CLI's cwd is where the workdir really is, after following the `work` link.
    let real_workdir = resolve_existing(&member.workdir);
    let mut dirs: Vec<PathBuf> = match real_workdir.strip_prefix(&real_root) {
        Ok(inside) => root
            .join(inside)
            .ancestors()
            .take_while(|dir| dir.starts_with(&root))
            .map(Path::to_path_buf)
            .collect(),
        Err(_) => outside_dirs(kind, &real_workdir),
    };
    dirs.reverse();
    dirs.iter().flat_map(|dir| loaded_in(kind, dir)).collect()
}

/// The built-in CLI a member's turns run, headless or behind ACP: its `agent`'s kind,
/// or, for `agent = "acp"`, its preset's (`gemini --acp` loads `GEMINI.md` like
/// `gemini -p` does).
pub fn cli_kind(member: &Member) -> Option<AgentKind> {
    if member.agent == ACP {
        return member
            .preset
            .as_deref()
            .and_then(preset_named)
            .and_then(|preset| preset.kind);
    }
    member.kind()
}

/// The folders walked for a workdir outside the workspace, nearest first.
fn outside_dirs(kind: AgentKind, workdir: &Path) -> Vec<PathBuf> {
    let ancestors = workdir.ancestors().map(Path::to_path_buf);
    if kind.facts().walks_to_filesystem_root {
        return ancestors.collect();
    }
    let mut dirs = Vec::new();
    for dir in ancestors {
        let is_project_root = dir.join(".git").exists();
        dirs.push(dir);
        if is_project_root {
            return dirs;
        }
    }
    dirs.truncate(1);
    dirs
}

/// The files `kind` loads from one folder.
fn loaded_in(kind: AgentKind, dir: &Path) -> Vec<PathBuf> {
    let facts = kind.facts();
    let names: &[&str] = match &facts.loads_instead {
        Some(instead) if dir.join(instead).is_file() => std::slice::from_ref(instead),
        _ => facts.loads,
    };
    names
        .iter()
        .map(|name| dir.join(name))
        .filter(|file| file.is_file())
        .collect()
}
