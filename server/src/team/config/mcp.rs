//! `[members.X.mcp_servers.NAME]`: each server checked (a `command`, or a `url` with
//! `type` `http` or `sse`), and the whole table noted as needing trust: a stdio server
//! is a program the agent runs, and an http one gets the agent's tool calls.

use std::collections::BTreeMap;

use toml::Spanned;

use super::check::{Checker, quoted};
use super::raw::RawMcpServer;
use crate::agent_config::{McpServer, McpTransport};
use crate::team::paths::normalize;
use crate::team::trust::TrustKey;

impl Checker<'_> {
    /// A member's `mcp_servers` table: each valid server, in name order.
    pub(super) fn mcp_servers(
        &mut self,
        member: &str,
        table: Spanned<BTreeMap<String, Spanned<RawMcpServer>>>,
    ) -> Vec<McpServer> {
        let span = table.span();
        let mut servers = Vec::new();
        for (name, raw) in table.into_inner() {
            let at = raw.span();
            match self.mcp_transport(raw.into_inner()) {
                Ok(transport) => servers.push(McpServer { name, transport }),
                Err(message) => self.error(at, format!("`mcp_servers.{name}`: {message}")),
            }
        }
        let shown: Vec<String> = servers
            .iter()
            .map(|s| {
                format!(
                    "mcp_servers {} = {} {}",
                    quoted(&s.name),
                    s.kind(),
                    s.target()
                )
            })
            .collect();
        if !shown.is_empty() {
            self.needs_trust(member, TrustKey::McpServers, span, shown);
        }
        servers
    }

    fn mcp_transport(&self, raw: RawMcpServer) -> Result<McpTransport, String> {
        let pairs = |map: Option<BTreeMap<String, String>>| -> Vec<(String, String)> {
            map.unwrap_or_default().into_iter().collect()
        };
        match (raw.command, raw.url) {
            (Some(command), None) => {
                if raw.transport.as_deref().is_some_and(|t| t != "stdio") || raw.headers.is_some() {
                    return Err(
                        "a server with a `command` is a stdio server: it takes `args` and \
                         `env`, not `type` or `headers`"
                            .to_owned(),
                    );
                }
                if command.trim().is_empty() {
                    return Err("`command` is empty".to_owned());
                }
                // A path is the file's own, as a member's `command` is.
                let command = if command.contains('/') {
                    normalize(&self.base.join(&command)).display().to_string()
                } else {
                    command
                };
                Ok(McpTransport::Stdio {
                    command,
                    args: raw.args.unwrap_or_default(),
                    env: pairs(raw.env),
                })
            }
            (None, Some(url)) => {
                if raw.args.is_some() || raw.env.is_some() {
                    return Err(
                        "a server at a `url` takes `type` and `headers`, not `args` or `env`"
                            .to_owned(),
                    );
                }
                let headers = pairs(raw.headers);
                match raw.transport.as_deref().unwrap_or("http") {
                    "http" => Ok(McpTransport::Http { url, headers }),
                    "sse" => Ok(McpTransport::Sse { url, headers }),
                    other => Err(format!(
                        "`type = {}`: a server at a `url` is \"http\" or \"sse\"",
                        quoted(other)
                    )),
                }
            }
            (Some(_), Some(_)) => {
                Err("set `command` (a program) or `url` (a server), not both".to_owned())
            }
            (None, None) => Err(
                "set `command` (a program the agent starts) or `url` (a server at an address)"
                    .to_owned(),
            ),
        }
    }
}
