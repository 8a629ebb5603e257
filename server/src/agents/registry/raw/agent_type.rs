//! An `agents.toml` entry's `type`: a built-in kind by its name (from the one list of
//! kinds), `command` or `acp`, read with the messages serde gives a derived enum.

use serde::Deserialize;

use super::super::{ACP, COMMAND};
use crate::agents::AgentKind;

/// An entry's `type`: a built-in CLI kind by its name, `command` or `acp`.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum RawType {
    Cli(AgentKind),
    Command,
    Acp,
}

impl<'de> Deserialize<'de> for RawType {
    /// Read as an enum of unit variants, as a derived one is: the same messages for a
    /// value of another type (`wanted string or table`) and for an unknown name.
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_enum("RawType", TYPE_NAMES.as_slice(), TypeVisitor)
    }
}

struct TypeVisitor;

impl<'de> serde::de::Visitor<'de> for TypeVisitor {
    type Value = RawType;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("an agent type")
    }

    fn visit_enum<A: serde::de::EnumAccess<'de>>(self, data: A) -> Result<RawType, A::Error> {
        use serde::de::VariantAccess;
        let (name, variant): (String, _) = data.variant()?;
        variant.unit_variant()?;
        match name.as_str() {
            ACP => Ok(RawType::Acp),
            COMMAND => Ok(RawType::Command),
            other => other
                .parse()
                .map(RawType::Cli)
                .map_err(|_| serde::de::Error::unknown_variant(other, TYPE_NAMES.as_slice())),
        }
    }
}

/// Every `type` an entry can have, as an unknown one's message lists them.
static TYPE_NAMES: std::sync::LazyLock<Vec<&'static str>> = std::sync::LazyLock::new(|| {
    let kinds = AgentKind::ALL.iter().map(|kind| kind.name());
    kinds.chain([COMMAND, ACP]).collect()
});

impl RawType {
    pub(super) fn kind(self) -> Option<AgentKind> {
        match self {
            RawType::Cli(kind) => Some(kind),
            RawType::Command | RawType::Acp => None,
        }
    }

    pub(super) fn name(self) -> &'static str {
        match self {
            RawType::Cli(kind) => kind.name(),
            RawType::Acp => ACP,
            RawType::Command => COMMAND,
        }
    }

    /// The built-in entry of this name, if it is one.
    pub(super) fn builtin(name: &str) -> Option<RawType> {
        if name == ACP {
            return Some(RawType::Acp);
        }
        name.parse::<AgentKind>().ok().map(RawType::Cli)
    }
}
