//! `chatmd trust [PATH]`, `--list`, `--revoke [PATH]`: the user's say on a workspace
//! `chatmd.toml` (its `command`, `args`, `env` and `home` apply only once trusted) and
//! on symlinks out of the workspace. Like direnv's `allow` and mise's `trust`: what is
//! trusted is shown, then recorded with the file's hash in the user's config folder.

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, anyhow, bail};

use crate::team::trust::{TrustItem, TrustedFile, TrustedLink, UserConfig, content_hash};
use crate::team::{CONFIG_FILE_NAME, current_folder, is_chat_file, trust_summary, workspace_root};

mod chat;
mod settings;

#[derive(Debug, clap::Args)]
pub(super) struct TrustArgs {
    /// A chatmd.toml, a folder (its chatmd.toml), a chat (the allow rules of its front
    /// matter), an agent CLI's settings file in a member's folder
    /// (`.claude/settings.json`, `.gemini/settings.json`, `.codex/config.toml`), or a
    /// symlink out of the workspace to accept (a member's `work` link).
    /// Default: the nearest chatmd.toml from the current folder up.
    path: Option<PathBuf>,
    /// List what is trusted, and whether it still is (a changed file is not).
    #[arg(long, conflicts_with_all = ["path", "revoke"])]
    list: bool,
    /// Take back the trust of PATH.
    #[arg(long)]
    revoke: bool,
}

/// What PATH names.
enum Target {
    Config(PathBuf),
    Chat(PathBuf),
    /// An agent CLI's own settings file (`agent_settings.rs`).
    Settings(PathBuf),
    Link(PathBuf),
    /// A symlink that stays inside the workspace: followed without trust.
    InsideLink {
        link: PathBuf,
        root: PathBuf,
    },
}

/// The workspace root for something in `folder`: the one rule of team/place.rs, with
/// the current folder as the working folder, so `trust` judges a file or a link
/// against the root `chatmd send` from here reads it with.
fn root_of(folder: &Path) -> PathBuf {
    workspace_root(current_folder().as_deref(), folder)
}

/// Exit status: 0 on success, 1 when the store cannot be read or written or the file
/// does not parse, 2 for a path that cannot be used.
pub(super) fn run(args: &TrustArgs) -> ExitCode {
    let user = UserConfig::from_env();
    let mut out = io::stdout().lock();
    let result = if args.list {
        list(&user, &mut out).map_err(|e| (1, e))
    } else {
        match target(args.path.as_deref()) {
            Err(error) => Err((2, error)),
            Ok(target) if args.revoke => revoke(&user, &target, &mut out).map_err(|e| (1, e)),
            Ok(target) => trust(&user, &target, &mut out),
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err((code, error)) => {
            let _ = out.flush();
            eprintln!("chatmd trust: {error:#}");
            ExitCode::from(code)
        }
    }
}

/// PATH as a config file or a link; relative paths are taken from the current folder.
fn target(path: Option<&Path>) -> anyhow::Result<Target> {
    let cwd = std::env::current_dir().context("cannot tell the current folder")?;
    let Some(path) = path else {
        return cwd
            .ancestors()
            .map(|dir| dir.join(CONFIG_FILE_NAME))
            .find(|file| file.is_file())
            .map(Target::Config)
            .ok_or_else(|| {
                anyhow!("no {CONFIG_FILE_NAME} in this folder or above; name one (or a folder)")
            });
    };
    let path = crate::team::trust::absolute(&cwd, path);
    let meta = path
        .symlink_metadata()
        .with_context(|| format!("cannot read {}", path.display()))?;
    let folder = path.parent().unwrap_or(Path::new("/"));
    if meta.file_type().is_symlink() {
        let root = root_of(folder);
        if leads_out(&path, &root) {
            return Ok(Target::Link(path));
        }
        if !path.join(CONFIG_FILE_NAME).is_file() && !path.is_file() {
            return Ok(Target::InsideLink { link: path, root });
        }
    }
    if path.is_dir() {
        let file = path.join(CONFIG_FILE_NAME);
        if !file.is_file() {
            bail!("{} has no {CONFIG_FILE_NAME}", path.display());
        }
        return Ok(Target::Config(file));
    }
    if path.file_name().is_some_and(|n| n == CONFIG_FILE_NAME) {
        return Ok(Target::Config(path));
    }
    if is_chat_file(&path) {
        return Ok(Target::Chat(path));
    }
    if crate::team::agent_settings::is_agent_settings(&path) {
        return Ok(Target::Settings(path));
    }
    bail!(
        "{} is neither a {CONFIG_FILE_NAME}, a chat, a folder, nor a link out of the workspace",
        path.display()
    )
}

fn leads_out(link: &Path, root: &Path) -> bool {
    let real = std::fs::canonicalize(link).unwrap_or_else(|_| link.to_path_buf());
    let real_root = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    !real.starts_with(real_root)
}

fn trust(
    user: &UserConfig,
    target: &Target,
    out: &mut impl Write,
) -> Result<(), (u8, anyhow::Error)> {
    match target {
        Target::Config(file) => trust_config(user, file, out),
        Target::Chat(file) => chat::trust_chat(user, file, out),
        Target::Settings(file) => settings::trust_settings(user, file, out),
        Target::Link(link) => {
            let entry = user.trust_link(link).map_err(|e| (1, e.into()))?;
            writeln!(
                out,
                "Accepted the link {} -> {}: chatmd follows it while it leads there.\n\
                 `chatmd trust --revoke {}` takes it back.",
                entry.path.display(),
                entry.target.display(),
                link.display()
            )
            .map_err(|e| (1, e.into()))
        }
        Target::InsideLink { link, root } => writeln!(
            out,
            "{} leads to {}, inside the workspace {}: chatmd follows it without trust; \
             nothing recorded.",
            link.display(),
            std::fs::canonicalize(link)
                .unwrap_or_else(|_| link.clone())
                .display(),
            root.display()
        )
        .map_err(|e| (1, e.into())),
    }
}

fn trust_config(
    user: &UserConfig,
    file: &Path,
    out: &mut impl Write,
) -> Result<(), (u8, anyhow::Error)> {
    let bytes = std::fs::read(file)
        .with_context(|| format!("cannot read {}", file.display()))
        .map_err(|e| (2, e))?;
    let text = String::from_utf8(bytes.clone())
        .map_err(|_| (1, anyhow!("{} is not valid UTF-8", file.display())))?;
    let root = root_of(file.parent().unwrap_or(Path::new("/")));
    let items = trust_summary(&root, file, &text)
        .map_err(|why| (1, anyhow!("{}: {why}; fix it first", file.display())))?;
    let write = |out: &mut dyn Write| -> io::Result<()> {
        if items.is_empty() {
            writeln!(
                out,
                "{} sets nothing that runs programs (no command, args, env or home).",
                file.display()
            )
        } else {
            writeln!(out, "{} asks chatmd to run, on Send:", file.display())?;
            write_items(out, &items)
        }
    };
    write(out).map_err(|e| (1, e.into()))?;
    if user.load_trust().trusts_file(file, &bytes) {
        return writeln!(out, "Already trusted, unchanged.").map_err(|e| (1, e.into()));
    }
    let entry = user.trust_file(file, &bytes).map_err(|e| (1, e.into()))?;
    let store = user.trust_store().unwrap_or_default();
    writeln!(
        out,
        "Trusted (sha256 {}), recorded in {}.\nA change to the file needs `chatmd trust` \
         again; `chatmd trust --revoke {}` takes it back.",
        &entry.sha256[..12],
        store.display(),
        file.display()
    )
    .map_err(|e| (1, e.into()))
}

/// Each member's settings, indented under it.
fn write_items(out: &mut dyn Write, items: &[TrustItem]) -> io::Result<()> {
    let mut members: Vec<&str> = Vec::new();
    for item in items {
        if !members.iter().any(|m| m.eq_ignore_ascii_case(&item.member)) {
            members.push(&item.member);
        }
    }
    for member in members {
        writeln!(out, "  @{member}")?;
        for item in items
            .iter()
            .filter(|i| i.member.eq_ignore_ascii_case(member))
        {
            for line in &item.shown {
                writeln!(out, "    {line}")?;
            }
        }
    }
    Ok(())
}

fn revoke(user: &UserConfig, target: &Target, out: &mut impl Write) -> anyhow::Result<()> {
    let path = match target {
        Target::Config(path)
        | Target::Chat(path)
        | Target::Settings(path)
        | Target::Link(path)
        | Target::InsideLink { link: path, .. } => path,
    };
    if user.revoke(path)? {
        writeln!(
            out,
            "Revoked {}: its settings no longer apply.",
            path.display()
        )?;
    } else {
        writeln!(
            out,
            "{} was not trusted; nothing to revoke.",
            path.display()
        )?;
    }
    Ok(())
}

fn list(user: &UserConfig, out: &mut impl Write) -> anyhow::Result<()> {
    let (files, links) = user.list()?;
    let chats = user.list_chats()?;
    let store = user.trust_store().unwrap_or_default();
    if files.is_empty() && links.is_empty() && chats.is_empty() {
        writeln!(out, "Nothing is trusted ({} is empty).", store.display())?;
        return Ok(());
    }
    writeln!(out, "Trusted in {}:", store.display())?;
    for file in &files {
        writeln!(out, "  {}  {}", file.path.display(), file_status(file))?;
    }
    for link in &links {
        writeln!(
            out,
            "  {} -> {}  {}",
            link.path.display(),
            link.target.display(),
            link_status(link)
        )?;
    }
    for chat in &chats {
        writeln!(out, "  {}  the allow rules", chat.path.display())?;
        for rule in &chat.allow {
            writeln!(out, "    @{} \"{}\": allow", rule.member, rule.rule)?;
        }
    }
    Ok(())
}

fn file_status(file: &TrustedFile) -> String {
    // An agent's settings file is trusted by its risky keys' values, not its bytes.
    let settings = crate::team::agent_settings::is_agent_settings(&file.path)
        .then(|| crate::team::agent_settings::risky_file(&file.path))
        .flatten();
    let read = match settings {
        Some(risky) => Ok(risky.trusted_form),
        None => std::fs::read(&file.path),
    };
    match read {
        Ok(bytes) if content_hash(&bytes) == file.sha256 => "trusted".to_owned(),
        Ok(_) => format!(
            "changed since: not applied until `chatmd trust {}` again",
            file.path.display()
        ),
        Err(_) => "missing".to_owned(),
    }
}

fn link_status(link: &TrustedLink) -> String {
    if link.path.symlink_metadata().is_err() {
        return "missing".to_owned();
    }
    match std::fs::canonicalize(&link.path) {
        Ok(now) if now == link.target => "accepted".to_owned(),
        Ok(now) => format!(
            "now leads to {}: not followed until `chatmd trust {}` again",
            now.display(),
            link.path.display()
        ),
        Err(_) => "broken".to_owned(),
    }
}
