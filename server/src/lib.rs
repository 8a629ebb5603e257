//! chatmd: a language server that treats `.chat.md` Markdown files as conversations
//! between one human and a team of coding agents.
#![deny(clippy::print_stdout)]

pub mod agent_config;
pub mod agents;
pub mod cli;
pub mod conversation;
pub mod document;
pub mod lsp;
pub mod malloc;
pub mod runner;
pub mod team;
pub mod turns;
