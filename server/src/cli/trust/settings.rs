//! `chatmd trust MEMBER/.claude/settings.json` (or `.gemini/settings.json`,
//! `.codex/config.toml`): trusts the keys of an agent CLI's own settings that run
//! programs or let it act without asking, as they are now.

use std::io::Write;
use std::path::Path;

use crate::team::agent_settings::risky_file;
use crate::team::trust::UserConfig;

pub(super) fn trust_settings(
    user: &UserConfig,
    file: &Path,
    out: &mut impl Write,
) -> Result<(), (u8, anyhow::Error)> {
    if !file.is_file() {
        return Err((2, anyhow::anyhow!("cannot read {}", file.display())));
    }
    let written = (|| -> anyhow::Result<()> {
        let Some(risky) = risky_file(file) else {
            writeln!(
                out,
                "{} sets no hooks, MCP servers, tool commands or permission modes; nothing to \
                 trust.",
                file.display()
            )?;
            return Ok(());
        };
        writeln!(
            out,
            "{} sets, for the agent CLI to run or follow by itself: {}",
            file.display(),
            risky.keys.join(", ")
        )?;
        if user.load_trust().trusts_file(file, &risky.trusted_form) {
            writeln!(out, "Already trusted, unchanged.")?;
            return Ok(());
        }
        user.trust_file(file, &risky.trusted_form)?;
        writeln!(
            out,
            "Trusted, recorded in {}.\nA change to these keys needs `chatmd trust` again; \
             `chatmd trust --revoke {}` takes it back.",
            user.trust_store().unwrap_or_default().display(),
            file.display()
        )?;
        Ok(())
    })();
    written.map_err(|e| (1, e))
}
