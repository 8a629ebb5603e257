//! What the server tells the client it can do.

use tower_lsp_server::ls_types::*;

use crate::document::text::PositionEncoding;

/// Picks UTF-8 when the client offers it (cheaper for us), else the mandatory UTF-16.
pub fn negotiate_encoding(params: &InitializeParams) -> PositionEncoding {
    let offered = params
        .capabilities
        .general
        .as_ref()
        .and_then(|g| g.position_encodings.as_ref());
    match offered {
        Some(list) if list.contains(&PositionEncodingKind::UTF8) => PositionEncoding::Utf8,
        _ => PositionEncoding::Utf16,
    }
}

/// The server's capabilities; `pull_diagnostics` when the client pulls diagnostics, so
/// the workspace's waits are offered through `workspace/diagnostic`.
pub fn server_capabilities(
    encoding: PositionEncoding,
    pull_diagnostics: bool,
) -> ServerCapabilities {
    ServerCapabilities {
        diagnostic_provider: pull_diagnostics.then(|| {
            DiagnosticServerCapabilities::Options(DiagnosticOptions {
                identifier: Some(super::waiting::IDENTIFIER.to_string()),
                inter_file_dependencies: false,
                workspace_diagnostics: true,
                work_done_progress_options: WorkDoneProgressOptions::default(),
            })
        }),
        position_encoding: Some(match encoding {
            PositionEncoding::Utf8 => PositionEncodingKind::UTF8,
            PositionEncoding::Utf16 => PositionEncodingKind::UTF16,
        }),
        text_document_sync: Some(TextDocumentSyncCapability::Options(
            TextDocumentSyncOptions {
                open_close: Some(true),
                change: Some(TextDocumentSyncKind::INCREMENTAL),
                ..Default::default()
            },
        )),
        document_symbol_provider: Some(OneOf::Left(true)),
        workspace_symbol_provider: Some(OneOf::Left(true)),
        folding_range_provider: Some(FoldingRangeProviderCapability::Simple(true)),
        completion_provider: Some(CompletionOptions {
            // `/` starts an agent's command, `"` a setting's value in `chatmd.toml`, `#`
            // a context reference and `:` its path (`#file:`).
            trigger_characters: Some(["@", "/", "\"", "#", ":"].map(str::to_owned).to_vec()),
            ..Default::default()
        }),
        hover_provider: Some(HoverProviderCapability::Simple(true)),
        definition_provider: Some(OneOf::Left(true)),
        code_action_provider: Some(CodeActionProviderCapability::Options(CodeActionOptions {
            // Only the kinds the actions carry: the quick fixes (Convert to chatmd
            // format among them). The turn actions (Send, Ask, Retry, ...) have no kind.
            code_action_kinds: Some(vec![CodeActionKind::QUICKFIX]),
            resolve_provider: Some(false),
            ..Default::default()
        })),
        code_lens_provider: Some(CodeLensOptions {
            resolve_provider: Some(false),
        }),
        execute_command_provider: Some(ExecuteCommandOptions {
            commands: super::ext::COMMANDS.map(String::from).to_vec(),
            ..Default::default()
        }),
        // A chat renamed (or its folder) while a member answers: the turn goes on in
        // the renamed document (`port/renamed.rs`).
        workspace: Some(WorkspaceServerCapabilities {
            workspace_folders: None,
            file_operations: Some(WorkspaceFileOperationsServerCapabilities {
                did_rename: Some(renames()),
                will_rename: Some(renames()),
                ..Default::default()
            }),
        }),
        ..Default::default()
    }
}

/// The renames the server is told about: of chats, and of folders (which may hold
/// chats).
fn renames() -> FileOperationRegistrationOptions {
    let pattern = |glob: &str, kind| FileOperationFilter {
        scheme: Some("file".to_string()),
        pattern: FileOperationPattern {
            glob: glob.to_string(),
            matches: Some(kind),
            options: None,
        },
    };
    FileOperationRegistrationOptions {
        filters: vec![
            pattern("**/*.md", FileOperationPatternKind::File),
            pattern("**", FileOperationPatternKind::Folder),
        ],
    }
}

pub fn server_info() -> ServerInfo {
    ServerInfo {
        name: "chatmd".to_string(),
        version: Some(env!("CARGO_PKG_VERSION").to_string()),
    }
}
