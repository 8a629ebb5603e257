//! A member's MCP servers (`[members.X.mcp_servers.NAME]` in a trusted `chatmd.toml`),
//! passed to its ACP agent in `session/new` and `session/resume` as the schema's
//! `McpServer`: stdio (`name`, `command`, `args`, `env`; every agent must take it),
//! `http` and `sse` (`type`, `name`, `url`, `headers`), only where the agent's
//! `initialize` offers that transport (`agentCapabilities.mcpCapabilities`). A server
//! the agent cannot take is left out, and the turn says so.

use serde_json::{Value, json};

use crate::agent_config::{McpServer, McpTransport};

impl McpServer {
    /// The server as ACP's `McpServer` JSON.
    fn to_json(&self) -> Value {
        let pairs = |pairs: &[(String, String)]| -> Vec<Value> {
            pairs
                .iter()
                .map(|(name, value)| json!({"name": name, "value": value}))
                .collect()
        };
        match &self.transport {
            McpTransport::Stdio { command, args, env } => json!({
                "name": self.name, "command": command, "args": args, "env": pairs(env),
            }),
            McpTransport::Http { url, headers } => json!({
                "type": "http", "name": self.name, "url": url, "headers": pairs(headers),
            }),
            McpTransport::Sse { url, headers } => json!({
                "type": "sse", "name": self.name, "url": url, "headers": pairs(headers),
            }),
        }
    }
}

/// The `mcpServers` to send an agent whose `initialize` answered `result`, and a
/// notice for each server left out because the agent does not take its transport.
pub(super) fn offered(
    servers: &[McpServer],
    result: &Value,
    agent: &str,
) -> (Vec<Value>, Vec<String>) {
    let takes = |transport: &str| {
        result
            .pointer(&format!("/agentCapabilities/mcpCapabilities/{transport}"))
            .and_then(Value::as_bool)
            .unwrap_or(false)
    };
    let mut passed = Vec::new();
    let mut skipped = Vec::new();
    for server in servers {
        let kind = server.kind();
        if kind == "stdio" || takes(kind) {
            passed.push(server.to_json());
        } else {
            skipped.push(format!(
                "the MCP server `{}` was not passed: {agent} takes no {kind} MCP servers \
                 (its initialize offers no mcpCapabilities.{kind})",
                server.name
            ));
        }
    }
    (passed, skipped)
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn servers() -> Vec<McpServer> {
        vec![
            McpServer {
                name: "files".into(),
                transport: McpTransport::Stdio {
                    command: "mcp-files".into(),
                    args: vec!["--root".into(), ".".into()],
                    env: vec![("TOKEN".into(), "s3cret".into())],
                },
            },
            McpServer {
                name: "docs".into(),
                transport: McpTransport::Http {
                    url: "https://example.com/mcp".into(),
                    headers: vec![("Authorization".into(), "Bearer x".into())],
                },
            },
            McpServer {
                name: "events".into(),
                transport: McpTransport::Sse {
                    url: "https://example.com/sse".into(),
                    headers: Vec::new(),
                },
            },
        ]
    }

    #[test]
    fn only_the_transports_the_agent_offers_are_passed() {
        let result =
            json!({"agentCapabilities": {"mcpCapabilities": {"http": true, "sse": false}}});
        let (passed, skipped) = offered(&servers(), &result, "gemini");
        assert_eq!(
            passed,
            vec![
                json!({"name": "files", "command": "mcp-files", "args": ["--root", "."],
                       "env": [{"name": "TOKEN", "value": "s3cret"}]}),
                json!({"type": "http", "name": "docs", "url": "https://example.com/mcp",
                       "headers": [{"name": "Authorization", "value": "Bearer x"}]}),
            ]
        );
        assert_eq!(
            skipped,
            vec![
                "the MCP server `events` was not passed: gemini takes no sse MCP servers (its \
                 initialize offers no mcpCapabilities.sse)"
            ]
        );
        let (passed, skipped) = offered(&servers(), &json!({}), "x");
        assert_eq!((passed.len(), skipped.len()), (1, 2));
    }

    #[test]
    fn the_target_names_secrets_without_their_values() {
        let shown: Vec<String> = servers().iter().map(McpServer::target).collect();
        assert_eq!(
            shown,
            [
                "mcp-files --root . (env TOKEN)",
                "https://example.com/mcp (headers Authorization)",
                "https://example.com/sse"
            ]
        );
    }
}
