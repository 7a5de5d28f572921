//! The `shuttle` binary: `mcp`, `serve`, `desk`, `status`, `stop`, `resume`, `config`,
//! `journal`, `watch`, `doctor` and `setup`. The work is in the library; this file is the
//! command line.

use std::process::ExitCode;

use clap::{Parser, Subcommand};
use desk_core::wire::tools;
use shuttle::{cli, mcp, serve};

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
    Mcp {
        /// Send an image larger than the reply budget ([mcp] reply_budget) as a resource link
        /// the client reads with resources/read, not inline: for clients that cap a tool
        /// result's size
        #[arg(long)]
        image_links: bool,
    },
    /// Run the per-user daemon that owns the desktop
    Serve {
        /// Stay attached and log to stderr instead of the log file
        #[arg(long)]
        foreground: bool,
        /// The display to drive: per-agent (a virtual desktop for each agent, started on its
        /// first call), private (one virtual desktop every agent shares) or inherit (the
        /// DISPLAY it starts with, the person's own); default: [daemon] display in
        /// config.toml, else per-agent
        #[arg(long, value_enum)]
        display: Option<shuttle::config::DisplayMode>,
    },
    /// Run one desk verb: shuttle desk VERB [KEY=VALUE ...] (see shuttle desk --help)
    #[command(disable_help_flag = true)]
    Desk {
        #[arg(trailing_var_arg = true, allow_hyphen_values = true, num_args = 0..)]
        words: Vec<String>,
    },
    /// Show the daemon's state as JSON (exit 1 when none runs)
    Status,
    /// Show an agent's private display live in a window on yours (view only unless --control)
    Watch {
        /// The agent (its id, or the start of it); may be left out when one agent has a display
        agent: Option<String>,
        /// Send your pointer and keys in the window to the agent's display
        #[arg(long)]
        control: bool,
    },
    /// Stop every agent action now, and refuse new ones until `shuttle resume`
    Stop,
    /// Let agents act again after `shuttle stop`
    Resume,
    /// Check every part shuttle relies on, and say how to fix what is not in place
    ///
    /// Exits 0 only when all that the configuration needs is in place. Changes nothing unless
    /// asked with --fix.
    Doctor {
        /// Print the report as JSON
        #[arg(long)]
        json: bool,
        /// Make the repairs the report names (closing the socket's directory, turning
        /// accessibility on), then check again; nothing else is ever changed
        #[arg(long)]
        fix: bool,
    },
    /// Add shuttle to an MCP client's config; with no CLIENT, list which clients have it
    ///
    /// Keeps the rest of each file as it was, comments included. A file that does not parse is
    /// left alone and named with its line.
    Setup {
        /// The clients: claude-code, codex, cursor, vscode, gemini, claude-desktop; gnome, which
        /// installs shuttle's GNOME Shell extension; or kde, which installs the desktop file
        /// that has KWin grant shuttle input and screenshots
        #[arg(value_enum)]
        clients: Vec<shuttle::setup::Target>,
        /// Print the entry instead of writing it
        #[arg(long, conflicts_with = "remove")]
        print: bool,
        /// Take shuttle's entry out again
        #[arg(long)]
        remove: bool,
    },
    /// Check the config file (config.toml; see docs/config.md)
    #[command(subcommand)]
    Config(ConfigCommand),
    /// The input method a KDE seat's KWin starts, which commits the daemon's text (docs/kde.md)
    #[command(hide = true)]
    KwinInputMethod,
    /// Connects the daemon's sockets to KWin, which credits them to this process (docs/kde.md)
    #[command(hide = true)]
    KwinConnect {
        wayland: std::path::PathBuf,
        bus: String,
    },
    /// Show what agents did: the journal, one call per line
    Journal {
        /// Only actions (input to the desktop)
        #[arg(long)]
        acts: bool,
        /// Only calls a safety control refused
        #[arg(long)]
        refused: bool,
        /// Only the last N of those
        #[arg(short = 'n', value_name = "N")]
        last: Option<usize>,
        /// Print the raw NDJSON lines
        #[arg(long)]
        json: bool,
        /// Read this journal file instead of the configured one
        #[arg(long, value_name = "FILE")]
        file: Option<std::path::PathBuf>,
    },
}

#[derive(Subcommand)]
enum ConfigCommand {
    /// Check that a config file loads (default: the one the daemon reads) and print its settings
    Check {
        /// The file to check
        file: Option<std::path::PathBuf>,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Serve {
            foreground,
            display,
        } => serve::run(foreground, display).map(|()| ExitCode::SUCCESS),
        Command::Mcp { image_links } => {
            init_stderr_log();
            runtime()
                .block_on(mcp::run(image_links))
                .map(|()| ExitCode::SUCCESS)
        }
        Command::Desk { words } => runtime().block_on(cli::desk::run(words)),
        Command::Status => runtime().block_on(cli::daemon::call(tools::STATUS)),
        Command::Watch { agent, control } => cli::watch::run(runtime(), agent, control),
        Command::Stop => runtime().block_on(cli::daemon::call(tools::SAFETY_STOP)),
        Command::Resume => runtime().block_on(cli::daemon::call(tools::SAFETY_RESUME)),
        Command::Config(ConfigCommand::Check { file }) => cli::config::check(file),
        Command::KwinInputMethod => {
            shuttle::platform::kwin_input_method().map(|()| ExitCode::SUCCESS)
        }
        Command::KwinConnect { wayland, bus } => {
            shuttle::platform::kwin_connect(&wayland, &bus).map(|()| ExitCode::SUCCESS)
        }
        Command::Doctor { json, fix } => cli::doctor::run(json, fix),
        Command::Setup {
            clients,
            print,
            remove,
        } => {
            let action = match (print, remove) {
                (true, _) => cli::setup::Action::Print,
                (_, true) => cli::setup::Action::Remove,
                _ => cli::setup::Action::Add,
            };
            cli::setup::run(&clients, action)
        }
        Command::Journal {
            acts,
            refused,
            last,
            json,
            file,
        } => cli::journal::show(&cli::journal::Filter {
            acts,
            refused,
            last,
            json,
            file,
        }),
    };
    result.unwrap_or_else(|e| {
        eprintln!("shuttle: {e:#}");
        ExitCode::from(cli::EXIT_FAILED)
    })
}

/// The clients need one thread (the daemon builds its own runtime, after settling its display).
fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
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
