//! What an agent tells about itself during a turn, beside its answer: the commands it
//! takes after `/`, the settings its session offers (mode, model, thought level), and
//! that it needs a login. The editor side keeps them per member: completion after `/`,
//! completion of `mode`/`model` in `chatmd.toml`, a diagnostic on the member.

/// One command the agent accepts after `/` (ACP `available_commands_update`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AgentCommand {
    /// Without the `/`.
    pub name: String,
    pub description: String,
    /// What to type after the command, when it takes input.
    pub hint: Option<String>,
}

/// One setting a session offers (an ACP `configOptions` entry, or its legacy `modes` /
/// `models`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigChoice {
    /// The agent's id of the setting (`mode`, `model`, `thought_level`).
    pub id: String,
    pub name: String,
    /// `mode`, `model`, `thought_level`, … when the agent says.
    pub category: Option<String>,
    /// The value in force.
    pub current: Option<String>,
    /// The values it may take, in the agent's order.
    pub values: Vec<ConfigValue>,
}

/// One value a [`ConfigChoice`] may take.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigValue {
    pub value: String,
    pub name: String,
    pub description: Option<String>,
}

/// One way the agent offers to log in (ACP `authMethods`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AuthMethod {
    pub id: String,
    pub name: String,
    pub description: Option<String>,
}
