//! The command line: `chatmd lsp`, `chatmd members`, `chatmd send`, `chatmd status`,
//! `chatmd trust`, `chatmd init`, `chatmd import`, `--version`, `--help`.
//! Logs go to stderr only: in `lsp` mode stdout carries the protocol.

use std::process::ExitCode;

use clap::{Parser, Subcommand};
use tracing_subscriber::EnvFilter;

mod homes;
mod import;
mod init;
mod members;
mod report;
mod send;
mod status;
mod table;
mod trust;
mod usage;

/// chatmd: conversations with a team of coding agents, in Markdown files.
#[derive(Debug, Parser)]
#[command(name = "chatmd", version, arg_required_else_help = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Serve the Language Server Protocol on stdin/stdout (what an editor starts).
    Lsp,
    /// Make a starter team in a folder: member folders with roles, a first chat,
    /// chatmd.toml and git ignore rules; never overwrites a file.
    Init(init::InitArgs),
    /// Show a team as chatmd sees it: members, agents, role files, workdirs, CLIs and
    /// problems.
    Members(members::MembersArgs),
    /// Run the turns a chat calls for (or ask members with --to), streaming each answer
    /// to the terminal while writing it into the file.
    Send(send::SendArgs),
    /// List what waits for you in every chat under PATH: permission and plan requests,
    /// failed turns, agents' questions, queued messages held back by an error.
    Status(status::StatusArgs),
    /// Trust a workspace chatmd.toml (its command, args, env and home apply only once
    /// trusted) or accept a symlink out of the workspace; --list, --revoke.
    Trust(trust::TrustArgs),
    /// Turn another tool's chat file or a session stored by claude, codex or gemini
    /// into a new .chat.md (never over an existing file).
    Import(import::ImportArgs),
}

/// Runs the command line and returns the process exit code: 0 on success, 2 on bad
/// usage or an unreadable path, 1 when the language server fails or its client exits
/// without `shutdown` first, 128 + the signal's
/// number when SIGINT, SIGTERM or SIGHUP ended `send` or `lsp`.
pub fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(error) => {
            // clap prints help and version to stdout, usage errors to stderr.
            let _ = error.print();
            return ExitCode::from(u8::try_from(error.exit_code()).unwrap_or(2));
        }
    };
    match cli.command {
        Command::Lsp => {
            init_logging("info");
            match crate::lsp::run_stdio() {
                Ok(crate::lsp::Stopped::Exit { after_shutdown }) => {
                    ExitCode::from(u8::from(!after_shutdown))
                }
                Ok(crate::lsp::Stopped::Signal(signal)) => {
                    crate::runner::signals::exit_code(signal)
                }
                Err(error) => {
                    tracing::error!("{error:#}");
                    eprintln!("chatmd lsp: {error:#}");
                    ExitCode::FAILURE
                }
            }
        }
        Command::Init(args) => {
            init_logging("warn");
            init::run(&args)
        }
        Command::Members(args) => {
            init_logging("warn");
            members::run(&args)
        }
        Command::Send(args) => {
            init_logging("warn");
            send::run(&args)
        }
        Command::Status(args) => {
            init_logging("warn");
            status::run(&args)
        }
        Command::Trust(args) => {
            init_logging("warn");
            trust::run(&args)
        }
        Command::Import(args) => {
            init_logging("warn");
            import::run(&args)
        }
    }
}

/// `tracing` to stderr, without colours (editors show stderr as plain text). The filter
/// comes from `CHATMD_LOG`, else `RUST_LOG`, else `default`.
fn init_logging(default: &str) {
    let wanted = std::env::var("CHATMD_LOG")
        .or_else(|_| std::env::var("RUST_LOG"))
        .ok();
    let (filter, invalid) = match wanted.as_deref().map(EnvFilter::try_new) {
        Some(Ok(filter)) => (filter, None),
        Some(Err(error)) => (EnvFilter::new(default), Some(error)),
        None => (EnvFilter::new(default), None),
    };
    let _ = tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .with_env_filter(filter)
        .try_init();
    if let Some(error) = invalid {
        tracing::warn!("ignoring the log filter in CHATMD_LOG/RUST_LOG: {error}");
    }
}

/// How a command that prints its result ends: `Ok` as `success`, a closed pipe
/// (`chatmd members | head`) as success too, any other write error as a failure that
/// names the command.
fn output_written(command: &str, written: std::io::Result<()>, success: ExitCode) -> ExitCode {
    match written {
        Ok(()) => success,
        Err(error) if error.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("chatmd {command}: cannot write the output: {error}");
            ExitCode::FAILURE
        }
    }
}
