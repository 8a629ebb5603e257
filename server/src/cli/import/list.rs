//! `chatmd import --list [DIR]`: the sessions the CLIs stored for a folder (run in it,
//! or in the workdir of one of its team's members), in the CLIs' default state folders
//! and in each member's own `home`, newest first, one line each: CLI, session id, file.

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use crate::agents::AgentKind;
use crate::agents::kinds::spec_of;
use crate::agents::transcripts::{StoredSession, sessions_in, state_dir};
use crate::team::Team;

/// Lists the sessions for `dir` (its team is `team`), with the user's `home` and the
/// CLIs' state variables from `var`.
pub(super) fn run(
    dir: &Path,
    team: &Team,
    home: Option<&Path>,
    var: &dyn Fn(&str) -> Option<PathBuf>,
) -> ExitCode {
    let mut folders = vec![dir.to_path_buf()];
    for member in &team.members {
        if let Ok(workdir) = member.workdir.canonicalize()
            && !folders.contains(&workdir)
        {
            folders.push(workdir);
        }
    }
    let mut states: Vec<(AgentKind, PathBuf)> = Vec::new();
    for &kind in AgentKind::ALL {
        if let Some(state) =
            var(spec_of(kind).state_env_var).or_else(|| home.map(|h| state_dir(kind, None, h)))
        {
            states.push((kind, state));
        }
    }
    for member in &team.members {
        if let (Some(kind), Some(home)) = (member.kind(), &member.home) {
            states.push((kind, home.clone()));
        }
    }
    states.dedup();
    let mut found: Vec<StoredSession> = Vec::new();
    for (kind, state) in &states {
        for session in sessions_in(*kind, state, &folders) {
            if !found.iter().any(|f| f.path == session.path) {
                found.push(session);
            }
        }
    }
    let mut out = io::stdout().lock();
    let written = if found.is_empty() {
        let looked: Vec<String> = states
            .iter()
            .map(|(_, s)| s.display().to_string())
            .collect();
        writeln!(
            out,
            "no sessions of {} ran in {} (looked in {})",
            crate::agents::kinds::stored_kinds_in_words(),
            dir.display(),
            looked.join(", ")
        )
    } else {
        found.iter().try_for_each(|s| {
            writeln!(
                out,
                "{}\t{}\t{}",
                s.kind.name(),
                s.session,
                s.path.display()
            )
        })
    };
    match written {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("chatmd import: cannot write the list: {e}");
            ExitCode::FAILURE
        }
    }
}
