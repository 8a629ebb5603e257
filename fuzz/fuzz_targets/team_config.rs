//! `chatmd.toml` and `agents.toml`. Whatever their text (numbers out of any range
//! included, like `idle_timeout = 9223372036854775807`), loading the team and the agent
//! registry does not panic, nor does planning a turn of every member. Every problem's
//! range lies inside its file's text on character boundaries, and every registry
//! problem's line and column inside the text. Members have valid handles and timeouts
//! of at most 30 days, which a clock can add to now. A workspace file the user has not
//! trusted applies none of `command`, `args`, `env` and `home`, and its
//! `trust_summary` names only places inside the text.
//!
//! Input: the first byte says whether the workspace is trusted (`& 1`: it lies in the
//! user's own config folder, which needs no trust); the rest is cut at the first 0xFF
//! into `chatmd.toml` and `agents.toml` (invalid UTF-8 replaced). The team folder also
//! holds a member folder `reviewer/` with a `CLAUDE.md`.
#![no_main]

use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use chatmd::agents::{Registry, plan_turn};
use chatmd::team::{CONFIG_FILE_NAME, UserConfig, is_valid_handle, load_team_with, trust_summary};
use libfuzzer_sys::fuzz_target;

/// The longest timeout a config may set.
const MAX_TIMEOUT: Duration = Duration::from_secs(30 * 24 * 3600);

struct Places {
    config_home: PathBuf,
    /// A workspace outside the user's config folder, and one inside it.
    untrusted: PathBuf,
    trusted: PathBuf,
}

fn places() -> &'static Places {
    static PLACES: OnceLock<Places> = OnceLock::new();
    PLACES.get_or_init(|| {
        let base = std::env::temp_dir().join(format!("chatmd-fuzz-team-{}", std::process::id()));
        let config_home = base.join("config");
        let places = Places {
            untrusted: base.join("workspace"),
            trusted: config_home.join("chatmd").join("workspace"),
            config_home,
        };
        for ws in [&places.untrusted, &places.trusted] {
            let member = ws.join("reviewer");
            std::fs::create_dir_all(&member).expect("a temporary folder");
            std::fs::write(member.join("CLAUDE.md"), "You review.\n").expect("a role file");
        }
        places
    })
}

fuzz_target!(|data: &[u8]| {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let (config, agents) = match rest.iter().position(|&b| b == 0xFF) {
        Some(at) => (&rest[..at], &rest[at + 1..]),
        None => (rest, &[][..]),
    };
    let config = String::from_utf8_lossy(config);
    let agents = String::from_utf8_lossy(agents);
    let places = places();
    let trusted = pick & 1 == 1;
    let ws = if trusted {
        &places.trusted
    } else {
        &places.untrusted
    };
    let config_file = ws.join(CONFIG_FILE_NAME);
    std::fs::write(&config_file, config.as_bytes()).expect("writing chatmd.toml");

    let trust = UserConfig::with_config_home(&places.config_home).load_trust();
    let team = load_team_with(ws, ws, &trust);
    for problem in &team.problems {
        assert!(!problem.message.is_empty());
        if problem.file.ends_with(CONFIG_FILE_NAME)
            && let Some(range) = &problem.range
        {
            assert!(
                config.get(range.clone()).is_some(),
                "{problem:?} outside {config:?}"
            );
        }
    }
    if let Ok(items) = trust_summary(ws, &config_file, &config) {
        for item in items {
            assert!(config.get(item.range.clone()).is_some(), "{item:?}");
        }
    }

    let agents_file = Path::new("/fuzz/agents.toml");
    let (registry, problems) = Registry::parse(agents_file, &agents);
    for problem in &problems {
        if let Some(at) = &problem.location {
            let lines = agents.split('\n').count();
            assert!(at.line >= 1 && at.line <= lines, "{problem:?}");
            let line = agents.split('\n').nth(at.line - 1).unwrap_or("");
            assert!(
                at.column >= 1 && at.column <= line.chars().count() + 1,
                "{problem:?}"
            );
        }
        let _ = problem.to_string();
    }

    for member in &team.members {
        assert!(is_valid_handle(&member.handle), "{member:?}");
        for limit in [member.timeout, member.idle_timeout].into_iter().flatten() {
            assert!(limit <= MAX_TIMEOUT, "{member:?}");
        }
        if !trusted {
            assert!(
                member.command.is_none()
                    && member.args.is_empty()
                    && member.env.is_empty()
                    && member.home.is_none(),
                "an untrusted chatmd.toml applied {member:?}"
            );
        }
        let Some(entry) = registry.entry(&member.agent) else {
            continue;
        };
        let invocation = plan_turn(entry, member, "Be brief.", "hello", Some("session-1"));
        let limits = invocation.limits;
        for limit in [Some(limits.total), limits.idle].into_iter().flatten() {
            assert!(Instant::now().checked_add(limit).is_some(), "{limits:?}");
        }
    }
});
