//! `#diagnostics:path`: the problems the editor shows for a file, asked of it with
//! `chatmd/diagnostics` when a message is sent, as one line each for the prompt.

use std::path::Path;

use tower_lsp_server::Client;
use tower_lsp_server::ls_types::*;

use crate::lsp::ext;

/// How long the editor may take to tell a file's diagnostics (`#diagnostics:`).
const DIAGNOSTICS_WAIT: std::time::Duration = std::time::Duration::from_secs(5);

/// One diagnostic as a line of the attachment: `12:5 error: message (source)`, the
/// position 1-based as editors show it.
fn diagnostic_line(d: &Diagnostic) -> String {
    let severity = match d.severity {
        Some(DiagnosticSeverity::ERROR) => "error",
        Some(DiagnosticSeverity::WARNING) => "warning",
        Some(DiagnosticSeverity::INFORMATION) => "info",
        Some(DiagnosticSeverity::HINT) => "hint",
        _ => "problem",
    };
    let source = d
        .source
        .as_deref()
        .map(|s| format!(" ({s})"))
        .unwrap_or_default();
    format!(
        "{}:{} {severity}: {}{source}",
        d.range.start.line + 1,
        d.range.start.character + 1,
        d.message.replace('\n', " ")
    )
}

/// The problems the editor shows for the file at `path`, or `None` when it does not
/// tell (no answer within the wait, an error, `null`).
pub(super) async fn of_file(client: &Client, path: &Path) -> Option<Vec<String>> {
    let uri = Uri::from_file_path(path)?;
    let params = ext::SourceDiagnosticsParams { uri };
    let request = client.send_request::<ext::SourceDiagnostics>(params);
    // An editor without chatmd's extension may never answer an unknown request.
    match tokio::time::timeout(DIAGNOSTICS_WAIT, request).await {
        Ok(Ok(Some(result))) => Some(result.diagnostics.iter().map(diagnostic_line).collect()),
        Ok(Ok(None)) => None,
        Ok(Err(error)) => {
            tracing::debug!("chatmd/diagnostics: {error}");
            None
        }
        Err(_) => None,
    }
}
