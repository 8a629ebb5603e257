//! Which model answered, where a CLI's output does not simply say so.
//!
//! - gemini's `init` says `model:"auto"`; the routed model is only in the final
//!   `result.stats.models`, next to the router's own classifier call (a `flash-lite`
//!   model with a small prompt). [`routed_model`] picks the answering one.
//! - codex's `--json` never names its model. [`configured_model`] reads what the turn's
//!   configuration asks for: the member's `-m/--model` or `-c model=...` arguments, else
//!   `model` in `$CODEX_HOME/config.toml` (of the selected `--profile`, if any). This is
//!   the one place here that reads a file; it runs when the turn is planned, never in a
//!   parser.

use std::path::PathBuf;

use super::Invocation;
use super::registry::AgentEntry;

/// Token counts of one model in gemini's `stats.models`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ModelTokens {
    pub input_tokens: u64,
    pub output_tokens: u64,
}

/// The model that answered a gemini turn, from `stats.models`: a model not named
/// `*-lite*` (the router's classifier) when there is one, and among those the one
/// that read the most (the answering model gets the whole context; the classifier a
/// short prompt), then wrote the most.
pub fn routed_model<'a>(
    models: impl IntoIterator<Item = (&'a str, ModelTokens)>,
) -> Option<&'a str> {
    let models: Vec<(&str, ModelTokens)> = models.into_iter().collect();
    let is_router = |name: &str| name.contains("-lite");
    let any_other = models.iter().any(|(name, _)| !is_router(name));
    models
        .iter()
        .filter(|(name, _)| !any_other || !is_router(name))
        .max_by_key(|(_, t)| (t.input_tokens, t.output_tokens))
        .map(|(name, _)| *name)
}

/// The model a turn of `entry` is configured to use, when its CLI does not report
/// one (codex only; `None` for the others and when nothing names a model).
pub fn configured_model(entry: &AgentEntry, invocation: &Invocation) -> Option<String> {
    let kind = entry.adapter.kind()?;
    super::kinds::spec_of(kind).configured_model?(invocation)
}

/// The model a codex turn is configured with: `-m`, else its `config.toml`'s.
pub(super) fn codex_model(invocation: &Invocation) -> Option<String> {
    let args = CodexArgs::read(&invocation.args);
    if let Some(model) = args.model {
        return Some(model);
    }
    let config = std::fs::read_to_string(codex_home(invocation)?.join("config.toml")).ok()?;
    model_in_config(&config, args.profile.as_deref())
}

/// `model` of `config.toml`: the profile's (`--profile`, else the file's `profile`)
/// when it names one, else the top-level one.
pub fn model_in_config(config: &str, profile: Option<&str>) -> Option<String> {
    let table: toml::Table = toml::from_str(config).ok()?;
    let profile = profile.or_else(|| table.get("profile")?.as_str());
    let from_profile = profile.and_then(|name| {
        table
            .get("profiles")?
            .get(name)?
            .get("model")?
            .as_str()
            .map(str::to_owned)
    });
    from_profile.or_else(|| table.get("model")?.as_str().map(str::to_owned))
}

/// `CODEX_HOME` as the turn sees it (the member's `home` or `env`, else chatmd's own
/// environment), else `~/.codex` of the turn's `HOME`.
fn codex_home(invocation: &Invocation) -> Option<PathBuf> {
    let var = |name: &str| {
        invocation
            .env
            .iter()
            .rev()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.clone())
            .or_else(|| std::env::var(name).ok())
            .filter(|value| !value.is_empty())
    };
    let home = match var("CODEX_HOME") {
        Some(home) => PathBuf::from(home),
        None => PathBuf::from(var("HOME")?).join(".codex"),
    };
    // A relative CODEX_HOME is taken from the member's working folder, as codex does.
    Some(invocation.cwd.join(home))
}

/// The model and profile the command line selects.
#[derive(Debug, Default, PartialEq, Eq)]
struct CodexArgs {
    model: Option<String>,
    profile: Option<String>,
}

impl CodexArgs {
    /// Reads `-m X`, `--model X`, `--model=X`, `-c model=X` (`--config`), `-p X`,
    /// `--profile X` and `-c profile=X`; the last one wins, as in codex's option parser.
    fn read(args: &[String]) -> CodexArgs {
        let mut found = CodexArgs::default();
        let mut i = 0;
        while i < args.len() {
            let arg = args[i].as_str();
            i += 1;
            let (flag, inline) = match arg.split_once('=') {
                Some((flag, value)) if arg.starts_with("--") => (flag, Some(value)),
                _ => (arg, None),
            };
            if !matches!(
                flag,
                "-m" | "--model" | "-c" | "--config" | "-p" | "--profile"
            ) {
                continue;
            }
            let Some(value) = inline.or_else(|| args.get(i).map(String::as_str)) else {
                break;
            };
            if inline.is_none() {
                i += 1;
            }
            match flag {
                "-m" | "--model" => found.model = Some(value.to_owned()),
                "-p" | "--profile" => found.profile = Some(value.to_owned()),
                _ => {
                    let Some((key, raw)) = value.split_once('=') else {
                        continue;
                    };
                    let value = toml_value(raw);
                    match key.trim() {
                        "model" => found.model = Some(value),
                        "profile" => found.profile = Some(value),
                        _ => {}
                    }
                }
            }
        }
        found
    }
}

/// A `-c key=value` value: TOML when it parses as a string, else the raw text (codex
/// falls back to the literal the same way).
fn toml_value(raw: &str) -> String {
    toml::from_str::<toml::Table>(&format!("v = {raw}"))
        .ok()
        .and_then(|table| table.get("v")?.as_str().map(str::to_owned))
        .unwrap_or_else(|| raw.trim().to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn tokens(input_tokens: u64, output_tokens: u64) -> ModelTokens {
        ModelTokens {
            input_tokens,
            output_tokens,
        }
    }

    #[test]
    fn the_router_is_not_the_answering_model() {
        // headless-plain.jsonl and headless-tool-not-found.jsonl, as recorded.
        let plain = [
            ("gemini-3.5-flash-lite", tokens(914, 5)),
            ("gemini-3.1-pro-preview", tokens(10044, 28)),
        ];
        assert_eq!(routed_model(plain), Some("gemini-3.1-pro-preview"));
        let routed = [
            ("gemini-3.5-flash-lite", tokens(917, 5)),
            ("gemini-3.8-flash", tokens(20221, 66)),
        ];
        assert_eq!(routed_model(routed), Some("gemini-3.8-flash"));
        // Routed to the lite model itself: router and answer share its entry.
        assert_eq!(
            routed_model([("gemini-3.5-flash-lite", tokens(900, 40))]),
            Some("gemini-3.5-flash-lite")
        );
        assert_eq!(routed_model([]), None);
    }

    fn args(list: &[&str]) -> CodexArgs {
        CodexArgs::read(&list.iter().map(|a| a.to_string()).collect::<Vec<_>>())
    }

    #[test]
    fn the_command_line_names_the_model_or_the_profile() {
        let exec = ["exec", "--json", "--skip-git-repo-check"];
        assert_eq!(args(&exec), CodexArgs::default());
        let with = |extra: &[&str]| {
            let mut all = exec.to_vec();
            all.extend_from_slice(extra);
            all.push("[MESSAGE] hi -m not-a-flag");
            args(&all)
        };
        assert_eq!(with(&["-m", "gpt-5.5"]).model.as_deref(), Some("gpt-5.5"));
        assert_eq!(with(&["--model=o4"]).model.as_deref(), Some("o4"));
        assert_eq!(
            with(&[
                "-c",
                "developer_instructions=\"x\"",
                "-c",
                "model=\"gpt-5.5\""
            ])
            .model
            .as_deref(),
            Some("gpt-5.5")
        );
        assert_eq!(
            with(&["-c", "model=gpt-5.5-mini"]).model.as_deref(),
            Some("gpt-5.5-mini")
        );
        assert_eq!(
            with(&["--profile", "fast"]).profile.as_deref(),
            Some("fast")
        );
    }

    #[test]
    fn the_config_file_names_the_model() {
        // The recordings' config.toml.
        let config = "model = \"gpt-5.5\"\nmodel_provider = \"mock\"\n[model_providers.mock]\nname = \"Mock\"\n";
        assert_eq!(model_in_config(config, None).as_deref(), Some("gpt-5.5"));
        let profiles =
            "model = \"a\"\nprofile = \"p\"\n[profiles.p]\nmodel = \"b\"\n[profiles.q]\n";
        assert_eq!(model_in_config(profiles, None).as_deref(), Some("b"));
        assert_eq!(model_in_config(profiles, Some("q")).as_deref(), Some("a"));
        assert_eq!(model_in_config("not toml [", None), None);
        assert_eq!(model_in_config("", None), None);
    }

    #[test]
    fn the_codex_home_of_the_member_is_read() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("config.toml"), "model = \"gpt-5.5\"\n").unwrap();
        let entry = AgentEntry::builtin(crate::agents::AgentKind::Codex);
        let invocation = Invocation {
            program: "codex".into(),
            args: vec!["exec".into(), "--json".into(), "hi".into()],
            env: vec![("CODEX_HOME".into(), dir.path().display().to_string())],
            create_dirs: vec![],
            cwd: dir.path().to_path_buf(),
            stdin: super::super::Stdin::Null,
            limits: super::super::plan::limits(
                &crate::team::Member::new("t", "codex", dir.path().to_path_buf()),
                true,
            ),
            install_hint: None,
            session: Default::default(),
        };
        assert_eq!(
            configured_model(&entry, &invocation).as_deref(),
            Some("gpt-5.5")
        );
        let mut told = invocation.clone();
        told.args.insert(2, "-m".into());
        told.args.insert(3, "o4".into());
        assert_eq!(configured_model(&entry, &told).as_deref(), Some("o4"));
        let claude = AgentEntry::builtin(crate::agents::AgentKind::Claude);
        assert_eq!(configured_model(&claude, &invocation), None);
    }
}
