//! A member's MCP servers (`[members.X.mcp_servers.NAME]` in a trusted `chatmd.toml`)
//! as configured: the transport (stdio, `http`, `sse`) and what it names. How they are
//! passed to an ACP agent is `agents/acp/mcp.rs`.

/// How chatmd reaches one MCP server, as the member configured it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum McpTransport {
    /// A program the agent starts, with its arguments and variables.
    Stdio {
        command: String,
        args: Vec<String>,
        env: Vec<(String, String)>,
    },
    /// A server at `url` over streamable HTTP.
    Http {
        url: String,
        headers: Vec<(String, String)>,
    },
    /// A server at `url` over server-sent events.
    Sse {
        url: String,
        headers: Vec<(String, String)>,
    },
}

/// One MCP server of a member, by its name in `chatmd.toml`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct McpServer {
    pub name: String,
    pub transport: McpTransport,
}

impl McpServer {
    /// The transport's name: `stdio`, `http`, `sse`.
    pub fn kind(&self) -> &'static str {
        match self.transport {
            McpTransport::Stdio { .. } => "stdio",
            McpTransport::Http { .. } => "http",
            McpTransport::Sse { .. } => "sse",
        }
    }

    /// What it runs or where it is, in one line (`npx -y server`, `https://…`);
    /// variables and headers by name only: their values may be secrets.
    pub fn target(&self) -> String {
        match &self.transport {
            McpTransport::Stdio { command, args, env } => {
                let mut line = std::iter::once(command.as_str())
                    .chain(args.iter().map(String::as_str))
                    .collect::<Vec<_>>()
                    .join(" ");
                if !env.is_empty() {
                    let names: Vec<&str> = env.iter().map(|(name, _)| name.as_str()).collect();
                    line.push_str(&format!(" (env {})", names.join(", ")));
                }
                line
            }
            McpTransport::Http { url, headers } | McpTransport::Sse { url, headers } => {
                let mut line = url.clone();
                if !headers.is_empty() {
                    let names: Vec<&str> = headers.iter().map(|(name, _)| name.as_str()).collect();
                    line.push_str(&format!(" (headers {})", names.join(", ")));
                }
                line
            }
        }
    }
}
