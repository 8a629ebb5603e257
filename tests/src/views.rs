//! What a user sees, as text a test can compare: diagnostics as
//! `line:col-line:col severity code message`.

use serde_json::Value;

/// Diagnostics reduced to what a user sees: `line:col-line:col severity code message`
/// (`-` for a diagnostic without a code).
pub fn summarize(diagnostics: &[Value]) -> Vec<String> {
    diagnostics
        .iter()
        .map(|d| {
            let r = &d["range"];
            format!(
                "{}:{}-{}:{} {} {} {}",
                r["start"]["line"],
                r["start"]["character"],
                r["end"]["line"],
                r["end"]["character"],
                d["severity"],
                d["code"].as_str().unwrap_or("-"),
                d["message"].as_str().unwrap_or("")
            )
        })
        .collect()
}
