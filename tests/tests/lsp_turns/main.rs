//! Turns from the editor, end to end: commands and code actions over the LSP harness,
//! the fake agents answering, and an editor that answers the server's edits the way
//! VS Code or Neovim do. Every test checks the document's final text byte for byte
//! (times redacted).

#[path = "../seen_support/mod.rs"]
mod seen_support;
mod setup;

mod acp_files;
mod acp_fork;
mod acp_info;
mod acp_render;
mod acp_seen;
mod acp_sessions;
mod agent_output;
mod agent_settings;
mod commands;
mod compare;
mod context;
mod council;
mod drafts;
mod editing;
mod edits;
mod ending;
mod failures;
mod file_end;
mod lifecycle;
mod live_model;
mod permissions;
mod policy;
mod processes;
mod program_rule;
mod questions;
mod queued;
mod reliability;
mod renames;
mod resume;
mod routing;
mod steering;
mod terminals;
mod trust;
mod typing_model;
mod warm;
mod warm_claude;
