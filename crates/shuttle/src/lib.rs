//! shuttle: computer use for AI agents. The library behind the `shuttle` binary.
//!
//! - [`serve`]: the per-user daemon that owns the desktop, and [`serve::serve`] to run one on
//!   a listener of your own (the tests run it in-process this way).
//! - [`mcp`]: the MCP proxy an agent runs, forwarding to the daemon.
//! - [`cli`]: `shuttle desk VERB` and the person's commands.
//! - [`client`]: the desk wire's client side, shared by `mcp` and `cli`.
//! - [`config`], [`journal`], [`endpoint`], [`logging`]: settings, the record of calls, the
//!   socket and its checks, the daemon's log.
//! - [`plugins`]: the plugin directory's tool plugins and services.
//! - [`platform`]: the one place that names the backend crates.
//! - [`node`]: the pinned Node.js scripts run on, and where it is found.
//! - [`private_memory`]: keeping the daemon's and the proxy's memory from other processes.
//! - [`doctor`] and [`setup`]: checking a machine, and adding shuttle to an agent's MCP client.

pub mod cli;
pub mod client;
pub mod config;
pub mod doctor;
pub mod endpoint;
pub mod journal;
pub mod logging;
pub mod mcp;
pub mod node;
pub mod platform;
pub mod plugins;
pub mod private_memory;
pub mod serve;
pub mod setup;
