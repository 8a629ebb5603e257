//! Recognises the role marker lines of each foreign format (`# %% user`, `💬:`,
//! `>>> user`, `<|user|>`, ...) and what they carry: role, label and message text.

use super::ForeignFormat;

/// Which side of the conversation a role belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Side {
    Human,
    Agent,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    System,
    User,
    Assistant,
    /// chat.md `# %% settings`: options, kept in the preamble.
    Settings,
    /// Any other role, with its side.
    Other(&'static str, Side),
}

/// A role marker line.
#[derive(Debug, Clone, Copy)]
pub(super) struct Marker<'a> {
    pub(super) kind: Kind,
    /// Text after the role on the marker line that is not message text (gp.nvim
    /// `[Agent]`, vim-ai): kept on the chatmd heading.
    pub(super) label: &'a str,
    /// Text on the marker line that is message text (gp.nvim, lsp-ai).
    pub(super) content: &'a str,
}

const GP_USER: &str = "💬:";
const GP_USER_LEGACY: &str = "🗨:";
const GP_ASSISTANT: &str = "🤖:";

pub(super) fn classify(line: &str, format: ForeignFormat) -> Option<Marker<'_>> {
    match format {
        ForeignFormat::PercentCells => percent_marker(line),
        ForeignFormat::GpNvim => gp_marker(line),
        ForeignFormat::VimAi => vim_marker(line),
        ForeignFormat::LspAi => lsp_marker(line),
    }
}

/// The marker of any format on `line`, dispatched on its first byte.
pub(super) fn classify_any(line: &str) -> Option<(ForeignFormat, Marker<'_>)> {
    match *line.as_bytes().first()? {
        b'#' => percent_marker(line).map(|m| (ForeignFormat::PercentCells, m)),
        0xF0 => gp_marker(line).map(|m| (ForeignFormat::GpNvim, m)),
        b'>' => vim_marker(line).map(|m| (ForeignFormat::VimAi, m)),
        b'<' => vim_marker(line)
            .map(|m| (ForeignFormat::VimAi, m))
            .or_else(|| lsp_marker(line).map(|m| (ForeignFormat::LspAi, m))),
        _ => None,
    }
}

/// `# %% role`, exactly as rusiaaman/chat.md splits a file (`src/parser.ts`,
/// `/^# %% (user|assistant|system|tool_execute|settings)\s*$/im`): one `#`, one space,
/// `%%`, one space, the role (any case), then only whitespace. `#%% user` or
/// `#  %% user` are text to that tool, so they are text here too.
fn percent_marker(line: &str) -> Option<Marker<'_>> {
    let word = line.strip_prefix("# %% ")?.trim_end();
    let kind = if word.eq_ignore_ascii_case("user") {
        Kind::User
    } else if word.eq_ignore_ascii_case("assistant") {
        Kind::Assistant
    } else if word.eq_ignore_ascii_case("system") {
        Kind::System
    } else if word.eq_ignore_ascii_case("tool_execute") {
        Kind::Other("tool_execute", Side::Agent)
    } else if word.eq_ignore_ascii_case("settings") {
        Kind::Settings
    } else {
        return None;
    };
    Some(Marker {
        kind,
        label: "",
        content: "",
    })
}

/// `💬: text`, `🗨: text`, `🤖:[Agent] text`.
fn gp_marker(line: &str) -> Option<Marker<'_>> {
    if let Some(rest) = line
        .strip_prefix(GP_USER)
        .or_else(|| line.strip_prefix(GP_USER_LEGACY))
    {
        return Some(Marker {
            kind: Kind::User,
            label: "",
            content: rest.trim(),
        });
    }
    let rest = line.strip_prefix(GP_ASSISTANT)?.trim_start();
    let (label, content) = match rest.find(']') {
        Some(i) if rest.starts_with('[') => (&rest[..=i], rest[i + 1..].trim()),
        _ => ("", rest.trim()),
    };
    Some(Marker {
        kind: Kind::Assistant,
        label,
        content,
    })
}

/// `>>> role` / `<<< role`, the role followed by the end of the line or whitespace.
fn vim_marker(line: &str) -> Option<Marker<'_>> {
    let (side, rest) = if let Some(rest) = line.strip_prefix(">>> ") {
        (Side::Human, rest)
    } else {
        (Side::Agent, line.strip_prefix("<<< ")?)
    };
    let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
    let (word, tail) = rest.split_at(end);
    let kind = match (side, word) {
        (Side::Human, "user") => Kind::User,
        (Side::Human, "system") => Kind::System,
        (Side::Human, "include") => Kind::Other("include", side),
        (Side::Human, "exec") => Kind::Other("exec", side),
        (Side::Agent, "assistant") => Kind::Assistant,
        (Side::Agent, "thinking") => Kind::Other("thinking", side),
        (Side::Agent, "tool_call") => Kind::Other("tool_call", side),
        (Side::Agent, "tool_response") => Kind::Other("tool_response", side),
        (Side::Agent, "info") => Kind::Other("info", side),
        _ => return None,
    };
    Some(Marker {
        kind,
        label: tail.trim(),
        content: "",
    })
}

/// `<|user|> text` / `<|assistant|> text`.
fn lsp_marker(line: &str) -> Option<Marker<'_>> {
    let (kind, rest) = if let Some(rest) = line.strip_prefix("<|user|>") {
        (Kind::User, rest)
    } else {
        (Kind::Assistant, line.strip_prefix("<|assistant|>")?)
    };
    Some(Marker {
        kind,
        label: "",
        content: rest.trim(),
    })
}
