//! The `mcpServers` of `session/new`, `session/load` and `session/resume`, checked
//! against the ACP schema's `McpServer` (stdio: `name`, `command`, `args`, `env` as
//! `{name, value}` pairs; `type: "http"` or `"sse"`: `name`, `url`, `headers` as
//! pairs), and described one line each for `MOCK-MODE=mcp`, which answers with them
//! (`tool_result="mcp=files stdio mcp-files --root .; docs http https://…"`).

use serde_json::Value;

use super::json::J;
use super::wire::errors;

/// Each server described (`files stdio mcp-files --root . env TOKEN=s3cret`), or the
/// agent's invalid-params error for a list that is not the schema's.
pub fn described(servers: &Value) -> Result<Vec<String>, J> {
    let Some(servers) = servers.as_array() else {
        return Err(errors::invalid_params("mcpServers: Required"));
    };
    servers
        .iter()
        .map(|server| describe(server).ok_or_else(|| invalid(server)))
        .collect()
}

fn invalid(server: &Value) -> J {
    eprintln!("fake-agent: an mcpServers entry that is not the schema's McpServer: {server}");
    errors::invalid_params("mcpServers: Invalid input")
}

fn describe(server: &Value) -> Option<String> {
    let name = server["name"].as_str()?;
    let pairs = |key: &str| -> Option<String> {
        let pairs = server[key].as_array()?;
        let shown: Option<Vec<String>> = pairs
            .iter()
            .map(|p| Some(format!("{}={}", p["name"].as_str()?, p["value"].as_str()?)))
            .collect();
        Some(shown?.join(" "))
    };
    match server.get("type").and_then(Value::as_str) {
        None | Some("stdio") => {
            let command = server["command"].as_str()?;
            let args: Option<Vec<&str>> = server["args"]
                .as_array()?
                .iter()
                .map(Value::as_str)
                .collect();
            let env = pairs("env")?;
            let mut line = format!("{name} stdio {command}");
            for arg in args? {
                line.push(' ');
                line.push_str(arg);
            }
            if !env.is_empty() {
                line.push_str(&format!(" env {env}"));
            }
            Some(line)
        }
        Some(kind @ ("http" | "sse")) => {
            let url = server["url"].as_str()?;
            let headers = pairs("headers")?;
            let mut line = format!("{name} {kind} {url}");
            if !headers.is_empty() {
                line.push_str(&format!(" headers {headers}"));
            }
            Some(line)
        }
        Some(_) => None,
    }
}
