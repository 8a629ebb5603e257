//! `chatmd trust FILE.chat.md`: trusts the allow rules of a chat's front matter (they
//! answer the agents' requests without asking, so a chat from a repository applies
//! them only once the user said yes to them, there).

use std::io::Write;
use std::path::Path;

use anyhow::{Context, anyhow};

use crate::document::chat::Chat;
use crate::team::trust::{UserConfig, chat_allows};

/// Shows the chat's allow rules and records them as trusted in that chat.
pub(super) fn trust_chat(
    user: &UserConfig,
    file: &Path,
    out: &mut impl Write,
) -> Result<(), (u8, anyhow::Error)> {
    let text = std::fs::read_to_string(file)
        .with_context(|| format!("cannot read {}", file.display()))
        .map_err(|e| (2, e))?;
    let chat = Chat::parse(&text);
    let allows = chat
        .front_matter
        .as_ref()
        .map(chat_allows)
        .unwrap_or_default();
    let written = (|| -> anyhow::Result<()> {
        if allows.is_empty() {
            writeln!(
                out,
                "{} has no allow rules in its front matter; nothing to trust.",
                file.display()
            )?;
            return Ok(());
        }
        writeln!(
            out,
            "{} lets these members act without asking you:",
            file.display()
        )?;
        for allow in &allows {
            writeln!(out, "  {}", allow.shown())?;
        }
        let held = user.load_trust();
        if let Some((store, problem)) = &held.problem {
            return Err(anyhow!("{}: {problem}", store.display()));
        }
        if held
            .held_back(file, chat.front_matter.as_ref().expect("has rules"))
            .is_empty()
        {
            writeln!(out, "Already trusted, unchanged.")?;
            return Ok(());
        }
        user.trust_chat_rules(file, &allows)?;
        writeln!(
            out,
            "Trusted these rules in this chat, recorded in {}.\nA rule added or changed \
             later needs `chatmd trust` again (an \"Always\" you answer in the chat is \
             recorded by chatmd); `chatmd trust --revoke {}` takes them back.",
            user.trust_store().unwrap_or_default().display(),
            file.display()
        )?;
        Ok(())
    })();
    written.map_err(|e| (1, e))
}
