//! The runner's fault matrix and kill paths again, with every agent started through
//! the agent guard (`chatmd __agent-guard`), as the `chatmd` binary starts them. The
//! guard must not show: the same output, exit codes, signals, timeouts and kill paths,
//! and no process left behind.

// Each included file brings its own copy of the shared helpers, on purpose: the files
// stay runnable on their own.
#![allow(clippy::duplicate_mod)]

#[path = "runner.rs"]
mod plain;

#[path = "runner_kill.rs"]
mod kill;
