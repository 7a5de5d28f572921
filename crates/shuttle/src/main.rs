//! The `shuttle` binary: `mcp`, `serve`, `desk` and `status`.

mod cli;
mod client;
mod endpoint;
mod logging;
mod mcp;
mod serve;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Computer use for AI agents: read and drive the desktop over MCP or from a shell.
#[derive(Parser)]
#[command(name = "shuttle", version)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Serve MCP on stdin/stdout for an agent; starts the daemon on the first call if none runs
    Mcp,
    /// Run the per-user daemon that owns the desktop
    Serve {
        /// Stay attached and log to stderr instead of the log file
        #[arg(long)]
        foreground: bool,
    },
    /// Run one desk verb: shuttle desk VERB [KEY=VALUE ...] (see shuttle desk --help)
    #[command(disable_help_flag = true)]
    Desk {
        #[arg(trailing_var_arg = true, allow_hyphen_values = true, num_args = 0..)]
        words: Vec<String>,
    },
    /// Show the daemon's state as JSON (exit 1 when none runs)
    Status,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Serve { foreground } => runtime(true)
            .block_on(serve::run(foreground))
            .map(|()| ExitCode::SUCCESS),
        Command::Mcp => {
            init_stderr_log();
            runtime(false)
                .block_on(mcp::run())
                .map(|()| ExitCode::SUCCESS)
        }
        Command::Desk { words } => runtime(false).block_on(cli::desk::run(words)),
        Command::Status => runtime(false).block_on(cli::status::run()),
    };
    result.unwrap_or_else(|e| {
        eprintln!("shuttle: {e:#}");
        ExitCode::from(cli::EXIT_FAILED)
    })
}

/// The daemon gets worker threads for concurrent reads; the clients need one thread.
fn runtime(multi_thread: bool) -> tokio::runtime::Runtime {
    let mut builder = if multi_thread {
        tokio::runtime::Builder::new_multi_thread()
    } else {
        tokio::runtime::Builder::new_current_thread()
    };
    builder
        .enable_all()
        .build()
        .expect("the tokio runtime starts")
}

/// `shuttle mcp` owns stdout for the protocol, so its diagnostics go to stderr.
fn init_stderr_log() {
    let filter = tracing_subscriber::EnvFilter::try_from_env("SHUTTLE_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .init();
}
