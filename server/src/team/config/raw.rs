//! The serde shape of `chatmd.toml`: strict (`deny_unknown_fields`) so a typo is an
//! error at its exact place, with `[members.*]` kept in file order.

use std::collections::BTreeMap;
use std::fmt;

use serde::Deserialize;
use serde::de::{Deserializer, MapAccess, Visitor};
use toml::Spanned;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawFile {
    pub(super) human: Option<Spanned<String>>,
    #[serde(default)]
    pub(super) members: RawMembers,
    pub(super) command: Option<Spanned<toml::Value>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawMember {
    pub(super) agent: Option<Spanned<String>>,
    pub(super) instructions: Option<String>,
    pub(super) workdir: Option<Spanned<String>>,
    pub(super) home: Option<Spanned<String>>,
    pub(super) env: Option<Spanned<BTreeMap<String, String>>>,
    pub(super) args: Option<Spanned<Vec<String>>>,
    pub(super) timeout: Option<Spanned<Seconds>>,
    pub(super) idle_timeout: Option<Spanned<Seconds>>,
    pub(super) resume: Option<bool>,
    /// How an ACP agent's thoughts show: `folded` or `hidden`.
    pub(super) thoughts: Option<Spanned<String>>,
    /// The ACP agent of an `agent = "acp"` member, by preset name.
    pub(super) preset: Option<Spanned<String>>,
    /// The program to run instead of the agent kind's; applies once the file is trusted.
    pub(super) command: Option<Spanned<toml::Value>>,
    /// An ACP member's session mode; applies once the file is trusted.
    pub(super) mode: Option<Spanned<String>>,
    /// An ACP member's model.
    pub(super) model: Option<Spanned<String>>,
    /// An ACP member's other config options by id; applies once the file is trusted.
    pub(super) options: Option<Spanned<BTreeMap<String, Spanned<toml::Value>>>>,
    /// Permission rules: `"execute: cargo *" = "allow"`.
    pub(super) permissions: Option<Spanned<BTreeMap<String, Spanned<String>>>>,
    /// An ACP member's MCP servers by name; passed once the file is trusted.
    pub(super) mcp_servers: Option<Spanned<BTreeMap<String, Spanned<RawMcpServer>>>>,
}

/// `[members.X.mcp_servers.NAME]`: a program (`command`, `args`, `env`) or a server at
/// a `url` (`type = "http"`, the default, or `"sse"`, with `headers`).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawMcpServer {
    pub(super) command: Option<String>,
    pub(super) args: Option<Vec<String>>,
    pub(super) env: Option<BTreeMap<String, String>>,
    pub(super) url: Option<String>,
    #[serde(rename = "type")]
    pub(super) transport: Option<String>,
    pub(super) headers: Option<BTreeMap<String, String>>,
}

/// `[members.*]` in file order (a map would sort them).
#[derive(Default)]
pub(super) struct RawMembers(pub(super) Vec<(Spanned<String>, RawMember)>);

impl<'de> Deserialize<'de> for RawMembers {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct MembersVisitor;
        impl<'de> Visitor<'de> for MembersVisitor {
            type Value = RawMembers;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("tables like [members.bob]")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<RawMembers, A::Error> {
                let mut members = Vec::new();
                while let Some(entry) = map.next_entry()? {
                    members.push(entry);
                }
                Ok(RawMembers(members))
            }
        }
        deserializer.deserialize_map(MembersVisitor)
    }
}

/// A duration in seconds: an integer or a float.
pub(super) struct Seconds(pub(super) f64);

impl<'de> Deserialize<'de> for Seconds {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct SecondsVisitor;
        impl Visitor<'_> for SecondsVisitor {
            type Value = Seconds;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a number of seconds, like 600 or 2.5")
            }
            fn visit_i64<E>(self, v: i64) -> Result<Seconds, E> {
                Ok(Seconds(v as f64))
            }
            fn visit_u64<E>(self, v: u64) -> Result<Seconds, E> {
                Ok(Seconds(v as f64))
            }
            fn visit_f64<E>(self, v: f64) -> Result<Seconds, E> {
                Ok(Seconds(v))
            }
        }
        deserializer.deserialize_any(SecondsVisitor)
    }
}
